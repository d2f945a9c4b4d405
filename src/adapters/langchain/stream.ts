/**
 * A LangChain chat model's streamed chunks ↔ our `StreamPart`s, both ways, around the agent
 * layer's streaming machinery (which holds text back for output gates and releases it in its
 * own chunks).
 *
 * In: each chunk's text is a text delta; its reasoning (reasoning and thinking blocks,
 * `additional_kwargs.reasoning_content`) is the AI SDK's `reasoning-start`/`-delta`/`-end` raw
 * parts, a block ending when other content comes, and a file given as data a `file` raw part, so
 * hooks such as `redaction` read them as they read the AI SDK's (parts.ts); other content blocks
 * (images by URL, citations) pass as a `raw` part, in place; tool calls are held until the
 * stream ends and go out as whole calls then (the machinery holds tool calls back until checked,
 * and half a call's arguments must not reach the consumer before a gate removed it); the finish
 * carries the usage and finish reason the provider reported in the chunks (missing usage is
 * estimated by the machinery, and said so).
 *
 * Out: every released part becomes one `ChatGenerationChunk` of an `AIMessageChunk` (text as
 * string content, blocks as array content, reasoning in the block it came in with the released
 * text, a signature only while its delta still carries one, a tool call as one
 * `tool_call_chunk` with its whole arguments, the finish as `usage_metadata` with the provider's
 * `response_metadata`), so what LangChain concatenates is the answer hooks settled on.
 */
import { AIMessageChunk, type AIMessageChunkFields, type MessageContent } from "@langchain/core/messages";
import { ChatGenerationChunk } from "@langchain/core/outputs";
import type { StreamPart } from "../../agent/model.ts";
import { ModelStreamError } from "../../agent/stream/errors.ts";
import type { Usage } from "../../agent/types.ts";
import { copy, textOf, toToolCall } from "./messages.ts";
import { blockPart, blockWith, newBlock } from "./parts.ts";
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
  /** The block each reasoning id of the current stream came in (its text left out), or `kwargs` for `reasoning_content`. */
  readonly reasoning = new Map<string, Record<string, unknown> | "kwargs">();
}

const isTextBlock = (block: unknown): boolean =>
  typeof block === "object" && block !== null && (block as { type?: unknown }).type === "text";

/** The blocks of a content that are neither text nor a tool call: those go out as they came. */
const otherBlocks = (content: MessageContent): unknown[] =>
  Array.isArray(content)
    ? content.filter((b) => typeof b === "object" && b !== null && !isTextBlock(b) && !/tool/.test(String((b as { type?: unknown }).type)))
    : [];

let seq = 0;

const kwargsId = "lc-reasoning-content";

/** The id of a reasoning block's parts: its content index, as LangChain merges blocks by it. */
const reasoningId = (block: Record<string, unknown>): string => `lc-reasoning-${String(block.index ?? "")}`;

/**
 * The provider's chunks as our parts.
 *
 * @example
 * for await (const part of fromChunks(await model.stream(messages), memo)) console.log(part.type)
 */
export async function* fromChunks(chunks: AsyncIterable<AIMessageChunk>, memo: ChunkMemo): AsyncGenerator<StreamPart> {
  // A new provider stream (a retry's): what the memo knew of the last one is not about this one.
  memo.aggregate = undefined;
  memo.reasoning.clear();
  const open = new Set<string>();
  const raw = (value: unknown): StreamPart => ({ type: "raw", value });
  function* close(except?: string): Generator<StreamPart> {
    for (const id of open) if (id !== except) open.delete(id), yield raw({ type: "reasoning-end", id });
  }
  function* reasoning(id: string, text: string, template: Record<string, unknown> | "kwargs", metadata?: unknown): Generator<StreamPart> {
    yield* close(id);
    if (!open.has(id)) {
      open.add(id);
      memo.reasoning.set(id, template);
      yield raw({ type: "reasoning-start", id });
    }
    if (text !== "" || metadata !== undefined)
      yield raw({ type: "reasoning-delta", id, delta: text, ...(metadata !== undefined ? { providerMetadata: metadata } : {}) });
  }
  for await (const chunk of chunks) {
    memo.aggregate = memo.aggregate === undefined ? chunk : memo.aggregate.concat(chunk);
    const said = (chunk.additional_kwargs as Record<string, unknown> | undefined)?.reasoning_content;
    if (typeof said === "string" && said !== "") yield* reasoning(kwargsId, said, "kwargs");
    const blocks = otherBlocks(chunk.content);
    let rest: unknown[] | undefined;
    for (const block of blocks) {
      const part = blockPart(block);
      const b = block as Record<string, unknown>;
      if (part?.type === "reasoning") {
        yield* reasoning(reasoningId(b), part.text as string, blockWith(b, { type: "reasoning", text: "" }), part.providerMetadata);
      } else if (part?.type === "file") {
        yield* close();
        // A copy: hooks may see parts frozen, and LangChain merges the chunk's own blocks as it concatenates.
        yield raw({ ...part, block: copy(b) });
      } else (rest ??= []).push(block);
    }
    if (rest !== undefined) yield* close(), yield raw({ blocks: copy(rest) });
    const text = textOf(chunk.content);
    if (text !== "") yield* close(), yield { type: "text-delta", text };
  }
  yield* close();
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
      // Reasoning went out in its own chunks, as released: the provider's, concatenated, is not sent again.
      const {
        tool_calls: _calls,
        function_call: _call,
        reasoning_content: _reasoning,
        ...kwargs
      } = (memo.aggregate?.additional_kwargs ?? {}) as Record<string, unknown>;
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
      const value = part.value as Record<string, unknown> | null | undefined;
      if (value?.type === "reasoning-delta") return reasoningChunk(value, memo, ids);
      if (value?.type === "file" && typeof value.block === "object" && value.block !== null)
        return chunkOf({ content: [blockWith(value.block as Record<string, unknown>, value)] as MessageContent, ...ids });
      // A whole part of an answer no stream gave (a cache's): the block it makes.
      if (value?.type === "reasoning" || value?.type === "file") {
        const block = newBlock(value);
        return block === undefined ? undefined : chunkOf({ content: [block] as MessageContent, ...ids });
      }
      const blocks = value?.blocks;
      return Array.isArray(blocks) ? chunkOf({ content: blocks as MessageContent, ...ids }) : undefined;
    }
  }
};

/** A released reasoning delta in the block (or `additional_kwargs` field) it came in; undefined for one with nothing in it. */
const reasoningChunk = (delta: Record<string, unknown>, memo: ChunkMemo, ids: { id?: string }): ChatGenerationChunk | undefined => {
  const template = memo.reasoning.get(String(delta.id));
  const text = typeof delta.delta === "string" ? delta.delta : "";
  if (template === undefined) return undefined;
  if (template === "kwargs")
    return text === "" ? undefined : chunkOf({ content: "", ...ids, additional_kwargs: { reasoning_content: text } });
  const block = blockWith(template, {
    type: "reasoning",
    text,
    ...(delta.providerMetadata !== undefined ? { providerMetadata: delta.providerMetadata } : {}),
  });
  if (text === "" && block.signature === undefined) return undefined;
  return chunkOf({ content: [block] as MessageContent, ...ids });
};
