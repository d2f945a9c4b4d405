import { simulateReadableStream, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { aiSdkMiddleware } from "../../../src/adapters/ai-sdk.ts";
import { createAgentStack } from "../../../src/agent/stack.ts";
import { outputGate } from "../../../src/agent/stream/hooks.ts";
import { Continue, Reject } from "../../../src/core/index.ts";
import type { ModelResponse } from "../../../src/agent/types.ts";
import { stop, usage } from "../ai-sdk-fixtures.ts";

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

    const result = streamText({
      model: wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }),
      prompt: "What is the answer to everything, please?",
    });
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
    const result = streamText({
      model: wrapLanguageModel({ model, middleware: aiSdkMiddleware(watching().stack) }),
      prompt: "Hi",
      abortSignal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("stop")), 10);

    await result.consumeStream({ onError: () => undefined });
    await new Promise((r) => setTimeout(r, 100));

    expect(cancelled).toBe(true);
  });

  /** A provider-executed tool: the provider runs it and streams its result after the call. */
  const searched = (answer: string) => [
    { type: "stream-start", warnings: [] },
    { type: "tool-call", toolCallId: "ws-1", toolName: "web_search", input: '{"query":"x"}', providerExecuted: true },
    { type: "tool-result", toolCallId: "ws-1", toolName: "web_search", result: { hits: ["12 Elm St"] }, providerExecuted: true },
    { type: "text-start", id: "t1" },
    { type: "text-delta", id: "t1", delta: answer },
    { type: "text-end", id: "t1" },
    { type: "finish", finishReason: stop, usage: usage(10, 5) },
  ];
  const webSearch = { web_search: { type: "provider", id: "x.web_search", args: {} } as never };
  const seen = async (stack: ReturnType<typeof createAgentStack>, answer: string) => {
    const result = streamText({
      model: wrapLanguageModel({ model: streaming(searched(answer)), middleware: aiSdkMiddleware(stack) }),
      prompt: "search",
      tools: webSearch,
    });
    const types: string[] = [];
    for await (const part of result.fullStream)
      if (["tool-call", "tool-result", "text-delta", "error"].includes(part.type)) types.push(part.type);
    return types;
  };

  it("streams a provider-executed tool's result right after its call, never before it", async () => {
    expect(await seen(watching().stack, "Found it.")).toEqual(["text-delta", "tool-call", "tool-result"]);
  });

  it("drops a provider-executed tool's result with its call when an output gate blocks the answer", async () => {
    const stack = createAgentStack().use(
      "modelCall",
      outputGate({ name: "no-addresses", check: (text) => (/Elm St/.test(text) ? Reject("address") : Continue) }),
    );

    expect(await seen(stack, "The CEO lives at 12 Elm St.")).toEqual(["text-delta"]);
  });
});
