import { simulateReadableStream, streamText, wrapLanguageModel, type LanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { aiSdkMiddleware } from "../../../src/adapters/ai-sdk.ts";
import { createAgentStack } from "../../../src/agent/stack.ts";
import type { ModelResponse } from "../../../src/agent/types.ts";
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
