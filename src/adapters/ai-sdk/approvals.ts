/**
 * Questions hooks asked through the AI SDK's tool approval that still wait for the person's
 * answer, per stack. `wrapAiSdkTools` (with `approval: "ai-sdk"`) keeps the run of a call whose
 * hook asked open, waiting at that hook, and records the question here by tool call id; the
 * answer settles it wherever it shows up first:
 *
 * - an approval: in the `tool-approval-response` the SDK hands back to the wrapped tool (its
 *   `needsApproval`, asked again before executing an approved call, or `execute`);
 * - a denial: the SDK never calls the tool again for it, so it is read from what comes next: the
 *   `execution-denied` tool result in the prompt of the next provider call through
 *   `aiSdkMiddleware` on the same stack, or the `tool-approval-response` in the messages of the next
 *   call of any wrapped tool of that stack.
 *
 * Either way the asking hook gets the person's decision, and the call's one run settles as any
 * other: a completion once the tool ran, or the hook's rejection with the person's reason, which
 * observers, the audit log and the trace see.
 */
import type { ApprovalAnswer } from "../../core/approval-types.ts";

/** Who decided, in the trace and the audit log. */
export const sdkApprover = "ai-sdk tool approval";

/** The reason a denial without one gets. */
const deniedWithoutReason = "denied through the AI SDK's tool approval";

/**
 * The person's answer to a call, from messages the SDK passes to a tool (`ModelMessage`s): the
 * `tool-approval-response` to the `tool-approval-request` for that call, read as an approval answer.
 *
 * @example
 * sdkAnswer(messages, "call-1") // { decision: "deny", by: "ai-sdk tool approval", reason: "not now" }
 */
export const sdkAnswer = (messages: readonly unknown[] | undefined, toolCallId: string): ApprovalAnswer | undefined => {
  const parts = (role: string): Record<string, unknown>[] =>
    (messages ?? []).flatMap((m) => {
      const message = m as { role?: unknown; content?: unknown };
      return message?.role === role && Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : [];
    });
  const ids = new Set(
    parts("assistant")
      .filter((p) => p?.type === "tool-approval-request" && p.toolCallId === toolCallId)
      .map((p) => p.approvalId),
  );
  if (ids.size === 0) return undefined;
  const response = parts("tool").find((p) => p?.type === "tool-approval-response" && ids.has(p.approvalId));
  if (response === undefined) return undefined;
  const reason = typeof response.reason === "string" && response.reason !== "" ? response.reason : undefined;
  // Only `approved: true` approves; the SDK does not execute denied calls, but a malformed answer is a denial too.
  return response.approved === true
    ? { decision: "approve", by: sdkApprover, ...(reason !== undefined ? { reason } : {}) }
    : { decision: "deny", by: sdkApprover, reason: reason ?? deniedWithoutReason };
};

/**
 * The questions waiting on one stack, by tool call id. A class: the middleware reads `size` on
 * every provider call, and only walks the prompt when something waits.
 *
 * @example
 * const asked = askedCalls(stack); asked.add("call-1", (answer) => console.log(answer.decision))
 * asked.answerFromPrompt(params.prompt) // "deny", if the prompt holds call-1's execution-denied result
 */
export class AskedCalls {
  private readonly waiting = new Map<string, (answer: ApprovalAnswer) => void>();

  /** How many questions wait. */
  get size(): number {
    return this.waiting.size;
  }

  /** Wait for the answer to the question about `toolCallId`; `answer` is called once, with it. */
  add(toolCallId: string, answer: (answer: ApprovalAnswer) => void): void {
    this.waiting.set(toolCallId, answer);
  }

  /** Stop waiting (the hook gave up, or the answer came). */
  delete(toolCallId: string): void {
    this.waiting.delete(toolCallId);
  }

  /** Answer each waiting question the messages a tool was given answer (`tool-approval-response`). */
  answerFrom(messages: readonly unknown[] | undefined): void {
    if (this.waiting.size === 0 || messages === undefined) return;
    for (const id of [...this.waiting.keys()]) {
      const answer = sdkAnswer(messages, id);
      if (answer !== undefined) this.settle(id, answer);
    }
  }

  /**
   * Deny each waiting question whose call the provider prompt shows as denied: the SDK turns a
   * denial into an `execution-denied` tool result, with the person's reason, in the next provider call.
   */
  answerFromPrompt(prompt: readonly { readonly role: string; readonly content: unknown }[]): void {
    if (this.waiting.size === 0) return;
    for (const message of prompt) {
      if (message.role !== "tool" || !Array.isArray(message.content)) continue;
      for (const part of message.content as Record<string, unknown>[]) {
        if (part?.type !== "tool-result" || typeof part.toolCallId !== "string" || !this.waiting.has(part.toolCallId)) continue;
        const output = part.output as { type?: unknown; reason?: unknown } | undefined;
        if (output?.type !== "execution-denied") continue;
        const reason = typeof output.reason === "string" && output.reason !== "" ? output.reason : deniedWithoutReason;
        this.settle(part.toolCallId, { decision: "deny", by: sdkApprover, reason });
      }
    }
  }

  private settle(id: string, answer: ApprovalAnswer): void {
    const waiting = this.waiting.get(id);
    this.waiting.delete(id);
    waiting?.(answer);
  }
}

const byStack = new WeakMap<object, AskedCalls>();

/**
 * The questions waiting on `stack` (made on first use): what `wrapAiSdkTools` and
 * `aiSdkMiddleware` given the same stack share.
 *
 * @example
 * askedCalls(stack).size // 0 while no hook waits for a person's answer through the SDK
 */
export const askedCalls = (stack: object): AskedCalls => {
  let asked = byStack.get(stack);
  if (asked === undefined) byStack.set(stack, (asked = new AskedCalls()));
  return asked;
};
