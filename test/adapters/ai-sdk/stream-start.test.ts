import { streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { aiSdkMiddleware } from "../../../src/adapters/ai-sdk.ts";
import { createAgentStack } from "../../../src/agent/stack.ts";
import { retry, withMiddleware } from "../../../src/middleware/index.ts";
import { stop, usage } from "../ai-sdk-fixtures.ts";

/**
 * A provider whose first `doStream` fails (a 429) and whose second streams two words, the second
 * only once `shown` resolves (or, so that a buffered stream still ends, after a while).
 */
const failingOnce = (shown: Promise<void>) => {
  let calls = 0;
  let ended = false;
  const model = new MockLanguageModelV3({
    doStream: async () => {
      if (++calls === 1) throw Object.assign(new Error("429 rate limited"), { statusCode: 429 });
      const head = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Hello " },
      ];
      const tail = [
        { type: "text-delta", id: "t", delta: "world" },
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: stop, usage: usage(10, 5) },
      ];
      const stream = new ReadableStream({
        async start(controller) {
          for (const part of head) controller.enqueue(part);
          await Promise.race([shown, new Promise((resolve) => setTimeout(resolve, 500))]);
          for (const part of tail) controller.enqueue(part);
          ended = true;
          controller.close();
        },
      });
      return { stream, response: { headers: { "x-request-id": "req-2" } } };
    },
  });
  return { model, ended: () => ended };
};

describe("a stream whose first attempt fails to start, retried", () => {
  it("still streams: the reader gets the first text before the provider's stream has ended", async () => {
    let show = () => {};
    const shown = new Promise<void>((resolve) => (show = resolve));
    const provider = failingOnce(shown);
    const stack = withMiddleware(createAgentStack(), retry({ attempts: 2, baseMs: 1, retryOn: () => true }));
    const result = streamText({ model: wrapLanguageModel({ model: provider.model, middleware: aiSdkMiddleware(stack) }), prompt: "hi" });
    let endedAtFirstText: boolean | undefined;
    for await (const _ of result.textStream) {
      endedAtFirstText ??= provider.ended();
      show();
    }
    expect(endedAtFirstText).toBe(false);
    expect(await result.text).toBe("Hello world");
  });

  it("keeps the response headers of the attempt that opened", async () => {
    const provider = failingOnce(Promise.resolve());
    const stack = withMiddleware(createAgentStack(), retry({ attempts: 2, baseMs: 1, retryOn: () => true }));
    const result = streamText({ model: wrapLanguageModel({ model: provider.model, middleware: aiSdkMiddleware(stack) }), prompt: "hi" });
    expect(await result.text).toBe("Hello world");
    expect((await result.response).headers).toEqual({ "x-request-id": "req-2" });
  });
});
