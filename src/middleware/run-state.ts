/**
 * State a middleware keeps for one run (a guard's token count, a time limit's start, a run-scoped
 * call limit) ends with that run: a `run` hook deletes it once the run point has settled, so a
 * session of any length leaves nothing in the store per finished turn. The TTL each key is written
 * with stays as the backstop, for a process that dies mid-run and for steps run without a `run`
 * point around them.
 */
import type { HookContext } from "../core/context.ts";
import type { Hook } from "../core/hook.ts";
import type { Outcome } from "../core/outcome.ts";
import type { RunInput, RunResult } from "../agent/types.ts";
import type { Placement } from "./placement.ts";

/**
 * Run `next`, then delete `keys()` from the store, whatever the run's outcome. A delete that fails
 * (the store is down) is left to the keys' TTL: bookkeeping never turns a run into a failure.
 *
 * @example
 * around: (ctx, next) => forgetAfter(ctx, next, () => [runKey("tokenBudget", ctx)])
 */
export const forgetAfter = async <T>(ctx: HookContext<any>, next: () => Promise<T>, keys: () => Iterable<string>): Promise<T> => {
  try {
    return await next();
  } finally {
    await Promise.all([...keys()].map((key) => ctx.store.delete(key).catch(() => undefined)));
  }
};

/**
 * A `run` hook that deletes the keys `keys(ctx)` names once the run point has settled.
 *
 * @example
 * const hooks = { step: countTokens, run: forgetAfterRun("tokenBudget", { priority: Priority.guard }, (ctx) => [runKey("tokenBudget", ctx)]) }
 */
export const forgetAfterRun = (name: string, at: Placement, keys: (ctx: HookContext<RunInput>) => Iterable<string>): Hook<RunInput, RunResult, "gate"> => ({
  name,
  ...at,
  around: (ctx, next): Promise<Outcome<RunResult>> => forgetAfter(ctx, next, () => keys(ctx)),
});
