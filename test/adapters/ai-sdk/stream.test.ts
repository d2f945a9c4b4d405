import { simulateReadableStream, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { aiSdkMiddleware } from "../../../src/adapters/ai-sdk.ts";
import { createAgentStack } from "../../../src/agent/stack.ts";
import type { ModelResponse } from "../../../src/agent/types.ts";
import { stop } from "../ai-sdk-fixtures.ts";

/** Usage as a provider reports it when it counts nothing. */
const noTotals = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

const streaming = (parts: readonly object[]) =>
  new MockLanguageModelV3({ doStream: async () => ({ stream: simulateReadableStream({ chunks: parts as never[] }) }) });

const watching = () => {
  const responses: ModelResponse[] = [];
  const stack = createAgentStack().use("modelCall", { name: "meter", after: (res) => void responses.push(res as ModelResponse) });
  return { stack, responses };
};

describe("the AI SDK stream mapping", () => {
  it("shows after hooks estimated usage, flagged as estimated, when the provider's stream reports no totals, and gives the SDK the provider's own usage", async () => {
    const { stack, responses } = watching();
    const text = "The answer is forty-two, as computed by a long and careful analysis.";
    const model = streaming([
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: text },
      { type: "text-end", id: "t" },
      { type: "finish", finishReason: stop, usage: noTotals },
    ]);

    const result = streamText({ model: wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }), prompt: "What is the answer to everything, please?" });
    expect(await result.text).toBe(text);
    const sdkUsage = await result.usage;
    await stack.flush();

    expect(responses[0]?.usageEstimated).toBe(true);
    expect(responses[0]?.usage.inputTokens).toBeGreaterThan(0);
    expect(responses[0]?.usage.outputTokens).toBeGreaterThan(0);
    expect([sdkUsage.inputTokens, sdkUsage.outputTokens]).toEqual([undefined, undefined]);
  });

  it("cancels the provider's stream when it opens only after the caller aborted", async () => {
    let cancelled = false;
    const controller = new AbortController();
    const model = new MockLanguageModelV3({
      // A provider whose connection ignores the abort: its stream arrives after the caller gave up.
      doStream: async () => {
        await new Promise((r) => setTimeout(r, 50));
        return { stream: new ReadableStream({ pull: () => new Promise(() => {}), cancel: () => void (cancelled = true) }) };
      },
    });
    const result = streamText({ model: wrapLanguageModel({ model, middleware: aiSdkMiddleware(watching().stack) }), prompt: "Hi", abortSignal: controller.signal });
    setTimeout(() => controller.abort(new Error("stop")), 10);

    await result.consumeStream({ onError: () => undefined });
    await new Promise((r) => setTimeout(r, 100));

    expect(cancelled).toBe(true);
  });
});
