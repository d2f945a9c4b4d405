/**
 * `tokenBudget`: stop a run once its model calls used `max` tokens (input plus output, summed
 * over every step, as seed 000's TokenUsageLimitHook counts), checked before each step. The
 * running total lives in the `StateStore` under the run's id, added after each step with an
 * atomic `incr`, so parallel sub-steps and other processes see one total, and deleted when the run
 * point settles (see run-state.ts). A step whose model stream failed part-way counts what it streamed.
 */
import type { Hook } from "../core/hook.ts";
import { Priority } from "../core/priority.ts";
import type { StepInput, StepResult } from "../agent/types.ts";
import type { Middleware } from "./apply.ts";
import { spentBy } from "./budget.ts";
import { enclosingRunKeys, guardRetentionMs, runKey, stopRun } from "./guard-common.ts";
import { integerOption, knownOptions, nameOption } from "./options.ts";
import { placement } from "./placement.ts";
import { forgetAfterRun } from "./run-state.ts";

/**
 * Options of `tokenBudget`.
 *
 * @example
 * tokenBudget({ max: 5_000, priority: 5 })
 */
export interface TokenBudgetOptions {
  /** Tokens allowed per run (default 32 768). */
  readonly max?: number;
  readonly name?: string;
  /** Default `Priority.guard`. */
  readonly priority?: number;
}

/**
 * Stop a run before the next step once it used `max` tokens, with `GuardStopError`.
 *
 * @example
 * withMiddleware(createAgentStack(), tokenBudget({ max: 5_000 }))
 */
export const tokenBudget = (options: TokenBudgetOptions = {}): Middleware => {
  knownOptions("tokenBudget", options, { max: true, name: true, priority: true });
  const name = nameOption("tokenBudget", options.name);
  const max = integerOption(name, "max", options.max ?? 32_768, 0);
  const at = placement(name, options.priority, Priority.guard);
  const hook: Hook<StepInput, StepResult, "observe"> = {
    name,
    ...at,
    // Without its count the guard cannot tell; a broken store stops the run rather than letting it spend unwatched.
    failMode: "closed",
    around: async (ctx, next) => {
      // A sub-agent's steps count against the runs it is part of too, and stop when any of them is spent.
      const keys = enclosingRunKeys(name, ctx);
      const counts = await Promise.all(keys.map((k) => ctx.store.get<number>(k)));
      const used = Math.max(0, ...counts.map((c) => c ?? 0));
      if (used >= max) return stopRun(name, `Token limit reached: ${used}/${max} tokens`, "tokens");
      const outcome = await next();
      // A step whose model stream failed part-way spent what the provider streamed: counted too.
      const response =
        outcome._tag === "Completed" ? outcome.value.response : outcome._tag === "Failed" ? spentBy(outcome.error) : undefined;
      if (response !== undefined) {
        const { inputTokens, outputTokens } = response.usage;
        const spent = Math.max(0, Math.round(inputTokens)) + Math.max(0, Math.round(outputTokens));
        // A count past the safe integers (or Infinity) is still spent: it uses up the whole budget.
        const counted = Number.isSafeInteger(spent) ? spent : Number.isNaN(spent) ? 0 : Math.max(max, 1);
        if (counted > 0) await Promise.all(keys.map((k) => ctx.store.incr(k, counted, { ttlMs: guardRetentionMs })));
      }
      return outcome;
    },
  };
  return { name, hooks: { step: hook, run: forgetAfterRun(name, at, (ctx) => [runKey(name, ctx)]) } };
};
