/**
 * Typed errors. Every runtime failure names the hook, the point and the phase,
 * so that a person reading a log line knows where to look without a stack trace.
 */

/** The phase of a hook in which something happened. */
export type Phase = "before" | "after" | "around" | "recover" | "onSettled" | "observe" | "operation" | "match" | "approval";

/** Why a hook failed (R6). */
export type HookFailureKind = "threw" | "timeout" | "invalid-action" | "reject-on-observe" | "next-misuse" | "aborted";

const brand = Symbol.for("agent-onion.error");

/**
 * Mark `Class` as one of ours for `isAgentOnionError`: errors that must stay a `TypeError` (a
 * registration or settings mistake) cannot extend `AgentOnionError`. On the prototype, so every
 * instance has it whatever its constructor did, and one copy of the library knows another's.
 */
export const brandError = (Class: abstract new (...args: never[]) => Error): void => {
  Object.defineProperty(Class.prototype, brand, { value: true });
};

/**
 * Base class of every error agent-onion raises; `isAgentOnionError` works across bundles.
 *
 * @example
 * new HookError("h", "toolCall", "before", "threw", 1, new Error("x")) instanceof AgentOnionError // true
 */
export class AgentOnionError extends Error {
  override name = "AgentOnionError";
}
brandError(AgentOnionError);

/**
 * True when `value` is an error raised by agent-onion (any copy of the library).
 *
 * @example
 * isAgentOnionError(new RunAbortedError("toolCall", "user", false)) // true
 */
export const isAgentOnionError = (value: unknown): value is AgentOnionError =>
  typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[brand] === true;

/**
 * A registration mistake: thrown by `createStack`/`use` before anything runs.
 * It is a `TypeError` (koa-compose style) whose message names the hook and the field.
 *
 * @example
 * new RegistrationError("no-rm", "priority", "must be a finite number, got NaN").message
 * // 'hook "no-rm": priority must be a finite number, got NaN'
 */
export class RegistrationError extends TypeError {
  override name = "RegistrationError";
  constructor(
    readonly hook: string,
    readonly field: string,
    problem: string,
  ) {
    super(`hook "${hook}": ${field} ${problem}`);
  }
}
brandError(RegistrationError);

/**
 * A hook failed at run time (R6): it threw, timed out, returned something that is not an
 * action, rejected on an observation point, or misused `next()`.
 *
 * @example
 * outcome._tag === "Rejected" && outcome.cause instanceof HookError && outcome.cause.kind // "timeout"
 */
export class HookError extends AgentOnionError {
  override name = "HookError";
  constructor(
    readonly hook: string,
    readonly point: string,
    readonly phase: Phase,
    readonly kind: HookFailureKind,
    /**
     * How long the hook ran before failing, in ms. Measured whenever the run records (a trace
     * or an observer) or the hook has a timeout; otherwise 0: reading the clock around every
     * hook call would tax the hot path (pass a `Trace` to see timings).
     */
    readonly elapsedMs: number,
    override readonly cause: unknown,
    readonly source?: string,
  ) {
    super(`hook "${hook}"${source ? ` (${source})` : ""} failed in ${phase} on ${point}: ${describeKind(kind)}: ${describe(cause)}`);
  }
}

/**
 * A run was cancelled by its caller's signal, or by the point's deadline.
 *
 * @example
 * outcome._tag === "Failed" && outcome.error instanceof RunAbortedError && outcome.error.timedOut // true
 */
export class RunAbortedError extends AgentOnionError {
  override name = "RunAbortedError";
  constructor(
    readonly point: string,
    override readonly cause: unknown,
    readonly timedOut: boolean,
  ) {
    super(timedOut ? `run on ${point} exceeded its deadline` : `run on ${point} was aborted: ${describe(cause)}`);
  }
}

/**
 * Why an operation call's signal (or a timed hook's) aborts when its run settled without
 * waiting for it: an `around` hook failed closed (its timeout passed, it threw) or answered
 * without waiting for `next()`. The run's outcome is decided, so the result would be dropped (R7).
 *
 * @example
 * ctx.signal.reason instanceof OperationAbandonedError // true in an operation its run left behind
 */
export class OperationAbandonedError extends AgentOnionError {
  override name = "OperationAbandonedError";
  constructor(
    readonly point: string,
    /** The timed `around` hook whose timeout gave up on the call, when that is why (the run goes on). */
    readonly hook?: string,
  ) {
    super(
      hook === undefined
        ? `the run on ${point} settled without waiting for this operation call or hook; what it returns would be dropped`
        : `hook "${hook}" on ${point} timed out and gave up on this operation call; what it returns would be dropped`,
    );
  }
}

/**
 * A run nested deeper than the stack's `maxDepth` (a hook re-entering its own point, a
 * sub-agent spawning sub-agents): refused before any hook runs.
 *
 * @example
 * outcome._tag === "Failed" && outcome.error instanceof RecursionLimitError // true past 32 levels
 */
export class RecursionLimitError extends AgentOnionError {
  override name = "RecursionLimitError";
  constructor(
    readonly point: string,
    readonly depth: number,
    readonly maxDepth: number,
  ) {
    super(`run on ${point} refused: nested ${depth} levels deep, past maxDepth ${maxDepth}`);
  }
}

/**
 * `next()` was called concurrently or after its hook settled (R4).
 *
 * @example
 * around: async (ctx, next) => { void next(); await next().catch((e) => e instanceof NextMisuseError) } // true
 */
export class NextMisuseError extends AgentOnionError {
  override name = "NextMisuseError";
}

/**
 * What a hook that answered `Reject` (or a `Rejected` outcome) on an observation point failed
 * with (R2): the reason it gave stays readable, for whoever reports it (a trace's `rejected`).
 *
 * @example
 * error.kind === "reject-on-observe" && error.cause instanceof RejectOnObserveError && error.cause.reason // "too long"
 */
export class RejectOnObserveError extends TypeError {
  override name = "RejectOnObserveError";
  constructor(
    readonly reason: string,
    readonly point: string,
    /** The hook answered a `Rejected` outcome (an around hook) rather than `Reject`. */
    outcome = false,
  ) {
    super(
      outcome
        ? `a Rejected outcome is not allowed on observation point ${point}`
        : `Reject("${reason}") is not allowed on observation point ${point}`,
    );
  }
}
brandError(RejectOnObserveError);

/**
 * A hook exceeded its own `timeoutMs`.
 *
 * @example
 * outcome._tag === "Rejected" && outcome.cause?.cause instanceof HookTimeoutError // true
 */
export class HookTimeoutError extends AgentOnionError {
  override name = "HookTimeoutError";
  constructor(readonly timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms`);
  }
}

const describeKind = (kind: HookFailureKind): string =>
  kind === "threw"
    ? "threw"
    : kind === "timeout"
      ? "timed out"
      : kind === "invalid-action"
        ? "returned an invalid action"
        : kind === "reject-on-observe"
          ? "returned Reject on an observation point"
          : kind === "next-misuse"
            ? "misused next()"
            : "was aborted";

/**
 * `value instanceof type` for a value from outside (what a hook or an operation threw or answered):
 * never throws. `instanceof` runs a Proxy's `getPrototypeOf` trap, and a revoked Proxy throws on it.
 *
 * @example
 * isInstance(new RunAbortedError("toolCall"), RunAbortedError) // true
 */
export const isInstance = <T>(value: unknown, type: abstract new (...args: any[]) => T): value is T => {
  try {
    return value instanceof type;
  } catch {
    return false;
  }
};

/**
 * Turn anything thrown into readable text. Hooks may throw `undefined`, strings, symbols or
 * objects with hostile `toString`; none of that may crash the error path.
 *
 * @example
 * describe(Symbol("x")) // "Symbol(x)"
 */
export const describe = (cause: unknown): string => clean(describeRaw(cause));

/**
 * A value a caller gave, as a registration error shows it: a string in quotes (so `"uppercase"`
 * reads as the string it was) and cut at 200 characters, a bigint with its `n`, anything else as
 * `describe` gives it.
 *
 * @example
 * describeGiven("uppercase") // "\"uppercase\""
 */
export const describeGiven = (value: unknown): string => {
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value !== "string") return describe(value);
  return value.length <= 200 ? JSON.stringify(value) : `${JSON.stringify(value.slice(0, 200))}… (${value.length} characters)`;
};

const describeRaw = (cause: unknown): string => {
  try {
    if (cause instanceof Error) return cause.message || cause.name;
    if (typeof cause === "string") return cause;
    if (typeof cause === "symbol") return cause.toString();
    if (cause === undefined) return "undefined";
    if (cause === null) return "null";
    if (typeof cause === "object") return JSON.stringify(cause)?.slice(0, 500) ?? Object.prototype.toString.call(cause);
    return String(cause);
  } catch {
    try {
      return Object.prototype.toString.call(cause);
    } catch {
      return "[unprintable value]"; // a revoked Proxy throws even here
    }
  }
};

/**
 * Reasons end up in terminals, logs and the model's context: drop terminal control sequences
 * (ANSI CSI and OSC, e.g. OSC 52 clipboard writes), other C0/C1 controls but tab and newline,
 * and bidi overrides (K1, D9).
 */
const clean = (text: string): string =>
  text
    .replace(/\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b\[[0-?]*[ -/]*[@-~]|\u001b[@-_]/g, "")
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, "");

/**
 * Normalise a thrown value into an `Error`, keeping the original as `cause` (A2).
 *
 * @example
 * toError("boom").message // "boom"
 */
export const toError = (cause: unknown): Error => (cause instanceof Error ? cause : new Error(describe(cause), { cause }));
