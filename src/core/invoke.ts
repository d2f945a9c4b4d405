/**
 * Calling one hook function: the only place a hook's own code runs. It turns throws, rejected
 * promises and timeouts into a `Failure` value, so the chain never sees an exception (R6), and
 * it keeps the synchronous fast path: a hook that returns a plain value costs a call and a check.
 */
import { HookError, HookTimeoutError, NextMisuseError, type HookFailureKind, type Phase } from "./errors.ts";
import type { CompiledHook } from "./hook.ts";
import { ScopedContext, type RunContext } from "./run-context.ts";
import { RunSignal } from "./run-signal.ts";
import { isThenable, noop } from "./signal.ts";

/** A hook failed; carried as a value through the chain. */
export class Failure {
  constructor(readonly error: HookError) {}
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

/** Build the typed error for a failure of `hook` in `phase`. */
export const hookError = (run: RunContext, hook: CompiledHook, phase: Phase, kind: HookFailureKind, cause: unknown, started: number): HookError =>
  new HookError(hook.name, run.point, phase, kind, started > 0 ? performance.now() - started : 0, cause, hook.source);

/**
 * A hook threw, or its promise rejected, with `cause`. `started` is the clock mark of the call,
 * 0 where none was read (the inline loops), which makes the elapsed time 0.
 */
export const thrown = (run: RunContext, hook: CompiledHook, phase: Phase, cause: unknown, started = 0): Failure =>
  new Failure(hookError(run, hook, phase, kindOf(cause), cause, started));

/**
 * Call `fn(a, b, c)` for `hook`. Returns the hook's value, a `Failure`, or a promise of either.
 * `started` is a `performance.now()` mark when the run is recording or the hook is timed, else 0.
 */
export const invoke = (
  run: RunContext,
  hook: CompiledHook,
  phase: Phase,
  fn: (...args: any[]) => unknown,
  a: unknown,
  b: unknown,
  c: unknown,
  started: number,
): unknown => {
  if (hook.timeoutMs !== undefined) return invokeTimed(run, hook, phase, fn, a, b, c, started);
  // An around hook has a context of its own; the run's (which the operation gets) names no hook.
  if (phase !== "around") run.current = hook;
  let result: unknown;
  try {
    result = fn(a, b, c);
  } catch (cause) {
    return thrown(run, hook, phase, cause, started);
  }
  // A thenable goes back as it is: `whenSettled` attaches both handlers in one `then`, so an
  // asynchronous hook costs one promise, and a synchronous one none.
  return result;
};

/**
 * Continue with `next(answer)` once an asynchronous hook settles; a rejection becomes a `Failure`.
 *
 * @example
 * if (isThenable(answer)) return whenSettled(run, hook, "before", answer, started, (a) => resume(a))
 */
export const whenSettled = <T>(
  run: RunContext,
  hook: CompiledHook,
  phase: Phase,
  answer: PromiseLike<unknown>,
  started: number,
  next: (answer: unknown) => T,
): Promise<Awaited<T>> => {
  // No clock read here: `started` is a mark only when the run records or the hook is timed.
  return Promise.resolve(answer).then(next, (cause) => next(thrown(run, hook, phase, cause, started))) as Promise<Awaited<T>>;
};

/**
 * A hook with `timeoutMs` gets its own signal (aborted on timeout, and when the run aborts while
 * the hook runs), made only if the hook reads it (see RunSignal), and a timer that is always
 * cleared when the hook settles, whichever comes first.
 */
const invokeTimed = (
  run: RunContext,
  hook: CompiledHook,
  phase: Phase,
  fn: (...args: any[]) => unknown,
  a: unknown,
  b: unknown,
  _c: unknown,
  started: number,
): unknown => {
  const t0 = started || performance.now();
  // A timed around hook's context comes with its own signal already: its frame made it, and
  // keeps it (see AroundCall.scope). Other phases get one here.
  const ctx = phase === "around" ? (a as ScopedContext) : new ScopedContext(run, run.input, new RunSignal(), hook);
  const own = ctx.own as RunSignal;
  const guard = run.watchable();
  guard?.watch(own);
  // `ctx` is always the last argument given to a hook function, except `around(ctx, next)`.
  const args = phase === "around" ? [ctx, b] : phase === "before" ? [a, ctx] : [a, b, ctx];
  if (phase !== "around") run.current = hook;
  let result: unknown;
  try {
    result = fn(...args);
  } catch (cause) {
    guard?.unwatch(own);
    return thrown(run, hook, phase, cause, t0);
  }
  const ms = hook.timeoutMs as number;
  if (!isThenable(result)) {
    guard?.unwatch(own);
    // A synchronous hook that blocked past its deadline has failed too (R6), as an async one would.
    if (performance.now() - t0 > ms) return new Failure(hookError(run, hook, phase, "timeout", new HookTimeoutError(ms), t0));
    return result;
  }
  return new TimedHook(run, hook, phase, own, t0, ms).wait(result as PromiseLike<unknown>);
};

const expire = (timed: TimedHook): void => timed.expire();

/** The wait for a timed hook's promise: its answer, its timeout or its run's abort, whichever comes first. */
class TimedHook {
  declare readonly run: RunContext;
  declare readonly hook: CompiledHook;
  declare readonly phase: Phase;
  declare readonly own: RunSignal;
  declare readonly t0: number;
  declare readonly ms: number;
  declare timer: ReturnType<typeof setTimeout> | undefined;
  declare done: boolean;
  declare resolve: (value: unknown) => void;

  constructor(run: RunContext, hook: CompiledHook, phase: Phase, own: RunSignal, t0: number, ms: number) {
    this.run = run;
    this.hook = hook;
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
      // Left running in a frame its run leaves behind, it is told when the run settles (RunContext.end).
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
    this.end(new Failure(hookError(this.run, this.hook, this.phase, "aborted", reason, this.t0)));
  }

  expire(): void {
    if (this.done) return;
    const cause = new HookTimeoutError(this.ms);
    this.end(new Failure(hookError(this.run, this.hook, this.phase, "timeout", cause, this.t0)));
    this.own.abort(cause);
  }

  answered(value: unknown): void {
    if (this.done) return;
    // Under event-loop lag the timer callback can run after a late answer: the deadline, not
    // the order of callbacks, decides (C1, C3).
    if (performance.now() - this.t0 > this.ms) return this.expire();
    this.end(value);
  }

  failed(cause: unknown): void {
    this.end(thrown(this.run, this.hook, this.phase, cause, this.t0));
  }
}

