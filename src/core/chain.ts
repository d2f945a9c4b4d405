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
import { Continue, Reject, isHookAction, type HookAction } from "./action.ts";
import { HookError, NextMisuseError, describe, type Phase } from "./errors.ts";
import type { CompiledHook } from "./hook.ts";
import { Failure, hookError, invoke, thrown, whenSettled } from "./invoke.ts";
import { Outcome } from "./outcome.ts";
import { deepFreeze } from "./readonly.ts";
import type { Point } from "./point.ts";
import type { RunContext } from "./run-context.ts";
import { enterAround } from "./around.ts";
import { isThenable } from "./signal.ts";

/** The hooks of one point for one subject, compiled once and cached (R8). */
export interface Chain {
  /** The point this chain belongs to. */
  readonly point: Point;
  /** Enabled hooks whose matcher accepts the subject, in R1 order (observe-only hooks excluded). */
  readonly hooks: readonly CompiledHook[];
  /** Hooks with an `observe` function, in R1 order. */
  readonly observers: readonly CompiledHook[];
  /** True when some hook's matcher needs the input, so it is checked per run. */
  readonly dynamic: boolean;
  /** Each hook's `before` and `after` (or undefined), by index: what the plain loops call. */
  readonly befores: readonly (AnyFn | undefined)[];
  readonly afters: readonly (AnyFn | undefined)[];
  /** No input-dependent matcher, no timeout, no around: the plain loops apply when nobody records. */
  readonly plain: boolean;
}

type AnyFn = (...args: any[]) => unknown;

/** Compile the per-run view of `hooks` (already filtered and ordered). */
/** Not frozen: V8 (Node 20) reads frozen arrays far slower in optimised loops, and chains never leave the stack. */
export const compileChain = (point: Point, hooks: CompiledHook[], observers: CompiledHook[], subject: unknown): Chain => ({
  point,
  hooks,
  observers,
  dynamic: hooks.some((h) => h.matcher.needsInput) || observers.some((h) => h.matcher.needsInput),
  befores: hooks.map((h) => h.before),
  afters: hooks.map((h) => h.after),
  plain: hooks.every((h) => !h.matcher.needsInput && h.timeoutMs === undefined && h.around === undefined && !h.recheck),
  subject,
} as Chain);

/** The state of one frame: a stretch of the chain between two `around` boundaries. */
export interface Frame {
  chain: Chain;
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
  /** True for the frame inside an `around` hook (an `AroundCall`), which is told when it ends. */
  readonly nested: boolean;
}

type Step = Outcome | Promise<Outcome>;

export const newFrame = (chain: Chain, start: number, input: unknown): Frame => ({
  chain, hooks: chain.hooks, start, i: start, j: start - 1, input, input0: input, transforms: undefined, skipped: undefined, outcome: undefined, final: false, nested: false,
});

/** A frame ran to its end: its outcome is settled; the around hook that opened it is told at once. */
const ended = (f: Frame): Outcome => {
  if (f.nested) (f as unknown as { done(): void }).done();
  return f.outcome as Outcome;
};

/** The operation the chain wraps, with the run context it receives. */
export type Op = (input: any, ctx: any) => unknown;

const toCompleted = (value: unknown): Outcome => ({ _tag: "Completed", value });
const toFailed = (error: unknown): Outcome => ({ _tag: "Failed", error });

export const mark = (run: RunContext, hook: CompiledHook): number => (run.recording || hook.timeoutMs !== undefined ? performance.now() : 0);

// ---------------------------------------------------------------------------------------------
// The way in
// ---------------------------------------------------------------------------------------------

/**
 * Enter hooks from `f.i` until the operation, an `around`, or a short-circuit. The loop keeps
 * its index in a local and calls untimed, untraced hooks inline: this is the hot path.
 */
export const forward = (run: RunContext, f: Frame, op: Op): Step => {
  if (f.chain.plain && !run.recording) return forwardPlain(run, f, op);
  const hooks = f.hooks;
  const n = hooks.length;
  const slow = run.recording;
  let i = f.i;
  for (; i < n; i++) {
    const hook = hooks[i] as CompiledHook;
    if (hook.matcher.needsInput && !matchesNow(run, f, hook, i)) continue;
    const before = hook.before;
    if (before !== undefined) {
      run.input = f.input;
      let answer: unknown;
      let started = 0;
      if (slow || hook.timeoutMs !== undefined) {
        started = mark(run, hook);
        answer = invoke(run, hook, "before", before, f.input, run, undefined, started);
      } else {
        run.current = hook;
        try {
          answer = before(f.input, run);
        } catch (cause) {
          answer = thrown(run, hook, "before", cause);
        }
      }
      if (answer !== undefined && answer !== Continue) {
        f.i = i;
        if (isThenable(answer)) return whenSettled(run, hook, "before", answer, started, laterBefore(run, f, op, hook, started));
        if (applyBefore(run, f, hook, answer, started)) return unwind(run, f, op);
      } else if (slow) run.record(hook, "before", "Continue", started);
      if (hook.recheck) approved(run, hook, f.input);
    }
    if (hook.around !== undefined) {
      f.i = i;
      return enterAround(run, f, op, hook);
    }
  }
  f.i = i;
  return callOperation(run, f, op);
};

/**
 * The hottest loop: plain chains (no conditions, timeouts or arounds) in runs nobody records.
 * A hook that answers anything but Continue hands over to the general handling.
 */
const forwardPlain = (run: RunContext, f: Frame, op: Op): Step => {
  const befores = f.chain.befores;
  const hooks = f.hooks;
  const n = befores.length;
  run.input = f.input;
  for (let i = f.i; i < n; i++) {
    const before = befores[i];
    if (before === undefined) continue;
    const hook = hooks[i] as CompiledHook;
    run.current = hook;
    let answer: unknown;
    try {
      answer = before(f.input, run);
    } catch (cause) {
      answer = thrown(run, hook, "before", cause);
    }
    if (answer === undefined || answer === Continue) continue;
    f.i = i;
    if (isThenable(answer)) return whenSettled(run, hook, "before", answer, 0, laterBefore(run, f, op, hook, 0));
    if (applyBefore(run, f, hook, answer, 0)) return unwind(run, f, op);
    run.input = f.input;
  }
  f.i = n;
  return callOperation(run, f, op);
};

/*
 * Continuations for asynchronous answers, made by functions rather than inline in the loops:
 * an inline closure would capture the loop's block scope, which unoptimised code allocates on
 * every iteration, async hook or not.
 */
const laterBefore = (run: RunContext, f: Frame, op: Op, hook: CompiledHook, started: number) => (answer: unknown): Step =>
  resumeBefore(run, f, op, hook, answer, started);

const laterExit = (run: RunContext, f: Frame, op: Op, hook: CompiledHook, phase: "after" | "recover", started: number) => (answer: unknown): Step => {
  if (run.settled) return abandoned(f);
  applyExit(run, f, hook, phase, answer, started);
  f.j--;
  return unwind(run, f, op);
};

const resumeBefore = (run: RunContext, f: Frame, op: Op, hook: CompiledHook, answer: unknown, started: number): Step => {
  if (run.settled) return abandoned(f); // the run was aborted: start nothing more (C2)
  if (applyBefore(run, f, hook, answer, started)) return unwind(run, f, op);
  if (hook.recheck) approved(run, hook, f.input);
  if (hook.around !== undefined) return enterAround(run, f, op, hook);
  f.i++;
  return forward(run, f, op);
};

/** Remember what a `recheck` gate approved (its own Transform included). */
const approved = (run: RunContext, hook: CompiledHook, input: unknown): void => {
  (run.rechecks ??= new Map()).set(hook, input);
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
  if (action._tag === "Reject" && run.pointDef.collect === true) {
    (run.collected ??= []).push({ reason: action.reason, by: hook.name });
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
export const checkAction = (run: RunContext, hook: CompiledHook, phase: Phase, raw: unknown, started: number): HookAction | undefined => {
  if (raw instanceof Failure) return failed(run, hook, phase, raw.error, started);
  const answer = snapshot(raw);
  if (answer === undefined) return failed(run, hook, phase, hookError(run, hook, phase, "invalid-action", new TypeError(`expected Continue, Transform, Reject or Replace, got ${describe(raw)}`), started), started);
  if (answer._tag === "Reject" && run.kind === "observe")
    return failed(run, hook, phase, hookError(run, hook, phase, "reject-on-observe", new TypeError(`Reject("${answer.reason}") is not allowed on observation point ${run.point}`), started), started);
  return answer;
};

/**
 * Read an answer once into an action of our own: a hook's object may carry getters or be a
 * Proxy that answers differently (or throws) on a second read (A7). Undefined when it is not
 * an action.
 */
export const snapshot = (answer: unknown): HookAction | undefined => {
  if (answer === Continue) return Continue;
  if (!isHookAction(answer)) return undefined;
  try {
    return answer._tag === "Continue" ? Continue : answer._tag === "Reject" ? Reject(answer.reason) : { _tag: answer._tag, value: answer.value };
  } catch {
    return undefined;
  }
};

/** Record a failure; returns undefined so callers can `return failed(...)`. The fail mode is applied by the caller. */
export const failed = (run: RunContext, hook: CompiledHook, phase: Phase, error: HookError, started: number): undefined => {
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

export const reasonOf = (action: HookAction): string | undefined => (action._tag === "Reject" ? action.reason : undefined);

export const freeze = <T>(run: RunContext, value: T): T => (run.runtime.strict ? deepFreeze(value) : value);

// ---------------------------------------------------------------------------------------------
// The operation
// ---------------------------------------------------------------------------------------------

const callOperation = (run: RunContext, f: Frame, op: Op): Step => {
  f.j = f.hooks.length - 1;
  if (run.collected !== undefined) {
    // A collecting gate: everyone had their say; any rejection skips the operation.
    const reasons = run.collected;
    f.outcome = { _tag: "Rejected", reason: reasons.map((r) => r.reason).join("\n"), by: reasons.map((r) => r.by).join(", "), reasons };
    return unwind(run, f, op);
  }
  if (run.rechecks !== undefined) return recheck(run, f, op, [...run.rechecks]);
  return callOperationNow(run, f, op);
};

/**
 * Gates marked `recheck` see the input the operation will really get: each one whose view is
 * out of date (a hook inside it transformed the input) runs its `before` again (A10). Only a
 * Reject (or a fail-closed failure) counts; anything else lets the call go on.
 */
const recheck = (run: RunContext, f: Frame, op: Op, pending: [CompiledHook, unknown][]): Step => {
  while (pending.length > 0) {
    const [hook, seen] = pending.shift() as [CompiledHook, unknown];
    if (seen === f.input) continue;
    run.rechecks?.set(hook, f.input);
    run.input = f.input;
    const started = mark(run, hook);
    const answer = invoke(run, hook, "before", hook.before as AnyFn, f.input, run, undefined, started);
    if (isThenable(answer)) return whenSettled(run, hook, "before", answer, started, (a) => (rechecked(run, f, hook, a, started) ? unwind(run, f, op) : recheck(run, f, op, pending)));
    if (rechecked(run, f, hook, answer, started)) return unwind(run, f, op);
  }
  return callOperationNow(run, f, op);
};

/** Apply a recheck answer; true when it rejected. */
const rechecked = (run: RunContext, f: Frame, hook: CompiledHook, answer: unknown, started: number): boolean => {
  if (answer === undefined || answer === Continue) return false;
  const action = checkAction(run, hook, "before", answer, started);
  if (action === undefined) {
    if (hook.failMode === "open" || hook.shadow) return false;
    const error = run.lastFailure as HookError;
    f.outcome = Outcome.rejected(error.message, hook.name, error);
    return true;
  }
  if (run.recording) run.record(hook, "before", action._tag === "Reject" ? "Reject" : "Ignored", started, action._tag === "Reject" ? action.reason : "a recheck may only confirm or reject");
  if (action._tag !== "Reject" || hook.shadow) return false;
  f.outcome = Outcome.rejected(action.reason, hook.name);
  return true;
};

const callOperationNow = (run: RunContext, f: Frame, op: Op): Step => {
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
  if (f.chain.plain && !run.recording && !f.final && (f.outcome as Outcome)._tag === "Completed") return unwindPlain(run, f, op);
  const hooks = f.hooks;
  const start = f.start;
  const slow = run.recording;
  for (let j = f.j; j >= start && !f.final; j--) {
    const hook = hooks[j] as CompiledHook;
    const outcome = f.outcome as Outcome;
    const fn = outcome._tag === "Completed" ? hook.after : outcome._tag === "Failed" ? hook.recover : undefined;
    if (fn === undefined || (f.skipped !== undefined && f.skipped.has(j))) continue;
    const phase: Phase = outcome._tag === "Completed" ? "after" : "recover";
    const first = phase === "after" ? (outcome as { value: unknown }).value : (outcome as { error: unknown }).error;
    const input = f.transforms === undefined ? f.input : inputAt(f, j);
    run.input = input;
    let answer: unknown;
    let started = 0;
    if (slow || hook.timeoutMs !== undefined) {
      started = mark(run, hook);
      answer = invoke(run, hook, phase, fn, first, input, run, started);
    } else {
      run.current = hook;
      try {
        answer = fn(first, input, run);
      } catch (cause) {
        answer = thrown(run, hook, phase, cause);
      }
    }
    if (answer === undefined || answer === Continue) {
      if (slow) run.record(hook, phase, "Continue", started);
      continue;
    }
    if (isThenable(answer)) {
      f.j = j;
      return whenSettled(run, hook, phase, answer, started, laterExit(run, f, op, hook, phase, started));
    }
    applyExit(run, f, hook, phase, answer, started);
  }
  return ended(f);
};

/** The plain loop of the way out: `after` hooks on a Completed outcome, for plain chains. */
const unwindPlain = (run: RunContext, f: Frame, op: Op): Step => {
  const afters = f.chain.afters;
  const hooks = f.hooks;
  const start = f.start;
  for (let j = f.j; j >= start; j--) {
    const after = afters[j];
    if (after === undefined) continue;
    const hook = hooks[j] as CompiledHook;
    const input = f.transforms === undefined ? f.input : inputAt(f, j);
    run.input = input;
    run.current = hook;
    let answer: unknown;
    try {
      answer = after((f.outcome as { value: unknown }).value, input, run);
    } catch (cause) {
      answer = thrown(run, hook, "after", cause);
    }
    if (answer === undefined || answer === Continue) continue;
    f.j = j;
    if (isThenable(answer))
      return whenSettled(run, hook, "after", answer, 0, laterExit(run, f, op, hook, "after", 0));
    applyExit(run, f, hook, "after", answer, 0);
    if (f.final) return ended(f);
    f.j = j - 1;
    // A Failed outcome leaves the plain path; unwind decides what runs next.
    if ((f.outcome as Outcome)._tag !== "Completed") return unwind(run, f, op);
  }
  return ended(f);
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

export { toCompleted, toFailed };
