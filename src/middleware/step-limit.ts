/**
 * `stepLimit`: at most `max` steps (model calls of the loop) per run, checked before each step
 * (seed 000's StepsLimitHook). A run's limit bounds the run with the sub-agents it starts, as
 * `tokenBudget` does: each step is counted, with an atomic `incr` in the `StateStore`, in its own
 * run and in every run it is part of, and is refused once any of them has had `max`. The counts
 * are deleted when the run point settles (see run-state.ts). A run's own count is never less than
 * its step's index, which the loop gives every step.
 */
import type { Hook } from "../core/hook.ts";
import { Priority } from "../core/priority.ts";
import type { StepInput, StepResult } from "../agent/types.ts";
import type { Middleware } from "./apply.ts";
import { enclosingRunKeys, guardRetentionMs, runKey, stopRun } from "./guard-common.ts";
import { integerOption, knownOptions, nameOption } from "./options.ts";
import { placement } from "./placement.ts";
import { forgetAfterRun } from "./run-state.ts";

/**
 * Options of `stepLimit`.
 *
 * @example
 * stepLimit({ max: 10 })
 */
export interface StepLimitOptions {
  /** Steps allowed per run, its sub-agents' steps included (default 20). */
  readonly max?: number;
  readonly name?: string;
  /** Default `Priority.guard`. */
  readonly priority?: number;
}

/**
 * Stop a run before step `max + 1`, with `GuardStopError` ("Step limit reached: 20/20").
 *
 * @example
 * withMiddleware(createAgentStack(), stepLimit({ max: 10 }))
 */
export const stepLimit = (options: StepLimitOptions = {}): Middleware => {
  knownOptions("stepLimit", options, { max: true, name: true, priority: true });
  const name = nameOption("stepLimit", options.name);
  const max = integerOption(name, "max", options.max ?? 20, 0);
  const at = placement(name, options.priority, Priority.guard);
  const hook: Hook<StepInput, StepResult, "observe"> = {
    name,
    ...at,
    // Without its counts the guard cannot tell; a broken store stops the run rather than letting it step unwatched.
    failMode: "closed",
    around: async (ctx, next) => {
      const index = ctx.input.index;
      if (index >= max) return stopRun(name, `Step limit reached: ${index}/${max}`, "steps");
      // Counted before the step, atomically, so sub-agents running side by side cannot all take
      // the last step of a run they are part of. A refused step leaves a count at the limit past
      // it, which changes nothing: that run takes no more steps.
      const keys = enclosingRunKeys(name, ctx);
      const counts = await Promise.all(keys.map((k) => ctx.store.incr(k, 1, { ttlMs: guardRetentionMs })));
      const own = Math.max(index + 1, counts[counts.length - 1] ?? 0);
      const taken = Math.min(max, Math.max(own, ...counts) - 1);
      if (taken >= max) return stopRun(name, `Step limit reached: ${taken}/${max}`, "steps");
      return next();
    },
  };
  return { name, hooks: { step: hook, run: forgetAfterRun(name, at, (ctx) => [runKey(name, ctx)]) } };
};
