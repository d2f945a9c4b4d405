/**
 * Finding long stretches of one class of characters without reading most of the text: the
 * search behind the long runs of token characters (token-runs.ts) and the stretches of digits
 * (detectors.ts).
 */

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
export const firstWindow = (text: string, from: number, n: number, table: Uint8Array): number => {
  const len = text.length;
  const size = table.length;
  // The window is [s, s + n): `s` follows a character outside the class, and [s, known) are in it.
  let s = from;
  let known = from;
  while (s + n <= len) {
    let j = s + n - 1;
    const end = j;
    // The window's last character is always unread: when it is outside the class, nothing else is read.
    let c = text.charCodeAt(j);
    if (c >= size || table[c] !== 1) {
      s = known = j + 1;
      continue;
    }
    j--;
    while (j >= known && (c = text.charCodeAt(j)) < size && table[c] === 1) j--;
    if (j < known) return s;
    s = j + 1;
    known = end + 1;
  }
  return -1;
};
