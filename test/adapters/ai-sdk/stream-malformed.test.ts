import { simulateReadableStream, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { aiSdkMiddleware } from "../../../src/adapters/ai-sdk.ts";
import { createAgentStack } from "../../../src/agent/stack.ts";
import type { ModelResponse } from "../../../src/agent/types.ts";
import { OutcomeRejectedError, Replace } from "../../../src/core/index.ts";
import { textParts } from "../ai-sdk-fixtures.ts";

describe("a malformed response from a hook on an AI SDK stream", () => {
  it("fails the stream with the hook's failure saying the response has no usage, not a TypeError from deep inside the adapter", async () => {
    const model = new MockLanguageModelV3({
      doStream: async () => ({ stream: simulateReadableStream({ chunks: textParts(["fresh"]) as never[] }) }),
    });
    // A cache entry restored from JSON that never stored the usage.
    const stack = createAgentStack().use("modelCall", {
      name: "cache",
      failMode: "closed",
      before: () => Replace({ text: "cached", toolCalls: [], finishReason: "stop" } as unknown as ModelResponse),
    });
    const errors: unknown[] = [];

    const result = streamText({
      model: wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }),
      prompt: "hi",
      onError: ({ error }) => void errors.push(error),
    });
    await result.consumeStream();

    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(OutcomeRejectedError);
    expect((errors[0] as Error).message).toMatch(
      /^rejected by cache: hook "cache" failed in before on modelCall: .*: the modelCall response is not a response \(.*usage/,
    );
  });
});
