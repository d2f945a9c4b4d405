/**
 * Compiling a hook's `match` (R8) into a `Matcher`, once, at registration. The grammar is Claude
 * Code's `matcher` field with its `if` field folded in:
 *
 * | `match`                                   | means                                                       |
 * |-------------------------------------------|-------------------------------------------------------------|
 * | omitted, `""`, `"*"`                      | every subject                                               |
 * | only letters, digits, `_ - , \|` and space | one exact name, or a list split on `\|` and `,` (trimmed)  |
 * | `Name(pattern)`                           | subject is `Name` (or of its family), and the detail matches |
 * | any other string                          | a JavaScript RegExp, unanchored, as Claude Code evaluates it |
 * | a function `(subject, input) => boolean`  | whatever it returns                                          |
 * | a `Matcher` from `compileMatcher`         | itself (to give a matcher options)                           |
 */
import { RegistrationError } from "../errors.ts";
import { compileCondition, SHELL_TOOLS, shellMatcherTest } from "./condition.ts";
import { readDetail, UNREADABLE_DETAIL } from "./detail.ts";
import { compileLinearRegExp, type LinearRegExp } from "./linear-regexp.ts";
import { pathSettings } from "./path-rule.ts";
import { coveredTools } from "./tool-families.ts";
import type { Matcher, MatchOptions } from "./types.ts";

/** Longest accepted pattern: longer ones are refused at registration (bounds compile and match cost). */
export const MAX_PATTERN_LENGTH = 1024;

/** What this grammar reads as a name or a list of names (split on `|` and `,`), as Claude Code's `matcher` does. */
export const namesOnly = /^[A-Za-z0-9_\- |,]*$/;
const rule = /^([A-Za-z0-9_-]+)\((.*)\)$/s;
/** The shape this grammar reads as a condition, `Name(...)` (or refuses, `A|B(...)`): a RegExp of that shape must be written otherwise. */
export const conditionShape = /^[A-Za-z0-9_\- |,]+\(.*\)$/s;

/**
 * Compile a `match` spec; throws `RegistrationError(hook, "match", …)` when it is invalid.
 *
 * Decisions worth knowing:
 * - A RegExp is unanchored (`RegExp.prototype.test`), exactly as Claude Code's docs say it evaluates
 *   matchers: `Edit.*` also matches `NotebookEdit`; write `^Edit$` for a whole-name match. It is
 *   read with JavaScript's syntax and run in linear time (see `linear-regexp.ts`): back-references
 *   and lookaround are refused here, at registration.
 * - `Read(pattern)` covers every tool that reads files (Read, Grep, Glob, LS, NotebookRead), and
 *   `Edit(pattern)` and `Write(pattern)` every tool that writes them (Edit, Write, MultiEdit,
 *   NotebookEdit), as Claude Code's permission rules do. Paths are normalised before they are
 *   matched (see `path-rule.ts`); `options.paths` says where they are read from.
 * - An undefined subject (a point without one) passes only match-all and function matchers: there is
 *   no name to compare, and a RegExp such as `.*` testing `""` would match by accident.
 * - `Name(pattern)` names exactly one tool, as Claude Code's `if` does; `Edit|Write(src/**)` is refused
 *   (register one hook per tool, or use a function). `Name(*)` is the same as `Name`.
 * - A string of the `Name(…)` shape is always a condition; to use such a RegExp, anchor it (`^Notebook(Edit|Read)$`).
 * - A function must return a boolean synchronously; anything else makes `test` throw, which fails the hook (R6).
 * - A detail that is there but not a string (an array, a number) matches a `Name(pattern)` condition,
 *   as a command that cannot be read does; no detail (`undefined`, `null`) matches none.
 *
 * @example
 * const m = compileMatcher("Bash(rm *)", "no-rm");
 * m.matchSubject("Bash"); // true: the name part passes, the command is checked by `test`
 * m.test("Bash", {}, () => "ls && rm -rf /"); // true: `rm -rf /` is one of the commands
 */
export const compileMatcher = (spec: unknown, hook: string, options?: MatchOptions): Matcher => {
  const fail = (problem: string): never => {
    throw new RegistrationError(hook, "match", problem);
  };
  if (spec === undefined) return all("*");
  if (typeof spec === "object" && spec !== null && compiled.has(spec as Matcher)) return spec as Matcher;
  if (typeof spec === "function") return fromFunction(spec as (subject: string | undefined, input: unknown) => unknown);
  if (typeof spec !== "string") return fail(`must be a string or a function, got ${spec === null ? "null" : typeof spec}`);
  if (spec.length > MAX_PATTERN_LENGTH) return fail(`is ${spec.length} characters long; the limit is ${MAX_PATTERN_LENGTH}`);
  if (spec === "" || spec === "*") return all(spec);
  if (namesOnly.test(spec)) {
    const names = spec.split(/[|,]/).map((n) => n.trim()).filter((n) => n !== "");
    if (names.length === 0) return fail(`"${spec}" names nothing (only separators and spaces); use "*" to match everything`);
    const set = new Set(names);
    return byName(spec, (s) => set.has(s));
  }
  const parts = rule.exec(spec);
  if (parts !== null) {
    const name = parts[1]!;
    const pattern = parts[2]!;
    // A path condition covers the tool's family; shell and `domain:` conditions name one tool.
    const oneTool = SHELL_TOOLS.has(name) || pattern.startsWith("domain:");
    const family = oneTool ? new Set([name]) : coveredTools(name);
    if (pattern.trim() === "*") return byName(spec, (s) => family.has(s));
    if (pattern.trim() === "") return fail(`"${spec}" has an empty condition; write "${name}" to match every call`);
    try {
      if (options?.paths !== undefined) pathSettings(options.paths);
    } catch (error) {
      return fail(`options: ${error instanceof Error ? error.message : String(error)}`);
    }
    try {
      if (SHELL_TOOLS.has(name)) {
        return freeze({
          source: spec,
          all: false,
          needsInput: true,
          needsSubject: true,
          matchSubject: (s) => s === name,
          test: shellMatcherTest(name, pattern),
        });
      }
      const condition = compileCondition(name, pattern, options?.paths);
      return freeze({
        source: spec,
        all: false,
        needsInput: true,
        needsSubject: true,
        matchSubject: (s) => s !== undefined && family.has(s),
        test: (s, input, detail, metadata) => {
          if (oneTool ? s !== name : s === undefined || !family.has(s)) return false;
          const d = readDetail(detail());
          // Only a path condition reads the scope: one call may meet a thousand shell conditions.
          return d === UNREADABLE_DETAIL || condition(d, oneTool ? undefined : { subject: s, input, metadata });
        },
      });
    } catch (error) {
      return fail(`"${spec}" ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (conditionShape.test(spec)) {
    return fail(
      `"${spec}" names several tools in one condition; like Claude Code's "if", a condition names one tool (register one hook per tool; Edit(…) already covers Write, MultiEdit and NotebookEdit, and Read(…) covers Grep, Glob, LS and NotebookRead)`,
    );
  }
  let re: LinearRegExp;
  try {
    re = compileLinearRegExp(spec);
  } catch (error) {
    return fail(`"${spec}" ${error instanceof Error ? error.message : String(error)}`);
  }
  return byName(spec, (s) => re.test(s));
};

// Matchers this module made: `compileMatcher` hands them back as they are, so a matcher compiled with options can be a hook's `match`.
const compiled = new WeakSet<Matcher>();

const freeze = (m: Matcher): Matcher => {
  Object.freeze(m);
  compiled.add(m);
  return m;
};

const all = (source: string): Matcher =>
  freeze({ source, all: true, needsInput: false, needsSubject: false, matchSubject: () => true, test: () => true });

const byName = (source: string, pass: (subject: string) => boolean): Matcher => {
  const matchSubject = (s: string | undefined): boolean => s !== undefined && pass(s);
  return freeze({ source, all: false, needsInput: false, needsSubject: true, matchSubject, test: (s) => matchSubject(s) });
};

const fromFunction = (fn: (subject: string | undefined, input: unknown) => unknown): Matcher =>
  freeze({
    source: `function ${fn.name || "(anonymous)"}`,
    all: false,
    needsInput: true,
    needsSubject: false,
    matchSubject: () => true,
    test: (s, input) => {
      const result = fn(s, input);
      if (typeof result === "boolean") return result;
      const got = typeof (result as { then?: unknown } | null)?.then === "function" ? "a Promise" : typeof result;
      throw new TypeError(`match function ${fn.name || "(anonymous)"} returned ${got}; it must return a boolean synchronously`);
    },
  });
