/**
 * User-supplied regular expressions (hook `match` strings, settings matchers) run in linear time.
 * The pattern is read as JavaScript reads it (`new RegExp(source)`, no flags, as Claude Code
 * evaluates matchers), parsed into a syntax tree by `@eslint-community/regexpp` (ESLint's
 * ECMAScript regular expression parser), written out again in RE2 syntax with every character,
 * class and set spelled out so that it means exactly what JavaScript would make of it, and run by
 * `re2js`, a pure JavaScript port of RE2, whose matching time is linear in the subject. What RE2
 * cannot do in linear time (back-references, lookahead, lookbehind) is refused at registration with
 * a message saying how to rewrite it.
 *
 * Both libraries are loaded on the first compile: re2js costs about 30 ms to import, which
 * `import "agent-onion"` must not pay when no hook uses a RegExp.
 */
import type { AST } from "@eslint-community/regexpp";
import { createRequire } from "node:module";

/** A compiled pattern: `test` finds a match anywhere in the text, like `RegExp.prototype.test`. */
export interface LinearRegExp {
  /** The pattern as the user wrote it. */
  readonly source: string;
  test(text: string): boolean;
}

/** Why a pattern is refused; the message completes a sentence about the pattern ("is not a valid regular expression: …"). */
export class RegExpRefusedError extends Error {
  override name = "RegExpRefusedError";
}

/** RE2's largest repeat count (`{n,m}` with n or m above it does not compile there). */
export const MAX_REPEAT = 1000;

/**
 * The largest program (re2js's `programSize`, about one instruction per character matched) a
 * pattern may compile to. RE2's time is linear in the subject but also grows with the program:
 * `(?:.*a){330}` (992 instructions) takes about 50 ms on 10,000 characters, `(?:.*a){200}` (602)
 * about 15 to 30 ms. A 1,024-character pattern (the length limit) of literal names stays under it.
 */
export const MAX_PROGRAM = 600;

interface Engines {
  readonly RegExpParser: typeof import("@eslint-community/regexpp").RegExpParser;
  readonly RE2JS: typeof import("re2js").RE2JS;
}

// A require made when a dependency is first loaded, not at import: createRequire costs a little
// in every process that imports this file, and most never load the dependency.
const require = (id: string): unknown => createRequire(import.meta.url)(id);
let engines: Engines | undefined;
const load = (): Engines =>
  (engines ??= {
    RegExpParser: (require("@eslint-community/regexpp") as typeof import("@eslint-community/regexpp")).RegExpParser,
    RE2JS: (require("re2js") as typeof import("re2js")).RE2JS,
  });

/**
 * Compile `source` as JavaScript reads it into a linear-time matcher; throws `RegExpRefusedError`
 * when it is not a valid JavaScript pattern, uses what no linear-time engine can run, or compiles to
 * more than `maxProgram` instructions (default `MAX_PROGRAM`).
 *
 * @example
 * compileLinearRegExp("^(a+)+$").test("a".repeat(10_000) + "!") // false, in about a millisecond
 * compileLinearRegExp("mcp__.*__write.*").test("mcp__fs__write_file") // true
 */
export const compileLinearRegExp = (source: string, maxProgram: number = MAX_PROGRAM): LinearRegExp => {
  const compiled = compileRe2(source, "", maxProgram);
  return Object.freeze({ source, test: (text: string) => compiled.test(text) });
};

/** A compiled pattern that finds where it matches: `find` is `RegExp.prototype.exec` from a place, in linear time. */
export interface LinearSearch {
  /** The pattern as the user wrote it. */
  readonly source: string;
  /** Its flags, as given. */
  readonly flags: string;
  /** The first match starting at or after `from`, as UTF-16 offsets `[start, end)`; undefined when there is none. */
  find(text: string, from: number): readonly [start: number, end: number] | undefined;
}

/**
 * Compile a JavaScript regular expression with its flags into a linear-time search, or throw
 * `RegExpRefusedError` (see `compileLinearRegExp`). The flags `g` and `d` change nothing here; `i`,
 * `m` and `s` are read as RE2 reads them (`m`: `^` and `$` at `\n` only, not at `\r`, U+2028 or
 * U+2029; `i`: Unicode simple case folding), `u` as JavaScript reads it (property escapes are
 * worked out from the engine's own tables); `v` and `y` are refused.
 *
 * @example
 * const ticket = compileLinearSearch("TCK-\\d{6}", "g");
 * ticket.find("see TCK-123456", 0) // [4, 14]
 */
export const compileLinearSearch = (source: string, flags = "", maxProgram: number = MAX_PROGRAM): LinearSearch => {
  const compiled = compileRe2(source, flags, maxProgram);
  return Object.freeze({
    source,
    flags,
    find: (text: string, from: number): readonly [number, number] | undefined => {
      if (from > text.length) return undefined;
      const m = compiled.matcher(text);
      return m.find(from) ? [m.start(), m.end()] : undefined;
    },
  });
};

const compileRe2 = (source: string, flags: string, maxProgram: number): InstanceType<Engines["RE2JS"]> => {
  const refused = flags.replace(/[gdimsu]/g, "");
  if (refused !== "")
    throw new RegExpRefusedError(
      `has the flag${refused.length > 1 ? "s" : ""} ${refused}, which the linear-time engine does not read; only g, d, i, m, s and u are`,
    );
  const unicode = flags.includes("u");
  try {
    new RegExp(source, flags);
  } catch (error) {
    throw new RegExpRefusedError(`is not a valid regular expression: ${error instanceof Error ? error.message : String(error)}`);
  }
  const { RegExpParser, RE2JS } = load();
  let pattern: AST.Pattern;
  try {
    pattern = new RegExpParser({ ecmaVersion: 2024, strict: false }).parsePattern(source, 0, source.length, {
      unicode,
      unicodeSets: false,
    });
  } catch (error) {
    throw new RegExpRefusedError(
      `cannot be read as a JavaScript regular expression: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const modes = `${flags.includes("i") ? "i" : ""}${flags.includes("m") ? "m" : ""}`;
  const re2 = `${modes === "" ? "" : `(?${modes})`}${toRe2(pattern, flags.includes("s"))}`;
  let compiled: InstanceType<typeof RE2JS>;
  try {
    compiled = RE2JS.compile(re2);
  } catch (error) {
    throw new RegExpRefusedError(`cannot run in linear time: ${error instanceof Error ? error.message : String(error)}`);
  }
  const size = compiled.programSize();
  if (size > maxProgram)
    throw new RegExpRefusedError(
      `compiles to ${size} instructions, over the limit of ${maxProgram} that keeps a match within milliseconds on long subjects; use smaller repeat counts, a names list ("A|B|C"), or several hooks`,
    );
  return compiled;
};

const hex = (code: number): string => `\\x{${code.toString(16)}}`;
const highSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const lowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

type Range = readonly [number, number];
const MAX = 0x10ffff;
const digit: Range[] = [[0x30, 0x39]];
const word: Range[] = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
// JavaScript's \s: WhiteSpace and LineTerminator of ECMA-262.
const space: Range[] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
// JavaScript's `.` without the s flag: anything but a line terminator.
const lineTerminators: Range[] = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];

const complement = (ranges: readonly Range[]): Range[] => {
  const out: Range[] = [];
  let next = 0;
  for (const [lo, hi] of [...ranges].sort((a, b) => a[0] - b[0])) {
    if (lo > next) out.push([next, lo - 1]);
    next = Math.max(next, hi + 1);
  }
  if (next <= MAX) out.push([next, MAX]);
  return out;
};

const rangesText = (ranges: readonly Range[]): string => ranges.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join("");

const classOf = (ranges: readonly Range[]): string => (ranges.length === 0 ? `[^${hex(0)}-${hex(MAX)}]` : `[${rangesText(ranges)}]`);

/**
 * Everything but `ranges`, as a negated class for RE2 to negate: under the i flag RE2 folds case
 * before it negates, as JavaScript does (`/[^a]/i` does not match `A`); a complement spelled out
 * would hold `A` and match it.
 */
const negatedClassOf = (ranges: readonly Range[]): string => (ranges.length === 0 ? classOf([[0, MAX]]) : `[^${rangesText(ranges)}]`);

/** What `\d`, `\w`, `\s` or `.` stands for, not negated. */
const baseRanges = (kind: "any" | "digit" | "word" | "space", dotAll: boolean): Range[] =>
  kind === "any" ? (dotAll ? [[0, MAX]] : complement(lineTerminators)) : kind === "digit" ? digit : kind === "word" ? word : space;

const setRanges = (set: AST.CharacterSet, dotAll = false): Range[] => {
  if (set.kind === "property") return propertyRanges(set.raw);
  const base = baseRanges(set.kind, dotAll);
  return "negate" in set && set.negate ? complement(base) : base;
};

/**
 * The code points of a Unicode property escape (`\p{Extended_Pictographic}`, `\P{L}`), as the
 * JavaScript engine defines it: RE2 knows only some properties, and by other names. Worked out
 * once per escape, by testing every code point (about a tenth of a second).
 */
const propertyRanges = (raw: string): Range[] => {
  let ranges = properties.get(raw);
  if (ranges === undefined) {
    const re = new RegExp(`^${raw}$`, "u");
    ranges = [];
    let lo = -1;
    for (let cp = 0; cp <= MAX + 1; cp++) {
      const inside = cp <= MAX && (cp < 0xd800 || cp > 0xdfff) && re.test(String.fromCodePoint(cp));
      if (inside && lo < 0) lo = cp;
      else if (!inside && lo >= 0) {
        ranges.push([lo, cp - 1]);
        lo = -1;
      }
    }
    properties.set(raw, ranges);
  }
  return ranges;
};
const properties = new Map<string, Range[]>();

const refuse = (node: AST.Node, what: string, how: string): never => {
  throw new RegExpRefusedError(`uses ${what} (${node.raw}), which RE2, the linear-time engine that runs matchers, cannot match; ${how}`);
};

/** `dotAll`: the s flag, under which `.` matches line terminators too. */
const toRe2 = (pattern: AST.Pattern, dotAll = false): string => alternatives(pattern.alternatives, dotAll);

const alternatives = (alts: readonly AST.Alternative[], dotAll: boolean): string => alts.map((alt) => sequence(alt, dotAll)).join("|");

const sequence = (alt: AST.Alternative, dotAll: boolean): string => {
  let out = "";
  const elements = alt.elements;
  for (let i = 0; i < elements.length; i++) {
    const e = elements[i]!;
    const next = elements[i + 1];
    // Without the u flag JavaScript reads an astral character as two code units; RE2 reads code points.
    if (e.type === "Character" && highSurrogate(e.value) && next?.type === "Character" && lowSurrogate(next.value)) {
      out += hex(0x10000 + ((e.value - 0xd800) << 10) + (next.value - 0xdc00));
      i++;
      continue;
    }
    out += element(e, dotAll);
  }
  return out;
};

const element = (e: AST.Element, dotAll: boolean): string => {
  switch (e.type) {
    case "Character":
      if (highSurrogate(e.value) || lowSurrogate(e.value))
        return refuse(
          e,
          "half of a surrogate pair",
          "write the astral character whole, outside brackets and without a quantifier on it alone",
        );
      return hex(e.value);
    case "CharacterSet":
      // \W, \D, \S negated by RE2, so that case folds first (see negatedClassOf).
      if (e.kind !== "any" && e.kind !== "property" && e.negate) return negatedClassOf(baseRanges(e.kind, dotAll));
      return classOf(setRanges(e, dotAll));
    case "CharacterClass":
      return characterClass(e);
    case "Group":
    case "CapturingGroup":
      return `(?:${alternatives(e.alternatives, dotAll)})`;
    case "Quantifier": {
      if (e.min > MAX_REPEAT || (e.max !== Infinity && e.max > MAX_REPEAT))
        throw new RegExpRefusedError(
          `repeats ${e.raw} more than ${MAX_REPEAT} times, over the limit of RE2, the linear-time engine that runs matchers`,
        );
      const count = e.max === Infinity ? `{${e.min},}` : e.min === e.max ? `{${e.min}}` : `{${e.min},${e.max}}`;
      return `${element(e.element, dotAll)}${count}${e.greedy ? "" : "?"}`;
    }
    case "Assertion":
      if (e.kind === "start") return "^";
      if (e.kind === "end") return "$";
      if (e.kind === "word") return e.negate ? "\\B" : "\\b";
      return e.kind === "lookahead"
        ? refuse(e, "a lookahead", "rewrite it without one (test the name with a second hook, or list the names) or use a function matcher")
        : refuse(e, "a lookbehind", "rewrite it without one or use a function matcher");
    case "Backreference":
      return refuse(e, "a back-reference", "repeat the group's text instead, or use a function matcher");
    default:
      return refuse(e, "a construct", "rewrite it or use a function matcher");
  }
};

const characterClass = (c: AST.CharacterClass): string => {
  const ranges: Range[] = [];
  for (const item of c.elements) {
    if (item.type === "Character") ranges.push([item.value, item.value]);
    else if (item.type === "CharacterClassRange") ranges.push([item.min.value, item.max.value]);
    else if (item.type === "CharacterSet") ranges.push(...setRanges(item));
    else refuse(item, "a class operation", "rewrite the class as a list of characters and ranges");
  }
  for (const [lo, hi] of ranges)
    if (lo <= 0xdfff && hi >= 0xd800 && !(lo < 0xd800 && hi > 0xdfff))
      refuse(c, "a surrogate code unit in a class", "list astral characters outside brackets, as an alternation");
  // `[^]` is any character; see negatedClassOf for why RE2 does the negating.
  return c.negate ? negatedClassOf(ranges) : classOf(ranges);
};
