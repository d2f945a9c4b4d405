/**
 * `finishReasonStop`: stop a run after a step whose model answer ended with one of the given
 * finish reasons (seed 000's FinishReasonHook), e.g. `["length"]` to stop when the model was cut
 * off. The step itself completes (its tool calls run, its answer is kept); the reason is noted
 * in the `StateStore` under the run's id and the run stops before its next step, even if a
 * `stop` hook asked it to go on. Its default priority is `Priority.first`: its `after` runs
 * last, on the answer as every other step hook left it (the seed's -200 on AfterStep).
 */
import type { Hook } from "../core/hook.ts";
import { Priority } from "../core/priority.ts";
import type { FinishReason, StepInput, StepResult } from "../agent/types.ts";
import type { Middleware } from "./apply.ts";
import { guardRetentionMs, runKey, stopRun } from "./guard-common.ts";
import { nearestName } from "../core/nearest-name.ts";
import { knownOptions, nameOption } from "./options.ts";
import { placement } from "./placement.ts";
import { forgetAfterRun } from "./run-state.ts";

/**
 * Options of `finishReasonStop`.
 *
 * @example
 * finishReasonStop({ reasons: ["length"] })
 */
export interface FinishReasonStopOptions {
  /** Finish reasons that stop the run; empty means the guard does nothing. */
  readonly reasons: readonly FinishReason[];
  readonly name?: string;
  /** Default `Priority.first`. */
  readonly priority?: number;
}

const known: ReadonlySet<string> = new Set(["stop", "length", "tool-calls", "content-filter", "error", "other"]);

/**
 * Refuse anything but a list of known finish reasons, naming the middleware and the field it was
 * given as (`guards` passes its own `finishReasons`), with the reason meant for a misspelt one.
 *
 * @example
 * finishReasonsOption("guards", "finishReasons", ["lenght"]) // throws TypeError: guards: finishReasons has an unknown finish reason "lenght" (did you mean "length"?) ...
 */
export const finishReasonsOption = (middleware: string, field: string, reasons: unknown): readonly FinishReason[] => {
  if (!Array.isArray(reasons)) throw new TypeError(`${middleware}: ${field} must be a list of finish reasons`);
  for (const r of reasons)
    if (!known.has(r)) {
      const near = typeof r === "string" ? nearestName(r, [...known]) : undefined;
      throw new TypeError(
        `${middleware}: ${field} has an unknown finish reason ${JSON.stringify(r)}${near === undefined ? "" : ` (did you mean ${JSON.stringify(near)}?)`} (expected one of ${[...known].join(", ")})`,
      );
    }
  return reasons as readonly FinishReason[];
};

/**
 * Stop a run before the next step once a step ended with one of `reasons`, with `GuardStopError`.
 *
 * @example
 * withMiddleware(createAgentStack(), finishReasonStop({ reasons: ["length", "content-filter"] }))
 */
export const finishReasonStop = (options: FinishReasonStopOptions): Middleware => {
  knownOptions("finishReasonStop", options, { reasons: true, name: true, priority: true });
  const name = nameOption("finishReasonStop", options.name);
  const reasons = new Set<string>(finishReasonsOption(name, "reasons", options.reasons));
  const at = placement(name, options.priority, Priority.first);
  if (reasons.size === 0) return { name, hooks: {} };
  const hook: Hook<StepInput, StepResult, "observe"> = {
    name,
    ...at,
    failMode: "closed",
    around: async (ctx, next) => {
      const key = runKey(name, ctx);
      const seen = await ctx.store.get<string>(key);
      if (typeof seen === "string") return stopRun(name, `The model finished with "${seen}", which stops the run`, "finish-reason");
      const outcome = await next();
      if (outcome._tag === "Completed" && reasons.has(outcome.value.response.finishReason))
        await ctx.store.set(key, outcome.value.response.finishReason, { ttlMs: guardRetentionMs });
      return outcome;
    },
  };
  return { name, hooks: { step: hook, run: forgetAfterRun(name, at, (ctx) => [runKey(name, ctx)]) } };
};
