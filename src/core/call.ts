/**
 * Calling one hook function, the only place a hook's own code runs, and deciding what it said.
 * Throws, rejected promises and timeouts become a `Failure` value, so the dispatcher never sees an
 * exception (R6); an answer is validated and read once (R2, A7). A synchronous hook costs a call
 * and a check: the dispatcher calls untimed hooks inline and comes here for the rest.
 */
import { now } from "./clock.ts";
import { Continue, Reject, isHookAction, type HookAction } from "./action.ts";
import {
  HookError,
  HookTimeoutError,
  NextMisuseError,
  RejectOnObserveError,
  describe,
  isInstance,
  type HookFailureKind,
  type Phase,
} from "./errors.ts";
import { record, Rec } from "./decisions.ts";
import type { Layer } from "./hook.ts";
import { HookCtx } from "./hook-context.ts";
import type { Run } from "./run.ts";
import { RunSignal } from "./run-signal.ts";
import { isThenable, noop } from "./signal.ts";

/** A hook failed; carried as a value through the dispatcher. */
export class Failure {
  readonly #brand = true;
  constructor(readonly error: HookError) {}

  /**
   * True for a Failure of ours. Hooks' answers go through here: `instanceof` on a Proxy runs its
   * `getPrototypeOf` trap, which may lie or (revoked) throw, so a yes is confirmed by the private
   * field, which reads nothing of the value, and a throw is a no. `instanceof` first: on the plain
   * objects hooks answer it is several times cheaper than the private-field check.
   */
  static is(value: unknown): value is Failure {
    try {
      return value instanceof Failure && #brand in value;
    } catch {
      return false;
    }
  }
}

const kinds = new Set<string>(["threw", "timeout", "invalid-action", "reject-on-observe", "next-misuse", "aborted"]);

/**
 * Classify a thrown cause. Executors throw errors that say what went wrong in their own terms
 * (`hookFailureKind: "timeout"` for a child process past its deadline), and we keep that.
 */
export const kindOf = (cause: unknown): HookFailureKind => {
  try {
    if (cause instanceof HookTimeoutError) return "timeout";
    if (cause instanceof NextMisuseError) return "next-misuse";
    const declared = typeof cause === "object" && cause !== null ? (cause as { hookFailureKind?: unknown }).hookFailureKind : undefined;
    return typeof declared === "string" && kinds.has(declared) ? (declared as HookFailureKind) : "threw";
  } catch {
    return "threw"; // a revoked Proxy throws even on instanceof
  }
};

/** Build the typed error for a failure of `layer` in `phase`; `started` is a clock reading or 0 (elapsed unknown). */
export const hookError = (run: Run, layer: Layer, phase: Phase, kind: HookFailureKind, cause: unknown, started: number): HookError =>
  new HookError(layer.name, run.point, phase, kind, started > 0 ? now() - started : 0, cause, layer.source);

/** A hook threw, or its promise rejected, with `cause`. */
export const thrown = (run: Run, layer: Layer, phase: Phase, cause: unknown, started = 0): Failure =>
  new Failure(hookError(run, layer, phase, kindOf(cause), cause, started));

/** A clock reading for a call, when someone needs it (exact recording, a timed hook); else 0. */
export const mark = (run: Run, layer: Layer): number => (run.rec === Rec.exact || layer.timeoutMs !== undefined ? now() : 0);

/**
 * Call a `before` (`fn(a, ctx)`), `after`/`recover`/`onSettled` (`fn(a, b, ctx)`) or `around`
 * (`fn(ctx, next)`, with the hook's own context as `a` and `next` as `b`). Returns the hook's
 * answer, a `Failure`, or a promise of either (a thenable goes back as it is: the caller attaches
 * both handlers in one `then`, so an asynchronous hook costs one promise).
 */
export const invoke = (
  run: Run,
  layer: Layer,
  phase: Phase,
  fn: (...args: any[]) => unknown,
  a: unknown,
  b: unknown,
  started: number,
  own?: RunSignal,
): unknown => {
  if (layer.timeoutMs !== undefined) return invokeTimed(run, layer, phase, fn, a, b, started, own);
  if (phase !== "around") run.current = layer;
  try {
    return phase === "before" ? fn(a, run.ctx) : phase === "around" ? fn(a, b) : fn(a, b, run.ctx);
  } catch (cause) {
    return thrown(run, layer, phase, cause, started);
  }
};

/** Continue with `next(answer)` once an asynchronous hook settles; a rejection becomes a `Failure`. */
export const whenSettled = <T>(
  run: Run,
  layer: Layer,
  phase: Phase,
  answer: PromiseLike<unknown>,
  started: number,
  next: (answer: unknown) => T,
): Promise<Awaited<T>> =>
  Promise.resolve(answer).then(next, (cause) => next(thrown(run, layer, phase, cause, started))) as Promise<Awaited<T>>;

/**
 * A hook with `timeoutMs` gets its own signal (aborted on timeout, and when the run aborts while
 * the hook runs), made only if the hook reads it, and a timer that is always cleared when the hook
 * settles, whichever comes first. An `around` brings its own signal (its call keeps it, see
 * `AroundCall.scope`); other phases get one here, with a context of their own.
 */
const invokeTimed = (
  run: Run,
  layer: Layer,
  phase: Phase,
  fn: (...args: any[]) => unknown,
  a: unknown,
  b: unknown,
  started: number,
  own?: RunSignal,
): unknown => {
  const t0 = started || now();
  const signal = own ?? new RunSignal();
  const ctx = phase === "around" ? a : new HookCtx(run, layer.info, run.input, signal);
  const guard = run.watchable();
  guard?.watch(signal);
  if (phase !== "around") run.current = layer;
  let result: unknown;
  try {
    result = phase === "before" ? fn(a, ctx) : phase === "around" ? fn(ctx, b) : fn(a, b, ctx);
  } catch (cause) {
    guard?.unwatch(signal);
    return thrown(run, layer, phase, cause, t0);
  }
  const ms = layer.timeoutMs as number;
  if (!isThenable(result)) {
    guard?.unwatch(signal);
    // A synchronous hook that blocked past its deadline has failed too (R6), as an async one would.
    if (now() - t0 > ms) return new Failure(hookError(run, layer, phase, "timeout", new HookTimeoutError(ms), t0));
    return result;
  }
  return new TimedCall(run, layer, phase, signal, t0, ms).wait(result);
};

const expire = (timed: TimedCall): void => timed.expire();

/** The wait for a timed hook's promise: its answer, its timeout or its run's abort, whichever comes first. */
class TimedCall {
  declare readonly run: Run;
  declare readonly layer: Layer;
  declare readonly phase: Phase;
  declare readonly own: RunSignal;
  declare readonly t0: number;
  declare readonly ms: number;
  declare timer: ReturnType<typeof setTimeout> | undefined;
  declare done: boolean;
  declare resolve: (value: unknown) => void;

  constructor(run: Run, layer: Layer, phase: Phase, own: RunSignal, t0: number, ms: number) {
    this.run = run;
    this.layer = layer;
    this.phase = phase;
    this.own = own;
    this.t0 = t0;
    this.ms = ms;
    this.timer = undefined;
    this.done = false;
    this.resolve = noop;
  }

  wait(answer: PromiseLike<unknown>): Promise<unknown> {
    return new Promise((resolve) => {
      this.resolve = resolve;
      this.timer = setTimeout(expire, this.ms, this);
      // The run being aborted ends the wait too, at once if it already was (the hook aborted its
      // caller's signal before it answered): no timer may outlive a run (R7).
      this.own.watch(this);
      // Left running in a frame its run leaves behind, it is told when the run settles.
      this.run.hold(this.own);
      answer.then(this.answered.bind(this), this.failed.bind(this));
    });
  }

  /** Settle once: stop the timer and stop following the run. */
  end(value: unknown): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.own.unwatch(this);
    this.run.guard?.unwatch(this.own);
    this.run.release(this.own);
    this.resolve(value);
  }

  /** The run aborted (its hook signal did, as a watcher of the run's). */
  abort(reason: unknown): void {
    this.end(new Failure(hookError(this.run, this.layer, this.phase, "aborted", reason, this.t0)));
  }

  expire(): void {
    if (this.done) return;
    const cause = new HookTimeoutError(this.ms);
    this.end(new Failure(hookError(this.run, this.layer, this.phase, "timeout", cause, this.t0)));
    this.own.abort(cause);
  }

  answered(value: unknown): void {
    if (this.done) return;
    // Under event-loop lag the timer callback can run after a late answer: the deadline, not
    // the order of callbacks, decides (C1, C3).
    if (now() - this.t0 > this.ms) return this.expire();
    this.end(value);
  }

  failed(cause: unknown): void {
    this.end(thrown(this.run, this.layer, this.phase, cause, this.t0));
  }
}

/**
 * Validate what a hook returned (R2, R6). Returns the action, or undefined after recording the
 * failure (invalid shape, or `Reject` on an observation point).
 */
export const checkAction = (run: Run, layer: Layer, phase: Phase, raw: unknown, started: number): HookAction | undefined => {
  const answer = snapshot(raw);
  if (answer === undefined) {
    // Not an action: a failure carried as a value (a Failure is never one), or an invalid answer.
    if (Failure.is(raw)) return failed(run, layer, phase, raw.error, started);
    return failed(
      run,
      layer,
      phase,
      hookError(
        run,
        layer,
        phase,
        "invalid-action",
        new TypeError(`expected Continue, Transform, Reject or Replace, got ${describe(raw)}`),
        started,
      ),
      started,
    );
  }
  if (answer._tag === "Reject" && run.kind === "observe")
    return failed(
      run,
      layer,
      phase,
      hookError(run, layer, phase, "reject-on-observe", new RejectOnObserveError(answer.reason, run.point), started),
      started,
    );
  return answer;
};

/**
 * Read an answer once into an action of our own: a hook's object may carry getters or be a
 * Proxy that answers differently (or throws) on a second read. Undefined when it is not
 * an action.
 */
export const snapshot = (answer: unknown): HookAction | undefined => {
  if (answer === Continue) return Continue;
  if (!isHookAction(answer)) return undefined;
  try {
    return answer._tag === "Continue"
      ? Continue
      : answer._tag === "Reject"
        ? Reject(answer.reason)
        : { _tag: answer._tag, value: answer.value };
  } catch {
    return undefined;
  }
};

/** Record a failure; returns undefined so callers can `return failed(...)`. The fail mode is applied by the caller. */
export const failed = (run: Run, layer: Layer, phase: Phase, error: HookError, started: number): undefined => {
  const open = layer.failMode === "open" || layer.shadow;
  run.fail(error, open);
  if (run.rec !== Rec.none) {
    const rejected = error.kind === "reject-on-observe" && isInstance(error.cause, RejectOnObserveError) ? error.cause.reason : undefined;
    record(run, layer, phase, "Failed", started, error.message, open ? "open" : "closed", rejected);
  }
  return undefined;
};

/**
 * A hook's matcher could not decide: it threw, or the subject it needs could not be computed.
 * Recorded as the hook's failure (R6); true when the hook applies because it fails closed.
 */
export const failedMatch = (run: Run, layer: Layer, cause: unknown): boolean => {
  const error = hookError(run, layer, "match", "threw", cause, 0);
  const open = layer.failMode === "open";
  run.fail(error, open);
  if (run.rec !== Rec.none)
    record(run, layer, "match", "Failed", run.rec === Rec.exact ? now() : 0, error.message, open ? "open" : "closed");
  return !open;
};
