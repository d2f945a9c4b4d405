/**
 * What a point says its values look like: its `input` and `output` checks, asked about every value
 * a hook gives it (a `Transform`, a `Replace`, an outcome an `around` built, an input passed to
 * `next()`, an approver's edit). A value the check refuses is that hook's `invalid-action` failure
 * (R6). The caller's input and the operation's own value are never checked: the hot path pays nothing.
 */
import { describe } from "./errors.ts";

/**
 * A point's check of a value a hook gives it: undefined when the value fits, else what is wrong,
 * saying what the point expects and what it got.
 *
 * @example
 * const isText: ValueCheck = (v) => (typeof v === "string" ? undefined : `a string, got ${typeof v}`);
 */
export type ValueCheck = (value: unknown) => string | undefined;

/**
 * What `check` says is wrong with `value`, or undefined when it fits (or there is no check). A check
 * that throws refuses the value, with what it threw: no hook's value gets past a broken check.
 *
 * @example
 * problemOf((v) => (typeof v === "string" ? undefined : "a string"), 1) // "a string"
 */
export const problemOf = (check: ValueCheck | undefined, value: unknown): string | undefined => {
  if (check === undefined) return undefined;
  let problem: unknown;
  try {
    problem = check(value);
  } catch (cause) {
    return `its check threw: ${describe(cause)}`;
  }
  return problem === undefined ? undefined : typeof problem === "string" ? problem : describe(problem);
};

/**
 * The cause of a hook's failure when `point`'s check of its `side` refuses the `value` that `given`
 * (`Replace`, `Transform`, `next()`...) carried; undefined when the value fits.
 *
 * @example
 * refusal({ name: "tool", output: (v) => (v === 1 ? undefined : "1") }, "output", "Replace", 2)?.message
 * // "Replace gave tool an output it does not take: 1"
 */
export const refusal = (
  point: { readonly name: string; readonly input?: ValueCheck | undefined; readonly output?: ValueCheck | undefined },
  side: "input" | "output",
  given: string,
  value: unknown,
): TypeError | undefined => {
  const problem = problemOf(side === "input" ? point.input : point.output, value);
  return problem === undefined ? undefined : new TypeError(`${given} gave ${point.name} an ${side} it does not take: ${problem}`);
};
