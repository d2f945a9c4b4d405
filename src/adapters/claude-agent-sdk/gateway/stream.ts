/**
 * The Messages API's streamed answer (server-sent events) as our `StreamPart`s, and back.
 *
 * In: text deltas are text; a `tool_use` block is a tool call once its input is whole; a block of
 * another kind (redacted thinking, a server tool's use and result) is one `raw` part carrying its
 * events, which go out again as they came; a thinking block is one whole `reasoning` raw part in
 * the AI SDK's shape (its signature in `providerMetadata.anthropic`), for hooks such as
 * `redaction` to scan, carrying its events too: unchanged, they go out as they came, rewritten, as
 * one delta of the new text (and the signature only if the part kept it); `message_start` is a raw part that
 * describes the call (it goes out with the first part shown); `message_stop` is the finish, with
 * the usage `message_start` and `message_delta` reported; an `error` event is an error part.
 *
 * Out: the parts as released by the streaming machinery (held back, gated, rewritten), framed as
 * the API frames them: `message_start` first, each text run and each tool call a block with its
 * start, deltas and stop, blocks numbered in the order they go out, then `message_delta` with the
 * stop reason and `message_stop`.
 */
import type { StreamPart } from "../../../agent/model.ts";
import type { FinishReason, Usage } from "../../../agent/types.ts";
import { AgentOnionError, brandError, describe } from "../../../core/errors.ts";
import type { Block } from "./request.ts";
import { finishOf, stopOf, thinkingBlock, usageOf, type ApiUsage } from "./response.ts";

/**
 * One server-sent event.
 *
 * @example
 * const e: SseEvent = { event: "message_stop", data: '{"type":"message_stop"}' }
 */
export interface SseEvent {
  readonly event: string | undefined;
  readonly data: string;
}

/**
 * The server-sent events of a body, as they arrive.
 *
 * @example
 * for await (const e of sseEvents(response.body)) console.log(e.event, JSON.parse(e.data))
 */
export async function* sseEvents(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  const parse = (frame: string): SseEvent | undefined => {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of frame.split(/\r?\n/)) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    return data.length > 0 ? { event, data: data.join("\n") } : undefined;
  };
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    for (;;) {
      const end = buffer.search(/\r?\n\r?\n/);
      if (end < 0) break;
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
      const e = parse(frame);
      if (e !== undefined) yield e;
    }
  }
  buffer += decoder.decode();
  const e = parse(buffer);
  if (e !== undefined) yield e;
}

/**
 * An `error` event of the stream (the API was overloaded mid-answer, say): its type and message as
 * the API sent them.
 *
 * @example
 * part.type === "error" && part.error instanceof AnthropicStreamError && part.error.errorType // "overloaded_error"
 */
export class AnthropicStreamError extends AgentOnionError {
  override name = "AnthropicStreamError";
  constructor(
    readonly errorType: string,
    message: string,
  ) {
    super(message);
  }
}
brandError(AnthropicStreamError);

/**
 * What the parser learnt of the stream that the writer sends back: the message's start and its stop.
 *
 * @example
 * const memo = new StreamMemo(); const parts = fromSse(events, memo); const writer = new SseWriter(memo, "claude-x")
 */
export class StreamMemo {
  start: Record<string, unknown> | undefined;
  stopReason: string | null | undefined;
  stopSequence: string | null | undefined;
  deltaUsage: ApiUsage | undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The kind of raw part that carries the stream's `message_start` (described, not shown, by the machinery). */
const startKind = "response-metadata";

/**
 * The parts of a streamed Messages API answer.
 *
 * @example
 * for await (const part of fromSse(sseEvents(response.body), memo)) ...
 */
export async function* fromSse(events: AsyncIterable<SseEvent>, memo: StreamMemo): AsyncGenerator<StreamPart> {
  let startUsage: ApiUsage | undefined;
  let open:
    | { kind: "text" }
    | { kind: "tool"; block: Block; json: string }
    | { kind: "raw"; events: Record<string, unknown>[] }
    | undefined;
  for await (const e of events) {
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(e.data) as Record<string, unknown>;
    } catch {
      yield {
        type: "error",
        error: new AnthropicStreamError("invalid_stream", `the API sent an event that is not JSON: ${e.data.slice(0, 200)}`),
      };
      return;
    }
    switch (data.type) {
      case "message_start": {
        const message = isObject(data.message) ? data.message : {};
        memo.start = message;
        startUsage = isObject(message.usage) ? (message.usage as ApiUsage) : undefined;
        yield { type: "raw", value: { type: startKind, message } };
        break;
      }
      case "content_block_start": {
        const block = isObject(data.content_block) ? (data.content_block as Block) : { type: "unknown" };
        if (block.type === "text") {
          open = { kind: "text" };
          if (typeof block.text === "string" && block.text !== "") yield { type: "text-delta", text: block.text };
        } else if (block.type === "tool_use") open = { kind: "tool", block, json: "" };
        else open = { kind: "raw", events: [data] };
        break;
      }
      case "content_block_delta": {
        const delta = isObject(data.delta) ? data.delta : {};
        if (open?.kind === "text" && delta.type === "text_delta" && typeof delta.text === "string")
          yield { type: "text-delta", text: delta.text };
        else if (open?.kind === "tool" && delta.type === "input_json_delta" && typeof delta.partial_json === "string")
          open.json += delta.partial_json;
        else if (open?.kind === "raw") open.events.push(data);
        break;
      }
      case "content_block_stop": {
        if (open?.kind === "tool") {
          let input: unknown = {};
          try {
            input = open.json.trim() === "" ? (isObject(open.block.input) ? open.block.input : {}) : JSON.parse(open.json);
          } catch {
            yield {
              type: "error",
              error: new AnthropicStreamError("invalid_stream", `the input of tool call ${String(open.block.id)} is not JSON`),
            };
            return;
          }
          yield {
            type: "tool-call",
            call: { id: String(open.block.id), name: String(open.block.name), input: isObject(input) ? input : {} },
          };
        } else if (open?.kind === "raw") {
          open.events.push(data);
          const thinking = thinkingOf(open.events);
          yield {
            type: "raw",
            value:
              thinking === undefined
                ? { type: "anthropic-block", events: open.events }
                : { ...reasoningOf(thinking), [blockKey]: open.events },
          };
        }
        open = undefined;
        break;
      }
      case "message_delta": {
        const delta = isObject(data.delta) ? data.delta : {};
        memo.stopReason = typeof delta.stop_reason === "string" ? delta.stop_reason : null;
        memo.stopSequence = typeof delta.stop_sequence === "string" ? delta.stop_sequence : null;
        memo.deltaUsage = isObject(data.usage) ? (data.usage as ApiUsage) : undefined;
        break;
      }
      case "message_stop":
        yield {
          type: "finish",
          finishReason: finishOf(memo.stopReason),
          usage: usageOf({ ...startUsage, ...memo.deltaUsage }),
          ...(typeof memo.start?.id === "string" ? { responseId: memo.start.id } : {}),
        };
        break;
      case "error": {
        const error = isObject(data.error) ? data.error : {};
        yield {
          type: "error",
          error: new AnthropicStreamError(
            String(error.type ?? "api_error"),
            String(error.message ?? "the API reported an error mid-stream"),
          ),
        };
        return;
      }
      default:
        break; // ping, and events added later
    }
  }
}

/** The field of a reasoning raw part that holds the events of the thinking block it came from. */
const blockKey = "anthropicBlock";

/** A streamed thinking block, whole: its text and signature, from its events; undefined for another kind of block. */
const thinkingOf = (events: readonly Record<string, unknown>[]): Block | undefined => {
  const start = events[0]?.content_block;
  if (!isObject(start) || start.type !== "thinking") return undefined;
  let thinking = typeof start.thinking === "string" ? start.thinking : "";
  let signature = typeof start.signature === "string" ? start.signature : "";
  for (const e of events) {
    const delta = isObject(e.delta) ? e.delta : undefined;
    if (delta?.type === "thinking_delta" && typeof delta.thinking === "string") thinking += delta.thinking;
    else if (delta?.type === "signature_delta" && typeof delta.signature === "string") signature += delta.signature;
  }
  return { type: "thinking", thinking, ...(signature !== "" ? { signature } : {}) };
};

const reasoningOf = (b: Block): Record<string, unknown> =>
  typeof b.signature === "string"
    ? { type: "reasoning", text: b.thinking, providerMetadata: { anthropic: { signature: b.signature } } }
    : { type: "reasoning", text: b.thinking };

/** The events of a thinking block a hook rewrote: the block's start, one delta of its text, its signature if kept, its stop. */
const thinkingEvents = (b: Block): Record<string, unknown>[] => [
  { type: "content_block_start", content_block: { type: "thinking", thinking: "" } },
  ...(b.thinking !== "" ? [{ type: "content_block_delta", delta: { type: "thinking_delta", thinking: b.thinking } }] : []),
  ...(typeof b.signature === "string" ? [{ type: "content_block_delta", delta: { type: "signature_delta", signature: b.signature } }] : []),
  { type: "content_block_stop" },
];

const frame = (data: Record<string, unknown>): string => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * Frames released parts as the Messages API streams them; see the module comment.
 *
 * @example
 * const writer = new SseWriter(memo, "claude-x"); for await (const part of call.parts) res.write(writer.write(part))
 */
export class SseWriter {
  private index = 0;
  private textOpen = false;
  private started = false;
  private finished = false;

  constructor(
    private readonly memo: StreamMemo,
    private readonly model: string,
  ) {}

  /** The frames for one part ("" for none). */
  write(part: StreamPart): string {
    let out = "";
    switch (part.type) {
      case "text-delta":
        if (part.text === "") return "";
        out += this.start();
        if (!this.textOpen) {
          out += frame({ type: "content_block_start", index: this.index, content_block: { type: "text", text: "" } });
          this.textOpen = true;
        }
        return out + frame({ type: "content_block_delta", index: this.index, delta: { type: "text_delta", text: part.text } });
      case "tool-call":
        out += this.start() + this.close();
        out += frame({
          type: "content_block_start",
          index: this.index,
          content_block: { type: "tool_use", id: part.call.id, name: part.call.name, input: {} },
        });
        out += frame({
          type: "content_block_delta",
          index: this.index,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(part.call.input) },
        });
        out += frame({ type: "content_block_stop", index: this.index++ });
        return out;
      case "finish":
        return this.finish(part.finishReason, part.usage);
      case "error":
        return this.start() + this.close() + frame({ type: "error", error: errorBody(part.error) });
      case "raw": {
        const value = isObject(part.value) ? part.value : {};
        if (value.type === startKind) {
          if (!this.started && isObject(value.message)) this.memo.start = value.message;
          return this.start();
        }
        let events: Record<string, unknown>[];
        if (value.type === "anthropic-block" && Array.isArray(value.events)) events = value.events as Record<string, unknown>[];
        else if (value.type === "reasoning" && Array.isArray(value[blockKey])) {
          const given = value[blockKey] as Record<string, unknown>[];
          const was = thinkingOf(given) ?? { type: "thinking" };
          const now = thinkingBlock(was, value);
          events = now === was ? given : thinkingEvents(now);
        } else if (value.type === "reasoning") events = thinkingEvents(thinkingBlock({ type: "thinking", thinking: "" }, value));
        else return "";
        out += this.start() + this.close();
        for (const e of events) out += frame({ ...e, index: this.index });
        this.index++;
        return out;
      }
    }
  }

  private start(): string {
    if (this.started) return "";
    this.started = true;
    const message = this.memo.start ?? {
      id: `msg_agent_onion_${Date.now().toString(36)}`,
      type: "message",
      role: "assistant",
      model: this.model,
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    };
    return frame({ type: "message_start", message: { ...message, content: [] } });
  }

  private close(): string {
    if (!this.textOpen) return "";
    this.textOpen = false;
    return frame({ type: "content_block_stop", index: this.index++ });
  }

  private finish(reason: FinishReason, usage: Usage): string {
    if (this.finished) return "";
    this.finished = true;
    return (
      this.start() +
      this.close() +
      frame({
        type: "message_delta",
        delta: { stop_reason: stopOf(reason, this.memo.stopReason), stop_sequence: this.memo.stopSequence ?? null },
        usage: { ...this.memo.deltaUsage, output_tokens: usage.outputTokens },
      }) +
      frame({ type: "message_stop" })
    );
  }
}

/**
 * The API's error body for an error: the API's own type and message when it sent them, else an
 * `api_error` that says what went wrong.
 *
 * @example
 * errorBody(new AnthropicStreamError("overloaded_error", "Overloaded")) // { type: "overloaded_error", message: "Overloaded" }
 */
export const errorBody = (error: unknown): { readonly type: string; readonly message: string } =>
  error instanceof AnthropicStreamError
    ? { type: error.errorType, message: error.message }
    : { type: "api_error", message: `agent-onion: ${describe(error)}` };
