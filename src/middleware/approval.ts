/**
 * `approval`: a person (or a policy service) decides about each matching tool call through the
 * stack's approval handler (`ctx.approve`). Approve continues, deny rejects with the
 * approver's reason, edit replaces the call's input. No answer in time is a denial, and so is
 * running without anyone to ask (non-interactive mode), each with a reason that says so.
 */
import { Continue, Reject, Transform } from "../core/action.ts";
import type { ApprovalDecision, HookContext } from "../core/context.ts";
import type { MatchSpec } from "../core/match/types.ts";
import { Priority } from "../core/priority.ts";
import type { DeepReadonly } from "../core/readonly.ts";
import type { ToolCall } from "../agent/types.ts";
import type { Middleware, PointHook } from "./apply.ts";
import type { AgentPoints } from "../agent/points.ts";
import { maxTimerMs, untilAbort, withDeadline } from "../core/signal.ts";
import { functionOption, nameOption, numberOption } from "./options.ts";

/** Options of `approval`: which calls, what the approver reads, how long to wait, and whether anyone can answer. */
export interface ApprovalOptions {
  /** Hook name; default `approval`. */
  readonly name?: string;
  /** Default `Priority.guard + 10`: after guards and policy (a call they refuse never bothers a person), before ordinary hooks. */
  readonly priority?: number;
  /** Which tool calls need approval, in the matcher grammar (`"Bash|Write"`, `"Bash(git push*)"`); default all. */
  readonly match?: MatchSpec<ToolCall>;
  /** What the approver reads; default `<tool> wants to run`. */
  readonly reason?: string | ((call: DeepReadonly<ToolCall>) => string);
  /** Deny when no answer comes within this many ms; default 300 000 (5 minutes). */
  readonly timeoutMs?: number;
  /** Deny without asking: for CI and batch runs, where no one is there to answer. A function decides per run. */
  readonly nonInteractive?: boolean | ((ctx: HookContext<ToolCall>) => boolean);
}

/**
 * Ask for approval before matching tool calls run.
 *
 * @example
 * const stack = withMiddleware(
 *   createAgentStack({ approval: async ({ input, reason }) => (await ask(`${reason}\n${JSON.stringify(input)}`)) ? { decision: "approve" } : { decision: "deny", reason: "user said no" } }),
 *   approval({ match: "Bash|Write", timeoutMs: 60_000, nonInteractive: !process.stdin.isTTY }),
 * )
 */
export const approval = (options: ApprovalOptions = {}): Middleware => {
  const name = nameOption("approval", options.name);
  const priority = numberOption(name, "priority", options.priority ?? Priority.guard + 10, -Number.MAX_VALUE);
  const timeoutMs = numberOption(name, "timeoutMs", options.timeoutMs ?? 300_000, 1, maxTimerMs);
  const nonInteractive = options.nonInteractive ?? false;
  if (typeof nonInteractive !== "boolean") functionOption(name, "nonInteractive", nonInteractive);
  const reasonOf = typeof options.reason === "function" ? options.reason : (call: DeepReadonly<ToolCall>) => (options.reason as string | undefined) ?? `${call.name} wants to run`;
  if (options.reason !== undefined && typeof options.reason !== "string") functionOption(name, "reason", options.reason);

  const hook: PointHook<AgentPoints, "toolCall"> = {
    name,
    priority,
    // A hook timeout never reached (the wait denies first, and the timer is cleared when the hook
    // settles): it makes the hook one the run tells when it settles without waiting for it (an
    // around answered before the call got here), so the question is withdrawn then. The longest
    // there is, so an event loop stalled past the approval's own deadline cannot turn an answer
    // that came in time into a hook timeout.
    timeoutMs: maxTimerMs,
    ...(options.match !== undefined ? { match: options.match } : {}),
    before: async (call, ctx) => {
      if (nonInteractive === true || (typeof nonInteractive === "function" && nonInteractive(ctx)))
        return Reject(`${call.name} needs approval, but this agent runs non-interactively, so no one could approve it`);
      // The approver gets a signal that aborts when the wait ends (timeout or cancelled run), so
      // the question it shows (a terminal prompt, a chat message) can be withdrawn.
      const deadline = withDeadline(ctx.signal, timeoutMs);
      try {
        const asked = ctx.approve({ hook: name, reason: reasonOf(call), input: call, signal: deadline.controller.signal });
        const ended = deadline.controller.signal;
        const answer = await untilAbort(asked, ended).catch((error: unknown) => {
          // The wait ended before the answer: the run was cancelled (its reason), or time ran out.
          if (!ended.aborted || error !== ended.reason) throw error;
          if (ctx.signal.aborted) throw ctx.signal.reason;
          return timedOut;
        });
        if (answer === timedOut) return Reject(`${call.name} was not approved: no answer within ${seconds(timeoutMs)}`);
        return decide(call, answer);
      } finally {
        deadline.dispose();
      }
    },
  };
  return { name, hooks: { toolCall: hook } };
};

const timedOut = Symbol("timed out");

const seconds = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/** Turn the approver's answer into an action; anything unreadable is a denial (fail closed). */
const decide = (call: DeepReadonly<ToolCall>, answer: ApprovalDecision | unknown) => {
  const a = answer as Partial<{ decision: string; reason: unknown; input: unknown }> | null;
  switch (typeof a === "object" && a !== null ? a.decision : undefined) {
    case "approve":
      return Continue;
    case "deny":
      return Reject(`${call.name} was not approved: ${typeof a?.reason === "string" && a.reason !== "" ? a.reason : "denied"}`);
    case "edit": {
      const edited = a?.input as Partial<ToolCall> | null | undefined;
      if (typeof edited !== "object" || edited === null || typeof edited.input !== "object" || edited.input === null || Array.isArray(edited.input))
        return Reject(`${call.name} was not approved: the approver's edit is not a tool call with an input object`);
      // The tool is what guards and policy already decided about; an edit may change its arguments only.
      if (edited.name !== undefined && edited.name !== call.name)
        return Reject(`${call.name} was not approved: an edit may not change the tool (to ${String(edited.name)})`);
      return Transform({ id: call.id, name: call.name, input: edited.input });
    }
    default:
      return Reject(`${call.name} was not approved: the approval handler answered something unreadable`);
  }
};
