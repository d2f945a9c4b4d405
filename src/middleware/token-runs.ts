/**
 * Long runs of token characters, found without looking at every character. Credentials are long
 * unbroken runs (`ghp_…`, `sk-…`, base64, JWTs): the text is searched as a string search skips,
 * by windows of `n` characters read from their end, so that a character outside a run moves the
 * search past it and most characters are never read. The detectors that need runs share one list
 * per text (see `tokenCandidates`).
 */

import { tokenRules } from "./secret-rules.ts";
import { codeUnits, firstWindowIn } from "./char-windows.ts";

/** Characters of a run: letters, digits and `_-.+/=~` (base64, base64url, JWT dots, `key=value`). */
const RUN = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.+/=~") RUN[c.charCodeAt(0)] = 1;

/**
 * Whether the code unit at `i` belongs to a run.
 *
 * @example
 * isRunChar("a b", 1) // false
 */
export const isRunChar = (text: string, i: number): boolean => {
  const c = text.charCodeAt(i);
  return c < 128 && RUN[c] === 1;
};

/** The shortest run the shared list holds: shorter ones hold no credential the detectors look for. */
export const MIN_RUN = 12;

// Two variables, not an object: a structured result asks about thousands of short strings.
let lastText: string | undefined;
let lastRuns: Int32Array = new Int32Array(0);

/** The first two characters of the token rules' prefixes (of two or more), as `first * 128 + second`. */
const PAIR = new Uint8Array(128 * 128);
for (const rule of tokenRules)
  for (const prefix of rule.prefixes) if (prefix.length >= 2) PAIR[prefix.charCodeAt(0) * 128 + prefix.charCodeAt(1)] = 1;
/**
 * What the walk through a run does at a character, by it and the one before (both ASCII, the one
 * before in the run): stop (the run ends), go on, note a place after a `=` (not padding), or see
 * whether a token's prefix starts at the character before (the two are the first two characters
 * of a prefix; then the character before them must not be a letter or `=`). Most pairs that start
 * no prefix are passed over with no second look, in hex and random ids too, whose characters are
 * often a prefix's first.
 */
const GO = 0;
const STOP = 1;
const ASSIGN = 2;
const PREFIX = 3;
const STEP = new Uint8Array(128 * 128);
for (let before = 0; before < 128; before++)
  for (let c = 0; c < 128; c++)
    STEP[(before << 7) | c] = RUN[c] === 0 ? STOP : before === 61 ? (c === 61 ? GO : ASSIGN) : PAIR[before * 128 + c] === 1 ? PREFIX : GO;
const isLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
/** Most `=` and most places inside one run where a token may start that are tried. */
const MAX_ASSIGNMENTS = 64;
const MAX_INSIDE = 8;

/**
 * Where tokens may start in the long runs of `text` (every maximal run of at least `MIN_RUN` run
 * characters), as `[start, runEnd)` pairs in order: a run's start (past an escape, see
 * `unescapedStart`) and each place after a `=` in it (`key=ghp_…`, `--token=…`), where a value
 * may start; and, with `-runEnd` (a known token's prefix only), each place inside it after a
 * character that is not a letter where the first two characters of a token rule's prefix are
 * (`x_ghp_…`, `v1/sk-…`), as
 * secretlint's rules read a token's start. The last list is kept until the current task's
 * microtasks run: a scan asks several detectors about the same text.
 *
 * @example
 * [...tokenCandidates("x = Zm9vYmFyQmF6cXV4 ok")] // [4, 20]
 */
export const tokenCandidates = (text: string): Int32Array => {
  if (lastText === text) return lastRuns;
  const runs = findRuns(text, MIN_RUN);
  if (lastText === undefined) queueMicrotask(forget);
  lastText = text;
  lastRuns = runs;
  return runs;
};
const forget = (): void => {
  lastText = undefined;
  lastRuns = NONE;
};

/** Where candidates are collected before being copied out at their count (most texts have few). */
let scratch = new Int32Array(256);
const NONE = new Int32Array(0);

const push = (k: number, start: number, end: number): number => {
  if (k + 2 > scratch.length) {
    const grown = new Int32Array(scratch.length * 2);
    grown.set(scratch);
    scratch = grown;
  }
  scratch[k] = start;
  scratch[k + 1] = end;
  return k + 2;
};

/**
 * Every maximal run of at least `n` characters, found by `firstWindowIn` (most characters are
 * never read), each walked once from its start to its end, reading the text's code units from
 * their copy (see `codeUnits`).
 */
const findRuns = (text: string, n: number): Int32Array => {
  const len = text.length;
  const u = codeUnits(text);
  let k = 0;
  for (let s = firstWindowIn(u, len, 0, n, RUN); s !== -1; ) {
    // [s, s + n) is all run characters, and s starts the run.
    const a = s;
    let c: number;
    // One walk from the run's start to its end, noting where a token may start on the way; the
    // run's end, which each place is paired with, is filled in once known. Escapes before a token
    // are made of run characters, so the end is not needed to skip them.
    const first = unescapedStart(text, a, len);
    const at0 = k;
    k = push(k, first, 0);
    // A few of each per run: a token rule may read to the end of the run from each, and a run of
    // thousands of `=` or `sk-` is no text a tool prints but would cost time by its length squared.
    let assignments = 0;
    let inside = 0;
    // One table read per character, by it and the one before: most pairs need nothing more, and
    // are read two at a time, with one test for both.
    c = u[a] as number;
    let b = a + 1;
    for (;;) {
      // Four at a time through the long middle of a run (base64, hashes, URLs), then two.
      for (; b + 3 < len; b += 4) {
        const c1 = u[b] as number;
        const c2 = u[b + 1] as number;
        const c3 = u[b + 2] as number;
        const c4 = u[b + 3] as number;
        if (
          (c1 | c2 | c3 | c4) >= 128 ||
          ((STEP[(c << 7) | c1] as number) |
            (STEP[(c1 << 7) | c2] as number) |
            (STEP[(c2 << 7) | c3] as number) |
            (STEP[(c3 << 7) | c4] as number)) !==
            GO
        )
          break;
        c = c4;
      }
      for (; b + 1 < len; b += 2) {
        const c1 = u[b] as number;
        const c2 = u[b + 1] as number;
        if ((c1 | c2) >= 128 || ((STEP[(c << 7) | c1] as number) | (STEP[(c1 << 7) | c2] as number)) !== GO) break;
        c = c2;
      }
      if (b >= len) break;
      const before = c;
      c = u[b] as number;
      if (c >= 128) break;
      const step = STEP[(before << 7) | c] as number;
      if (step === STOP) break;
      if (step === ASSIGN) {
        // After each `=` that is not padding (`==`, or one at the end).
        if ((b - 1 === a || u[b - 2] !== 61) && assignments++ < MAX_ASSIGNMENTS) k = push(k, b, 1);
      } else if (step !== GO && b - 1 > first) {
        // A prefix's first two characters at b - 1, after a character that is not a letter (a
        // place after a `=` is one already).
        const p = u[b - 2] as number;
        if (!isLetter(p) && p !== 61 && inside++ < MAX_INSIDE) k = push(k, b - 1, -1);
      }
      b++;
    }
    // Not the run's last character: no token is one character long.
    if (k > at0 + 2 && scratch[k - 2] === b - 1) k -= 2;
    for (let j = at0 + 1; j < k; j += 2) scratch[j] = scratch[j] === -1 ? -b : b;
    // text[b] is not in a run (or is past the end).
    s = firstWindowIn(u, len, b + 1, n, RUN);
  }
  return k === 0 ? NONE : scratch.slice(0, k);
};

/** The run around index `at` (which must be a run character), looking back at most `limit` characters. */
export const runAround = (text: string, at: number, limit: number): { readonly start: number; readonly end: number } => {
  let a = at;
  const floor = Math.max(0, at - limit);
  while (a > floor && isRunChar(text, a - 1)) a--;
  let b = at + 1;
  while (b < text.length && isRunChar(text, b)) b++;
  return { start: a, end: b };
};

const hex = (code: number): boolean => (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);

/** Whether the backslash at `at` starts an escape (it is not itself escaped by an odd number of backslashes before it). */
const escapes = (text: string, at: number): boolean => {
  let n = 0;
  for (let i = at - 1; i >= 0 && text.charCodeAt(i) === 92; i--) n++;
  return n % 2 === 0;
};

/**
 * Where a token really starts when its run starts with the tail of an escape: JSON's `\n`, `\t`,
 * `\r`, `\b`, `\f` and `\u0022`, or a URL's `%22`. In `"a\nsk-…"` the run is `nsk-…`, and in
 * `token%3Dghp_…` it is `3Dghp_…`; the token itself starts after the escape.
 *
 * @example
 * unescapedStart("x\\nsk-abc", 3, 9) // 4
 */
export const unescapedStart = (text: string, start: number, end: number): number => {
  let s = start;
  for (let guard = 0; guard < 8 && s < end; guard++) {
    const before = text.charCodeAt(s - 1);
    const c = text.charCodeAt(s);
    if (before === 92 && escapes(text, s - 1)) {
      // n r t b f
      if (c === 110 || c === 114 || c === 116 || c === 98 || c === 102) {
        s += 1;
        continue;
      }
      if (
        c === 117 &&
        s + 5 <= end &&
        hex(text.charCodeAt(s + 1)) &&
        hex(text.charCodeAt(s + 2)) &&
        hex(text.charCodeAt(s + 3)) &&
        hex(text.charCodeAt(s + 4))
      ) {
        s += 5;
        continue;
      }
    }
    if (before === 37 && s + 2 <= end && hex(c) && hex(text.charCodeAt(s + 1))) {
      s += 2;
      continue;
    }
    break;
  }
  return s;
};

/**
 * Where tokens may start in the run `[start, end)`: its start and after each `=` (`key=ghp_…`,
 * `--token=…`), escapes skipped (see `unescapedStart`).
 *
 * @example
 * tokenStarts("TOKEN=abc", 0, 9) // [0, 6]
 */
export const tokenStarts = (text: string, start: number, end: number): number[] => {
  const first = unescapedStart(text, start, end);
  // Searched in the run only: the next `=` of the text may be far after it.
  const run = text.slice(start, end);
  let at = run.indexOf("=");
  if (at === -1) return [first];
  const starts = [first];
  for (; at !== -1 && at < run.length - 1; at = run.indexOf("=", at + 1)) if (run.charCodeAt(at + 1) !== 61) starts.push(start + at + 1);
  return starts;
};
