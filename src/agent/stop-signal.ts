/**
 * A failure that means "stop here", not "something broke": a guard that ends a run before its
 * next step (step limit, token budget, time limit, finish reason) fails that `step` with an
 * error marked this way, and the reference loop then ends the run cleanly with the reason.
 */

/** The mark; `Symbol.for` so copies of the library agree. */
export const stopsRun: unique symbol = Symbol.for("agent-onion.stopsRun") as never;

/** An error that ends the run cleanly. */
export interface StopSignal {
  readonly [stopsRun]: true;
  readonly message: string;
}

/**
 * True when `error` asks the loop to stop rather than fail.
 *
 * @example
 * class Enough extends Error { readonly [stopsRun] = true as const }
 * isStopSignal(new Enough("budget reached")) // true
 */
export const isStopSignal = (error: unknown): error is StopSignal =>
  typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[stopsRun] === true;
