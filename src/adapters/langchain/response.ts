/**
 * A LangChain `AIMessage` ↔ our `ModelResponse`, both ways.
 *
 * In: the text (text blocks joined), the tool calls, the usage the provider reported in
 * `usage_metadata` (estimated, and marked so, when it reported none), the finish reason from the
 * provider's own field in `response_metadata` (`finish_reason`, `stop_reason`, `finishReason`)
 * or, without one, from whether the model asked for tools. Out: the very message it came from
 * while hooks left the answer alone; otherwise a new `AIMessage` with the hooks' text and tool
 * calls that keeps the original's id, name, metadata and non-text blocks (reasoning, images), with
 * the other parts hooks rewrote written back into their blocks (parts.ts).
 */
import { AIMessage, type AIMessageFields, type UsageMetadata } from "@langchain/core/messages";
import type { DeepReadonly } from "../../core/readonly.ts";
import { withEstimatedUsage } from "../../agent/tokens.ts";
import type { FinishReason, Message, ModelResponse, ToolCall, Usage } from "../../agent/types.ts";
import { fromToolCall, textOf, toToolCall, withText } from "./messages.ts";
import { partsOf, withParts } from "./parts.ts";

const reasons: ReadonlyMap<string, FinishReason> = new Map([
  ["stop", "stop"],
  ["end_turn", "stop"],
  ["stop_sequence", "stop"],
  ["complete", "stop"],
  ["end", "stop"],
  ["eos", "stop"],
  ["length", "length"],
  ["max_tokens", "length"],
  ["model_length", "length"],
  ["tool_calls", "tool-calls"],
  ["tool_use", "tool-calls"],
  ["function_call", "tool-calls"],
  ["tool-calls", "tool-calls"],
  ["content_filter", "content-filter"],
  ["safety", "content-filter"],
  ["refusal", "content-filter"],
  ["recitation", "content-filter"],
  ["blocklist", "content-filter"],
  ["prohibited_content", "content-filter"],
  ["spii", "content-filter"],
  ["guardrail_intervened", "content-filter"],
  ["error", "error"],
]);

/**
 * The finish reason a LangChain answer reports, as ours.
 *
 * @example
 * finishReasonOf({ finish_reason: "tool_calls" }, true) // "tool-calls"
 * finishReasonOf({ stop_reason: "max_tokens" }, false) // "length"
 */
export const finishReasonOf = (metadata: Readonly<Record<string, unknown>> | undefined, hasCalls: boolean): FinishReason => {
  const raw = metadata?.finish_reason ?? metadata?.stop_reason ?? metadata?.finishReason ?? metadata?.stopReason;
  if (typeof raw !== "string") return hasCalls ? "tool-calls" : "stop";
  return reasons.get(raw.toLowerCase()) ?? "other";
};

/**
 * The usage a LangChain answer reports, or undefined when it reports none.
 *
 * @example
 * usageOf({ input_tokens: 12, output_tokens: 3, total_tokens: 15 }) // { inputTokens: 12, outputTokens: 3 }
 */
export const usageOf = (usage: UsageMetadata | undefined): Usage | undefined =>
  usage === undefined || typeof usage.input_tokens !== "number" || typeof usage.output_tokens !== "number"
    ? undefined
    : { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens };

/**
 * LangChain's `usage_metadata` for our usage.
 *
 * @example
 * usageMetadata({ inputTokens: 12, outputTokens: 3 }) // { input_tokens: 12, output_tokens: 3, total_tokens: 15 }
 */
export const usageMetadata = (usage: Usage): UsageMetadata => ({
  input_tokens: usage.inputTokens,
  output_tokens: usage.outputTokens,
  total_tokens: usage.inputTokens + usage.outputTokens,
});

let seq = 0;

/**
 * The provider's id of a message (`chatcmpl-…` from ChatOpenAI), not one LangChain made up for a
 * message without one (`run-<run id>`, `lc_run--<uuid>`).
 *
 * @example
 * responseIdOf(new AIMessage({ content: "Hi", id: "chatcmpl-123" })) // "chatcmpl-123"
 */
export const responseIdOf = (message: { readonly id?: string | undefined } | undefined): string | undefined => {
  const id = message?.id;
  return typeof id === "string" && id !== "" && !/^(run-|lc_run-)/.test(id) ? id : undefined;
};

/**
 * An answer as hooks see it; `messages` (what the model read) estimate usage it did not report.
 *
 * @example
 * toResponse(new AIMessage({ content: "Hi", usage_metadata: { input_tokens: 5, output_tokens: 1, total_tokens: 6 } }), messages, "gpt-4o")
 * // { text: "Hi", toolCalls: [], finishReason: "stop", usage: { inputTokens: 5, outputTokens: 1 }, model: "gpt-4o" }
 */
export const toResponse = (message: AIMessage, messages: DeepReadonly<readonly Message[]>, model: string): ModelResponse => {
  const calls = message.tool_calls ?? [];
  const id = responseIdOf(message);
  const toolCalls = calls.map((c) => toToolCall(c, `lc-call-${++seq}`));
  const metadata = message.response_metadata as Record<string, unknown> | undefined;
  const named = metadata?.model_name ?? metadata?.model;
  const parts = partsOf(message);
  const response = {
    text: textOf(message.content),
    toolCalls,
    finishReason: finishReasonOf(metadata, toolCalls.length > 0),
    usage: usageOf(message.usage_metadata),
    model: typeof named === "string" && named !== "" ? named : model,
    ...(id !== undefined ? { id } : {}),
    ...(parts !== undefined ? { parts } : {}),
  };
  return withEstimatedUsage(response as ModelResponse, messages as readonly Message[]);
};

const sameCalls = (a: DeepReadonly<readonly ToolCall[]>, b: DeepReadonly<readonly ToolCall[]>): boolean =>
  a.length === b.length &&
  a.every((c, i) => c === b[i] || (c.id === b[i]?.id && c.name === b[i]?.name && JSON.stringify(c.input) === JSON.stringify(b[i]?.input)));

/**
 * The `AIMessage` for the answer hooks settled on. `from` is the message and response it was made
 * from when there is one: unchanged, the message itself goes back.
 *
 * @example
 * toAIMessage(response, { message, response }) === message // when no hook changed the answer
 */
export const toAIMessage = (
  settled: DeepReadonly<ModelResponse>,
  from?: { readonly message: AIMessage; readonly response: ModelResponse },
): AIMessage => {
  const original = from?.message;
  if (
    from !== undefined &&
    (settled === from.response ||
      (settled.text === from.response.text &&
        sameCalls(settled.toolCalls, from.response.toolCalls) &&
        (settled.parts as readonly unknown[] | undefined) === from.response.parts))
  ) {
    // Usage a hook rewrote (a cost cap rounding it) is the one thing that can differ without a new answer.
    const usage = usageOf(from.message.usage_metadata);
    if (usage === undefined || (usage.inputTokens === settled.usage.inputTokens && usage.outputTokens === settled.usage.outputTokens))
      return from.message;
  }
  // The other parts hooks settled on go back into the blocks they came from (see parts.ts).
  const others =
    original !== undefined && from !== undefined && (settled.parts as readonly unknown[] | undefined) !== from.response.parts
      ? withParts(original, settled.parts as readonly unknown[] | undefined)
      : original !== undefined
        ? { content: original.content, kwargs: original.additional_kwargs as Record<string, unknown> }
        : withParts(new AIMessage(""), settled.parts as readonly unknown[] | undefined);
  const { tool_calls: _calls, function_call: _call, ...kwargs } = others.kwargs;
  return new AIMessage({
    content: withText(others.content, settled.text),
    ...(settled.toolCalls.length > 0 ? { tool_calls: settled.toolCalls.map(fromToolCall) } : {}),
    ...(settled.usageEstimated === true ? {} : { usage_metadata: usageMetadata(settled.usage) }),
    ...(original?.id !== undefined ? { id: original.id } : {}),
    ...(original?.name !== undefined ? { name: original.name } : {}),
    response_metadata: original?.response_metadata ?? {},
    additional_kwargs: kwargs,
  } as AIMessageFields);
};
