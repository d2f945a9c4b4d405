/**
 * `stepLimit`: at most `max` steps (model calls of the loop) per run, checked before each step
 * (seed 000's StepsLimitHook). The count is the step's own index, which the loop gives every
 * step, so this guard needs no stored state at all.
 */
import type { Hook } from "../core/hook.ts";
import { Priority } from "../core/priority.ts";
import type { StepInput, StepResult } from "../agent/types.ts";
import type { Middleware } from "./apply.ts";
import { stopRun } from "./guard-common.ts";
import { integerOption, knownOptions, nameOption } from "./options.ts";
import { placement } from "./placement.ts";

/**
 * Options of `stepLimit`.
 *
 * @example
 * stepLimit({ max: 10 })
 */
export interface StepLimitOptions {
  /** Steps allowed per run (default 20). */
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
  const hook: Hook<StepInput, StepResult, "observe"> = {
    name,
    ...placement(name, options.priority, Priority.guard),
    around: (ctx, next) => (ctx.input.index >= max ? stopRun(name, `Step limit reached: ${ctx.input.index}/${max}`, "steps") : next()),
  };
  return { name, hooks: { step: hook } };
};
