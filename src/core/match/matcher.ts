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
 * | a function `(subject, input, { metadata, detail }) => boolean` | whatever it returns                     |
 * | `{ stepType: "tool" }` or a list          | the run's step type (read once the run has ended)            |
 * | `{ metadata: { key: value } }`            | the run's metadata has those values (see `metadata.ts`)      |
 * | `{ all: [m…] }`, `{ any: [m…] }`, `{ not: m }` | and, or, not over any of these, nested                  |
 * | a `Matcher` from `compileMatcher`         | itself (to give a matcher options)                           |
 */
import { RegistrationError } from "../errors.ts";
import { allOf, anyOf, notOf } from "./composite.ts";
import { compileCondition, SHELL_TOOLS, shellMatcherTest } from "./condition.ts";
import { readDetail, UNREADABLE_DETAIL } from "./detail.ts";
import { compileLinearRegExp, type LinearRegExp } from "./linear-regexp.ts";
import { compileMetadata, metadataMatches } from "./metadata.ts";
import { pathSettings } from "./path-rule.ts";
import { compileStepTypes } from "./step-type.ts";
import { coveredTools } from "./tool-families.ts";
import type { MatchContext, Matcher, MatchOptions } from "./types.ts";

/** Longest accepted pattern: longer ones are refused at registration (bounds compile and match cost). */
export const MAX_PATTERN_LENGTH = 1024;

/** What this grammar reads as a name or a list of names (split on `|` and `,`), as Claude Code's `matcher` does. */
export const namesOnly = /^[A-Za-z0-9_\- |,]*$/;
const rule = /^([A-Za-z0-9_-]+)\((.*)\)$/s;
/** The shape this grammar reads as a condition, `Name(...)` (or refuses, `A|B(...)`): a RegExp of that shape must be written otherwise. */
export const conditionShape = /^[A-Za-z0-9_\- |,]+\(.*\)$/s;
/** `Bash (rm *)`: one tool's condition with blanks before its parenthesis. */
const spacedCondition = /^([A-Za-z0-9_-]+)\s+\((.*)\)$/s;
/** `Bash(rm *`: one tool's condition whose parenthesis is never closed (a RegExp cannot have that either). */
const unclosedCondition = /^([A-Za-z0-9_-]+)\s*\(([^)]*)$/s;

/**
 * Compile a `match` spec; throws `RegistrationError(hook, field, …)` when it is invalid, `field` being
 * `match` or the path of the bad part inside a match object (`match.any[1].metadata.env`).
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
export const compileMatcher = (spec: unknown, hook: string, options?: MatchOptions): Matcher =>
  compileAt(spec, hook, options, "match", 0, undefined);

/** The point a hook's match is compiled for: whether it has a step type to match. */
export interface MatchPoint {
  readonly name: string;
  readonly hasStepType: boolean;
}

/**
 * `compileMatcher` for a hook registered on `point`: a `{ stepType }` anywhere in the match is refused
 * (naming its path) when the point has no step type.
 *
 * @example
 * compileHookMatch({ stepType: "tool" }, "count-tools", { name: "step", hasStepType: true }).needsOutcome // true
 */
export const compileHookMatch = (spec: unknown, hook: string, point: MatchPoint): Matcher =>
  compileAt(spec, hook, undefined, "match", 0, point);

/** Deepest nesting of `all`/`any`/`not` accepted (bounds compile and match cost, and the stack). */
export const MAX_MATCH_DEPTH = 32;

/** `compileMatcher` for the matcher at `field` (`match`, `match.any[1]`, …), `depth` composites deep. */
const compileAt = (
  spec: unknown,
  hook: string,
  options: MatchOptions | undefined,
  field: string,
  depth: number,
  point: MatchPoint | undefined,
): Matcher => {
  const fail = (problem: string): never => {
    throw new RegistrationError(hook, field, problem);
  };
  if (spec === undefined) return depth === 0 ? all("*") : fail('is undefined; give a match ("*" matches everything)');
  if (typeof spec === "object" && spec !== null && compiled.has(spec as Matcher)) return spec as Matcher;
  if (typeof spec === "function") return fromFunction(spec as MatchFn);
  if (spec instanceof RegExp)
    return fail(`is a RegExp object; give its pattern as a string ("${spec.source}"), which is read as a RegExp without flags`);
  if (typeof spec === "object" && spec !== null && !Array.isArray(spec))
    return compileObject(spec as Record<string, unknown>, hook, options, field, depth, point);
  if (typeof spec !== "string")
    return fail(
      `must be a string, a function or a match object ({ all }, { any }, { not }, { stepType }, { metadata }), got ${spec === null ? "null" : Array.isArray(spec) ? "a list (wrap it: { any: [...] })" : typeof spec}`,
    );
  if (spec.length > MAX_PATTERN_LENGTH) return fail(`is ${spec.length} characters long; the limit is ${MAX_PATTERN_LENGTH}`);
  if (spec === "" || spec === "*") return all(spec);
  if (namesOnly.test(spec)) {
    const names = spec
      .split(/[|,]/)
      .map((n) => n.trim())
      .filter((n) => n !== "");
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
  // Slips in writing one condition, said as the condition meant rather than as a list of tools or a bad RegExp.
  const spaced = spacedCondition.exec(spec);
  if (spaced !== null) return fail(`"${spec}" has a blank between the tool name and "("; write "${spaced[1]}(${spaced[2]})"`);
  const unclosed = unclosedCondition.exec(spec);
  if (unclosed !== null) return fail(`"${spec}" has no closing parenthesis; write "${unclosed[1]}(${unclosed[2]})"`);
  if (conditionShape.test(spec)) {
    return fail(
      `"${spec}" names several tools in one condition; like Claude Code's "if", a condition names one tool (register one hook per tool; Edit(…) already covers Write, MultiEdit and NotebookEdit, and Read(…) covers Grep, Glob, LS and NotebookRead)`,
    );
  }
  if (listsConditions(spec)) {
    const items = topLevelItems(spec).map((item) => JSON.stringify(item.trim()));
    return fail(
      `"${spec}" lists a condition among other matches, which would be read as one regular expression that never matches the condition; give each its own item: { any: [${items.join(", ")}] }`,
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

/**
 * Whether `spec` is a `|` or `,` list, outside parentheses, one of whose items is a `Name(pattern)`
 * condition: `Bash(git push*)|Write` is meant as two matches, not as the RegExp it would be read as.
 *
 * @example
 * listsConditions("Bash(git push*)|Write") // true
 * listsConditions("mcp__(github|gitlab)__.*") // false
 */
export const listsConditions = (spec: string): boolean => {
  const items = topLevelItems(spec);
  return items.length > 1 && items.some((item) => rule.test(item.trim()));
};

/** `spec` split on `|` and `,` outside parentheses and character classes, escapes kept. */
const topLevelItems = (spec: string): string[] => {
  const items: string[] = [];
  let depth = 0;
  let inClass = false;
  let start = 0;
  for (let i = 0; i < spec.length; i++) {
    const c = spec[i];
    if (c === "\\") i++;
    else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")") depth = Math.max(0, depth - 1);
    else if ((c === "|" || c === ",") && depth === 0) {
      items.push(spec.slice(start, i));
      start = i + 1;
    }
  }
  items.push(spec.slice(start));
  return items;
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

type MatchFn = (subject: string | undefined, input: unknown, context: MatchContext) => unknown;

/** What a function matcher gets as its third argument: the detail is computed only if read. */
class FunctionContext implements MatchContext {
  constructor(
    readonly metadata: Readonly<Record<string, unknown>>,
    private readonly readDetail: () => string | undefined,
  ) {}

  get detail(): string | undefined {
    return this.readDetail();
  }
}

const noMetadata: Readonly<Record<string, unknown>> = Object.freeze({});

const fromFunction = (fn: MatchFn): Matcher =>
  freeze({
    source: `function ${fn.name || "(anonymous)"}`,
    all: false,
    needsInput: true,
    needsSubject: false,
    matchSubject: () => true,
    test: (s, input, detail, metadata) => {
      const result = fn(s, input, new FunctionContext(metadata ?? noMetadata, detail));
      if (typeof result === "boolean") return result;
      const got = typeof (result as { then?: unknown } | null)?.then === "function" ? "a Promise" : typeof result;
      throw new TypeError(`match function ${fn.name || "(anonymous)"} returned ${got}; it must return a boolean synchronously`);
    },
  });

/** The keys of the object forms, for error messages. */
const objectForms = ["all", "any", "not", "stepType", "metadata"];

/**
 * An object `match`: one of the object forms, or a `Matcher` built by hand (checked, then used as it
 * is). Each form has exactly one key; errors name the path of the bad part (`match.any[1].metadata.env`).
 */
const compileObject = (
  spec: Record<string, unknown>,
  hook: string,
  options: MatchOptions | undefined,
  field: string,
  depth: number,
  point: MatchPoint | undefined,
): Matcher => {
  const failAt = (path: string, problem: string): never => {
    throw new RegistrationError(hook, path === "" ? field : `${field}.${path}`, problem);
  };
  if (typeof spec.test === "function" && typeof spec.matchSubject === "function") return handMade(spec, failAt);
  const keys = Object.keys(spec);
  if (keys.length !== 1) {
    const unknown = keys.find((k) => !objectForms.includes(k));
    if (unknown !== undefined) return failAt(pathKey(unknown), `is not a match form (expected one of ${objectForms.join(", ")})`);
    return failAt(
      "",
      keys.length === 0
        ? `is an empty object; give one of ${objectForms.join(", ")} (or omit match to match everything)`
        : `has ${keys.join(" and ")}; a match object has exactly one of ${objectForms.join(", ")} (combine them with { all: [...] })`,
    );
  }
  const key = keys[0]!;
  const value = spec[key];
  const source = describeSource(spec);
  switch (key) {
    case "metadata": {
      const rules = compileMetadata(value, failAt);
      return freeze({
        source,
        all: false,
        needsInput: true,
        needsSubject: false,
        matchSubject: () => true,
        test: (_s, _input, _detail, metadata) => metadataMatches(rules, metadata),
      });
    }
    case "stepType": {
      const types = compileStepTypes(value, failAt);
      if (point !== undefined && !point.hasStepType)
        return failAt(
          "stepType",
          `needs a point with a step type, and point "${point.name}" has none (a point gets one from its stepType option; the agent's step point has one)`,
        );
      return freeze({
        source,
        all: false,
        needsInput: true,
        needsSubject: false,
        needsOutcome: true,
        matchSubject: () => true,
        test: (_s, _input, _detail, _metadata, stepType) => {
          const type = stepType?.();
          return type !== undefined && types.has(type);
        },
      });
    }
    case "not": {
      if (depth >= MAX_MATCH_DEPTH) return failAt("not", `nests composites more than ${MAX_MATCH_DEPTH} deep`);
      return settle(notOf(source, compileAt(value, hook, options, `${field}.not`, depth + 1, point)));
    }
    case "all":
    case "any": {
      if (!Array.isArray(value)) return failAt(key, `must be a list of matches, got ${value === null ? "null" : typeof value}`);
      if (value.length === 0)
        return failAt(key, `is an empty list; ${key === "all" ? "omit match to match everything" : "give at least one match"}`);
      if (depth >= MAX_MATCH_DEPTH) return failAt(key, `nests composites more than ${MAX_MATCH_DEPTH} deep`);
      const parts = value.map((m, i) => compileAt(m, hook, options, `${field}.${key}[${i}]`, depth + 1, point));
      return settle((key === "all" ? allOf : anyOf)(source, parts));
    }
    default:
      return failAt(pathKey(key), `is not a match form (expected one of ${objectForms.join(", ")})`);
  }
};

const pathKey = (key: string): string => (/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key));

/** A composite that matches everything (`{ any: ["*", …] }`) is match-all: no per-run test for it. */
const settle = (m: Matcher): Matcher => (m.all ? all(m.source) : freeze(m));

/** A match object as written, for traces and `explain` (functions by name). */
const describeSource = (spec: unknown): string => {
  try {
    const text = JSON.stringify(spec, (_k, v: unknown) =>
      typeof v === "function"
        ? `function ${(v as { name?: string }).name || "(anonymous)"}`
        : compiled.has(v as Matcher)
          ? (v as Matcher).source
          : v,
    );
    return text.length > MAX_PATTERN_LENGTH ? `${text.slice(0, MAX_PATTERN_LENGTH)}…` : text;
  } catch {
    return "(match object)";
  }
};

/** A `Matcher` written by hand: its fields are checked, and it is used as it is. */
const handMade = (spec: Record<string, unknown>, failAt: (path: string, problem: string) => never): Matcher => {
  if (typeof spec.source !== "string") return failAt("source", "must be a string (a Matcher's pattern as written)");
  for (const flag of ["all", "needsInput", "needsSubject"] as const)
    if (typeof spec[flag] !== "boolean") return failAt(flag, `must be a boolean (a Matcher's ${flag}), got ${typeof spec[flag]}`);
  if (spec.needsOutcome !== undefined && typeof spec.needsOutcome !== "boolean")
    return failAt("needsOutcome", `must be a boolean, got ${typeof spec.needsOutcome}`);
  return spec as unknown as Matcher;
};
