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
let copied: string | undefined;

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
  }
  buffer.write(text, 0, "utf16le");
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
