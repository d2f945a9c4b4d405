/**
 * What the four guards share: how they stop a run, and where they keep per-run state.
 */
import type { HookContext } from "../core/context.ts";
import { Outcome } from "../core/outcome.ts";
import { keyPart } from "../core/state.ts";
import { enclosingRunIds } from "../agent/run-links.ts";
import { GuardStopError, type GuardKind } from "./errors.ts";

/** Per-run guard state is kept this long (ms) after it was written, so finished runs leave nothing behind. */
export const guardRetentionMs = 24 * 3_600_000;

/**
 * The store key of a guard's state for this run (the run id is shared by every point of one agent run).
 *
 * @example
 * runKey("tokenBudget", ctx) // "tokenBudget:run:s1%231"
 */
export const runKey = (name: string, ctx: HookContext<any>): string => `${name}:run:${keyPart(ctx.runId)}`;

/**
 * The store keys of a guard's state for the runs this run is part of (a sub-agent's run is part of
 * its parent's, outermost first, as the agent linked them: `metadata.parentRunIds` is only for
 * reading and is never trusted), then for this run: a per-run limit counts what a run's sub-agents
 * do against the run too, so they cannot walk past it.
 *
 * @example
 * enclosingRunKeys("tokenBudget", ctx) // ["tokenBudget:run:s1%231", "tokenBudget:run:s1%231%2Fresearcher%3At1"]
 */
export const enclosingRunKeys = (name: string, ctx: HookContext<any>): string[] => [
  ...enclosingRunIds(ctx.metadata)
    .filter((id) => id !== ctx.runId)
    .map((id) => `${name}:run:${keyPart(id)}`),
  runKey(name, ctx),
];

/**
 * The outcome that stops the run before this step: a `Failed` step carrying a `GuardStopError`.
 *
 * @example
 * around: (ctx, next) => (ctx.input.index >= 20 ? stopRun("stepLimit", "Step limit reached: 20/20", "steps") : next())
 */
export const stopRun = (name: string, reason: string, kind: GuardKind): Outcome<never> =>
  Outcome.failed(new GuardStopError(name, reason, kind));
