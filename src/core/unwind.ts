/**
 * The way out of a frame: `after` hooks on a Completed outcome and `recover` hooks on a Failed
 * one, in descending priority (R1, R3, R5), with the same plain fast loop as the way in.
 */
import { Continue } from "./action.ts";
import { checkAction, failed } from "./decide.ts";
import type { HookError, Phase } from "./errors.ts";
import { abandoned, ended, freeze, mark, reasonOf, toCompleted, type Frame, type Op, type Step } from "./frame.ts";
import type { CompiledHook } from "./hook.ts";
import { hookError, invoke, thrown, whenSettled } from "./invoke.ts";
import { Outcome } from "./outcome.ts";
import type { RunContext } from "./run-context.ts";
import { isThenable } from "./signal.ts";

/** Leave hooks from `f.j` down to the frame's start: `after` on Completed, `recover` on Failed. */
export const unwind = (run: RunContext, f: Frame, op: Op): Step => {
  if (f.chain.plain && !run.recording && !f.final && (f.outcome as Outcome)._tag === "Completed") return unwindPlain(run, f, op);
  const hooks = f.chain.hooks;
  const start = f.start;
  const slow = run.recording;
  for (let j = f.j; j >= start && !f.final; j--) {
    const hook = hooks[j] as CompiledHook;
    const outcome = f.outcome as Outcome;
    const fn = outcome._tag === "Completed" ? hook.after : outcome._tag === "Failed" ? hook.recover : undefined;
    if (fn === undefined || (f.skipped !== undefined && f.skipped.has(j))) continue;
    // A hook after this one aborted the run (its caller's signal) and it settled: start nothing more (R7).
    if (run.settled) return abandoned(f);
    const phase: Phase = outcome._tag === "Completed" ? "after" : "recover";
    const first = phase === "after" ? (outcome as { value: unknown }).value : (outcome as { error: unknown }).error;
    const input = f.transforms === undefined ? f.payload : inputAt(f, j);
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
  const hooks = f.chain.hooks;
  const start = f.start;
  for (let j = f.j; j >= start; j--) {
    const after = afters[j];
    if (after === undefined) continue;
    if (run.settled) return abandoned(f); // aborted by a hook after this one (R7)
    const hook = hooks[j] as CompiledHook;
    const input = f.transforms === undefined ? f.payload : inputAt(f, j);
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
  if (f.transforms === undefined) return f.payload;
  let best = -1;
  let value: unknown;
  for (const [k, v] of f.transforms) if (k < j && k > best) ((best = k), (value = v));
  return best >= 0 ? value : f.initial;
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

/** The continuation of an asynchronous `after`/`recover`, made outside the loop (see `laterBefore` in chain.ts). */
const laterExit = (run: RunContext, f: Frame, op: Op, hook: CompiledHook, phase: "after" | "recover", started: number) => (answer: unknown): Step => {
  if (run.settled) return abandoned(f);
  applyExit(run, f, hook, phase, answer, started);
  f.j--;
  return unwind(run, f, op);
};
