/**
 * One tool call's `toolCall` run, started when the Agents SDK asks whether the call needs
 * approval and finished when it invokes the tool.
 *
 * The SDK decides about approval before it runs a tool (`needsApproval`, then its input
 * guardrails, then `invoke`); a hook asks for approval inside the `toolCall` run. So the run
 * starts at `needsApproval`: its hooks run up to the operation, and what happened there answers
 * the SDK. A hook asked and no one decided yet: the call needs approval (the asking hook is
 * answered "not yet": a denial whose reason says the run pauses for a person, so the run ends
 * `Rejected` by that hook, the SDK pauses with an interruption, and a run starts afresh when the
 * SDK invokes the approved tool). The run reached its operation: no approval is needed (unless
 * the tool's own policy asks: the operation then fails with `ApprovalPendingError`), and the
 * operation waits for `invoke`, which hands it the tool. The run settled before its operation (a
 * guard refused, a cache answered): no approval is needed, and `invoke` answers with that outcome.
 *
 * The run is not given an abort signal to end it by: a run with a caller's signal costs the stack
 * several microseconds more, and every tool call would pay it.
 *
 * Between `needsApproval` and `invoke` the SDK only runs the tool's own input guardrails (we see
 * those) and synchronous bookkeeping. A call the SDK then drops (its guardrail refused, the run
 * was cancelled) is abandoned: when nothing invoked it by the next macrotask after its last
 * guardrail, its operation fails with `CallNotRunError`, so no run is left waiting.
 */
import { AgentOnionError } from "../../core/errors.ts";
import type { ApprovalRequest, HookContext } from "../../core/context.ts";
import type { Outcome } from "../../core/outcome.ts";
import type { DeepReadonly } from "../../core/readonly.ts";
import type { ToolCall, ToolResult } from "../../agent/types.ts";

/**
 * The operation of a parked run failed because the Agents SDK never invoked the tool: its own
 * input guardrail refused the call, or the run was cancelled before the tool ran.
 *
 * @example
 * outcome._tag === "Failed" && outcome.error instanceof CallNotRunError // the SDK dropped the call
 */
export class CallNotRunError extends AgentOnionError {
  override name = "CallNotRunError";
  constructor(
    readonly tool: string,
    readonly why: string,
  ) {
    super(`the Agents SDK did not run ${tool}: ${why}`);
  }
}

/**
 * A call approved through the Agents SDK's run state was already run: the same paused state was
 * resumed twice (in this process, or in another sharing the stack's store). Claims are kept in
 * the run's state store for 30 days.
 *
 * @example
 * outcome._tag === "Failed" && outcome.error instanceof ApprovalAlreadyUsedError // refused: it ran once already
 */
export class ApprovalAlreadyUsedError extends AgentOnionError {
  override name = "ApprovalAlreadyUsedError";
  constructor(
    readonly tool: string,
    readonly callId: string,
  ) {
    super(`${tool} call ${callId} was approved once and has already run; a paused run resumes once`);
  }
}

/**
 * An approval in the Agents SDK's run state that answers no question asked about this call: the
 * call was never asked about (the run state was edited, or the question was asked by a process
 * sharing no store with this one), or its arguments changed since the question. The tool does not run.
 *
 * @example
 * outcome._tag === "Failed" && outcome.error instanceof ApprovalNotAskedError // refused: not the call the person approved
 */
export class ApprovalNotAskedError extends AgentOnionError {
  override name = "ApprovalNotAskedError";
  constructor(
    readonly tool: string,
    readonly callId: string,
    readonly why: string,
  ) {
    super(why);
  }
}

/**
 * Why a `toolCall` run that had reached its operation ended: the tool's own `needsApproval` asked,
 * and the Agents SDK pauses the run with an interruption for a person to decide. (When a hook
 * asks, the run ends `Rejected` by that hook, with `pendingApprovalReason` as the approver's answer.)
 *
 * @example
 * outcome._tag === "Failed" && outcome.error instanceof ApprovalPendingError // the tool's own policy paused the run
 */
export class ApprovalPendingError extends AgentOnionError {
  override name = "ApprovalPendingError";
  constructor(
    readonly tool: string,
    /** The hook that asked, or `needsApproval` when it was the tool's own policy. */
    readonly by: string,
    readonly reason: string | undefined,
  ) {
    super(
      `${tool} needs approval (asked by ${by}${reason !== undefined ? `: ${reason}` : ""}); the Agents SDK run pauses with an interruption`,
    );
  }
}

/**
 * What `needsApproval` learns from the run: whether the SDK must ask a person.
 *
 * @example
 * const verdict: Verdict = await parked.verdict // { ask: true, request } pauses the run
 */
export type Verdict = { readonly ask: true; readonly request: ApprovalRequest | undefined } | { readonly ask: false };

/**
 * How the operation runs the tool, once `invoke` brings it.
 *
 * @example
 * const execute: Execute = async (call, ctx) => ({ content: await tool.invoke(runContext, JSON.stringify(call.input), { signal: ctx.signal }) })
 */
export type Execute = (call: DeepReadonly<ToolCall>, ctx: HookContext<ToolCall>) => Promise<ToolResult>;

/**
 * What the approver answers a hook that asks while no one decided: not approved yet, because the
 * run pauses for a person. The approval middleware's rejection reads "X was not approved: " and this.
 *
 * @example
 * outcome._tag === "Rejected" && outcome.reason.endsWith(pendingApprovalReason) // the run paused for approval
 */
export const pendingApprovalReason = "waiting for a person's decision (the Agents SDK run pauses with an interruption)";

/**
 * One tool call's run between `needsApproval` and `invoke` (see the top of this file). A class: one is made per tool call.
 *
 * @example
 * const p = new ParkedCall("send_email", call, () => forget(call.id)); p.outcome = stack.run("toolCall", call, (c, ctx) => p.operation(c, ctx))
 */
export class ParkedCall {
  /** The run's outcome; set when the run starts. */
  outcome: Promise<Outcome<ToolResult>> | undefined;
  /** True once `invoke` took this call (or it was abandoned): nothing else may. */
  claimed = false;
  declare private decide: (verdict: Verdict) => void;
  /** Settles once the run asked, reached its operation, or settled. */
  readonly verdict: Promise<Verdict>;
  declare private give: (execute: Execute | Error) => void;
  private readonly tool: Promise<Execute | Error>;
  private entered = false;
  private deadline: ReturnType<typeof setImmediate> | undefined;

  /** What hooks add with `ctx.addContext` during the run. */
  readonly context: string[] = [];
  /** A person's approval (through the SDK's run state) answered for this call. */
  approved = false;

  /** `release` is called once the call is asked about, claimed or dropped: it no longer waits for anyone. */
  constructor(
    readonly name: string,
    /** The call the run started with. */
    readonly call: ToolCall,
    private readonly release: () => void,
  ) {
    this.verdict = new Promise((resolve) => (this.decide = resolve));
    this.tool = new Promise((resolve) => (this.give = resolve));
  }

  /** A hook asked and no one decided (or the tool's own policy asks): pause. */
  ask(request: ApprovalRequest | undefined, by: string): void {
    this.claimed = true;
    this.cancelDeadline();
    this.release();
    this.decide({ ask: true, request });
    // An operation already waiting for `invoke` (the tool's own policy asked) ends with this.
    this.give(new ApprovalPendingError(this.name, by, request?.reason));
  }

  /** The run's operation: wait for `invoke` to bring the tool, then run it with the input the hooks settled on. */
  async operation(call: DeepReadonly<ToolCall>, ctx: HookContext<ToolCall>): Promise<ToolResult> {
    this.entered = true;
    this.decide({ ask: false });
    const execute = await this.tool;
    if (execute instanceof Error) throw execute;
    return execute(call, ctx);
  }

  /** The run settled (before its operation, or after): no approval is needed. */
  settled(): void {
    this.decide({ ask: false });
  }

  /** True when the run waits at its operation for `invoke`. */
  get waiting(): boolean {
    return this.entered && !this.claimed;
  }

  /** `invoke` takes the call: the operation runs the tool. */
  claim(execute: Execute): void {
    this.claimed = true;
    this.cancelDeadline();
    this.release();
    this.give(execute);
  }

  /** The SDK will not run the call: the operation fails, so the run settles. */
  drop(why: string): void {
    if (this.claimed) return;
    this.claimed = true;
    this.cancelDeadline();
    this.release();
    this.give(new CallNotRunError(this.name, why));
  }

  /** Drop the call unless `invoke` takes it before the next macrotask (see the top of this file). */
  expectInvokeSoon(): void {
    if (this.claimed) return;
    this.cancelDeadline();
    this.deadline = setImmediate(() => this.drop("the run went on without invoking the tool (it was cancelled)"));
  }

  /** A tool input guardrail is running: `invoke` may take as long as it does. */
  holdOn(): void {
    this.cancelDeadline();
  }

  private cancelDeadline(): void {
    if (this.deadline !== undefined) clearImmediate(this.deadline);
    this.deadline = undefined;
  }
}
