/**
 * The known name a misspelt one was probably meant to be, for error messages ("did you mean").
 */

/**
 * The name of `names` nearest `word` by edit distance (case aside), when it is near enough to be a
 * misspelling of it: at most 2 edits (a third of the word's length for longer words), or the start of it.
 *
 * @example
 * nearestName("alow", ["allow", "deny"]) // "allow"
 * nearestName("colour", ["allow", "deny"]) // undefined
 */
export const nearestName = (word: string, names: readonly string[]): string | undefined => {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const name of names) {
    // A name cut short (`minLen` for `minLength`) is as likely a slip as a letter swapped.
    const d = lower.length >= 3 && name.toLowerCase().startsWith(lower) ? 1 : editDistance(lower, name.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best;
};

/**
 * `names` ordered by edit distance from `word` (case aside), nearest first; ties keep their order.
 *
 * @example
 * namesByNearness("Stp", ["PreToolUse", "Stop"]) // ["Stop", "PreToolUse"]
 */
export const namesByNearness = (word: string, names: readonly string[]): string[] => {
  const lower = word.toLowerCase();
  return names
    .map((name, i) => ({ name, i, d: editDistance(lower, name.toLowerCase()) }))
    .sort((a, b) => a.d - b.d || a.i - b.i)
    .map((n) => n.name);
};

/** Levenshtein distance (names are short: the quadratic table costs nothing). */
const editDistance = (a: string, b: string): number => {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
};
