/**
 * Deciding what a hook said: validating its answer (R2, R6), reading it once, and recording a
 * failure with its fail mode.
 */
import { Continue, Reject, isHookAction, type HookAction } from "./action.ts";
import { RejectOnObserveError, describe, type HookError, type Phase } from "./errors.ts";
import type { CompiledHook } from "./hook.ts";
import { Failure, hookError } from "./invoke.ts";
import type { RunContext } from "./run-context.ts";

/**
 * Validate what a hook returned (R2, R6). Returns the action, or undefined after recording the
 * failure (invalid shape, or `Reject` on an observation point).
 */
export const checkAction = (run: RunContext, hook: CompiledHook, phase: Phase, raw: unknown, started: number): HookAction | undefined => {
  if (raw instanceof Failure) return failed(run, hook, phase, raw.error, started);
  const answer = snapshot(raw);
  if (answer === undefined) return failed(run, hook, phase, hookError(run, hook, phase, "invalid-action", new TypeError(`expected Continue, Transform, Reject or Replace, got ${describe(raw)}`), started), started);
  if (answer._tag === "Reject" && run.kind === "observe")
    return failed(run, hook, phase, hookError(run, hook, phase, "reject-on-observe", new RejectOnObserveError(answer.reason, run.point), started), started);
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
  if (run.recording) {
    const rejected = error.kind === "reject-on-observe" && error.cause instanceof RejectOnObserveError ? error.cause.reason : undefined;
    run.record(hook, phase, "Failed", started, error.message, open ? "open" : "closed", rejected);
  }
  run.lastFailure = error;
  return undefined;
};

/**
 * A hook's matcher could not decide: it threw, or the subject it needs could not be computed.
 * Recorded as the hook's failure (R6); true when the hook applies because it fails closed.
 */
export const failedMatch = (run: RunContext, hook: CompiledHook, cause: unknown): boolean => {
  const error = hookError(run, hook, "match", "threw", cause, 0);
  const open = hook.failMode === "open";
  run.fail(error, open);
  if (run.recording) run.record(hook, "match", "Failed", performance.now(), error.message, open ? "open" : "closed");
  return !open;
};
