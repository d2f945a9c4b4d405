/**
 * AI SDK stream parts ↔ our `StreamPart`s, both ways, around the agent layer's streaming
 * machinery (which holds text back for output gates and releases it in its own chunks).
 *
 * In: `text-delta` → text, `tool-call` → a `ToolCall`, `finish` → finish with the totals the
 * provider reported (missing ones left out, so the machinery estimates them and says so);
 * block markers (`text-start`/`text-end`) are dropped (text is re-framed on the way out) and so
 * is V4's `ping`. Everything else (streamed tool input `tool-input-*`, `stream-start`,
 * `response-metadata`, reasoning, sources, files, `raw`, and `error`) passes through unchanged
 * as our `raw` part. The machinery holds one that names a tool call of the stream
 * (`tool-result`, `tool-approval-request`) with that call, and a call's streamed input goes out
 * as it arrives only when nothing decides what is shown (hold-back `"none"`, no output gate, no
 * chunk hook); otherwise it waits for the call and goes out just before it if hooks left the
 * call as the model streamed it, or not at all (see `pump.ts`). A provider's `error` part does not end an SDK stream (the provider goes on, and its
 * finish part carries the usage), so once the stream showed something it is not our `error`,
 * which would; a stream that ends after one without a finish part finishes with reason `error`,
 * as the SDK reports it. One that arrives before the stream showed anything (Anthropic's
 * `overloaded_error`) is held: if the stream then shows something (text, a tool call, reasoning),
 * it goes out where it arrived and the stream goes on as above; if the stream ends (its finish, or
 * its end) having shown nothing, it becomes our `error` after that finish, so the attempt fails
 * with the provider's error (and the usage it reported) and `retry` and `fallback` can act on it.
 * Raw chunks (`includeRawChunks`) that arrive before the stream showed anything are held the same
 * way (and what follows them, to keep the order): the machinery counts any part that went out as
 * shown, and a provider sends one before its error part. They go out where they arrived once the
 * stream shows something, finishes, ends or throws, unless an error part is held with them: they
 * are then dropped with the failed attempt.
 *
 * Out: text is re-framed with `text-start`/`text-end`, so the stream stays valid however the
 * machinery re-chunked it. While the released text is the provider's, it goes out in the
 * provider's blocks, with their ids and the `providerMetadata` of their start, deltas and end
 * (Gemini's thought signatures, OpenAI's item ids: the SDK sends them back on the next step).
 * ai 7's `citations` on a block's end go out with it too. Text a hook changed goes out without
 * either: an item id would stand for text the provider did not write, a citation would cite it.
 * Tool calls and the finish part are the provider's own objects unless hooks changed them.
 * A call that fails with an error part held above (nothing retried it) ends, after our `error`,
 * with the provider's finish as it reported it, so the SDK gets its reason and usage as it would
 * without us (not the describing parts and raw chunks of that attempt, which fail with it).
 */
import type { StreamPart } from "../../agent/model.ts";
import type { FinishReason, Usage } from "../../agent/types.ts";
import { callOf, finishOf, sdkCall, sdkFinish, sdkUsage, type SdkToolCall, type Totals } from "./response.ts";
import type { SdkFinishReason, SdkPart, SdkUsage } from "./spec.ts";

type Metadata = Readonly<Record<string, unknown>>;

/** One text block of the provider's stream: where its text sits in the stream's text, and the metadata of its parts. */
interface TextBlock {
  readonly id: string;
  readonly from: number;
  to: number;
  readonly start: Metadata | undefined;
  /** Each delta's metadata, with where that delta's text ends. */
  readonly deltas: { readonly to: number; readonly metadata: Metadata }[];
  end: Metadata | undefined;
  /** V4's citations of the block (on its end): like its metadata, they only go out with the block sent whole. */
  citations: readonly unknown[] | undefined;
  ended: boolean;
}

interface SdkFinish extends SdkPart {
  readonly type: "finish";
  readonly finishReason: SdkFinishReason;
  readonly usage: SdkUsage;
}

/**
 * What the way in remembers for the way out: the provider's own parts.
 *
 * @example
 * const memo = new StreamMemo(); const parts = fromSdkParts(stream, memo); const out = toSdkStream(parts, memo)
 */
export class StreamMemo {
  /** The text of the provider's current stream, and its text blocks. */
  text = "";
  blocks: TextBlock[] = [];
  /** Its text blocks interleave: where a block's text sits is unknown, so no metadata is put back. */
  tangled = false;
  readonly calls = new Map<string, SdkToolCall>();
  finish: SdkFinish | undefined;
  /** The totals the provider reported (undefined where it reported none). */
  usage: Totals | undefined;
  /** The response id of the current provider stream's `response-metadata` part. */
  responseId: string | undefined;
  /** The current provider stream sent an `error` part. */
  erred = false;
  /** The error of our `error` that failed the current provider stream (an error part held while it showed nothing). */
  failed: { readonly error: unknown } | undefined;
}

const dropped = new Set(["ping"]);

/** Provider parts that show the reader nothing: they describe the call, frame text, are dropped, or are raw chunks. */
const silent = new Set([...dropped, "stream-start", "response-metadata", "text-start", "text-end", "error", "finish", "raw"]);
const shows = (part: SdkPart): boolean => !silent.has(part.type) && !(part.type === "text-delta" && (part as TextPart).delta === "");

/**
 * The provider's parts as ours.
 *
 * @example
 * for await (const part of fromSdkParts(result.stream, memo)) console.log(part.type)
 */
export const fromSdkParts = (parts: AsyncIterable<SdkPart>, memo: StreamMemo): AsyncIterable<StreamPart> => ({
  [Symbol.asyncIterator](): AsyncIterator<StreamPart> {
    const source = parts[Symbol.asyncIterator]();
    // A new provider stream (a retry's): what the memo knew of the last one's end is not about this one.
    memo.erred = false;
    memo.failed = undefined;
    memo.finish = undefined;
    memo.usage = undefined;
    memo.responseId = undefined;
    memo.text = "";
    memo.blocks = [];
    memo.tangled = false;
    let finished = false;
    // Whether this stream showed anything yet, and the parts held until it does (see the top):
    // from its first error part or raw chunk on, in order.
    let showing = false;
    const held: SdkPart[] = [];
    const ready: StreamPart[] = [];
    let ended = false;
    let thrown: { readonly error: unknown } | undefined;
    const release = (): void => {
      for (const sdk of held.splice(0)) {
        const part = ours(sdk, memo);
        if (part !== undefined) ready.push(part);
      }
    };
    return {
      async next() {
        for (;;) {
          const queued = ready.shift();
          if (queued !== undefined) return { done: false, value: queued };
          if (thrown !== undefined) throw thrown.error;
          let r: IteratorResult<SdkPart> | undefined;
          if (!ended) {
            try {
              r = await source.next();
            } catch (error) {
              // Raw chunks held without an error part go out before the failure, as they did unheld.
              if (held.some(isError)) throw error;
              release();
              thrown = { error };
              continue;
            }
          }
          if (r === undefined || r.done) {
            ended = true;
            // Ended having shown nothing after an error part: the attempt fails with it.
            if (held.some(isError)) return { done: false, value: failure(held.splice(0), memo) };
            if (held.length > 0) {
              release();
              continue;
            }
            if (finished || !memo.erred) return { done: true, value: undefined };
            // Ended after an error part without a finish: the SDK's step then finishes with reason
            // `error` and no usage, and so does ours (the machinery estimates it).
            finished = true;
            memo.usage = { inputTokens: undefined, outputTokens: undefined };
            return { done: false, value: { type: "finish", finishReason: "error", usage: {} as Usage } };
          }
          const value = r.value;
          if (!showing && shows(value)) {
            showing = true;
            // The stream goes on: the parts it held go out where they arrived.
            release();
          } else if (!showing && value.type !== "finish" && (held.length > 0 || value.type === "error" || value.type === "raw")) {
            // Raw chunks wait too, on every stream: an error part may follow them before anything
            // is shown, and then they go with the failed attempt.
            held.push(value);
            continue;
          }
          // Finished having shown nothing, with no error part: the raw chunks held go out before the finish.
          if (value.type === "finish" && !held.some(isError)) release();
          const part = ours(value, memo);
          if (part !== undefined) ready.push(part);
          if (value.type === "finish") {
            finished = true;
            // Finished having shown nothing after an error part: the finish (its usage), then the failure.
            if (held.length > 0) ready.push(failure(held.splice(0), memo));
          }
        }
      },
      // Not a generator: closing before the first part was read (a stream that arrived after the
      // caller gave up) still closes the provider's stream.
      async return() {
        await source.return?.();
        return { done: true, value: undefined };
      },
    };
  },
});

const isError = (part: SdkPart): boolean => part.type === "error";

/** Our `error` for the parts held before the stream showed anything: the first error part's error. */
const failure = (held: readonly SdkPart[], memo: StreamMemo): StreamPart => {
  const { error } = held.find(isError) as SdkPart & { readonly error: unknown };
  memo.failed = { error };
  return { type: "error", error };
};

/** One provider part as ours, or undefined for a part that is dropped. */
const ours = (part: SdkPart, memo: StreamMemo): StreamPart | undefined => {
  if (part.type === "text-start" || part.type === "text-delta" || part.type === "text-end") return text(part as TextPart, memo);
  if (dropped.has(part.type)) return undefined;
  if (part.type === "tool-call") {
    const call = part as SdkToolCall;
    memo.calls.set(call.toolCallId, call);
    return { type: "tool-call", call: callOf(call) };
  }
  if (part.type === "finish") {
    const finish = part as SdkFinish;
    memo.finish = finish;
    memo.usage = { inputTokens: finish.usage.inputTokens.total, outputTokens: finish.usage.outputTokens.total };
    // Totals the provider did not report are left out (not zero), so the pump estimates them and
    // flags the response `usageEstimated`; the provider's own usage still goes back to the SDK.
    const { inputTokens, outputTokens } = memo.usage;
    const usage = { ...(inputTokens !== undefined && { inputTokens }), ...(outputTokens !== undefined && { outputTokens }) } as Usage;
    const responseId = memo.responseId;
    return { type: "finish", finishReason: finishOf(finish.finishReason), usage, ...(responseId !== undefined && { responseId }) };
  }
  if (part.type === "error") memo.erred = true;
  else if (part.type === "response-metadata") {
    const id = (part as SdkPart & { readonly id?: unknown }).id;
    if (typeof id === "string") memo.responseId = id;
  }
  return { type: "raw", value: part };
};

type TextPart = SdkPart & {
  readonly id: string;
  readonly delta?: string;
  readonly providerMetadata?: Metadata;
  readonly citations?: readonly unknown[];
};

/** A text part as ours (its delta), remembering its block and metadata for the way out. */
const text = (part: TextPart, memo: StreamMemo): StreamPart | undefined => {
  const at = memo.text.length;
  if (part.type === "text-start") {
    memo.blocks.push({
      id: part.id,
      from: at,
      to: at,
      start: part.providerMetadata,
      deltas: [],
      end: undefined,
      citations: undefined,
      ended: false,
    });
    return undefined;
  }
  const block = memo.blocks.findLast((b) => b.id === part.id);
  if (part.type === "text-end") {
    if (block !== undefined) [block.ended, block.end, block.citations] = [true, part.providerMetadata, part.citations];
    return undefined;
  }
  const delta = part.delta ?? "";
  if (block === undefined || block.ended || block !== memo.blocks.at(-1)) memo.tangled = true;
  else {
    block.to = at + delta.length;
    if (part.providerMetadata !== undefined) block.deltas.push({ to: block.to, metadata: part.providerMetadata });
  }
  memo.text += delta;
  return { type: "text-delta", text: delta };
};

let replayed = 0;

/** A whole reasoning part as the stream parts of one reasoning block (start, one delta, end with its metadata). */
const reasoningBlock = (part: Record<string, unknown>): SdkPart[] => {
  const id = `agent-onion-reasoning-${++replayed}`;
  const metadata = part.providerMetadata !== undefined ? { providerMetadata: part.providerMetadata } : {};
  return [
    { type: "reasoning-start", id },
    { type: "reasoning-delta", id, delta: typeof part.text === "string" ? part.text : "" },
    { type: "reasoning-end", id, ...metadata },
  ] as unknown as SdkPart[];
};

/**
 * Our parts as the provider's, framed so the SDK accepts them. `onCancel` hears why the consumer
 * cancelled (an iterator's `return()` carries no reason), so the provider's stream ends with it.
 *
 * @example
 * const call = streamThroughStack(stack, request, start)
 * const stream = toSdkStream(call.parts, memo, (reason) => call.cancel(reason))
 */
export const toSdkStream = (
  parts: AsyncIterable<StreamPart>,
  memo: StreamMemo,
  onCancel?: (reason: unknown) => void,
): ReadableStream<SdkPart> => {
  let iterator: AsyncIterator<StreamPart> | undefined;
  let sent = 0;
  const put = (controller: ReadableStreamDefaultController<SdkPart>, part: SdkPart): void => {
    sent++;
    controller.enqueue(part);
  };
  const text = new TextFrames(memo, put);
  const emit = (part: StreamPart, controller: ReadableStreamDefaultController<SdkPart>): void => {
    switch (part.type) {
      case "text-delta":
        text.send(controller, part.text);
        return;
      case "tool-call":
        text.close(controller);
        put(controller, sdkCall(part.call, memo.calls.get(part.call.id)));
        return;
      case "finish":
        text.close(controller);
        put(controller, finishPart(part.finishReason, part.usage, memo));
        return;
      case "error":
        text.close(controller);
        put(controller, { type: "error", error: part.error } as SdkPart);
        // The call failed with the provider's error part (nothing retried it): without us the SDK
        // would get the provider's finish after it, and count its usage; so it does.
        if (memo.failed !== undefined && memo.failed.error === part.error && memo.finish !== undefined) put(controller, memo.finish);
        return;
      case "raw": {
        const value = part.value as Partial<SdkPart> | null | undefined;
        text.closeEnded(controller);
        // Whole reasoning (of an answer replayed on a stream, a cache's) goes out framed as a block.
        if (value?.type === "reasoning") for (const framed of reasoningBlock(value as Record<string, unknown>)) put(controller, framed);
        // A part a hook made up that is not an SDK part has nowhere to go.
        else if (typeof value?.type === "string") put(controller, value as SdkPart);
      }
    }
  };
  return new ReadableStream<SdkPart>({
    async pull(controller) {
      iterator ??= parts[Symbol.asyncIterator]();
      try {
        // A pull that enqueues nothing is not called again: read until something goes out.
        const before = sent;
        for (;;) {
          const { value, done } = await iterator.next();
          if (done) {
            text.close(controller);
            controller.close();
            return;
          }
          emit(value, controller);
          if (sent !== before) return;
        }
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel(reason) {
      onCancel?.(reason);
      iterator ??= parts[Symbol.asyncIterator]();
      await iterator.return?.();
    },
  });
};

type Controller = ReadableStreamDefaultController<SdkPart>;

/**
 * The text going out, framed in blocks: the provider's own (id and metadata) while the text sent
 * is the provider's, blocks of its own once a hook changed it.
 */
class TextFrames {
  /** The block open now: the provider's block it reproduces, if any, and how much of its metadata went out. */
  private open: { id: string; block: TextBlock | undefined; deltas: number; described: boolean; changed: boolean } | undefined;
  /** Characters of text sent so far. */
  private offset = 0;
  /** The text sent so far is the provider's, at the same offsets. */
  private faithful = true;
  private readonly ids = new Set<string>();

  constructor(
    private readonly memo: StreamMemo,
    private readonly put: (controller: Controller, part: SdkPart) => void,
  ) {}

  send(controller: Controller, text: string): void {
    while (text !== "") {
      const at = this.offset;
      const block = this.faithful && !this.memo.tangled ? this.memo.blocks.find((b) => b.from <= at && at < b.to) : undefined;
      const own = block === undefined ? undefined : text.slice(0, block.to - at);
      // The provider's own text, compared by content: a hook's text of the same length (upper-cased) is not.
      const provider = own !== undefined && this.memo.text.startsWith(own, at);
      const piece = provider ? own : text;
      let metadata: Metadata | undefined;
      if (block !== undefined && provider) {
        if (this.open?.block !== block) {
          this.close(controller);
          this.start(controller, this.ids.has(block.id) ? this.fresh() : block.id, block);
        }
        metadata = this.deltaMetadata(at + piece.length);
      } else {
        this.faithful = false;
        // A provider's block sent whole keeps its metadata; the changed text goes in a block of its own.
        this.closeEnded(controller);
        if (this.open === undefined) this.start(controller, this.fresh(), undefined);
        else this.open.changed = true;
      }
      const open = this.open as NonNullable<typeof this.open>;
      if (metadata !== undefined) open.described = true;
      this.put(controller, {
        type: "text-delta",
        id: open.id,
        delta: piece,
        ...(metadata !== undefined && { providerMetadata: metadata }),
      } as SdkPart);
      this.offset += piece.length;
      text = text.slice(piece.length);
    }
  }

  /** Close the open block if it is a provider's block sent whole (a part after it, such as reasoning, follows its end). */
  closeEnded(controller: Controller): void {
    const open = this.open;
    if (open?.block?.ended === true && !open.changed && this.offset === open.block.to) this.close(controller);
  }

  close(controller: Controller): void {
    const open = this.open;
    if (open === undefined) return;
    this.open = undefined;
    let metadata: Metadata | undefined;
    let citations: readonly unknown[] | undefined;
    const block = open.block;
    if (block?.ended === true && !open.changed && this.offset === block.to) {
      metadata = block.end ?? this.deltaMetadata(block.to, open);
      citations = block.citations;
    }
    // The SDK keeps the last metadata a block was given: what went out described text this block no longer holds.
    else if (open.described) metadata = {};
    this.put(controller, {
      type: "text-end",
      id: open.id,
      ...(metadata !== undefined && { providerMetadata: metadata }),
      ...(citations !== undefined && { citations }),
    } as SdkPart);
  }

  private start(controller: Controller, id: string, block: TextBlock | undefined): void {
    const metadata = block?.start;
    this.ids.add(id);
    this.open = { id, block, deltas: 0, described: metadata !== undefined, changed: false };
    this.put(controller, { type: "text-start", id, ...(metadata !== undefined && { providerMetadata: metadata }) } as SdkPart);
  }

  /** The metadata of the open block's deltas that end by `to` and did not go out yet: the last one, as the SDK keeps the last. */
  private deltaMetadata(to: number, open = this.open): Metadata | undefined {
    const deltas = open?.block?.deltas;
    if (open === undefined || deltas === undefined) return undefined;
    let metadata: Metadata | undefined;
    for (let d = deltas[open.deltas]; d !== undefined && d.to <= to; d = deltas[++open.deltas]) metadata = d.metadata;
    return metadata;
  }

  private fresh(): string {
    let id = `text-${this.ids.size}`;
    for (let n = this.ids.size + 1; this.ids.has(id); n++) id = `text-${n}`;
    return id;
  }
}

const finishPart = (reason: FinishReason, usage: Usage, memo: StreamMemo): SdkPart => {
  const original = memo.finish;
  const finishReason = sdkFinish(reason, original?.finishReason);
  // Totals the provider left out stay out: ours are estimates, not the provider's report.
  const reported = memo.usage;
  const totals =
    reported === undefined
      ? usage
      : {
          inputTokens: reported.inputTokens === undefined ? undefined : usage.inputTokens,
          outputTokens: reported.outputTokens === undefined ? undefined : usage.outputTokens,
        };
  const sdk = sdkUsage(totals, original?.usage, reported);
  if (original !== undefined && finishReason === original.finishReason && sdk === original.usage) return original;
  return { ...original, type: "finish", finishReason, usage: sdk } as SdkFinish;
};
