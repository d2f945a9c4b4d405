/**
 * How hooks on a tool call end the turn when loaded by `fromClaudeSettings`. A tool call cannot
 * stop the loop by itself (a refused call is an error result the model reads), so what its hooks
 * ask is kept per run and a `step` hook ends the run before its next model call, as the guards do.
 * They ask with `continue: false` (the `endsTurn` mark) and, for a prompt hook whose
 * `continueOnBlock` is not true, with `ok: false` (Claude Code's default on PreToolUse and
 * PostToolUse: "the turn ends"). Claude Code "stops processing entirely", so once a run asked,
 * no other tool call of it, or of a sub-agent it started, runs: a step's calls run in parallel,
 * and a sibling call still on its way through its hooks is refused (one that already ran keeps
 * its result).
 */
import type { RunInput, RunResult, StepInput, StepResult, ToolCall, ToolResult } from "../agent/types.ts";
import { Continue, Reject } from "../core/action.ts";
import type { HookContext } from "../core/context.ts";
import type { Hook } from "../core/hook.ts";
import { Outcome } from "../core/outcome.ts";
import { Priority } from "../core/priority.ts";
import { endsTurn, HookStopError, type TurnEndingReject } from "./protocol.ts";

const name = "claude-settings:turn-stop";

/** What a call of a run that asked to stop gets: refused, saying why (the turn ends before the model reads it). */
const refusal = (stop: HookStopError): Reject => Reject(`refused: hook "${stop.middleware}" asked to stop the turn`);

/**
 * The turn stops of one `fromClaudeSettings` load: `watch` wraps each tool-event hook, and `step`,
 * `calls` and `run` are mounted once when any hook was watched. What they keep lives no longer
 * than the `run` it belongs to.
 */
export const turnStops = () => {
  /** The runs going on, by `runId`, and the stop each one's hooks asked for. */
  const live = new Set<string>();
  const asked = new Map<string, HookStopError>();
  let used = false;
  /**
   * The stop asked by the run or by a run it was started from: a sub-agent's run id is its
   * parent's, then `/` (subagent.ts), and Claude Code stops processing entirely, sub-agents
   * included. Not the other way round: a sub-agent's stop ends the sub-agent only. An entry is
   * only ever kept for a live run, so a prefix found in `asked` is a live run.
   */
  const stopOf = (runId: string): HookStopError | undefined => {
    for (let id = runId; ; id = id.slice(0, id.lastIndexOf("/"))) {
      const stop = asked.get(id);
      if (stop !== undefined || !id.includes("/")) return stop;
    }
  };
  const watch = (hook: Hook, hookName: string, blockEndsTurn: boolean): Hook => {
    used = true;
    const seen = (action: unknown, ctx: HookContext, ran: boolean): unknown => {
      const refused = typeof action === "object" && action !== null && (action as Reject)._tag === "Reject" ? (action as Partial<TurnEndingReject>) : undefined;
      const reason = refused?.[endsTurn] ?? (blockEndsTurn ? refused?.reason : undefined);
      // Kept only for a run the `run` hook sees, so it goes when the run settles: a call outside
      // one (a bare stack.run, wrapped tools) has no turn to end, and its id may be reused.
      if (reason !== undefined && !ctx.signal.aborted && live.has(ctx.runId)) {
        asked.set(ctx.runId, new HookStopError(hookName, reason));
        return action;
      }
      // Another call of the run already asked while this hook was deciding: an allow no longer
      // holds for a call yet to run. One that ran keeps its result: refusing it would tell the
      // model and the audit that a call with side effects did not happen.
      const stop = refused === undefined && !ran ? stopOf(ctx.runId) : undefined;
      return stop === undefined ? action : refusal(stop);
    };
    const { before, after } = hook;
    return Object.freeze({
      ...hook,
      // A list of names in `before`/`after` is an order, not a phase: kept as it is (by `...hook`).
      ...(typeof before === "function" ? { before: async (input: never, ctx: HookContext) => seen(await before(input, ctx), ctx, false) } : {}),
      ...(typeof after === "function" ? { after: async (output: never, input: never, ctx: HookContext) => seen(await after(output, input, ctx), ctx, true) } : {}),
    }) as Hook;
  };
  const step: Hook<StepInput, StepResult, "observe"> = {
    name,
    priority: Priority.guard,
    around: (ctx, next) => {
      // The run's own stop, or one a run it was started from asked for: a sub-agent ends too,
      // before its next model call. Only the run's own entry is used up here.
      const stop = stopOf(ctx.runId);
      if (stop === undefined) return next();
      if (asked.get(ctx.runId) === stop) asked.delete(ctx.runId);
      return Outcome.failed(stop);
    },
  };
  /** Innermost, so it also refuses calls no settings hook matches, after every other hook let them through. */
  const calls: Hook<ToolCall, ToolResult, "gate"> = {
    name,
    priority: Priority.last,
    before: (_call, ctx) => {
      const stop = stopOf(ctx.runId);
      return stop === undefined ? Continue : refusal(stop);
    },
  };
  /**
   * A run that settles with a stop still asked (no further step read it: `maxSteps` reached, a
   * stack without a `step` point) ends as stopped by the hook all the same, and its entry goes
   * with it, whatever way the run settled.
   */
  const run: Hook<RunInput, RunResult, "gate"> = {
    name,
    priority: Priority.guard,
    around: async (ctx, next) => {
      live.add(ctx.runId);
      try {
        const outcome = await next();
        const stop = asked.get(ctx.runId);
        if (stop === undefined || outcome._tag !== "Completed" || outcome.value.stoppedBy !== undefined) return outcome;
        return Outcome.completed({ ...outcome.value, finishReason: "stopped-by-guard", stoppedBy: { reason: stop.message, by: stop.middleware, kind: stop.kind } });
      } finally {
        live.delete(ctx.runId);
        asked.delete(ctx.runId);
      }
    },
  };
  return { watch, step, calls, run, used: () => used };
};
