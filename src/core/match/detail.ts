/**
 * A point's detail as `Name(pattern)` conditions read it. A point's `detail` function may be untyped
 * JavaScript, and a tool's input is written by the model, so the value can be anything: a string is
 * the detail; `undefined` or `null` means there is none (the condition does not apply); anything else
 * (an array, a number, an object) is a detail that is there but cannot be read. Like a command that
 * cannot be parsed, it matches a condition in a matcher, so a deny hook is not skipped, and it
 * satisfies no allow condition of `toolPolicy`.
 */

/**
 * The text that stands for a detail that is present but not a string. It is a string so that it can
 * travel where details are typed as strings (`toolDetails`, a point's `detail`). No real command,
 * path or URL looks like it; one that did would only be treated as unreadable, the cautious side.
 *
 * @example
 * readDetail(["rm", "-rf", "/"]) === UNREADABLE_DETAIL // true
 */
export const UNREADABLE_DETAIL = "\u0000(a detail that is not a string)\u0000";

/**
 * The detail a value gives: itself if a string, `undefined` for `undefined` or `null`, else `UNREADABLE_DETAIL`.
 *
 * @example
 * readDetail("rm -rf /") // "rm -rf /"
 * readDetail(undefined) // undefined
 * readDetail(5) // UNREADABLE_DETAIL
 */
export const readDetail = (value: unknown): string | undefined => {
  if (typeof value === "string") return value;
  return value === undefined || value === null ? undefined : UNREADABLE_DETAIL;
};
