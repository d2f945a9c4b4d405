/**
 * Numeric limits in executor options, checked when the hook is made (registration): NaN or
 * Infinity would remove a cap without a word, and a negative or zero one would refuse every run.
 */

import { isTimeoutMs, maxTimerMs } from "../core/signal.ts";

/** How a limit is counted: whole things from 1, bytes from 0, a deadline's ms, or a delay's ms (0 allowed). */
export type LimitKind = "count" | "bytes" | "ms" | "delay";

const rules: Record<LimitKind, { ok: (n: number) => boolean; what: string }> = {
  count: { ok: (n) => Number.isSafeInteger(n) && n >= 1, what: "a whole number from 1" },
  bytes: { ok: (n) => Number.isFinite(n) && n >= 0, what: "a finite number of bytes, 0 or more" },
  ms: { ok: isTimeoutMs, what: `a positive number of ms up to ${maxTimerMs}` },
  delay: { ok: (n) => Number.isFinite(n) && n >= 0 && n <= maxTimerMs, what: `a number of ms from 0 to ${maxTimerMs}` },
};

/**
 * Throw a TypeError naming the factory and the field unless `value` is absent or a valid limit.
 *
 * @example
 * checkLimit("agentHook", "maxSteps", 0, "count") // throws: agentHook: maxSteps must be a whole number from 1, got 0
 */
export const checkLimit = (factory: string, field: string, value: unknown, kind: LimitKind): void => {
  const problem = limitProblem(field, value, kind);
  if (problem !== undefined) throw new TypeError(`${factory}: ${problem}`);
};

/**
 * What is wrong with a limit, if anything (undefined when it is absent or valid).
 *
 * @example
 * limitProblem("maxStdoutBytes", Infinity, "bytes") // "maxStdoutBytes must be a finite number of bytes, 0 or more, got Infinity"
 */
export const limitProblem = (field: string, value: unknown, kind: LimitKind): string | undefined => {
  if (value === undefined) return undefined;
  const rule = rules[kind];
  return typeof value === "number" && rule.ok(value) ? undefined : `${field} must be ${rule.what}, got ${String(value)}`;
};
