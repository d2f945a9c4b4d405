/**
 * Finding long stretches of one class of characters without reading most of the text: the
 * search behind the long runs of token characters (token-runs.ts) and the stretches of digits
 * (detectors.ts). Both read the text's code units from a typed array (see `codeUnits`).
 */
import { Buffer } from "node:buffer";

/** Up to this many bytes of copy are kept between calls (a text of two million code units); a longer text gets a copy of its own. */
const KEPT = 4 * 1024 * 1024;
let buffer = Buffer.allocUnsafeSlow(16 * 1024);
let units = new Uint16Array(buffer.buffer, 0, buffer.length >>> 1);
/** The same bytes as `units`, two code units a word: `nextWide` tests sixteen words at once. */
let words = new Int32Array(buffer.buffer, 0, buffer.length >>> 2);
let copied: string | undefined;
/** Texts up to this length are copied by a loop (see `codeUnits`). */
const SHORT = 256;

/**
 * The code units of `text`, copied into a typed array (valid up to `text.length`) that the next
 * call for another text overwrites: read it before asking for another. Reading a typed array
 * costs less than `charCodeAt`, which must ask on every read how the string is held (one or two
 * bytes a character, flat or not); the copy is one native write of the whole text (a few µs per
 * 200 KB). The last text's copy is kept until the current task's microtasks run, as the runs
 * and stretches found in it are.
 *
 * @example
 * codeUnits("hé€")[2] // 0x20ac
 */
export const codeUnits = (text: string): Uint16Array => {
  if (copied === text) return units;
  const bytes = text.length * 2;
  if (bytes > buffer.length) {
    const size = Math.max(bytes, buffer.length * 2);
    const fresh = Buffer.allocUnsafeSlow(size);
    if (size > KEPT) {
      fresh.write(text, 0, "utf16le");
      return new Uint16Array(fresh.buffer, 0, text.length);
    }
    buffer = fresh;
    units = new Uint16Array(buffer.buffer, 0, buffer.length >>> 1);
    words = new Int32Array(buffer.buffer, 0, buffer.length >>> 2);
  }
  // A short text (most keys and values of a structured result) is copied by a loop: the native
  // write costs more to call than that.
  if (text.length <= SHORT) for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
  else buffer.write(text, 0, "utf16le");
  if (copied === undefined) queueMicrotask(() => (copied = undefined));
  copied = text;
  return units;
};

/**
 * The start of the first stretch of at least `n` characters of a class at or after `from`, or -1.
 * A code unit `c` is in the class when `c < table.length && table[c] === 1`. `from` must follow a
 * character outside the class (or be 0), so the stretch found starts where its window does.
 *
 * It searches as a string search skips: the window of `n` characters after the last character
 * known to be outside the class is read from its end backwards. A character outside the class
 * there moves the window past it without reading the rest, and what was read after it is not read
 * again; only a window read whole is a stretch. In code and logs most words are shorter than `n`,
 * so a window is usually left after reading two or three of its characters.
 *
 * @example
 * const digits = new Uint8Array(58).fill(1, 48); // "0" to "9"
 * firstWindow("call 415555010 now", 0, 9, digits) // 5
 */
export const firstWindow = (text: string, from: number, n: number, table: Uint8Array): number =>
  firstWindowIn(codeUnits(text), text.length, from, n, table);

/**
 * `firstWindow` over the first `len` code units of `units` (see `codeUnits`).
 *
 * @example
 * const digits = new Uint8Array(58).fill(1, 48); // "0" to "9"
 * firstWindowIn(codeUnits("call 415555010 now"), 18, 0, 9, digits) // 5
 */
export const firstWindowIn = (units: Uint16Array, len: number, from: number, n: number, table: Uint8Array): number => {
  const size = table.length;
  // The window is [s, s + n): `s` follows a character outside the class, and [s, known) are in it.
  let s = from;
  let known = from;
  while (s + n <= len) {
    let j = s + n - 1;
    const end = j;
    // The window's last character is always unread: when it is outside the class, nothing else is read.
    let c = units[j] as number;
    if (c >= size || table[c] !== 1) {
      s = known = j + 1;
      continue;
    }
    j--;
    while (j >= known && (c = units[j] as number) < size && table[c] === 1) j--;
    if (j < known) return s;
    s = j + 1;
    known = end + 1;
  }
  return -1;
};

/**
 * The index of the first code unit beyond Latin-1 (above 0xff) in `text` at or after `from`, or
 * `text.length` when there is none. It reads the copy of the text (see `codeUnits`) sixteen
 * words (32 code units) at a time, with one test for all of them: a regular expression's search
 * for such a code unit tests each in turn, and costs about three times as much on a two-byte text.
 *
 * @example
 * nextWide("a…b€", 0) // 1
 */
export const nextWide = (text: string, from: number): number => {
  const u = codeUnits(text);
  const len = text.length;
  // A copy too long to keep is a typed array of its own, without a word view: read it by code unit.
  const w = u.buffer === buffer.buffer ? words : new Int32Array(u.buffer, 0, u.buffer.byteLength >>> 2);
  let i = from;
  for (; i < len && (i & 31) !== 0; i++) if ((u[i] as number) > 0xff) return i;
  const whole = len >>> 1;
  let k = i >>> 1;
  for (; k + 16 <= whole; k += 16) {
    // A word holds a code unit beyond Latin-1 when one of its two high bytes is not zero.
    if (
      (((w[k] as number) |
        (w[k + 1] as number) |
        (w[k + 2] as number) |
        (w[k + 3] as number) |
        (w[k + 4] as number) |
        (w[k + 5] as number) |
        (w[k + 6] as number) |
        (w[k + 7] as number) |
        (w[k + 8] as number) |
        (w[k + 9] as number) |
        (w[k + 10] as number) |
        (w[k + 11] as number) |
        (w[k + 12] as number) |
        (w[k + 13] as number) |
        (w[k + 14] as number) |
        (w[k + 15] as number)) &
        0xff00ff00) !==
      0
    )
      for (let j = 2 * k; j < 2 * k + 32; j++) if ((u[j] as number) > 0xff) return j;
  }
  for (i = Math.max(i, 2 * k); i < len; i++) if ((u[i] as number) > 0xff) return i;
  return len;
};

/**
 * `firstWindowIn` for a class most characters are outside of (the stretches of digits), with a
 * table over every code unit (`table.length` must be 0x10000): while the window's last character
 * is outside the class, the search moves on by `n` in a loop of one read and one test, which
 * costs about a fifth less than going through the general case each time.
 *
 * @example
 * const digits = new Uint8Array(0x10000).fill(1, 48, 58); // "0" to "9"
 * firstSparseWindowIn(codeUnits("call 415555010 now"), 18, 0, 9, digits) // 5
 */
export const firstSparseWindowIn = (units: Uint16Array, len: number, from: number, n: number, table: Uint8Array): number => {
  let s = from;
  let known = from;
  for (;;) {
    let j = s + n - 1;
    while (j < len && table[units[j] as number] !== 1) j += n;
    if (j >= len) return -1;
    // [s, j] is the first window whose last character is in the class: what was skipped is outside it.
    s = j - n + 1;
    if (known < s) known = s;
    const end = j;
    j--;
    while (j >= known && table[units[j] as number] === 1) j--;
    if (j < known) return s;
    s = j + 1;
    known = end + 1;
  }
};
