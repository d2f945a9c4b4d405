/**
 * What the four guards share: how they stop a run, and where they keep per-run state.
 */
import type { HookContext } from "../core/context.ts";
import { Outcome } from "../core/outcome.ts";
import { keyPart } from "../core/state.ts";
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
 * The outcome that stops the run before this step: a `Failed` step carrying a `GuardStopError`.
 *
 * @example
 * around: (ctx, next) => (ctx.input.index >= 20 ? stopRun("stepLimit", "Step limit reached: 20/20", "steps") : next())
 */
export const stopRun = (name: string, reason: string, kind: GuardKind): Outcome<never> =>
  Outcome.failed(new GuardStopError(name, reason, kind));
