import { generateText, simulateReadableStream, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { aiSdkMiddleware } from "../../../src/adapters/ai-sdk.ts";
import { createAgentStack } from "../../../src/agent/stack.ts";
import { Outcome, Transform } from "../../../src/core/index.ts";
import { withMiddleware } from "../../../src/middleware/apply.ts";
import { fallback } from "../../../src/middleware/fallback.ts";
import { stop, usage } from "../ai-sdk-fixtures.ts";

const card = "Your card is 4111 1111 1111 1111.";
const warnings = [{ type: "other" as const, message: "primary warning" }];

/** A provider answering with a card number, with its warnings and its response id. */
const primary = () =>
  new MockLanguageModelV3({
    doGenerate: async () => ({
      content: [{ type: "text" as const, text: card }],
      finishReason: stop,
      usage: usage(100, 60),
      warnings,
      response: { id: "primary-resp", modelId: "mock-model-id", timestamp: new Date(0) },
    }),
    doStream: async () => ({
      stream: simulateReadableStream({
        chunks: [
          { type: "stream-start", warnings },
          { type: "response-metadata", id: "primary-resp", modelId: "mock-model-id", timestamp: new Date(0) },
          { type: "text-start", id: "t1" },
          { type: "text-delta", id: "t1", delta: card },
          { type: "text-end", id: "t1" },
          { type: "finish", finishReason: stop, usage: usage(100, 60) },
        ] as never[],
      }),
    }),
  });

const backup = {
  id: "backup",
  generate: async () => ({
    text: "I can't share card numbers.",
    toolCalls: [],
    finishReason: "stop" as const,
    usage: { inputTokens: 7, outputTokens: 9 },
  }),
};

/** Fails an answer holding a card number (inside fallback), so that fallback answers instead. */
const blockCards = {
  name: "block-cards",
  priority: 1000,
  around: async (_ctx: unknown, next: () => Promise<Outcome<{ text: string }>>) => {
    const o = await next();
    return o._tag === "Completed" && /\d{4} \d{4}/.test(o.value.text) ? Outcome.failed(new Error("card number in output")) : o;
  },
};

describe("an AI SDK stream that a fallback answered after the provider's answer was failed", () => {
  it("goes out without the failed attempt's warnings and response id, as generateText returns the fallback's answer", async () => {
    const stack = withMiddleware(createAgentStack(), fallback({ models: [backup] })).use("modelCall", blockCards as never);
    const model = wrapLanguageModel({ model: primary(), middleware: aiSdkMiddleware(stack, { holdBack: "all" }) });

    const generated = await generateText({ model, prompt: "card?" });
    const streamed = streamText({ model, prompt: "card?" });
    await streamed.consumeStream();

    expect(await streamed.text).toBe(generated.text);
    expect(generated.text).toBe("I can't share card numbers.");
    expect(await streamed.warnings).toEqual(generated.warnings);
    expect((await streamed.response).id).not.toBe("primary-resp");
  });

  it("keeps them when the answer is the provider's, rewritten by an after hook", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "mask",
      after: (res) => Transform({ ...res, text: res.text.replace(/\d{4} /g, "**** ") }),
    });
    const streamed = streamText({
      model: wrapLanguageModel({ model: primary(), middleware: aiSdkMiddleware(stack, { holdBack: "all" }) }),
      prompt: "card?",
    });
    await streamed.consumeStream();

    expect(await streamed.text).toBe("Your card is **** **** **** 1111.");
    expect(await streamed.warnings).toEqual(warnings);
    expect((await streamed.response).id).toBe("primary-resp");
  });
});
