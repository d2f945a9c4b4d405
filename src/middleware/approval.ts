/**
 * `approval`: a person (or a policy service) decides about each matching tool call through the
 * stack's approver (`ctx.approve`). Approve continues, deny rejects with the approver's reason,
 * edit replaces the call (same tool, its input an object), after which every guard outside this
 * hook checks the edited call again. Anything else an approver answers is a denial, and so are no
 * answer in time and running without anyone to ask (non-interactive mode), each saying why. With
 * durable approvals (`durableApprovals()`) the run stops `Interrupted` instead of waiting.
 */
import { Continue, Reject, Transform } from "../core/action.ts";
import type { ApprovalDecision, HookContext } from "../core/context.ts";
import type { MatchSpec } from "../core/match/types.ts";
import { Priority } from "../core/priority.ts";
import type { DeepReadonly } from "../core/readonly.ts";
import type { ToolCall } from "../agent/types.ts";
import type { Middleware, PointHook } from "./apply.ts";
import type { AgentPoints } from "../agent/points.ts";
import { maxTimerMs, withDeadline } from "../core/signal.ts";
import { functionOption, knownOptions, nameOption, numberOption } from "./options.ts";
import { placement } from "./placement.ts";

/** Options of `approval`: which calls, what the approver reads, how long to wait, and whether anyone can answer. */
export interface ApprovalOptions {
  /** Hook name; default `approval`. */
  readonly name?: string;
  /** Default `Priority.approval`: inside every guard and the policy (a call they refuse never bothers a person), outside ordinary hooks. */
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
  knownOptions("approval", options, { name: true, priority: true, match: true, reason: true, timeoutMs: true, nonInteractive: true });
  const name = nameOption("approval", options.name);
  const at = placement(name, options.priority, Priority.approval);
  const timeoutMs = numberOption(name, "timeoutMs", options.timeoutMs ?? 300_000, 1, maxTimerMs);
  const nonInteractive = options.nonInteractive ?? false;
  if (typeof nonInteractive !== "boolean") functionOption(name, "nonInteractive", nonInteractive);
  const reasonOf =
    typeof options.reason === "function"
      ? options.reason
      : (call: DeepReadonly<ToolCall>) => (options.reason as string | undefined) ?? `${call.name} wants to run`;
  if (options.reason !== undefined && typeof options.reason !== "string") functionOption(name, "reason", options.reason);

  const hook: PointHook<AgentPoints, "toolCall"> = {
    name,
    ...at,
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
      // The approver's signal also aborts when this wait ends (timeout or cancelled run), so the
      // question it shows (a terminal prompt, a chat message) can be withdrawn.
      const deadline = withDeadline(ctx.signal, timeoutMs);
      try {
        const answer = await ctx.approve({ hook: name, reason: reasonOf(call), input: call, signal: deadline.controller.signal });
        // The run was cancelled while the approver thought: this hook gives up, as the run did.
        if (ctx.signal.aborted) throw ctx.signal.reason;
        if (answer.decision === "deny" && answer.pending === undefined && deadline.controller.signal.aborted)
          return Reject(`${call.name} was not approved: no answer within ${seconds(timeoutMs)}`);
        return decide(call, answer);
      } finally {
        deadline.dispose();
      }
    },
  };
  return { name, hooks: { toolCall: hook } };
};

const seconds = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/**
 * Turn a decision into an action. `ctx.approve` read the answer strictly (anything malformed is
 * a deny saying why) and checked an edit's shape: a tool call of the same tool, its input an object.
 */
const decide = (call: DeepReadonly<ToolCall>, answer: ApprovalDecision) => {
  switch (answer.decision) {
    case "approve":
      return Continue;
    case "edit":
      // The call keeps its id: the model's request is what the result answers.
      return Transform({ ...(answer.input as ToolCall), id: call.id });
    default:
      if (answer.pending !== undefined) return Reject(`${call.name} needs approval: ${answer.reason}`);
      return Reject(`${call.name} was not approved: ${answer.reason}`);
  }
};
