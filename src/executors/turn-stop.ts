/**
 * How hooks loaded by `fromClaudeSettings` end the turn. A tool call cannot stop the loop by
 * itself (a refused call is an error result the model reads), so what its hooks ask is kept per
 * run and a `step` hook ends the run before its next model call, as the guards do. They ask with
 * `continue: false` (observed in Claude Code on PreToolUse: the call runs, then the turn ends)
 * and, for a prompt hook whose `continueOnBlock` is not true, with `ok: false` (Claude Code's
 * default on PreToolUse and PostToolUse: "the turn ends"). Claude Code "stops processing
 * entirely", so once a run asked, no other tool call of it, or of a sub-agent it started, runs: a
 * step's calls run in parallel, and a sibling call still on its way through its hooks is refused
 * (the call that asked goes on; one that already ran keeps its result).
 */
import type { RunInput, RunResult, StepInput, StepResult, ToolCall, ToolResult } from "../agent/types.ts";
import { Continue, Reject } from "../core/action.ts";
import type { HookContext } from "../core/context.ts";
import type { Hook } from "../core/hook.ts";
import { Outcome } from "../core/outcome.ts";
import { Priority } from "../core/priority.ts";
import { HookStopError } from "./protocol.ts";

const name = "claude-settings:turn-stop";

/** What a call of a run that asked to stop gets: refused, saying why (the turn ends before the model reads it). */
const refusal = (stop: HookStopError): Reject => Reject(`refused: hook "${stop.middleware}" asked to stop the turn`);

/**
 * The turn stops of one `fromClaudeSettings` load: `endTurn` is what its hook sets call, and
 * `step`, `calls` and `run` are mounted once when a set on a tool event was made. What they keep
 * lives no longer than the `run` it belongs to.
 */
export const turnStops = () => {
  /** The runs going on, by `runId`, and the stop each one's hooks asked for, with the call that asked. */
  const live = new Set<string>();
  const asked = new Map<string, { readonly stop: HookStopError; readonly callId: string }>();
  let used = false;
  /**
   * The stop asked by the run or by a run it was started from: a sub-agent's run id is its
   * parent's, then `/` (subagent.ts), and Claude Code stops processing entirely, sub-agents
   * included. Not the other way round: a sub-agent's stop ends the sub-agent only. An entry is
   * only ever kept for a live run, so a prefix found in `asked` is a live run.
   */
  const askedBy = (runId: string) => {
    for (let id = runId; ; id = id.slice(0, id.lastIndexOf("/"))) {
      const entry = asked.get(id);
      if (entry !== undefined || !id.includes("/")) return entry;
    }
  };
  /** A hook asked to end the turn of the run `ctx` belongs to; the first ask stands. */
  const endTurn = (ctx: HookContext, by: string, reason: string): void => {
    // Kept only for a run the `run` hook sees, so it goes when the run settles: a call outside
    // one (a bare stack.run, wrapped tools) has no turn to end, and its id may be reused.
    if (ctx.signal.aborted || !live.has(ctx.runId) || asked.has(ctx.runId)) return;
    asked.set(ctx.runId, { stop: new HookStopError(by, reason), callId: ctx.callId });
  };
  /** Say a set on a tool event was made: the hooks below are mounted. */
  const watch = (): void => {
    used = true;
  };
  const step: Hook<StepInput, StepResult, "observe"> = {
    name,
    priority: Priority.guard,
    around: (ctx, next) => {
      // The run's own stop, or one a run it was started from asked for: a sub-agent ends too,
      // before its next model call. Only the run's own entry is used up here.
      const entry = askedBy(ctx.runId);
      if (entry === undefined) return next();
      if (asked.get(ctx.runId) === entry) asked.delete(ctx.runId);
      return Outcome.failed(entry.stop);
    },
  };
  /** Innermost, so it also refuses calls no settings hook matches, after every other hook let them through. */
  const calls: Hook<ToolCall, ToolResult, "gate"> = {
    name,
    priority: Priority.last,
    before: (_call, ctx) => {
      const entry = askedBy(ctx.runId);
      // The call whose hook asked goes on: Claude Code runs it, then ends the turn.
      return entry === undefined || entry.callId === ctx.callId ? Continue : refusal(entry.stop);
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
        const stop = asked.get(ctx.runId)?.stop;
        if (stop === undefined || outcome._tag !== "Completed" || outcome.value.stoppedBy !== undefined) return outcome;
        return Outcome.completed({
          ...outcome.value,
          finishReason: "stopped-by-guard",
          stoppedBy: { reason: stop.message, by: stop.middleware, kind: stop.kind },
        });
      } finally {
        live.delete(ctx.runId);
        asked.delete(ctx.runId);
      }
    },
  };
  return { endTurn, watch, step, calls, run, used: () => used };
};
