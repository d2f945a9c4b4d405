/**
 * A tool call paused for a person's decision, as the application keeps it between the run that
 * asked and the run that resumes: a durable approval (`durableApprovals()`), with the Claude Code
 * call it stands for. The signed token and the store's record are the durable approvals' own; this
 * file reads what an application hands back (the pending approval or its token, and a decision)
 * and refuses what cannot be resumed before anything is claimed.
 *
 * What is paused is Claude Code's own state: a PreToolUse answer of `defer` ends the turn with the
 * call kept in the session's transcript (`stop_reason: "tool_deferred"`), and `resume` of that
 * session fires PreToolUse for the same call again.
 */
import { readAnswer } from "../../core/approval-answer.ts";
import { digestOf } from "../../core/approval-token.ts";
import type { PendingApproval } from "../../core/approval-types.ts";
import type { ApprovalDecision } from "../../core/context.ts";
import { AgentOnionError, brandError, describeGiven } from "../../core/errors.ts";
import { ApprovalReplayedError, ApprovalTamperedError, type DurableApprovals } from "../../core/interrupt.ts";

/**
 * A Claude Code tool call waiting for a person: the durable approval (plain JSON; its `token` is
 * what `resume` needs), and the call Claude Code deferred, for showing it.
 *
 * @example
 * const paused = guard.paused(result) // after a result with stop_reason "tool_deferred"
 * await db.save(paused.id, JSON.stringify(paused)) // show paused.toolUse and paused.reason to a person
 */
export interface ClaudePausedApproval extends PendingApproval {
  /** The call: its id and tool, and its input as the model wrote it. */
  readonly toolUse: { readonly id: string; readonly name: string; readonly input: Readonly<Record<string, unknown>> };
}

/**
 * Why `resume` refused what it was given before claiming anything: not a pending approval of
 * this adapter (`malformed`), or a decision that is not a well-formed approve, deny or edit
 * (`decision`). Token problems (changed, expired, already resumed, unknown to the store) are the
 * durable approvals' own `ApprovalTokenError`s.
 *
 * @example
 * const problem: ClaudeApprovalProblem = (error as ClaudeApprovalError).problem // "decision"
 */
export type ClaudeApprovalProblem = "malformed" | "decision";

/**
 * What `resume` was given cannot be resumed: see `ClaudeApprovalProblem`. Nothing was claimed.
 *
 * @example
 * try { await guard.resume(sdk, paused, decision) } catch (e) { if (e instanceof ClaudeApprovalError && e.problem === "decision") ... }
 */
export class ClaudeApprovalError extends AgentOnionError {
  override name = "ClaudeApprovalError";
  constructor(
    readonly problem: ClaudeApprovalProblem,
    message: string,
  ) {
    super(message);
  }
}
brandError(ClaudeApprovalError);

/**
 * The session is no longer waiting on the paused call (its transcript holds the call's result, or
 * no such call): it was resumed before, or is not in this project. A replay (`kind: "replayed"`);
 * the token was not claimed by this attempt.
 *
 * @example
 * e instanceof ClaudeSessionNotWaitingError && e.sessionId
 */
export class ClaudeSessionNotWaitingError extends ApprovalReplayedError {
  override name = "ClaudeSessionNotWaitingError";
  constructor(
    approvalId: string,
    readonly sessionId: string,
    readonly toolUseId: string,
  ) {
    super(approvalId);
    this.message = `session ${sessionId} is not waiting on call ${toolUseId} of approval ${approvalId} (its transcript has no such call, or its result already): it was resumed before, or is not in this project`;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A tool call as `toolCall` runs carry it. */
export const isCall = (v: unknown): v is { id: string; name: string; input: Record<string, unknown> } =>
  isObject(v) && typeof v.id === "string" && typeof v.name === "string" && isObject(v.input);

/**
 * The token of what the application handed back: a token itself, or a pending approval whose
 * shown fields still hash to what the token signs (an approval whose `input` was changed where it
 * was kept would show a person one call and run another).
 *
 * @example
 * tokenOf(approvals, paused) // "ao1.…"
 */
export const tokenOf = (approvals: DurableApprovals, value: unknown): string => {
  if (typeof value === "string") return value;
  if (!isObject(value) || typeof value.token !== "string")
    throw new ClaudeApprovalError(
      "malformed",
      `not a paused approval: give guard.paused(result) or its token, got ${describeGiven(value)}`,
    );
  const claims = approvals.verify(value.token);
  if (value.id !== claims.id || value.digest !== claims.digest || digestOf(value.input) !== claims.digest)
    throw new ApprovalTamperedError(claims.id, "the pending approval's id, input or digest is not what its token signs");
  return value.token;
};

/**
 * A person's decision, read as the durable approvals read it, but refused with an error (before
 * anything is claimed) when it is not a well-formed approve, deny or edit. An edit's `input` is the
 * tool's new input (an object); the approval hook gets it as the call with that input.
 *
 * @example
 * await decisionFor({ decision: "edit", input: { command: "ls" }, by: "alice" }, call) // { decision: "edit", input: { ...call, input: { command: "ls" } }, by: "alice" }
 */
export const decisionFor = async (
  decision: unknown,
  call: { readonly id: string; readonly name: string; readonly input: unknown },
): Promise<ApprovalDecision> => {
  const bad = (why: string): never => {
    throw new ClaudeApprovalError(
      "decision",
      `the decision for ${call.name} ${why}; give { decision: "approve" }, { decision: "deny", reason } or { decision: "edit", input }, each with an optional reason and by`,
    );
  };
  if (!isObject(decision)) return bad(`must be an object, got ${describeGiven(decision)}`);
  if (decision.decision === "edit" && !isObject(decision.input))
    return bad(`is an edit whose input is not an object (${describeGiven(decision.input)})`);
  const raw = decision.decision === "edit" ? { ...decision, input: { ...call, input: decision.input } } : decision;
  const read = await readAnswer(raw);
  // readAnswer turns anything malformed into a denial; only a deny that was asked for is one here.
  if (read.decision === "deny" && decision.decision !== "deny") return bad(`is not one: ${read.reason}`);
  if (read.decision === "deny" && read.reason.startsWith("the approver's answer is not an approval"))
    return bad(`is not one: ${read.reason}`);
  return read;
};
