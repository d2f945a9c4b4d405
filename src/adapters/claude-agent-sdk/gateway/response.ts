/**
 * A Messages API response as a `ModelResponse`, and back: hooks see the text, the tool calls, why
 * the model stopped, the tokens it used and its thinking (each `thinking` block a reasoning part
 * of `parts`, its signature as the AI SDK's Anthropic provider carries it); a response they did
 * not change goes back as the API sent it, a changed one is the API's with its text, tool calls
 * and thinking rewritten (a rewritten thinking block without its signature, which would not match).
 * Redacted thinking, citations and server tools' results are not shown to hooks.
 */
import type { FinishReason, ModelResponse, ToolCall, Usage } from "../../../agent/types.ts";
import type { Block } from "./request.ts";

/**
 * The parts of a Messages API response the mapping reads; the rest is kept as it is.
 *
 * @example
 * const json: MessagesResponse = { content: [{ type: "text", text: "Hi" }], stop_reason: "end_turn", usage: { input_tokens: 5, output_tokens: 1 } }
 */
export interface MessagesResponse {
  readonly id?: string;
  readonly type?: string;
  readonly role?: string;
  readonly model?: string;
  readonly content: readonly Block[];
  readonly stop_reason?: string | null;
  readonly stop_sequence?: string | null;
  readonly usage?: ApiUsage;
  readonly [key: string]: unknown;
}

/**
 * The Messages API's token counts.
 *
 * @example
 * usageOf({ input_tokens: 3, cache_read_input_tokens: 100, output_tokens: 7 } satisfies ApiUsage) // { inputTokens: 103, outputTokens: 7 }
 */
export interface ApiUsage {
  readonly input_tokens?: number | null;
  readonly output_tokens?: number | null;
  readonly cache_creation_input_tokens?: number | null;
  readonly cache_read_input_tokens?: number | null;
  readonly [key: string]: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Why the model stopped, as a finish reason.
 *
 * @example
 * finishOf("tool_use") // "tool-calls"
 */
export const finishOf = (stop: string | null | undefined): FinishReason => {
  switch (stop) {
    case "end_turn":
    case "stop_sequence":
    case "pause_turn":
      return "stop";
    case "tool_use":
      return "tool-calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "content-filter";
    default:
      return "other";
  }
};

/**
 * A finish reason as the API's stop reason: the API's own when it maps to the same reason.
 *
 * @example
 * stopOf("tool-calls", "end_turn") // "tool_use"
 */
export const stopOf = (finish: FinishReason, original: string | null | undefined): string =>
  original != null && finishOf(original) === finish
    ? original
    : finish === "tool-calls"
      ? "tool_use"
      : finish === "length"
        ? "max_tokens"
        : finish === "content-filter"
          ? "refusal"
          : "end_turn";

/**
 * The tokens a call used: input counts the prompt however it was billed (fresh, written to or
 * read from the cache), as GenAI conventions count input tokens.
 *
 * @example
 * usageOf({ input_tokens: 3, cache_read_input_tokens: 100, output_tokens: 7 }) // { inputTokens: 103, outputTokens: 7 }
 */
export const usageOf = (u: ApiUsage | undefined): Usage => ({
  inputTokens: (u?.input_tokens ?? 0) + (u?.cache_creation_input_tokens ?? 0) + (u?.cache_read_input_tokens ?? 0),
  outputTokens: u?.output_tokens ?? 0,
});

const toolCallsOf = (blocks: readonly Block[]): ToolCall[] =>
  blocks
    .filter((b) => b.type === "tool_use")
    .map((b) => ({ id: String(b.id), name: String(b.name), input: isObject(b.input) ? b.input : {} }));

/**
 * A thinking block as a reasoning part.
 *
 * @example
 * thinkingPart({ type: "thinking", thinking: "hmm", signature: "s" }) // { type: "reasoning", text: "hmm", providerMetadata: { anthropic: { signature: "s" } } }
 */
export const thinkingPart = (b: Block): Record<string, unknown> =>
  typeof b.signature === "string" && b.signature !== ""
    ? { type: "reasoning", text: String(b.thinking ?? ""), providerMetadata: { anthropic: { signature: b.signature } } }
    : { type: "reasoning", text: String(b.thinking ?? "") };

const signatureOf = (part: unknown): string | undefined => {
  const anthropic = (isObject(part) && isObject(part.providerMetadata) ? part.providerMetadata.anthropic : undefined) as unknown;
  return isObject(anthropic) && typeof anthropic.signature === "string" ? anthropic.signature : undefined;
};

/**
 * A thinking block with a reasoning part's text: its signature only if the part still has one.
 *
 * @example
 * thinkingBlock({ type: "thinking", thinking: "a", signature: "s" }, { type: "reasoning", text: "b" }) // { type: "thinking", thinking: "b" }
 */
export const thinkingBlock = (b: Block, part: unknown): Block => {
  if (!isObject(part) || part.type !== "reasoning" || typeof part.text !== "string") return b;
  const signature = signatureOf(part);
  if (part.text === b.thinking && signature === b.signature) return b;
  const { signature: _signature, ...rest } = b;
  return { ...rest, thinking: part.text, ...(signature !== undefined ? { signature } : {}) };
};

const none: readonly unknown[] = [];

const partsOf = (blocks: readonly Block[]): Record<string, unknown>[] | undefined => {
  let parts: Record<string, unknown>[] | undefined;
  for (const b of blocks) if (b.type === "thinking") (parts ??= []).push(thinkingPart(b));
  return parts;
};

/**
 * What hooks see of a response.
 *
 * @example
 * toResponse({ content: [{ type: "text", text: "Hi" }], stop_reason: "end_turn", usage: { input_tokens: 5, output_tokens: 1 } }, "claude-x").text // "Hi"
 */
export const toResponse = (json: MessagesResponse, model: string): ModelResponse => {
  const parts = partsOf(json.content);
  return {
    text: json.content
      .filter((b) => b.type === "text")
      .map((b) => String(b.text ?? ""))
      .join(""),
    toolCalls: toolCallsOf(json.content),
    finishReason: finishOf(json.stop_reason),
    usage: usageOf(json.usage),
    model: typeof json.model === "string" ? json.model : model,
    ...(typeof json.id === "string" ? { id: json.id } : {}),
    ...(parts !== undefined ? { parts } : {}),
  };
};

/**
 * The response to send for what hooks made of `produced`: `json` itself when they changed nothing,
 * else `json` with its text and tool calls rewritten (an answer a hook gave without calling the API
 * gets a message of its own).
 *
 * @example
 * fromResponse(json, produced, { ...produced, text: "[redacted]" }).content // [{ type: "text", text: "[redacted]" }, ...tool_use blocks]
 */
export const fromResponse = (
  json: MessagesResponse | undefined,
  produced: ModelResponse | undefined,
  final: ModelResponse,
  model: string,
): MessagesResponse => {
  if (json !== undefined && final === produced) return json;
  const blocks = json?.content ?? [];
  const text = blocks
    .filter((b) => b.type === "text")
    .map((b) => String(b.text ?? ""))
    .join("");
  const calls = new Map(final.toolCalls.map((c) => [c.id, c]));
  // The thinking hooks settled on: one for one with the response's thinking blocks, else in their place.
  const thinking = final.parts === undefined ? none : final.parts.filter((p) => isObject(p) && p.type === "reasoning");
  let thinkingCount = 0;
  for (const b of blocks) if (b.type === "thinking") thinkingCount++;
  const oneForOne = thinking.length === thinkingCount;
  let k = 0;
  const content: Block[] = [];
  if (!oneForOne) for (const part of thinking) content.push(thinkingBlock({ type: "thinking", thinking: "" }, part));
  let wroteText = false;
  for (const b of blocks) {
    if (b.type === "text") {
      if (text === final.text) content.push(b);
      else if (!wroteText && final.text !== "") content.push({ type: "text", text: final.text });
      wroteText = true;
    } else if (b.type === "tool_use") {
      const call = calls.get(String(b.id));
      if (call === undefined) continue;
      calls.delete(call.id);
      content.push({ ...b, name: call.name, input: call.input });
    } else if (b.type === "thinking") {
      if (oneForOne) content.push(thinkingBlock(b, thinking[k++]));
    } else content.push(b);
  }
  if (!wroteText && final.text !== "")
    content.splice(
      content.findIndex((b) => b.type === "tool_use") < 0 ? content.length : content.findIndex((b) => b.type === "tool_use"),
      0,
      { type: "text", text: final.text },
    );
  for (const call of calls.values()) content.push({ type: "tool_use", id: call.id, name: call.name, input: call.input });
  const usage = json?.usage ?? { input_tokens: final.usage.inputTokens, output_tokens: final.usage.outputTokens };
  return {
    ...(json ?? { id: `msg_agent_onion_${Date.now().toString(36)}`, type: "message", role: "assistant", stop_sequence: null }),
    model: json?.model ?? final.model ?? model,
    content,
    stop_reason: stopOf(final.finishReason, json?.stop_reason),
    usage,
  };
};
