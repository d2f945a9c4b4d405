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
import { Continue } from "./action.ts";
import { enterAround } from "./around.ts";
import { checkAction, failedMatch } from "./decide.ts";
import type { HookError } from "./errors.ts";
import { abandoned, freeze, mark, reasonOf, toCompleted, toFailed, type AnyFn, type Frame, type Op, type Step } from "./frame.ts";
import type { CompiledHook } from "./hook.ts";
import { invoke, thrown, whenSettled } from "./invoke.ts";
import { Outcome } from "./outcome.ts";
import type { RunContext, ScopedContext } from "./run-context.ts";
import type { RunSignal } from "./run-signal.ts";
import { isThenable } from "./signal.ts";
import { unwind } from "./unwind.ts";

// ---------------------------------------------------------------------------------------------
// The way in
// ---------------------------------------------------------------------------------------------

/**
 * Enter hooks from `f.i` until the operation, an `around`, or a short-circuit. The loop keeps
 * its index in a local and calls untimed, untraced hooks inline: this is the hot path.
 */
export const forward = (run: RunContext, f: Frame, op: Op): Step => {
  if (f.chain.plain && !run.recording) return forwardPlain(run, f, op);
  const hooks = f.chain.hooks;
  const n = hooks.length;
  const slow = run.recording;
  let i = f.i;
  for (; i < n; i++) {
    // A hook before this one aborted the run (its caller's signal) and it settled: start nothing
    // more, not even a hook's condition (R7).
    if (run.settled) return abandoned(f);
    const hook = hooks[i] as CompiledHook;
    if (hook.matcher.needsInput && !matchesNow(run, f, hook, i)) continue;
    const before = hook.before;
    if (before !== undefined) {
      run.input = f.payload;
      let answer: unknown;
      let started = 0;
      if (slow || hook.timeoutMs !== undefined) {
        started = mark(run, hook);
        answer = invoke(run, hook, "before", before, f.payload, run, undefined, started);
      } else {
        run.current = hook;
        try {
          answer = before(f.payload, run);
        } catch (cause) {
          answer = thrown(run, hook, "before", cause);
        }
      }
      if (answer !== undefined && answer !== Continue) {
        f.i = i;
        if (isThenable(answer)) return whenSettled(run, hook, "before", answer, started, laterBefore(run, f, op, hook, started));
        if (applyBefore(run, f, hook, answer, started)) return unwind(run, f, op);
      } else if (slow) run.record(hook, "before", "Continue", started);
      if (hook.recheck) approved(run, hook, f.payload);
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
  const hooks = f.chain.hooks;
  const n = befores.length;
  run.input = f.payload;
  for (let i = f.i; i < n; i++) {
    const before = befores[i];
    if (before === undefined) continue;
    if (run.settled) return abandoned(f); // aborted by a hook before this one (R7)
    const hook = hooks[i] as CompiledHook;
    run.current = hook;
    let answer: unknown;
    try {
      answer = before(f.payload, run);
    } catch (cause) {
      answer = thrown(run, hook, "before", cause);
    }
    if (answer === undefined || answer === Continue) continue;
    f.i = i;
    if (isThenable(answer)) return whenSettled(run, hook, "before", answer, 0, laterBefore(run, f, op, hook, 0));
    if (applyBefore(run, f, hook, answer, 0)) return unwind(run, f, op);
    run.input = f.payload;
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

const resumeBefore = (run: RunContext, f: Frame, op: Op, hook: CompiledHook, answer: unknown, started: number): Step => {
  if (run.settled) return abandoned(f); // the run was aborted: start nothing more (C2)
  if (applyBefore(run, f, hook, answer, started)) return unwind(run, f, op);
  if (hook.recheck) approved(run, hook, f.payload);
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
    ok = hook.matcher.test(run.subject, f.payload, () => run.detailOf(f.payload), run.metadata);
  } catch (cause) {
    // A throwing matcher function is a failure of its hook; fail closed means the hook "applies".
    ok = failedMatch(run, hook, cause);
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
    f.payload = freeze(run, action.value);
    (f.transforms ??= new Map()).set(f.i, f.payload);
    return false;
  }
  if (action._tag === "Reject" && run.pointDef.collect === true) {
    (run.collected ??= []).push({ reason: action.reason, by: hook.name });
    return false;
  }
  // On a collecting gate a veto already given outranks a later Replace.
  f.outcome = vetoed(run) ? collectedOutcome(run.collected as { reason: string; by: string }[])
    : action._tag === "Reject" ? Outcome.rejected(action.reason, hook.name) : toCompleted(freeze(run, action.value));
  f.j = f.i - 1;
  return true;
};

/** After a failure in `before`: closed rejects and short-circuits, open (or shadow) goes on. */
const failClosedBefore = (run: RunContext, f: Frame, hook: CompiledHook): boolean => {
  if (hook.failMode === "open" || hook.shadow) return false;
  const error = run.lastFailure as HookError;
  if (run.pointDef.collect === true) {
    // A collecting gate gathers a failed hook's closed "no" like any other veto.
    (run.collected ??= []).push({ reason: error.message, by: hook.name });
    return false;
  }
  f.outcome = Outcome.rejected(error.message, hook.name, error);
  f.j = f.i - 1;
  return true;
};

/** True when a collecting gate holds a veto (a retry may have emptied the list). */
export const vetoed = (run: RunContext): boolean => run.collected !== undefined && run.collected.length > 0;

/** The joined rejection of a collecting gate. */
export const collectedOutcome = (reasons: { reason: string; by: string }[]): Outcome => ({
  _tag: "Rejected", reason: reasons.map((r) => r.reason).join("\n"), by: reasons.map((r) => r.by).join(", "), reasons: [...reasons],
});






// ---------------------------------------------------------------------------------------------
// The operation
// ---------------------------------------------------------------------------------------------

const callOperation = (run: RunContext, f: Frame, op: Op): Step => {
  f.j = f.chain.hooks.length - 1;
  if (vetoed(run)) {
    // A collecting gate: everyone had their say; any rejection skips the operation.
    f.outcome = collectedOutcome(run.collected as { reason: string; by: string }[]);
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
    if (run.settled) return abandoned(f); // a hook inside, or the caller, aborted the run (R7)
    const [hook, seen] = pending.shift() as [CompiledHook, unknown];
    if (seen === f.payload) continue;
    run.rechecks?.set(hook, f.payload);
    run.input = f.payload;
    const started = mark(run, hook);
    const answer = invoke(run, hook, "before", hook.before as AnyFn, f.payload, run, undefined, started);
    if (isThenable(answer)) return whenSettled(run, hook, "before", answer, started, (a) => (rechecked(run, f, hook, a, started) ? unwind(run, f, op) : recheck(run, f, op, pending)));
    if (rechecked(run, f, hook, answer, started)) return unwind(run, f, op);
  }
  return callOperationNow(run, f, op);
};

/** Apply a recheck answer; true when it rejected. */
const rechecked = (run: RunContext, f: Frame, hook: CompiledHook, answer: unknown, started: number): boolean => {
  if (answer === undefined || answer === Continue) {
    if (run.recording) run.record(hook, "before", "Continue", started, "recheck"); // every call is in the trace (R11)
    return false;
  }
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
  if (run.settled) return abandoned(f); // aborted while an around or a recheck was still deciding (R7)
  run.input = f.payload;
  // The operation is no hook: its `ctx.hook` and `addContext` are not the last hook's.
  run.current = undefined;
  const ctx = run.callContext(f.payload, f);
  let result: unknown;
  try {
    result = op(f.payload, ctx);
  } catch (error) {
    f.outcome = toFailed(error);
    return unwind(run, f, op);
  }
  if (isThenable(result)) return whenOperationSettles(run, f, op, result, ctx === run ? undefined : (ctx as ScopedContext).own);
  f.outcome = toCompleted(freeze(run, result));
  return unwind(run, f, op);
};

/**
 * The continuation of an asynchronous operation, made outside `callOperationNow`: closures there
 * would make V8 allocate a context for `run`, `f` and `op` on every call, synchronous ones too.
 */
const whenOperationSettles = (run: RunContext, f: Frame, op: Op, result: PromiseLike<unknown>, own: RunSignal | undefined): Promise<Outcome> => {
  if (own !== undefined) run.hold(own); // while it runs, the run settling aborts its signal (RunContext.end)
  return Promise.resolve(result).then(
    (value) => {
      if (own !== undefined) run.release(own);
      // Aborted or timed out meanwhile: a late result starts no after or recover hook (R7).
      if (run.settled) return abandoned(f);
      f.outcome = toCompleted(freeze(run, value));
      return unwind(run, f, op);
    },
    (error) => {
      if (own !== undefined) run.release(own);
      if (run.settled) return abandoned(f);
      f.outcome = toFailed(error);
      return unwind(run, f, op);
    },
  );
};

