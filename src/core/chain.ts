/**
 * The chain runner: the onion of one point's hooks around its operation (R1–R6).
 *
 * A chain is walked as frames. A frame runs the `before` phases of its hooks in ascending
 * priority, then the operation (or an `around` hook, which opens a new frame for what is inside
 * it through `next()`), then unwinds through `after`/`recover` in descending priority. Hooks
 * that answer synchronously are handled in a plain loop; the first promise switches that frame
 * to continuation style, so only asynchronous hooks pay for promises (hookable's fast path),
 * and only `around` hooks nest.
 */
import { Continue, isHookAction, type HookAction } from "./action.ts";
import { HookError, NextMisuseError, describe, type HookFailureKind, type Phase } from "./errors.ts";
import type { CompiledHook } from "./hook.ts";
import { Failure, hookError, invoke } from "./invoke.ts";
import { Outcome } from "./outcome.ts";
import { deepFreeze } from "./readonly.ts";
import type { RunContext } from "./run-context.ts";
import { isThenable } from "./signal.ts";
import type { TraceAction } from "./trace.ts";

/** The hooks of one point for one subject, compiled once and cached (R8). */
export interface Chain {
  /** Enabled hooks whose matcher accepts the subject, in R1 order (observe-only hooks excluded). */
  readonly hooks: readonly CompiledHook[];
  /** Hooks with an `observe` function, in R1 order. */
  readonly observers: readonly CompiledHook[];
  /** True when some hook's matcher needs the input, so it is checked per run. */
  readonly dynamic: boolean;
}

/** The state of one frame: a stretch of the chain between two `around` boundaries. */
export interface Frame {
  hooks: readonly CompiledHook[];
  /** Index of the first hook of this frame. */
  start: number;
  /** Next hook to enter on the way in. */
  i: number;
  /** Next hook to leave on the way out. */
  j: number;
  input: unknown;
  /** The input the frame started with. */
  readonly input0: unknown;
  /** Inputs after each `Transform`, by hook index, so `after(output, input)` sees what that hook saw. */
  transforms: Map<number, unknown> | undefined;
  /** Hooks whose input-dependent matcher said no in this run. */
  skipped: Set<number> | undefined;
  outcome: Outcome | undefined;
  /** A `Replace` or `Reject` from an `after` made the outcome final (R3). */
  final: boolean;
}

type Step = Outcome | Promise<Outcome>;

export const newFrame = (hooks: readonly CompiledHook[], start: number, input: unknown): Frame => ({
  hooks, start, i: start, j: start - 1, input, input0: input, transforms: undefined, skipped: undefined, outcome: undefined, final: false,
});

/** The operation the chain wraps, with the run context it receives. */
export type Op = (input: any, ctx: any) => unknown;

const toCompleted = (value: unknown): Outcome => ({ _tag: "Completed", value });
const toFailed = (error: unknown): Outcome => ({ _tag: "Failed", error });

const mark = (run: RunContext, hook: CompiledHook): number => (run.recording || hook.timeoutMs !== undefined ? performance.now() : 0);

// ---------------------------------------------------------------------------------------------
// The way in
// ---------------------------------------------------------------------------------------------

/** Enter hooks from `f.i` until the operation, an `around`, or a short-circuit. */
export const forward = (run: RunContext, f: Frame, op: Op): Step => {
  const hooks = f.hooks;
  while (f.i < hooks.length) {
    const i = f.i;
    const hook = hooks[i] as CompiledHook;
    if (hook.matcher.needsInput && !matchesNow(run, f, hook, i)) {
      f.i++;
      continue;
    }
    if (hook.before !== undefined) {
      run.input = f.input;
      const started = mark(run, hook);
      const answer = invoke(run, hook, "before", hook.before, f.input, run, undefined, started);
      if (isThenable(answer)) return (answer as Promise<unknown>).then((a) => resumeBefore(run, f, op, hook, a, started));
      if (applyBefore(run, f, hook, answer, started)) return unwind(run, f, op);
    }
    if (hook.around !== undefined) return enterAround(run, f, op, hook);
    f.i++;
  }
  return callOperation(run, f, op);
};

const resumeBefore = (run: RunContext, f: Frame, op: Op, hook: CompiledHook, answer: unknown, started: number): Step => {
  if (run.settled) return abandoned(f); // the run was aborted: start nothing more (C2)
  if (applyBefore(run, f, hook, answer, started)) return unwind(run, f, op);
  if (hook.around !== undefined) return enterAround(run, f, op, hook);
  f.i++;
  return forward(run, f, op);
};

const matchesNow = (run: RunContext, f: Frame, hook: CompiledHook, i: number): boolean => {
  let ok: boolean;
  try {
    ok = hook.matcher.test(run.subject, f.input, () => run.detailOf(f.input));
  } catch (cause) {
    // A throwing matcher function is a failure of its hook; fail closed means the hook "applies".
    const error = hookError(run, hook, "match", "threw", cause, 0);
    const open = hook.failMode === "open";
    run.fail(error, open);
    ok = !open;
  }
  if (!ok) (f.skipped ??= new Set()).add(i);
  return ok;
};

/** Apply a `before` answer. Returns true when the frame short-circuits (Reject, Replace, fail closed). */
const applyBefore = (run: RunContext, f: Frame, hook: CompiledHook, answer: unknown, started: number): boolean => {
  if (answer === undefined || answer === Continue) {
    if (run.recording) run.record(hook, "before", "Continue", started);
    return false;
  }
  const action = checkAction(run, hook, "before", answer, started);
  if (action === undefined) return failClosedBefore(run, f, hook);
  if (run.recording) run.record(hook, "before", action._tag, started, reasonOf(action));
  if (hook.shadow || action._tag === "Continue") return false;
  if (action._tag === "Transform") {
    f.input = freeze(run, action.value);
    (f.transforms ??= new Map()).set(f.i, f.input);
    return false;
  }
  f.outcome = action._tag === "Reject" ? Outcome.rejected(action.reason, hook.name) : toCompleted(freeze(run, action.value));
  f.j = f.i - 1;
  return true;
};

/**
 * Validate what a hook returned (R2, R6). Returns the action, or undefined after recording the
 * failure (invalid shape, or `Reject` on an observation point).
 */
const checkAction = (run: RunContext, hook: CompiledHook, phase: Phase, answer: unknown, started: number): HookAction | undefined => {
  if (answer instanceof Failure) return failed(run, hook, phase, answer.error, started);
  if (!isHookAction(answer)) return failed(run, hook, phase, hookError(run, hook, phase, "invalid-action", new TypeError(`expected Continue, Transform, Reject or Replace, got ${describe(answer)}`), started), started);
  if (answer._tag === "Reject" && run.kind === "observe")
    return failed(run, hook, phase, hookError(run, hook, phase, "reject-on-observe", new TypeError(`Reject("${answer.reason}") is not allowed on observation point ${run.point}`), started), started);
  return answer;
};

/** Record a failure; returns undefined so callers can `return failed(...)`. The fail mode is applied by the caller. */
const failed = (run: RunContext, hook: CompiledHook, phase: Phase, error: HookError, started: number): undefined => {
  const open = hook.failMode === "open" || hook.shadow;
  run.fail(error, open);
  if (run.recording) run.record(hook, phase, "Failed", started, error.message, open ? "open" : "closed");
  run.lastFailure = error;
  return undefined;
};

/** After a failure in `before`: closed rejects and short-circuits, open (or shadow) goes on. */
const failClosedBefore = (run: RunContext, f: Frame, hook: CompiledHook): boolean => {
  if (hook.failMode === "open" || hook.shadow) return false;
  const error = run.lastFailure as HookError;
  f.outcome = Outcome.rejected(error.message, hook.name, error);
  f.j = f.i - 1;
  return true;
};

/** What a frame yields when the run settled (aborted) under it: nobody reads it. */
const abandoned = (f: Frame): Outcome => f.outcome ?? Outcome.failed(new NextMisuseError("run already settled"));

const reasonOf = (action: HookAction): string | undefined => (action._tag === "Reject" ? action.reason : undefined);

const freeze = <T>(run: RunContext, value: T): T => (run.runtime.strict ? deepFreeze(value) : value);

// ---------------------------------------------------------------------------------------------
// The operation
// ---------------------------------------------------------------------------------------------

const callOperation = (run: RunContext, f: Frame, op: Op): Step => {
  f.j = f.hooks.length - 1;
  run.input = f.input;
  let result: unknown;
  try {
    result = op(f.input, run);
  } catch (error) {
    f.outcome = toFailed(error);
    return unwind(run, f, op);
  }
  if (isThenable(result)) {
    return Promise.resolve(result).then(
      (value) => {
        f.outcome = toCompleted(freeze(run, value));
        return unwind(run, f, op);
      },
      (error) => {
        f.outcome = toFailed(error);
        return unwind(run, f, op);
      },
    );
  }
  f.outcome = toCompleted(freeze(run, result));
  return unwind(run, f, op);
};

// ---------------------------------------------------------------------------------------------
// The way out
// ---------------------------------------------------------------------------------------------

/** Leave hooks from `f.j` down to the frame's start: `after` on Completed, `recover` on Failed. */
export const unwind = (run: RunContext, f: Frame, op: Op): Step => {
  const hooks = f.hooks;
  while (f.j >= f.start && !f.final) {
    const j = f.j;
    const hook = hooks[j] as CompiledHook;
    const outcome = f.outcome as Outcome;
    if (f.skipped?.has(j) === true) {
      f.j--;
      continue;
    }
    const fn = outcome._tag === "Completed" ? hook.after : outcome._tag === "Failed" ? hook.recover : undefined;
    if (fn !== undefined) {
      const phase: Phase = outcome._tag === "Completed" ? "after" : "recover";
      const first = phase === "after" ? (outcome as { value: unknown }).value : (outcome as { error: unknown }).error;
      const input = inputAt(f, j);
      run.input = input;
      const started = mark(run, hook);
      const answer = invoke(run, hook, phase, fn, first, input, run, started);
      if (isThenable(answer))
        return (answer as Promise<unknown>).then((a) => {
          if (run.settled) return abandoned(f);
          applyExit(run, f, hook, phase, a, started);
          f.j--;
          return unwind(run, f, op);
        });
      applyExit(run, f, hook, phase, answer, started);
    }
    f.j--;
  }
  return f.outcome as Outcome;
};

/** The input hook `j` received: the original, or the latest `Transform` made before it. */
const inputAt = (f: Frame, j: number): unknown => {
  if (f.transforms === undefined) return f.input;
  let best = -1;
  let value: unknown;
  for (const [k, v] of f.transforms) if (k < j && k > best) ((best = k), (value = v));
  return best >= 0 ? value : f.input0;
};

/** Apply an `after` or `recover` answer to the frame's outcome. */
const applyExit = (run: RunContext, f: Frame, hook: CompiledHook, phase: "after" | "recover", answer: unknown, started: number): void => {
  if (answer === undefined || answer === Continue) {
    if (run.recording) run.record(hook, phase, "Continue", started);
    return;
  }
  const action = checkAction(run, hook, phase, answer, started);
  if (action === undefined) {
    if (hook.failMode === "open" || hook.shadow) return; // nothing already computed is lost (R6)
    const error = run.lastFailure as HookError;
    f.outcome = Outcome.rejected(error.message, hook.name, error);
    f.final = true;
    return;
  }
  if (phase === "recover" && (action._tag === "Transform" || action._tag === "Reject")) {
    const error = hookError(run, hook, phase, "invalid-action", new TypeError(`recover may return Replace or Continue, got ${action._tag}`), started);
    failed(run, hook, phase, error, started);
    if (hook.failMode === "closed" && !hook.shadow) ((f.outcome = Outcome.rejected(error.message, hook.name, error)), (f.final = true));
    return;
  }
  if (run.recording) run.record(hook, phase, action._tag, started, reasonOf(action));
  if (hook.shadow || action._tag === "Continue") return;
  if (action._tag === "Reject") {
    f.outcome = Outcome.rejected(action.reason, hook.name);
    f.final = true;
    return;
  }
  f.outcome = toCompleted(freeze(run, action.value));
  // A recovered value flows outward like an operation result; Replace in `after` is final (R3).
  if (phase === "after" && action._tag === "Replace") f.final = true;
};

// ---------------------------------------------------------------------------------------------
// Around hooks
// ---------------------------------------------------------------------------------------------

/** What one call of an `around` hook knows about its `next()`. */
interface NextState {
  calls: number;
  pending: Promise<Outcome> | undefined;
  last: Outcome | undefined;
  lastFinal: boolean;
  settled: boolean;
  misuse: NextMisuseError | undefined;
}

const enterAround = (run: RunContext, f: Frame, op: Op, hook: CompiledHook): Step => {
  const i = f.i;
  const state: NextState = { calls: 0, pending: undefined, last: undefined, lastFinal: false, settled: false, misuse: undefined };
  const layerInput = f.input;
  const inner = (input: unknown): Step => {
    const frame = newFrame(f.hooks, i + 1, input);
    const step = forward(run, frame, op);
    const done = (o: Outcome): Outcome => {
      state.last = o;
      state.lastFinal = frame.final;
      state.pending = undefined;
      return o;
    };
    return isThenable(step) ? (step as Promise<Outcome>).then(done) : done(step as Outcome);
  };
  const next = (input?: unknown): Promise<Outcome> => {
    const misuse = state.settled || run.settled
      ? new NextMisuseError(`next() called after hook "${hook.name}" settled`)
      : state.pending !== undefined
        ? new NextMisuseError(`next() called while a previous next() of hook "${hook.name}" is still pending`)
        : undefined;
    if (misuse !== undefined) {
      state.misuse ??= misuse;
      if (state.settled) recordLateMisuse(run, hook, misuse);
      const rejected = Promise.reject(misuse);
      rejected.catch(noop); // a dangling next() must not become an unhandled rejection (A5)
      return rejected;
    }
    state.calls++;
    const nextInput = input === undefined ? f.input : freeze(run, input);
    const step = inner(nextInput);
    if (!isThenable(step)) return Promise.resolve(step as Outcome);
    state.pending = step as Promise<Outcome>;
    return state.pending;
  };
  const ctx = Object.create(run, { input: { value: layerInput }, current: { value: hook } }) as RunContext;
  const started = mark(run, hook);
  const answer = invoke(run, hook, "around", hook.around as (...args: any[]) => unknown, ctx, next, undefined, started);
  const settle = (a: unknown): Step => {
    state.settled = true;
    return applyAround(run, f, op, hook, a, state, inner, layerInput, started);
  };
  return isThenable(answer) ? (answer as Promise<unknown>).then(settle) : settle(answer);
};

const noop = (): void => {};

const recordLateMisuse = (run: RunContext, hook: CompiledHook, misuse: NextMisuseError): void => {
  run.fail(hookError(run, hook, "around", "next-misuse", misuse, 0), true);
};

/** Turn what an `around` returned into the frame's outcome, then leave through this hook's own `after`. */
const applyAround = (
  run: RunContext, f: Frame, op: Op, hook: CompiledHook, answer: unknown, state: NextState,
  inner: (input: unknown) => Step, layerInput: unknown, started: number,
): Step => {
  f.j = f.i;
  const leave = (outcome: Outcome, final: boolean): Step => {
    f.outcome = outcome;
    f.final = final;
    return unwind(run, f, op);
  };
  const passThrough = (): Step => {
    if (state.pending !== undefined) return state.pending.then((o) => leave(o, state.lastFinal));
    if (state.last !== undefined) return leave(state.last, state.lastFinal);
    const step = inner(layerInput);
    return isThenable(step) ? (step as Promise<Outcome>).then((o) => leave(o, state.lastFinal)) : leave(step as Outcome, state.lastFinal);
  };
  const failure = (kind: HookFailureKind, cause: unknown): Step => {
    const error = answer instanceof Failure ? answer.error : hookError(run, hook, "around", kind, cause, started);
    failed(run, hook, "around", error, started);
    if (hook.failMode === "open" || hook.shadow) return passThrough();
    return leave(Outcome.rejected(error.message, hook.name, error), true);
  };
  if (state.misuse !== undefined && !(answer instanceof Failure)) return failure("next-misuse", state.misuse);
  if (answer instanceof Failure) return failure(answer.error.kind, answer.error.cause);
  if (hook.shadow) {
    if (run.recording) run.record(hook, "around", "Continue", started, "shadow");
    return passThrough();
  }
  if (answer === undefined) {
    if (state.calls > 0) return recordAnd(run, hook, started, "Outcome", passThrough);
    return failure("invalid-action", new TypeError("around returned nothing and never called next(): no decision"));
  }
  if (Outcome.is(answer)) {
    if (state.lastFinal && answer !== state.last) return ignored(run, hook, started, state, leave);
    if (answer._tag === "Rejected" && answer !== state.last && run.kind === "observe")
      return failure("reject-on-observe", new TypeError(`a Rejected outcome is not allowed on observation point ${run.point}`));
    if (run.recording) run.record(hook, "around", "Outcome", started);
    return leave(answer, answer === state.last && state.lastFinal);
  }
  if (!isHookAction(answer)) return failure("invalid-action", new TypeError(`expected an action or an Outcome, got ${describe(answer)}`));
  if (answer._tag === "Reject" && run.kind === "observe")
    return failure("reject-on-observe", new TypeError(`Reject("${answer.reason}") is not allowed on observation point ${run.point}`));
  if (answer._tag === "Continue") return recordAnd(run, hook, started, "Continue", passThrough);
  if (state.lastFinal) return ignored(run, hook, started, state, leave);
  if (run.recording) run.record(hook, "around", answer._tag, started, reasonOf(answer));
  if (answer._tag === "Reject") return leave(Outcome.rejected(answer.reason, hook.name), true);
  return leave(toCompleted(freeze(run, answer.value)), answer._tag === "Replace");
};

const recordAnd = (run: RunContext, hook: CompiledHook, started: number, action: TraceAction, then: () => Step): Step => {
  if (run.recording) run.record(hook, "around", action, started);
  return then();
};

/** An `around` further out tried to change a final outcome: ignored, and said so (R3). */
const ignored = (run: RunContext, hook: CompiledHook, started: number, state: NextState, leave: (o: Outcome, final: boolean) => Step): Step => {
  if (run.recording) run.record(hook, "around", "Ignored", started, "the inner outcome was final (Replace or Reject in an after)");
  return leave(state.last as Outcome, true);
};

export { toCompleted, toFailed };
