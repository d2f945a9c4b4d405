/**
 * Permission requests: when a hook of a tool call asks for approval (`ctx.approve`, Claude Code's
 * `ask`), the reference agent first runs the `permissionRequest` gate (Claude Code's
 * PermissionRequest), whose hooks may answer in the person's place; only when none does is the
 * stack's approval handler asked, and a `permission_prompt` notification goes out if its answer
 * takes a while (Claude Code waits about six seconds before it notifies).
 */
import { durableApprover, isDurableApprover, type DurableAnswer, type DurableApprover, type DurableAsk } from "../core/approval-types.ts";
import { readAnswer } from "../core/approval-answer.ts";
import type { ApprovalDecision, ApprovalHandler, ApprovalRequest, RunOptions } from "../core/context.ts";
import { describe } from "../core/errors.ts";
import type { AgentStack } from "./stack.ts";
import type { PermissionPolicy } from "./permissions.ts";
import type { Notification, PermissionDecision, PermissionRequest, ToolCall } from "./types.ts";

/** What a permission asker needs from the agent. */
export interface PermissionAskerOptions {
  readonly stack: AgentStack;
  /** Send a notification through the `notification` point. */
  readonly notify: (notification: Notification) => Promise<void>;
  /** How long an unanswered question waits before `permission_prompt` is sent; `false`: never. */
  readonly notifyAfterMs: number | false;
  /** The agent's name, for the notification's text. */
  readonly name: string;
  /** The agent's permission policy: it suggests permission updates, and keeps those a grant carries. */
  readonly policy?: PermissionPolicy | undefined;
}

/** The permission request for `call`: with the policy's suggestions, when there is a policy. */
const requestOf = (o: PermissionAskerOptions, call: ToolCall): PermissionRequest =>
  o.policy === undefined ? { call } : { call, suggestions: o.policy.suggest(call) };

/** Keep a grant's permission updates for the session; what cannot be kept is told as a warning. */
const keep = async (o: PermissionAskerOptions, sessionId: string | undefined, decision: PermissionDecision | undefined): Promise<void> => {
  if (decision?.behavior !== "allow" || decision.updatedPermissions === undefined || o.policy === undefined) return;
  const updates = Array.isArray(decision.updatedPermissions) ? decision.updatedPermissions : [decision.updatedPermissions];
  for (const problem of o.policy.apply(sessionId, updates))
    await o.notify({ type: "warning", message: `permission update not applied: ${problem}` }).catch(() => undefined);
};

const isToolCall = (value: unknown): value is ToolCall =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as ToolCall).name === "string" &&
  typeof (value as ToolCall).input === "object" &&
  (value as ToolCall).input !== null;

/** The core's answer when no one can approve, word for word, so a run with no handler reads the same. */
const noOne = (request: ApprovalRequest): ApprovalDecision => ({
  decision: "deny",
  reason: `approval required by ${request.hook}${request.reason ? ` (${request.reason})` : ""}, but no approval handler is configured, so no one could approve`,
});

/** A person's (or a policy service's) answer as a permission decision. */
const asPermission = (answer: ApprovalDecision, call: ToolCall): PermissionDecision => {
  if (answer.decision === "approve") return { behavior: "allow" };
  if (answer.decision === "deny") return { behavior: "deny", message: answer.reason };
  const edited = answer.input;
  const input = isToolCall(edited)
    ? edited.input
    : typeof edited === "object" && edited !== null && !Array.isArray(edited)
      ? (edited as Record<string, unknown>)
      : undefined;
  // An edit that is not an input is not an allow: whoever asked refuses it, as they would have.
  if (input === undefined) return { behavior: "deny", message: `the approval handler's edit of ${call.name} is not a tool input` };
  return { behavior: "allow", updatedInput: input };
};

/** A permission decision as the answer the asking hook reads. */
const asApproval = (decision: PermissionDecision | undefined, call: ToolCall): ApprovalDecision => {
  if (decision?.behavior === "allow") {
    const input = decision.updatedInput;
    return input === undefined
      ? { decision: "approve" }
      : { decision: "edit", input: { id: call.id, name: call.name, input: { ...input } } };
  }
  if (decision?.behavior === "deny")
    return {
      decision: "deny",
      reason:
        typeof decision.message === "string" && decision.message !== ""
          ? decision.message
          : `${call.name} was denied by a permission request hook`,
    };
  return { decision: "deny", reason: `${call.name} was not approved: the permission request answered something unreadable` };
};

/** Ask `handler`, sending `permission_prompt` with `message` if it has not answered after `notifyAfterMs`. */
const askPerson = async (
  handler: ApprovalHandler,
  request: ApprovalRequest,
  o: PermissionAskerOptions,
  message: string,
): Promise<ApprovalDecision> => {
  const say = (): void => void o.notify({ type: "permission_prompt", message }).catch(() => undefined);
  if (o.notifyAfterMs === 0) say();
  const timer = o.notifyAfterMs === false || o.notifyAfterMs === 0 ? undefined : setTimeout(say, o.notifyAfterMs);
  timer?.unref?.();
  try {
    // Read as strictly as the core reads any approver's answer: only a well-formed approve or edit allows.
    return await readAnswer(await handler(request));
  } finally {
    clearTimeout(timer);
  }
};

/**
 * The run options of a run whose tool-call hooks may ask for approval: their question goes through
 * the `permissionRequest` gate first (see the module comment). Runs of other points, and stacks
 * with neither `permissionRequest` hooks nor an approval handler, are left as they are.
 *
 * @example
 * const run = withPermissionRequests({ stack, notify, notifyAfterMs: 6000, name: "agent" }, { sessionId: "s1" })
 */
export const withPermissionRequests = (o: PermissionAskerOptions, run: RunOptions): RunOptions => {
  const handler = o.stack.options.approval;
  if (handler === undefined && !o.stack.has("permissionRequest")) return run;
  if (isDurableApprover(handler))
    return o.stack.has("permissionRequest") ? { ...run, approval: durableWithPermissionRequests(o, run, handler) } : run;
  const person = (request: ApprovalRequest, what: string): ApprovalDecision | Promise<ApprovalDecision> =>
    handler === undefined ? noOne(request) : askPerson(handler, request, o, `${o.name} needs your permission ${what}`);
  const approval: ApprovalHandler = async (request) => {
    if (request.point !== "toolCall" || !isToolCall(request.input)) return person(request, `(${request.hook} asks)`);
    const call = request.input;
    const outcome = await o.stack.run(
      "permissionRequest",
      requestOf(o, call),
      async (r) => asPermission(await person({ ...request, input: r.call }, `to use ${r.call.name}`), r.call as ToolCall),
      { ...run, signal: request.signal },
    );
    if (outcome._tag === "Completed") {
      await keep(o, run.sessionId, outcome.value as PermissionDecision);
      return asApproval(outcome.value as PermissionDecision, call);
    }
    if (outcome._tag === "Rejected") return { decision: "deny", reason: outcome.reason };
    return { decision: "deny", reason: `the permission request for ${call.name} failed: ${describe(outcome.error)}` };
  };
  return { ...run, approval };
};

/**
 * Durable approvals behind the `permissionRequest` gate: its hooks may answer in the person's
 * place; when none does, the question is kept for a person and the run pauses (durable approvals).
 */
const durableWithPermissionRequests = (o: PermissionAskerOptions, run: RunOptions, durable: DurableApprover): DurableApprover => ({
  [durableApprover]: true,
  async ask(request: DurableAsk): Promise<DurableAnswer> {
    if (request.point !== "toolCall" || !isToolCall(request.input)) return durable.ask(request);
    const call = request.input;
    // Set when nobody answered: the run pauses with it, whatever the gate's hooks do after.
    let kept: DurableAnswer | undefined;
    const outcome = await o.stack.run(
      "permissionRequest",
      requestOf(o, call),
      async (r) => {
        const answer = await durable.ask({ ...request, input: r.call });
        if ("pending" in answer) {
          kept = answer;
          return { behavior: "deny", message: "waiting for a person" } satisfies PermissionDecision;
        }
        // A decision a person already took (a resumed run): it stands as they gave it.
        kept = answer;
        return asPermission(answer.decision, r.call as ToolCall);
      },
      run,
    );
    if (kept !== undefined && ("pending" in kept || outcome._tag === "Completed")) return kept;
    if (outcome._tag === "Completed") {
      await keep(o, run.sessionId, outcome.value as PermissionDecision);
      return { decision: asApproval(outcome.value as PermissionDecision, call) };
    }
    if (outcome._tag === "Rejected") return { decision: { decision: "deny", reason: outcome.reason } };
    return { decision: { decision: "deny", reason: `the permission request for ${call.name} failed: ${describe(outcome.error)}` } };
  },
});
