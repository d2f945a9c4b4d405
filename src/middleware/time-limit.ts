/**
 * `timeLimit`: stop a run whose wall-clock time passed `maxSeconds`, checked before each step
 * (seed 000's ExecutionTimeLimitHook). The clock starts on the `run` point; a loop that runs
 * steps without a `run` starts it on the first step. The start time lives in the `StateStore`
 * under the run's id. It does not cut a step short: combine it with a run `timeoutMs` for that.
 */
import type { HookContext } from "../core/context.ts";
import type { Hook } from "../core/hook.ts";
import { Priority } from "../core/priority.ts";
import type { RunInput, RunResult, StepInput, StepResult } from "../agent/types.ts";
import type { Middleware } from "./apply.ts";
import { enclosingRunKeys, runKey, stopRun } from "./guard-common.ts";
import { functionOption, knownOptions, nameOption, numberOption } from "./options.ts";
import { placement } from "./placement.ts";
import { forget } from "./run-state.ts";

/**
 * Options of `timeLimit`.
 *
 * @example
 * timeLimit({ maxSeconds: 30 })
 */
export interface TimeLimitOptions {
  /** Seconds a run may take (default 300). */
  readonly maxSeconds?: number;
  /** The clock in ms (default `Date.now`), for tests. */
  readonly now?: () => number;
  readonly name?: string;
  /** Default `Priority.guard`. */
  readonly priority?: number;
}

/**
 * Stop a run before the next step once `maxSeconds` passed since it started, with `GuardStopError`.
 *
 * @example
 * withMiddleware(createAgentStack(), timeLimit({ maxSeconds: 30 }))
 */
export const timeLimit = (options: TimeLimitOptions = {}): Middleware => {
  knownOptions("timeLimit", options, { maxSeconds: true, now: true, name: true, priority: true });
  const name = nameOption("timeLimit", options.name);
  const maxSeconds = numberOption(name, "maxSeconds", options.maxSeconds ?? 300, 0);
  const now = functionOption(name, "now", options.now) ?? Date.now;
  const at = placement(name, options.priority, Priority.guard);
  // Keep the start an hour past the limit: long enough for every check, short enough to clean up.
  // Capped: a limit of years would otherwise ask the store for a TTL past the safe integers.
  const ttlMs = Math.min(Math.ceil(maxSeconds * 1000) + 3_600_000, Number.MAX_SAFE_INTEGER);
  const start = (ctx: HookContext<any>): Promise<void> => ctx.store.set(runKey(name, ctx), now(), { ttlMs });

  const onRun: Hook<RunInput, RunResult, "gate"> = {
    name,
    ...at,
    before: (_input, ctx) => start(ctx),
    // Deleted when the run settles, however it ends, so finished runs leave nothing in the store.
    onSettled: (_outcome, _input, ctx) => forget(ctx, [runKey(name, ctx)]),
  };
  const onStep: Hook<StepInput, StepResult, "observe"> = {
    name,
    ...at,
    failMode: "closed",
    around: async (ctx, next) => {
      // A sub-agent's run is also timed from the start of each run it is part of: the earliest start counts.
      const keys = enclosingRunKeys(name, ctx);
      const starts = await Promise.all(keys.map((k) => ctx.store.get<number>(k)));
      const own = starts.at(-1);
      if (typeof own !== "number") await start(ctx);
      const known = starts.filter((t): t is number => typeof t === "number");
      if (known.length === 0) return next();
      const elapsed = (now() - Math.min(...known)) / 1000;
      if (elapsed >= maxSeconds) return stopRun(name, `Time limit reached: ${elapsed.toFixed(1)} s of ${maxSeconds} s`, "time");
      return next();
    },
  };
  return { name, hooks: { run: onRun, step: onStep } };
};
