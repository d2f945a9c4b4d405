/**
 * Claude Code's decisions as HookActions. One function, `applyAnswer`, turns what any external
 * hook answered (command, HTTP, prompt, agent) into `Continue`, `Transform`, `Reject`, context
 * for the model, an approval request, or a typed failure, following the event table.
 *
 * Precedence inside one answer: `continue: false` first (it "takes precedence over any
 * event-specific decision fields"), then a block (exit 2, `decision: "block"`, `deny`), then
 * `defer`, `ask`, `allow`. Across hooks the onion does the rest: a `Reject` is a veto, so an
 * `allow` from one hook never loosens another hook's deny.
 */
import { stopsRun } from "../agent/stop-signal.ts";
import type { ToolCall, ToolResult } from "../agent/types.ts";
import { Continue, Reject, Transform, type HookAction } from "../core/action.ts";
import type { HookContext } from "../core/context.ts";
import { AgentOnionError } from "../core/errors.ts";
import type { HookAnswer } from "./answer.ts";
import { ExecutorError } from "./errors.ts";
import type { BlockEffect, ClaudeEvent, EventSpec } from "./events.ts";
import type { PointData } from "./event-json.ts";
import { cleanText } from "./sanitize.ts";

/** Something an external hook said that is not a decision: a message for the user, a `defer`, an ignored field. */
export interface ExternalNotice {
  readonly hook: string;
  readonly event: ClaudeEvent;
  readonly kind: "systemMessage" | "stopReason" | "defer" | "ignored" | "hook-error" | "background-result" | "background-failure" | "dropped" | "cancelled";
  readonly message: string;
  readonly source?: string | undefined;
}

/** Where notices go (a logger, the `notification` point, a test array). */
export type NoticeSink = (notice: ExternalNotice) => void;

export interface ApplyOptions {
  readonly hook: string;
  readonly phase: "before" | "after" | "recover";
  readonly notify: (kind: ExternalNotice["kind"], message: string) => void;
}

/**
 * Marks the `Reject` of a tool call whose hook answered `continue: false`; its value is the
 * `stopReason`, for the user. A tool call cannot end the loop by itself (a refused call is an
 * error result the model reads), so whoever mounted the hook ends the turn on seeing the mark:
 * `fromClaudeSettings` does, through a `step` hook that stops the run with `HookStopError`.
 */
export const endsTurn: unique symbol = Symbol.for("agent-onion.endsTurn") as never;

/** A `Reject` that also asks for the turn to end (see `endsTurn`). */
export type TurnEndingReject = Reject & { readonly [endsTurn]: string };

/**
 * A hook asked to end the turn (`continue: false`, or a prompt hook's `ok: false` without
 * `continueOnBlock`): the `Failed` outcome of the next `step`, which the reference loop reads as a
 * clean stop (`finishReason: "stopped-by-guard"`, `stoppedBy: { reason, by, kind: "hook" }`), so
 * the reason reaches the caller and the notification point, never the model.
 *
 * @example
 * turn.finishReason === "stopped-by-guard" && turn.result?.stoppedBy?.kind // "hook"
 */
export class HookStopError extends AgentOnionError {
  override name = "HookStopError";
  readonly [stopsRun] = true as const;
  readonly kind = "hook";
  constructor(
    /** The hook that asked (the loop reads a stop's author from `middleware`). */
    readonly middleware: string,
    reason: string,
  ) {
    super(reason);
  }
}

const isToolCall = (v: unknown): v is ToolCall =>
  typeof v === "object" && v !== null && typeof (v as ToolCall).name === "string" && typeof (v as ToolCall).input === "object";

/**
 * Apply a blocking answer with the effect the event gives it. Returns the action to return,
 * or `undefined` when the answer goes on being read (context, ignore).
 */
const block = (spec: EventSpec, effect: BlockEffect, reason: string, ctx: HookContext, o: ApplyOptions): HookAction | undefined => {
  switch (effect) {
    case "reject":
      // On an observation point the core turns this Reject into an R2 failure (reject-on-observe) and R6 decides.
      if (o.phase === "recover")
        throw new ExecutorError("cannot-block", `asked to stop after a failed tool call (${spec.event}), which cannot be blocked: ${reason}`);
      return Reject(reason);
    case "notice":
      // Claude Code shows this to the user as a "hook error" notice; the model never sees it and the event goes on.
      o.notify("hook-error", reason);
      return Continue;
    case "context":
      ctx.addContext(reason);
      return undefined;
    case "ignore":
      o.notify("ignored", `a block is ignored on ${spec.event}: ${reason}`);
      return undefined;
  }
};

/**
 * Turn an external hook's answer into a HookAction for `spec`'s point and phase (see the
 * module comment for precedence). A block on an observation point is returned as `Reject`,
 * which the core turns into an R2 failure (R6 decides); where Claude Code only shows exit 2's
 * stderr to the user (SessionStart, PostCompact, SessionEnd) it is a `hook-error` notice and
 * the event goes on. `decision: "block"` counts only on events whose decision control lists it.
 *
 * @example
 * await applyAnswer(claudeEvents.PreToolUse, { block: "rm is not allowed" }, { input: call }, ctx, opts) // Reject("rm is not allowed")
 */
export const applyAnswer = async (
  spec: EventSpec,
  answer: HookAnswer,
  data: PointData,
  ctx: HookContext,
  o: ApplyOptions,
): Promise<HookAction> => {
  if (spec.ignoresOutput) return Continue;
  const out = answer.output ?? {};
  const hso = out.hookSpecificOutput;
  if (out.systemMessage !== undefined && cleanText(out.systemMessage)) o.notify("systemMessage", cleanText(out.systemMessage));
  const isStop = spec.event === "Stop" || spec.event === "SubagentStop";

  if (out.continue === false) {
    const why = cleanText(out.stopReason ?? "") || `hook "${o.hook}" asked to stop (continue: false)`;
    // On Stop, "stop processing" is exactly what was about to happen: let it.
    if (isStop) {
      o.notify("stopReason", why);
      return Continue;
    }
    if (spec.ignoresContinue) o.notify("ignored", `continue: false is ignored on ${spec.event}: ${why}`);
    else if (spec.point === "toolCall" && o.phase !== "recover") {
      // stopReason is "not shown to Claude": the model reads only that the hook asked to stop,
      // which is true whether or not whoever mounted the hook ends the turn (see endsTurn).
      o.notify("stopReason", why);
      const refused: TurnEndingReject = { ...Reject(`hook "${o.hook}" refused the call and asked to stop the turn (continue: false)`), [endsTurn]: why };
      return refused;
    } else return block(spec, "reject", why, ctx, o) ?? Continue;
  }

  const legacy = spec.event === "PreToolUse" ? (out.decision === "approve" ? "allow" : out.decision === "block" ? "deny" : undefined) : undefined;
  const permission = hso?.permissionDecision ?? legacy;
  // A JSON reason is the blocking message only beside the JSON's own blocking decision; otherwise
  // exit 2's stderr is ("the reason from your JSON's blocking decision when it makes one").
  const decided = out.decision === "block" && (spec.decision || legacy === "deny");
  if (out.decision === "block" && !decided) o.notify("ignored", `decision: "block" is ignored on ${spec.event}: ${cleanText(out.reason ?? "")}`);
  const decisionReason = decided ? out.reason : undefined;
  const jsonReason = cleanText((permission === "deny" ? hso?.permissionDecisionReason ?? decisionReason : decisionReason) ?? "");
  const context = permission === "defer" ? "" : cleanText(hso?.additionalContext ?? "");
  if (context && !isStop) ctx.addContext(context);
  if (answer.text && spec.stdoutIsContext && answer.block === undefined) ctx.addContext(answer.text);

  const blocked = answer.block !== undefined || decided || permission === "deny";
  if (blocked) {
    const reason = jsonReason || answer.block || `blocked by hook "${o.hook}"`;
    const action = block(spec, spec.onBlock, reason, ctx, o);
    if (action) return action;
  }
  // Stop's additionalContext keeps the agent going as non-error feedback: for us, a Reject with that text.
  if (isStop && context) return block(spec, "reject", context, ctx, o) ?? Continue;
  if (answer.impossible && isStop) o.notify("stopReason", "the hook judged its condition impossible; the stop goes ahead");

  if (spec.event === "PreToolUse" && isToolCall(data.input)) {
    const call = data.input;
    if (permission === "defer") {
      o.notify("defer", `deferred ${call.name} (${call.id}); agent-onion has no deferred mode, so the call goes ahead`);
      return Continue;
    }
    const updated = hso?.updatedInput ? { ...call, input: { ...hso.updatedInput } } : undefined;
    if (permission === "ask") {
      const reason = cleanText(hso?.permissionDecisionReason ?? "");
      const answer = await ctx.approve({ hook: o.hook, input: updated ?? call, ...(reason ? { reason } : {}) });
      if (answer.decision === "deny") return Reject(cleanText(answer.reason) || `denied by the approval handler for hook "${o.hook}"`);
      if (answer.decision === "edit") return Transform(isToolCall(answer.input) ? answer.input : { ...call, input: answer.input as Record<string, unknown> });
    }
    return updated ? Transform(updated) : Continue;
  }
  if (spec.event === "PostToolUse" && hso) {
    const replacement = "updatedToolOutput" in hso ? hso.updatedToolOutput : hso.updatedMCPToolOutput;
    if (replacement !== undefined) return Transform({ ...(data.output as ToolResult), content: replacement });
  }
  return Continue;
};
