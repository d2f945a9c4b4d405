/**
 * Path globs for file conditions such as `Edit(src/**)` or `Read(*.env)`. Semantics follow
 * picomatch with `{ dot: true, nobrace: true, noextglob: true }` (verified against it by a
 * differential property test), plus the anchoring of Claude Code's permission rules: a pattern
 * with a `/` is matched against the whole path, one without against the last path segment.
 * Matching is segment by segment with `wildcard` (linear), not with picomatch's RegExp, whose
 * backtracking is polynomial in the input for patterns with several stars (picomatch #175).
 * picomatch still compiles each bracket class (`[a-z]`, `[[:digit:]]`), tested one character at a time.
 */
import { posix } from "node:path";
import picomatch from "picomatch";
import { wildcard } from "./wildcard.ts";

/** picomatch options for bracket classes: dotfiles are ordinary files, braces and extglobs literal, no `!` negation, length capped. */
export const PICOMATCH_OPTIONS = Object.freeze({ dot: true, nobrace: true, noextglob: true, nonegate: true, maxLength: 1024 });

const GLOBSTAR = Symbol("**");
type Atom = "*" | ((char: string) => boolean);
/** A compiled pattern segment: `**`, a literal name, or atoms for one name. */
type Segment = typeof GLOBSTAR | string | readonly Atom[];

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
  const segments = p.split("/").map(compileSegment);
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
    return wildcard(segments.slice(k), parts.slice(k), (s) => s === GLOBSTAR, matchSegment);
  };
};

const matchSegment = (segment: Segment, part: string): boolean => {
  if (segment === GLOBSTAR) return part !== "..";
  if (typeof segment === "string") return segment === part;
  // Wildcards never match the empty root segment or `.`/`..`, as in picomatch.
  if (part === "" || part === "." || part === "..") return false;
  return wildcard(segment, Array.from(part), (a) => a === "*", (a, c) => a !== "*" && a(c));
};

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
      if (c === "?" || atoms.at(-1) !== "*") atoms.push(c === "*" ? "*" : () => true); // `**` inside a name is `*`
      literal = false;
      i++;
    } else if (end > 0) {
      const test = picomatch(chars.slice(i, end + 1).join("").replace(/^\[!/, "[^"), PICOMATCH_OPTIONS);
      atoms.push((ch) => test(ch));
      literal = false;
      i = end + 1;
    } else {
      const ch = c === "\\" && i + 1 < chars.length ? chars[++i]! : c;
      atoms.push((x) => x === ch);
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
