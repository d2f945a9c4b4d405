/**
 * State a middleware keeps for one run (a guard's token count, a time limit's start, a run-scoped
 * call limit) ends with that run: a `run` hook's `onSettled` deletes it once the run point has
 * settled, whatever ended it (the agent finished, a hook refused, the caller aborted), so a
 * session of any length leaves nothing in the store per finished turn. The TTL each key is
 * written with stays as the backstop, for a process that dies mid-run and for steps run without a
 * `run` point around them.
 */
import type { HookContext } from "../core/context.ts";
import { OperationAbandonedError, RunAbortedError } from "../core/errors.ts";
import type { Hook } from "../core/hook.ts";
import type { Outcome } from "../core/outcome.ts";
import type { RunInput, RunResult } from "../agent/types.ts";
import type { Placement } from "./placement.ts";

/**
 * Delete `keys` from the store. A delete that fails (the store is down) is left to the keys' TTL:
 * bookkeeping never turns a run into a failure.
 *
 * @example
 * onSettled: (_outcome, _input, ctx) => forget(ctx, [runKey("timeLimit", ctx)])
 */
export const forget = async (ctx: HookContext<any>, keys: Iterable<string>): Promise<void> => {
  await Promise.all([...keys].map((key) => ctx.store.delete(key).catch(() => undefined)));
};

/**
 * A `run` hook that deletes the keys `keys(ctx)` names once the run point has settled.
 *
 * @example
 * const hooks = { step: countTokens, run: forgetAfterRun("tokenBudget", { priority: Priority.guard }, (ctx) => [runKey("tokenBudget", ctx)]) }
 */
export const forgetAfterRun = (
  name: string,
  at: Placement,
  keys: (ctx: HookContext<RunInput>) => Iterable<string>,
): Hook<RunInput, RunResult, "gate"> => ({
  name,
  ...at,
  onSettled: (_outcome, _input, ctx) => forget(ctx, keys(ctx)),
});

/**
 * Whether an `onSettled` is told of the end of the run rather than of its layer's own answer:
 * the caller aborted or the deadline passed (`RunAbortedError`), or a hook outside answered
 * without waiting for the inside (`OperationAbandonedError`). A hook whose `around` was still
 * waiting on `next()` then (a call that hangs) ends there what it opened.
 *
 * @example
 * onSettled: (outcome, _input, ctx) => (leftByRunEnd(outcome) ? endOpen(ctx, holds, (h) => h.release()) : undefined)
 */
export const leftByRunEnd = (outcome: Outcome<unknown>): boolean =>
  outcome._tag === "Failed" && (outcome.error instanceof RunAbortedError || outcome.error instanceof OperationAbandonedError);
