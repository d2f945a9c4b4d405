import type { PendingApproval } from "./approval-types.ts";
import { brandError, type HookError } from "./errors.ts";

/**
 * Outcome: what running a chain yields. `Completed(value)`, `Rejected(reason, by)` or
 * `Failed(error)`; never a thrown exception for anything a hook or the operation did.
 */

export interface Completed<O> {
  readonly _tag: "Completed";
  readonly value: O;
}
/** The outcome of a run a hook refused, with its reason and the hook's name. */
export interface Rejected {
  readonly _tag: "Rejected";
  readonly reason: string;
  /** The name of the hook that rejected. */
  readonly by: string;
  /**
   * Set when the rejection comes from a fail-closed hook failure (R6) rather than a decision,
   * so callers can tell "a guard said no" from "a guard crashed" (B5).
   */
  readonly cause?: HookError;
  /** On collecting gates (`collect: true`): every rejection, in hook order. */
  readonly reasons?: readonly { readonly reason: string; readonly by: string }[];
}
/**
 * A run that stopped to wait for a person: a `Rejected` (the call did not run, and code that knows
 * only the three outcomes treats it as a refusal) that carries the pending approval. Resume it with
 * the approvals' `resume(stack, approval.token, decision, operation)`.
 */
export interface Interrupted extends Rejected {
  /** What waits for a decision: show it to a person; its `token` resumes the run. */
  readonly approval: PendingApproval;
}
/** The outcome of a run whose operation threw, or that was aborted or abandoned before it settled. */
export interface Failed {
  readonly _tag: "Failed";
  readonly error: unknown;
}

export type Outcome<O = unknown> = Completed<O> | Rejected | Failed;

/**
 * Constructors and helpers for outcomes.
 *
 * @example
 * Outcome.match(outcome, {
 *   Completed: (value) => value,
 *   Rejected: (reason) => `blocked: ${reason}`,
 *   Failed: (error) => { throw error },
 * })
 */
export const Outcome = {
  /** A completed outcome holding `value`. */
  completed: <O>(value: O): Completed<O> => ({ _tag: "Completed", value }),
  /** A rejected outcome, with the reason and the name of the hook that said no. */
  rejected: (reason: string, by: string, cause?: HookError): Rejected =>
    cause === undefined ? { _tag: "Rejected", reason, by } : { _tag: "Rejected", reason, by, cause },
  /** A failed outcome holding `error`. */
  failed: (error: unknown): Failed => ({ _tag: "Failed", error }),
  /** True when the outcome is `Completed`. */
  isCompleted: <O>(o: Outcome<O>): o is Completed<O> => o._tag === "Completed",
  /** True when the outcome is `Rejected`. */
  isRejected: <O>(o: Outcome<O>): o is Rejected => o._tag === "Rejected",
  /** True when the outcome is `Failed`. */
  isFailed: <O>(o: Outcome<O>): o is Failed => o._tag === "Failed",
  /** True for a run that waits for an approval (durable approvals): a `Rejected` with an `approval`. */
  isInterrupted: <O>(o: Outcome<O>): o is Interrupted => o._tag === "Rejected" && (o as Partial<Interrupted>).approval !== undefined,
  /** True when `value` has the shape of an Outcome (around hooks may return one). */
  is: (value: unknown): value is Outcome => {
    if (typeof value !== "object" || value === null) return false;
    try {
      const tag = (value as Outcome)._tag;
      return tag === "Completed" || tag === "Rejected" || tag === "Failed";
    } catch {
      return false; // hostile getters and Proxies are not outcomes
    }
  },
  /** Exhaustive match over the three cases. */
  match: <O, R>(
    o: Outcome<O>,
    cases: { Completed: (value: O) => R; Rejected: (reason: string, by: string) => R; Failed: (error: unknown) => R },
  ): R =>
    o._tag === "Completed" ? cases.Completed(o.value) : o._tag === "Rejected" ? cases.Rejected(o.reason, o.by) : cases.Failed(o.error),
  /** The completed value, or a thrown error for `Rejected` (an `OutcomeRejectedError`) and `Failed`. */
  getOrThrow: <O>(o: Outcome<O>): O => {
    if (o._tag === "Completed") return o.value;
    if (o._tag === "Rejected") throw new OutcomeRejectedError(o.reason, o.by, o.cause);
    throw o.error;
  },
};

/**
 * Thrown by `Outcome.getOrThrow` for a rejected outcome. Its `cause` is the rejection's: the
 * `HookError` of a hook that failed closed, or none when a hook said no.
 *
 * @example
 * try { Outcome.getOrThrow(Outcome.rejected("no", "guard")) } catch (e) { (e as OutcomeRejectedError).by } // "guard"
 */
export class OutcomeRejectedError extends Error {
  override name = "OutcomeRejectedError";
  constructor(
    readonly reason: string,
    readonly by: string,
    cause?: unknown,
  ) {
    super(`rejected by ${by}: ${reason}`, cause === undefined ? undefined : { cause });
  }
}
brandError(OutcomeRejectedError);
