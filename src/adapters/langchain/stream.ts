/**
 * A LangChain chat model's streamed chunks ↔ our `StreamPart`s, both ways, around the agent
 * layer's streaming machinery (which holds text back for output gates and releases it in its
 * own chunks).
 *
 * In: each chunk's text is a text delta; its other content blocks (reasoning, images, citations)
 * pass as a `raw` part, in place; tool calls are held until the stream ends and go out as whole
 * calls then (the machinery holds tool calls back until checked, and half a call's arguments must
 * not reach the consumer before a gate removed it); the finish carries the usage and finish reason
 * the provider reported in the chunks (missing usage is estimated by the machinery, and said so).
 *
 * Out: every released part becomes one `ChatGenerationChunk` of an `AIMessageChunk` (text as
 * string content, blocks as array content, a tool call as one `tool_call_chunk` with its whole
 * arguments, the finish as `usage_metadata` with the provider's `response_metadata`), so what
 * LangChain concatenates is the answer hooks settled on.
 */
import { AIMessageChunk, type AIMessageChunkFields, type MessageContent } from "@langchain/core/messages";
import { ChatGenerationChunk } from "@langchain/core/outputs";
import type { StreamPart } from "../../agent/model.ts";
import { ModelStreamError } from "../../agent/stream/errors.ts";
import type { Usage } from "../../agent/types.ts";
import { copy, textOf, toToolCall } from "./messages.ts";
import { finishReasonOf, responseIdOf, usageMetadata, usageOf } from "./response.ts";

/**
 * What the way in remembers for the way out: the provider's chunks of the current stream, concatenated.
 *
 * @example
 * const memo = new ChunkMemo(); const parts = fromChunks(stream, memo)
 */
export class ChunkMemo {
  /** The current provider stream's chunks, concatenated (undefined before its first chunk). */
  aggregate: AIMessageChunk | undefined = undefined;
  /** How many tool calls went out, for the index of the next one's chunk. */
  calls = 0;
}

const isTextBlock = (block: unknown): boolean =>
  typeof block === "object" && block !== null && (block as { type?: unknown }).type === "text";

/** The blocks of a content that are neither text nor a tool call: those go out as they came. */
const otherBlocks = (content: MessageContent): unknown[] =>
  Array.isArray(content)
    ? content.filter((b) => typeof b === "object" && b !== null && !isTextBlock(b) && !/tool/.test(String((b as { type?: unknown }).type)))
    : [];

let seq = 0;

/**
 * The provider's chunks as our parts.
 *
 * @example
 * for await (const part of fromChunks(await model.stream(messages), memo)) console.log(part.type)
 */
export async function* fromChunks(chunks: AsyncIterable<AIMessageChunk>, memo: ChunkMemo): AsyncGenerator<StreamPart> {
  // A new provider stream (a retry's): what the memo knew of the last one is not about this one.
  memo.aggregate = undefined;
  for await (const chunk of chunks) {
    memo.aggregate = memo.aggregate === undefined ? chunk : memo.aggregate.concat(chunk);
    const blocks = otherBlocks(chunk.content);
    // A copy: hooks may see parts frozen, and LangChain merges the chunk's own blocks as it concatenates.
    if (blocks.length > 0) yield { type: "raw", value: { blocks: copy(blocks) } };
    const text = textOf(chunk.content);
    if (text !== "") yield { type: "text-delta", text };
  }
  const all = memo.aggregate;
  const calls = all?.tool_calls ?? [];
  for (const call of calls) yield { type: "tool-call", call: toToolCall(call, `lc-call-${++seq}`) };
  // Totals the provider did not report are left out: the machinery estimates them, and says so.
  const usage = usageOf(all?.usage_metadata);
  const responseId = responseIdOf(all);
  yield {
    type: "finish",
    finishReason: finishReasonOf(all?.response_metadata, calls.length > 0),
    usage: usage ?? ({} as Usage),
    ...(responseId !== undefined ? { responseId } : {}),
  };
}

const chunkOf = (fields: AIMessageChunkFields, text = ""): ChatGenerationChunk =>
  new ChatGenerationChunk({ text, message: new AIMessageChunk(fields) });

/**
 * One released part as the chunk LangChain streams and concatenates; undefined for a part that
 * has nowhere to go (a `raw` value a hook made up). An `error` part throws its error (the
 * provider's own, unwrapped).
 *
 * @example
 * toChunk({ type: "text-delta", text: "Hi" }, memo)?.text // "Hi"
 */
export const toChunk = (part: StreamPart, memo: ChunkMemo): ChatGenerationChunk | undefined => {
  const id = memo.aggregate?.id;
  const ids = id !== undefined ? { id } : {};
  switch (part.type) {
    case "text-delta":
      return chunkOf({ content: part.text, ...ids }, part.text);
    case "tool-call":
      return chunkOf({
        content: "",
        ...ids,
        tool_call_chunks: [
          { type: "tool_call_chunk", id: part.call.id, name: part.call.name, args: JSON.stringify(part.call.input), index: memo.calls++ },
        ],
      });
    case "finish": {
      const { tool_calls: _calls, function_call: _call, ...kwargs } = (memo.aggregate?.additional_kwargs ?? {}) as Record<string, unknown>;
      const usage = part.usage as Partial<Usage> | undefined;
      return chunkOf({
        content: "",
        ...ids,
        // Usage goes out as the provider reported it: an estimate would pass for a count in LangChain's own tallies.
        ...(memo.aggregate?.usage_metadata !== undefined && typeof usage?.inputTokens === "number" && typeof usage.outputTokens === "number"
          ? { usage_metadata: usageMetadata(usage as Usage) }
          : {}),
        response_metadata: { ...memo.aggregate?.response_metadata },
        additional_kwargs: kwargs,
      } as AIMessageChunkFields);
    }
    case "error":
      throw part.error instanceof ModelStreamError ? part.error.cause : part.error;
    case "raw": {
      const blocks = (part.value as { blocks?: unknown } | null | undefined)?.blocks;
      return Array.isArray(blocks) ? chunkOf({ content: blocks as MessageContent, ...ids }) : undefined;
    }
  }
};
