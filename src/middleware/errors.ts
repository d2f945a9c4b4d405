/**
 * Errors of the built-in middleware. On an observation point (such as `modelCall`) a hook may
 * not `Reject`, so a limit that refuses there ends the call with a typed failure instead; the
 * loop reads it like any provider failure, and callers can tell it apart with `instanceof`.
 */
import { AgentOnionError } from "../core/errors.ts";
import { stopsRun } from "../agent/stop-signal.ts";

/**
 * A limit refused a call (budget, rate limit, call limit, guard) on a point that cannot `Reject`.
 *
 * @example
 * outcome._tag === "Failed" && outcome.error instanceof LimitExceededError && outcome.error.middleware // "budget"
 */
export class LimitExceededError extends AgentOnionError {
  override name = "LimitExceededError";
  constructor(
    /** The name of the middleware (hook) that refused. */
    readonly middleware: string,
    /** The same text a `Reject` would carry. */
    readonly reason: string,
  ) {
    super(reason);
  }
}

/**
 * Every model of a `fallback` failed; `errors` holds each failure, primary first.
 *
 * @example
 * error instanceof FallbackExhaustedError && error.errors.length // 3
 */
export class FallbackExhaustedError extends AgentOnionError {
  override name = "FallbackExhaustedError";
  constructor(readonly errors: readonly { readonly model: string; readonly error: unknown }[]) {
    super(
      `every model failed: ${errors.map((e) => `${e.model}: ${e.error instanceof Error ? e.error.message : String(e.error)}`).join("; ")}`,
    );
  }
}

/** Which guard stopped a run. */
export type GuardKind = "steps" | "tokens" | "time" | "finish-reason";

/**
 * A guard stopped the agent before its next step (seed 000's stop signals: StepsLimitReached,
 * TokenLimitReached, TimeLimitReached, a finish reason). It is the `Failed` outcome of that
 * `step`; the reference loop ends the run cleanly with it (the turn completes), and `kind` says
 * which limit was reached.
 *
 * @example
 * turn.status === "completed" && turn.finishReason === "stopped-by-guard" && turn.result?.stoppedBy?.kind // "steps"
 */
export class GuardStopError extends LimitExceededError {
  override name = "GuardStopError";
  /** Marks a clean stop: the reference loop ends the run with this reason instead of failing it. */
  readonly [stopsRun] = true as const;
  constructor(
    middleware: string,
    reason: string,
    readonly kind: GuardKind,
  ) {
    super(middleware, reason);
  }
}

/**
 * The reason a `block` strategy gives: where, which kinds, which hook (never the data).
 *
 * @example
 * blockedReason("redaction", "user prompt", ["email"]) // "user prompt contains email; blocked by redaction"
 */
export const blockedReason = (hook: string, where: string, kinds: readonly string[]): string =>
  `${where} contains ${kinds.join(", ")}; blocked by ${hook}`;

/**
 * Sensitive data was found where its strategy is `block`. Carries kinds, never the data.
 *
 * @example
 * outcome._tag === "Failed" && outcome.error instanceof RedactionBlockedError && outcome.error.kinds // ["api_key"]
 */
export class RedactionBlockedError extends AgentOnionError {
  override name = "RedactionBlockedError";
  constructor(
    /** The hook that refused. */
    readonly hook: string,
    /** Where: `model output` (blocked prompts and tool data are `Rejected` outcomes on their gates, not this error). */
    readonly where: string,
    readonly kinds: readonly string[],
  ) {
    super(blockedReason(hook, where, kinds));
  }
}
