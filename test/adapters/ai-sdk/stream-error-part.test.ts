import { simulateReadableStream, streamText, wrapLanguageModel, type LanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { aiSdkMiddleware } from "../../../src/adapters/ai-sdk.ts";
import { createAgentStack } from "../../../src/agent/stack.ts";
import type { ModelResponse } from "../../../src/agent/types.ts";
import type { Outcome } from "../../../src/core/index.ts";
import { withMiddleware } from "../../../src/middleware/apply.ts";
import { fallback } from "../../../src/middleware/fallback.ts";
import { retry } from "../../../src/middleware/retry.ts";
import { usage } from "../ai-sdk-fixtures.ts";

/** As @ai-sdk/openai reports a chunk it cannot parse: an `error` part, then the stream goes on. */
const erring = (tail: readonly object[]) =>
  new MockLanguageModelV3({
    doStream: async () => ({
      stream: simulateReadableStream({
        chunks: [
          { type: "stream-start", warnings: [] },
          { type: "text-start", id: "t1" },
          { type: "text-delta", id: "t1", delta: "Hello " },
          { type: "error", error: new Error("bad chunk") },
          ...tail,
        ] as never[],
      }),
    }),
  });

const carriesOn = [
  { type: "text-delta", id: "t1", delta: "world" },
  { type: "text-end", id: "t1" },
  { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(10, 5) },
];

/** What a consumer of `streamText` gets: the parts' types, the text, the finish reason, the usage, the errors. */
const consume = async (model: LanguageModel) => {
  const errors: string[] = [];
  const result = streamText({ model, prompt: "hi", onError: ({ error }) => void errors.push((error as Error).message) });
  const types: string[] = [];
  for await (const part of result.fullStream) types.push(part.type);
  const { inputTokens, outputTokens } = await result.usage;
  return { types, text: await result.text, finishReason: await result.finishReason, tokens: [inputTokens, outputTokens], errors };
};

const metered = () => {
  const responses: ModelResponse[] = [];
  const stack = createAgentStack().use("modelCall", { name: "meter", after: (res) => void responses.push(res as ModelResponse) });
  return { stack, responses };
};

describe("a provider's error part in an AI SDK stream", () => {
  it("does not end the stream: the rest of the text and the provider's usage reach the SDK as without the middleware, and after hooks see them", async () => {
    const { stack, responses } = metered();

    const plain = await consume(erring(carriesOn));
    const wrapped = await consume(wrapLanguageModel({ model: erring(carriesOn), middleware: aiSdkMiddleware(stack) }));
    await stack.flush();

    expect(plain).toMatchObject({ text: "Hello world", tokens: [10, 5], errors: ["bad chunk"] });
    expect(wrapped).toEqual(plain);
    expect(responses).toMatchObject([{ text: "Hello world", finishReason: "stop", usage: { inputTokens: 10, outputTokens: 5 } }]);
    expect(responses[0]?.usageEstimated).toBeUndefined();
  });

  it("finishes with reason error, as the SDK does, when the provider's stream ends after it without a finish part", async () => {
    const { stack, responses } = metered();

    const plain = await consume(erring([]));
    const wrapped = await consume(wrapLanguageModel({ model: erring([]), middleware: aiSdkMiddleware(stack) }));
    await stack.flush();

    expect(plain).toMatchObject({ text: "Hello ", finishReason: "error", tokens: [undefined, undefined], errors: ["bad chunk"] });
    // The one difference: the middleware closes the text block the provider left open.
    expect({ ...wrapped, types: wrapped.types.filter((t) => t !== "text-end") }).toEqual(plain);
    expect(responses).toMatchObject([{ text: "Hello ", finishReason: "error", usageEstimated: true }]);
  });
});

/** As @ai-sdk/anthropic reports an overload mid-stream: an `error` part before any output, then its finish. */
const overloaded = { type: "overloaded_error", message: "Overloaded" };
const overloading = [
  { type: "stream-start", warnings: [] },
  { type: "response-metadata", id: "resp-overloaded", modelId: "mock-model-id", timestamp: new Date(0) },
  { type: "error", error: overloaded },
  { type: "finish", finishReason: { unified: "other", raw: undefined }, usage: usage(10, 0) },
];
const answering = [
  { type: "stream-start", warnings: [] },
  { type: "text-start", id: "t1" },
  { type: "text-delta", id: "t1", delta: "Answer" },
  { type: "text-end", id: "t1" },
  { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(10, 5) },
];

/** A provider whose streams are the given ones in turn (the last one again after that). */
const streams = (...each: readonly (readonly object[])[]) => {
  let calls = 0;
  const model = new MockLanguageModelV3({
    doStream: async () => ({
      stream: simulateReadableStream({ chunks: [...(each[Math.min(calls++, each.length - 1)] ?? [])] as never[] }),
    }),
  });
  return { model, calls: () => calls };
};

const backup = {
  id: "backup",
  generate: async () => ({
    text: "backup answer",
    toolCalls: [],
    finishReason: "stop" as const,
    usage: { inputTokens: 1, outputTokens: 1 },
  }),
};

describe("a provider's error part before the stream showed anything", () => {
  it("fails the attempt when the stream then ends without showing anything, so retry asks again and the reader gets only the kept answer", async () => {
    const { model, calls } = streams(overloading, answering);
    const stack = withMiddleware(createAgentStack(), retry({ attempts: 3, baseMs: 1 }));

    const result = await consume(wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }));

    expect(calls()).toBe(2);
    expect(result).toMatchObject({ text: "Answer", finishReason: "stop", tokens: [10, 5], errors: [] });
  });

  it("fails the attempt so that fallback answers when retries are spent", async () => {
    const { model, calls } = streams(overloading);
    const stack = withMiddleware(createAgentStack(), fallback({ models: [backup] }), retry({ attempts: 2, baseMs: 1 }));

    const result = await consume(wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }));

    expect(calls()).toBe(2);
    expect(result).toMatchObject({ text: "backup answer", finishReason: "stop", errors: [] });
  });

  it("fails the call with the provider's error, and the usage its finish reported, when nothing retries it", async () => {
    const { model } = streams(overloading);
    const outcomes: Outcome<ModelResponse>[] = [];
    const stack = createAgentStack().use("modelCall", {
      name: "watch",
      around: async (_ctx, next) => {
        const o = await next();
        outcomes.push(o);
        return o;
      },
    });

    const result = await consume(wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }));

    expect(result).toMatchObject({ text: "", errors: ["Overloaded"] });
    expect(outcomes).toMatchObject([
      { _tag: "Failed", error: { cause: overloaded, shown: false, partial: { text: "", usage: { inputTokens: 10, outputTokens: 0 } } } },
    ]);
  });

  it("fails the attempt too when the provider's stream ends after it without a finish part", async () => {
    const { model, calls } = streams(overloading.slice(0, 3), answering);
    const stack = withMiddleware(createAgentStack(), retry({ attempts: 2, baseMs: 1 }));

    const result = await consume(wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }));

    expect(calls()).toBe(2);
    expect(result).toMatchObject({ text: "Answer", errors: [] });
  });

  it("goes out where it arrived, and the stream goes on as the SDK's, when the stream then shows something: retry leaves it alone", async () => {
    const late = [...overloading.slice(0, 3), ...answering.slice(1)];
    const plain = await consume(streams(late).model);
    const { model, calls } = streams(late);
    const stack = withMiddleware(createAgentStack(), retry({ attempts: 3, baseMs: 1 }));

    const wrapped = await consume(wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }));

    expect(plain).toMatchObject({ text: "Answer", finishReason: "stop", errors: ["Overloaded"] });
    expect(wrapped).toEqual(plain);
    expect(calls()).toBe(1);
  });
});

/** What a consumer of `streamText` with `onFinish` gets: the finish reason, the step's usage and the total usage. */
const finished = async (model: LanguageModel) => {
  let seen: unknown = "onFinish not called";
  const result = streamText({
    model,
    prompt: "hi",
    onError: () => {},
    onFinish: (e) =>
      void (seen = {
        finishReason: e.finishReason,
        usage: [e.usage.inputTokens, e.usage.outputTokens],
        total: [e.totalUsage.inputTokens, e.totalUsage.outputTokens],
      }),
  });
  for await (const _ of result.fullStream);
  return seen;
};

describe("a provider's error part before the stream showed anything, when nothing retries the call", () => {
  it("still ends the SDK's stream with the provider's finish: onFinish gets its reason and usage, as without the middleware", async () => {
    const plain = await finished(streams(overloading).model);
    const wrapped = await finished(
      wrapLanguageModel({
        model: streams(overloading).model,
        middleware: aiSdkMiddleware(createAgentStack().use("modelCall", { name: "watch", after: () => {} })),
      }),
    );

    expect(plain).toEqual({ finishReason: "other", usage: [10, 0], total: [10, 0] });
    expect(wrapped).toEqual(plain);
  });

  it("ends it with reason error and no usage, as without the middleware, when the provider's stream had no finish part", async () => {
    const plain = await finished(streams(overloading.slice(0, 3)).model);
    const wrapped = await finished(
      wrapLanguageModel({
        model: streams(overloading.slice(0, 3)).model,
        middleware: aiSdkMiddleware(createAgentStack().use("modelCall", { name: "watch", after: () => {} })),
      }),
    );

    expect(plain).toEqual({ finishReason: "error", usage: [undefined, undefined], total: [undefined, undefined] });
    expect(wrapped).toEqual(plain);
  });
});

/** As @ai-sdk/anthropic streams with `includeRawChunks`: each event's raw chunk, then the parts made of it. */
const rawChunk = (type: string) => ({ type: "raw", rawValue: { type } });
const overloadingRaw = [
  { type: "stream-start", warnings: [] },
  rawChunk("message_start"),
  { type: "response-metadata", id: "resp-overloaded", modelId: "mock-model-id", timestamp: new Date(0) },
  rawChunk("ping"),
  rawChunk("error"),
  { type: "error", error: overloaded },
  { type: "finish", finishReason: { unified: "other", raw: undefined }, usage: usage(10, 0) },
];
const answeringRaw = [
  { type: "stream-start", warnings: [] },
  rawChunk("message_start"),
  rawChunk("content_block_start"),
  { type: "text-start", id: "t1" },
  rawChunk("content_block_delta"),
  { type: "text-delta", id: "t1", delta: "Answer" },
  { type: "text-end", id: "t1" },
  { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(10, 5) },
];

/** What a consumer of `streamText` with raw chunks gets: the raw chunks, errors and text in order, and the text. */
const consumeRaw = async (model: LanguageModel) => {
  const result = streamText({ model, prompt: "hi", includeRawChunks: true, onError: () => {} });
  const seen: string[] = [];
  for await (const part of result.fullStream) {
    if (part.type === "raw") seen.push(`raw ${(part.rawValue as { type: string }).type}`);
    else if (part.type === "error" || part.type === "text-delta") seen.push(part.type);
  }
  return { seen, text: await result.text, finishReason: await result.finishReason };
};

describe("the provider's raw chunks (includeRawChunks) around an error part before anything was shown", () => {
  it("do not count as shown: the overload is retried, and the reader gets only the kept attempt's raw chunks, as that stream alone gives them", async () => {
    const { model, calls } = streams(overloadingRaw, answeringRaw);
    const stack = withMiddleware(createAgentStack(), retry({ attempts: 3, baseMs: 1 }));

    const wrapped = await consumeRaw(wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }));

    expect(calls()).toBe(2);
    expect(wrapped).toEqual(await consumeRaw(streams(answeringRaw).model));
  });

  it("go out where they arrived, with the error part, when the stream then shows something: retry leaves it alone", async () => {
    const late = [...overloadingRaw.slice(0, -1), ...answeringRaw.slice(3)];
    const { model, calls } = streams(late);
    const stack = withMiddleware(createAgentStack(), retry({ attempts: 3, baseMs: 1 }));

    const wrapped = await consumeRaw(wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }));

    expect(calls()).toBe(1);
    expect(wrapped).toEqual(await consumeRaw(streams(late).model));
    expect(wrapped.seen).toEqual(["raw message_start", "raw ping", "raw error", "error", "raw content_block_delta", "text-delta"]);
  });

  it("still count as shown without an error part: a stream that throws after one is not retried, as before", async () => {
    let calls = 0;
    const model = new MockLanguageModelV3({
      doStream: async () => {
        calls++;
        const parts: object[] = [{ type: "stream-start", warnings: [] }, rawChunk("message_start")];
        const stream = new ReadableStream({
          pull: (c) => (parts.length > 0 ? c.enqueue(parts.shift()) : c.error(new Error("connection reset"))),
        });
        return { stream: stream as never };
      },
    });
    const stack = withMiddleware(createAgentStack(), retry({ attempts: 3, baseMs: 1 }));

    const wrapped = await consumeRaw(wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }));

    expect(calls).toBe(1);
    expect(wrapped.seen).toEqual(["raw message_start", "error"]);
  });
});
