/**
 * The Agents SDK's stream events ↔ our `StreamPart`s, both ways, around the agent layer's
 * streaming machinery (which holds text back for output gates and releases it in its own chunks).
 *
 * In: `output_text_delta` → text; `response_done` (the SDK reads the response from it, not from
 * the deltas) → one whole `reasoning` raw part per text of its reasoning items (for hooks such as
 * `redaction` to scan), one tool call per `function_call` item, then the finish with its usage;
 * `response_started`, raw `model` events and anything else pass through as our `raw` part.
 *
 * Out: text → `output_text_delta` (with the provider's item id); raw parts → the provider's own
 * event; the finish → `response_done` carrying the answer hooks settled on, written into the
 * provider's response (see response.ts) with the reasoning as released, so the run records what
 * the output gate and the redaction let through. The provider's raw `model` events go out as they
 * came: reasoning deltas among them are not scanned.
 * A provider stream that ended without `response_done` ends without one here too, as the SDK
 * reports that itself; an answer no provider stream gave (a cache's) gets a response of its own.
 */
import { Usage, type ModelResponse as SdkResponse, type StreamEvent } from "@openai/agents";
import type { StreamPart } from "../../agent/model.ts";
import type { ModelResponse } from "../../agent/types.ts";
import type { Outcome } from "../../core/outcome.ts";
import { fromResponse, toResponse } from "./response.ts";

type Event = Record<string, unknown>;

/**
 * What the way in remembers of the current provider stream for the way out.
 *
 * @example
 * const memo = new StreamMemo(); const parts = fromSdkEvents(events, memo, "gpt-4.1"); const out = toSdkEvents(parts, memo, outcome)
 */
export class StreamMemo {
  /** A provider stream was opened. */
  started = false;
  /** The item id of its text deltas. */
  itemId: string | undefined;
  /** Its `response_done` event, the response in it, and how hooks were shown that response. */
  done: { readonly event: Event; readonly response: SdkResponse; readonly produced: ModelResponse } | undefined;
}

/** The parts of an answer no stream gave (a cache's), replayed whole: not SDK events; `response_done` carries them. */
const answerParts = new Set(["reasoning", "source", "file", "tool-result"]);

/** The field that marks a raw reasoning part as the text of the response's reasoning entry at that place. */
const slotKey = "openaiAgentsReasoning";

/** The response a `response_done` event carries, as the SDK's `ModelResponse` (what `getResponse` returns). */
const responseOf = (event: Event): SdkResponse => {
  const r = (event.response ?? {}) as Event;
  return {
    ...(r.providerData !== undefined ? { providerData: r.providerData as Record<string, unknown> } : {}),
    ...(typeof r.id === "string" ? { responseId: r.id } : {}),
    ...(typeof r.requestId === "string" ? { requestId: r.requestId } : {}),
    ...(r.rawUsage !== undefined ? { rawUsage: r.rawUsage as Record<string, unknown> } : {}),
    usage: new Usage(r.usage as ConstructorParameters<typeof Usage>[0]),
    output: (r.output ?? []) as SdkResponse["output"],
  };
};

/**
 * The provider's stream events as our parts.
 *
 * @example
 * for await (const part of fromSdkEvents(model.getStreamedResponse(request), memo, "gpt-4.1")) console.log(part.type)
 */
export async function* fromSdkEvents(events: AsyncIterable<StreamEvent>, memo: StreamMemo, model: string): AsyncGenerator<StreamPart> {
  // A new provider stream (a retry's): what the memo knew of the last one is not about this one.
  memo.started = true;
  memo.itemId = undefined;
  memo.done = undefined;
  for await (const e of events) {
    const event = e as unknown as Event;
    if (event.type === "output_text_delta") {
      if (typeof event.itemId === "string") memo.itemId ??= event.itemId;
      yield { type: "text-delta", text: String(event.delta ?? "") };
    } else if (event.type === "response_done") {
      const response = responseOf(event);
      const produced = toResponse(response, model);
      memo.done = { event, response, produced };
      for (const [k, part] of (produced.parts ?? []).entries()) yield { type: "raw", value: { ...(part as Event), [slotKey]: k } };
      for (const call of produced.toolCalls) yield { type: "tool-call", call };
      yield {
        type: "finish",
        finishReason: produced.finishReason,
        usage: produced.usage,
        ...(produced.id !== undefined ? { responseId: produced.id } : {}),
      };
    } else {
      yield { type: "raw", value: event };
    }
  }
}

/**
 * Our released parts as the SDK's stream events; `outcome` is the call's (settled before its finish part).
 *
 * @example
 * yield* toSdkEvents(call.parts, memo, call.outcome)
 */
export async function* toSdkEvents(
  parts: AsyncIterable<StreamPart>,
  memo: StreamMemo,
  outcome: Promise<Outcome<ModelResponse>>,
): AsyncGenerator<StreamEvent> {
  // The reasoning parts as released, by their place among the response's.
  const released = new Map<number, Event>();
  for await (const part of parts) {
    switch (part.type) {
      case "text-delta":
        yield { type: "output_text_delta", delta: part.text, ...(memo.itemId !== undefined ? { itemId: memo.itemId } : {}) } as StreamEvent;
        break;
      case "raw": {
        const value = part.value as Event;
        if (typeof value?.[slotKey] === "number") {
          const { [slotKey]: k, ...reasoning } = value;
          released.set(k as number, reasoning);
        } else if (!answerParts.has(String(value?.type))) yield part.value as StreamEvent;
        break;
      }
      case "error":
        throw part.error;
      case "finish": {
        const settled = await outcome;
        if (settled._tag !== "Completed") break;
        const done = memo.done;
        // The provider's stream ended without its response: the SDK reports that, as without us.
        if (done === undefined && memo.started) break;
        const response = fromResponse(done?.response, done?.produced, withReleased(settled.value, done?.produced.parts, released));
        yield (done !== undefined && response === done.response ? done.event : doneEvent(response, done?.event)) as StreamEvent;
        break;
      }
      case "tool-call":
        // Tool calls reach the SDK inside `response_done`, as the provider sends them.
        break;
    }
  }
}

/** The settled answer with the response's reasoning as released (the same list when none of it changed). */
const withReleased = (
  answer: ModelResponse,
  parts: readonly unknown[] | undefined,
  released: ReadonlyMap<number, Event>,
): ModelResponse => {
  if (parts === undefined) return answer;
  let out: unknown[] | undefined;
  parts.forEach((part, k) => {
    const now = released.get(k);
    // A part the stream never released (the call failed before it) keeps nothing back: the answer is not sent.
    if (now !== undefined && JSON.stringify(now) !== JSON.stringify(part)) (out ??= [...parts])[k] = now;
  });
  return { ...answer, parts: out ?? parts };
};

/** A `response_done` event for a response: the provider's own when the response is its, else one built from it. */
const doneEvent = (response: SdkResponse, provider: Event | undefined): Event => {
  const original = provider?.response as Event | undefined;
  const usage = response.usage;
  return {
    ...provider,
    type: "response_done",
    response: {
      ...original,
      id: response.responseId ?? (original?.id as string | undefined) ?? "agent-onion-response",
      usage: {
        requests: usage.requests,
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        totalTokens: usage.totalTokens,
        inputTokensDetails: usage.inputTokensDetails,
        outputTokensDetails: usage.outputTokensDetails,
      },
      output: response.output,
    },
  };
};
