/**
 * AI SDK stream parts ↔ our `StreamPart`s, both ways, around the agent layer's streaming
 * machinery (which holds text back for output gates and releases it in its own chunks).
 *
 * In: `text-delta` → text, `tool-call` → a `ToolCall`, `finish` → finish with the totals the
 * provider reported (missing ones left out, so the machinery estimates them and says so);
 * block markers (`text-start`/`text-end`) are dropped and streamed tool inputs (`tool-input-*`)
 * too, because the machinery holds tool calls back until checked and a half-streamed input of
 * a call that a gate then removes must not reach the consumer first.
 * V4's `ping` is dropped. Everything else (`stream-start`, `response-metadata`, reasoning,
 * sources, files, `raw`, and `error`) passes through unchanged as our `raw` part; the machinery
 * holds one that names a tool call of the stream (`tool-result`, `tool-approval-request`) with
 * that call. A provider's `error` part does not end an SDK stream (the provider goes on, and its
 * finish part carries the usage), so it is not our `error`, which would; a stream that ends after
 * one without a finish part finishes with reason `error`, as the SDK reports it.
 *
 * Out: text is re-framed with `text-start`/`text-end` around each run of released text (the
 * provider's block ids reused), so the stream stays valid however the machinery re-chunked
 * it; tool calls and the finish part are the provider's own objects unless hooks changed them.
 */
import type { StreamPart } from "../../agent/model.ts";
import type { FinishReason, Usage } from "../../agent/types.ts";
import { callOf, finishOf, sdkCall, sdkFinish, sdkUsage, type SdkToolCall, type Totals } from "./response.ts";
import type { SdkFinishReason, SdkPart, SdkUsage } from "./spec.ts";

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
  readonly textIds: string[] = [];
  readonly calls = new Map<string, SdkToolCall>();
  finish: SdkFinish | undefined;
  /** The totals the provider reported (undefined where it reported none). */
  usage: Totals | undefined;
  /** The current provider stream sent an `error` part. */
  erred = false;
}

const dropped = new Set(["text-start", "text-end", "tool-input-start", "tool-input-delta", "tool-input-end", "ping"]);

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
    memo.finish = undefined;
    memo.usage = undefined;
    let finished = false;
    return {
      async next() {
        for (;;) {
          const r = await source.next();
          if (r.done) {
            if (finished || !memo.erred) return { done: true, value: undefined };
            // Ended after an error part without a finish: the SDK's step then finishes with reason
            // `error` and no usage, and so does ours (the machinery estimates it).
            finished = true;
            memo.usage = { inputTokens: undefined, outputTokens: undefined };
            return { done: false, value: { type: "finish", finishReason: "error", usage: {} as Usage } };
          }
          if (r.value.type === "finish") finished = true;
          const part = ours(r.value, memo);
          if (part !== undefined) return { done: false, value: part };
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

/** One provider part as ours, or undefined for a part that is dropped. */
const ours = (part: SdkPart, memo: StreamMemo): StreamPart | undefined => {
  if (dropped.has(part.type)) {
    if (part.type === "text-start") memo.textIds.push((part as SdkPart & { id: string }).id);
    return undefined;
  }
  if (part.type === "text-delta") return { type: "text-delta", text: (part as SdkPart & { delta: string }).delta };
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
    return { type: "finish", finishReason: finishOf(finish.finishReason), usage };
  }
  if (part.type === "error") memo.erred = true;
  return { type: "raw", value: part };
};

/**
 * Our parts as the provider's, framed so the SDK accepts them. `onCancel` hears why the consumer
 * cancelled (an iterator's `return()` carries no reason), so the provider's stream ends with it.
 *
 * @example
 * const call = streamThroughStack(stack, request, start)
 * const stream = toSdkStream(call.parts, memo, (reason) => call.cancel(reason))
 */
export const toSdkStream = (parts: AsyncIterable<StreamPart>, memo: StreamMemo, onCancel?: (reason: unknown) => void): ReadableStream<SdkPart> => {
  let iterator: AsyncIterator<StreamPart> | undefined;
  let open: string | undefined;
  let blocks = 0;
  let sent = 0;
  const put = (controller: ReadableStreamDefaultController<SdkPart>, part: SdkPart): void => {
    sent++;
    controller.enqueue(part);
  };
  const close = (controller: ReadableStreamDefaultController<SdkPart>): void => {
    if (open !== undefined) put(controller, { type: "text-end", id: open } as SdkPart);
    open = undefined;
  };
  const emit = (part: StreamPart, controller: ReadableStreamDefaultController<SdkPart>): void => {
    switch (part.type) {
      case "text-delta":
        if (part.text === "") return;
        if (open === undefined) {
          open = memo.textIds[blocks] ?? `text-${blocks}`;
          blocks++;
          put(controller, { type: "text-start", id: open } as SdkPart);
        }
        put(controller, { type: "text-delta", id: open, delta: part.text } as SdkPart);
        return;
      case "tool-call":
        close(controller);
        put(controller, sdkCall(part.call, memo.calls.get(part.call.id)));
        return;
      case "finish":
        close(controller);
        put(controller, finishPart(part.finishReason, part.usage, memo));
        return;
      case "error":
        close(controller);
        put(controller, { type: "error", error: part.error } as SdkPart);
        return;
      case "raw": {
        const value = part.value as Partial<SdkPart> | null | undefined;
        // A part a hook made up that is not an SDK part has nowhere to go.
        if (typeof value?.type === "string") put(controller, value as SdkPart);
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
            close(controller);
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

const finishPart = (reason: FinishReason, usage: Usage, memo: StreamMemo): SdkPart => {
  const original = memo.finish;
  const finishReason = sdkFinish(reason, original?.finishReason);
  // Totals the provider left out stay out: ours are estimates, not the provider's report.
  const reported = memo.usage;
  const totals = reported === undefined ? usage : {
    inputTokens: reported.inputTokens === undefined ? undefined : usage.inputTokens,
    outputTokens: reported.outputTokens === undefined ? undefined : usage.outputTokens,
  };
  const sdk = sdkUsage(totals, original?.usage, reported);
  if (original !== undefined && finishReason === original.finishReason && sdk === original.usage) return original;
  return { ...original, type: "finish", finishReason, usage: sdk } as SdkFinish;
};
