/**
 * Path globs for file conditions such as `Edit(src/**)` or `Read(*.env)`. Semantics follow
 * picomatch with `{ dot: true, nobrace: true, noextglob: true }` (verified against it by a
 * differential property test), plus the anchoring of Claude Code's permission rules: a pattern
 * with a `/` is matched against the whole path, one without against the last path segment.
 * Matching is segment by segment with `wildcard` (linear), not with picomatch's RegExp, whose
 * backtracking is polynomial in the input for patterns with several stars (picomatch #175).
 * picomatch still compiles each bracket class (`[a-z]`, `[[:digit:]]`), tested one character at a time;
 * it is loaded on the first bracket class, so that importing the package (and every `claude-hook`
 * process) does not pay about 6 ms for a library most patterns never use.
 */
import { createRequire } from "node:module";
import { posix } from "node:path";
import type Picomatch from "picomatch";
import { wildcard } from "./wildcard.ts";

// A require made when a dependency is first loaded, not at import: createRequire costs a little
// in every process that imports this file, and most never load the dependency.
const require = (id: string): unknown => createRequire(import.meta.url)(id);
let picomatch: typeof Picomatch | undefined;

/** picomatch options for bracket classes: dotfiles are ordinary files, braces and extglobs literal, no `!` negation, length capped. */
export const PICOMATCH_OPTIONS = Object.freeze({ dot: true, nobrace: true, noextglob: true, nonegate: true, maxLength: 1024 });

/** The `**` segment: any number of whole path segments, none of them `..`. */
export const GLOBSTAR: unique symbol = Symbol("**");
const STAR = "*";
/** One character of a name: any (`?`), one literal character, or a bracket class. */
interface CharAtom {
  readonly kind: "any" | "char" | "class";
  readonly char?: string;
  readonly test: (char: string) => boolean;
}
type Atom = typeof STAR | CharAtom;
/** A compiled pattern segment: `**`, a literal name, or atoms for one name. */
export type Segment = typeof GLOBSTAR | string | readonly Atom[];

/**
 * Normalise a path before matching: NFC, `\` as `/`, `.` and `..` segments resolved, no trailing `/`.
 *
 * @example
 * normalizePath("src/../.env") // ".env"
 */
export const normalizePath = (path: string): string => {
  const p = posix.normalize(path.normalize("NFC").replaceAll("\\", "/"));
  return p.length > 1 && p.endsWith("/") ? p.slice(0, -1) : p;
};

/**
 * Compile a glob once; the returned function normalises each path and matches it. Paths that climb
 * above their base (`../x`) match only patterns that spell out the same leading `..` segments.
 * Throws (an `Error` naming the problem) when the pattern is empty or a bracket class is invalid.
 *
 * @example
 * compileGlob("src/**")("src/a/b.ts") // true
 * compileGlob("src/**")("src/../.env") // false: the path is ".env"
 * compileGlob("*.ts")("lib/x.ts") // true: no slash in the pattern, so the last segment is matched
 */
export const compileGlob = (pattern: string): ((path: string) => boolean) => {
  let p = pattern.normalize("NFC");
  if (p.startsWith("//")) p = p.slice(1); // Claude Code's `//abs/path` is an absolute path
  const anchored = p.includes("/") || p === "**";
  while (p.startsWith("./")) p = p.slice(2);
  while (p.length > 1 && p.endsWith("/")) p = p.slice(0, -1);
  if (p === "" || p === ".") throw new Error("is an empty path pattern");
  const segments = parseGlob(p);
  if (!anchored) {
    const only = segments[0]!;
    return (path) => {
      const n = normalizePath(path);
      return !n.startsWith("..") && matchSegment(only, n.slice(n.lastIndexOf("/") + 1));
    };
  }
  return (path) => {
    const parts = normalizePath(path).split("/");
    let k = 0;
    for (; parts[k] === ".."; k++) if (segments[k] !== "..") return false;
    return wildcard(segments.slice(k), parts.slice(k), isGlobstar, matchSegment);
  };
};

/**
 * Split a glob on `/` and compile each segment (no anchoring, no normalisation). Throws when a
 * bracket class is invalid.
 *
 * @example
 * parseGlob("src/**\/*.ts").length // 3
 */
export const parseGlob = (pattern: string): Segment[] => pattern.split("/").map(compileSegment);

/**
 * Whether compiled segments match a path's segments (`"/a/b".split("/")`), all of them.
 *
 * @example
 * matchGlob(parseGlob("/etc/**"), "/etc/passwd".split("/")) // true
 */
export const matchGlob = (segments: readonly Segment[], parts: readonly string[]): boolean =>
  wildcard(segments, parts, isGlobstar, matchSegment);

/**
 * The leading segments of a glob that are plain names (no wildcard), as names.
 *
 * @example
 * literalPrefix(parseGlob("/home/u/src/*.ts")) // ["", "home", "u", "src"]
 */
export const literalPrefix = (segments: readonly Segment[]): string[] => {
  const names: string[] = [];
  for (const s of segments) {
    if (typeof s !== "string") break;
    names.push(s);
  }
  return names;
};

/**
 * Whether some path could match both globs (their languages intersect). Over-approximates where two
 * bracket classes meet (assumed to share a character) and for names wildcards never match (`.`,
 * `..`, empty): a deny check built on it may match a little more than exactly, never less.
 * Quadratic in the number of segments and, per pair of segments, in their characters.
 *
 * @example
 * globsOverlap(parseGlob("/p/**\/*.ts"), parseGlob("**\/.env")) // false
 * globsOverlap(parseGlob("/p/**\/*"), parseGlob("**\/.env")) // true
 */
export const globsOverlap = (a: readonly Segment[], b: readonly Segment[]): boolean =>
  reachable(a.length, b.length, (i, j, visit) => {
    const x = a[i];
    const y = b[j];
    if (x === GLOBSTAR) {
      visit(i + 1, j);
      if (y !== undefined && y !== "..") visit(i, j + 1);
    }
    if (y === GLOBSTAR) {
      visit(i, j + 1);
      if (x !== undefined && x !== "..") visit(i + 1, j);
    }
    if (x !== undefined && y !== undefined && x !== GLOBSTAR && y !== GLOBSTAR && segmentsOverlap(x, y)) visit(i + 1, j + 1);
  });

/** Breadth-first search over pairs of positions from (0, 0): whether (m, n) is reachable. */
const reachable = (m: number, n: number, step: (i: number, j: number, visit: (i: number, j: number) => void) => void): boolean => {
  const seen = new Uint8Array((m + 1) * (n + 1));
  const queue: number[] = [0];
  seen[0] = 1;
  const visit = (i: number, j: number): void => {
    if (i > m || j > n) return;
    const k = i * (n + 1) + j;
    if (seen[k] === 0) {
      seen[k] = 1;
      queue.push(k);
    }
  };
  for (let q = 0; q < queue.length; q++) {
    const k = queue[q]!;
    const i = Math.floor(k / (n + 1));
    const j = k % (n + 1);
    if (i === m && j === n) return true;
    step(i, j, visit);
  }
  return false;
};

const segmentsOverlap = (x: string | readonly Atom[], y: string | readonly Atom[]): boolean => {
  if (typeof x === "string") return typeof y === "string" ? x === y : matchSegment(y, x);
  if (typeof y === "string") return matchSegment(x, y);
  return reachable(x.length, y.length, (p, q, visit) => {
    const s = x[p];
    const t = y[q];
    if (s === STAR) {
      visit(p + 1, q);
      if (t !== undefined) visit(p, q + 1);
    }
    if (t === STAR) {
      visit(p, q + 1);
      if (s !== undefined) visit(p + 1, q);
    }
    if (s !== undefined && t !== undefined && s !== STAR && t !== STAR && charsOverlap(s, t)) visit(p + 1, q + 1);
  });
};

const charsOverlap = (s: CharAtom, t: CharAtom): boolean => {
  if (s.kind === "char") return t.test(s.char!);
  if (t.kind === "char") return s.test(t.char!);
  return true;
};

const isGlobstar = (s: Segment): boolean => s === GLOBSTAR;

const matchSegment = (segment: Segment, part: string): boolean => {
  if (segment === GLOBSTAR) return part !== "..";
  if (typeof segment === "string") return segment === part;
  // Wildcards never match the empty root segment or `.`/`..`, as in picomatch.
  if (part === "" || part === "." || part === "..") return false;
  return wildcard(
    segment,
    Array.from(part),
    (a) => a === STAR,
    (a, c) => a !== STAR && a.test(c),
  );
};

const anyChar: CharAtom = { kind: "any", test: () => true };

const compileSegment = (text: string): Segment => {
  if (text === "**") return GLOBSTAR;
  const chars = Array.from(text);
  const atoms: Atom[] = [];
  let plain = "";
  let literal = true;
  for (let i = 0; i < chars.length; ) {
    const c = chars[i]!;
    const end = c === "[" ? classEnd(chars, i) : -1;
    if (c === "*" || c === "?") {
      if (c === "?" || atoms.at(-1) !== STAR) atoms.push(c === "*" ? STAR : anyChar); // `**` inside a name is `*`
      literal = false;
      i++;
    } else if (end > 0) {
      picomatch ??= require("picomatch") as typeof Picomatch;
      const test = picomatch(
        chars
          .slice(i, end + 1)
          .join("")
          .replace(/^\[!/, "[^"),
        PICOMATCH_OPTIONS,
      );
      atoms.push({ kind: "class", test: (ch) => test(ch) });
      literal = false;
      i = end + 1;
    } else {
      const ch = c === "\\" && i + 1 < chars.length ? chars[++i]! : c;
      atoms.push({ kind: "char", char: ch, test: (x) => x === ch });
      plain += ch;
      i++;
    }
  }
  return literal ? plain : atoms;
};

/** Index of the `]` closing the bracket class that opens at `start`, or -1 when there is none (then `[` is literal). */
const classEnd = (chars: readonly string[], start: number): number => {
  let j = start + 1;
  if (chars[j] === "!" || chars[j] === "^") j++;
  if (chars[j] === "]") j++;
  while (j < chars.length) {
    if (chars[j] === "]") return j;
    if (chars[j] === "[" && chars[j + 1] === ":") {
      const close = chars.indexOf(":", j + 2);
      if (close < 0 || chars[close + 1] !== "]") return -1;
      j = close + 2;
    } else j += chars[j] === "\\" ? 2 : 1;
  }
  return -1;
};

/**
 * Escape a literal path for use in a glob: each character a glob reads specially (`* ? [ ] { } \`)
 * becomes a one-character bracket class, which brace expansion leaves alone.
 *
 * @example
 * escapeGlob("/tmp/a*b") // "/tmp/a[*]b"
 */
export const escapeGlob = (path: string): string =>
  path.replace(/[*?[\]{}\\]/g, (c) => (c === "]" ? "[]]" : c === "\\" ? "[\\\\]" : `[${c}]`));
