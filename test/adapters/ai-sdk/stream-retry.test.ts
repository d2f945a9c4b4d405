import { simulateReadableStream, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { aiSdkMiddleware } from "../../../src/adapters/ai-sdk.ts";
import { createAgentStack } from "../../../src/agent/stack.ts";
import { withMiddleware } from "../../../src/middleware/apply.ts";
import { fallback } from "../../../src/middleware/fallback.ts";
import { redaction, RedactionBlockedError } from "../../../src/middleware/redaction.ts";
import { retry } from "../../../src/middleware/retry.ts";
import { stop, usage } from "../ai-sdk-fixtures.ts";

/** The parts every attempt begins with: its warnings, its response id. */
const head = (n: number) => [
  { type: "stream-start", warnings: [{ type: "other", message: `warning of attempt ${n}` }] },
  { type: "response-metadata", id: `resp-${n}`, modelId: "mock-model-id", timestamp: new Date(0) },
];
const reasoning = (n: number) => [
  { type: "reasoning-start", id: "r1" },
  { type: "reasoning-delta", id: "r1", delta: `thinking (attempt ${n})` },
];
const answer = [
  { type: "reasoning-end", id: "r1" },
  { type: "text-start", id: "t1" },
  { type: "text-delta", id: "t1", delta: "Answer" },
  { type: "text-end", id: "t1" },
  { type: "finish", finishReason: stop, usage: usage(10, 5) },
];

/** A provider whose first stream breaks (the connection resets) after `first`, and whose second answers. */
const breaksOnce = (first: (n: number) => object[]) => {
  let calls = 0;
  const model = new MockLanguageModelV3({
    doStream: async () => {
      const n = ++calls;
      const parts = n === 1 ? first(n) : [...head(n), ...reasoning(n), ...answer];
      return {
        stream: new ReadableStream({
          pull(controller) {
            const part = parts.shift();
            if (part !== undefined) controller.enqueue(part as never);
            else if (n === 1) controller.error(new Error("connection reset"));
            else controller.close();
          },
        }),
      };
    },
  });
  return { model, calls: () => calls };
};

const retried = (model: MockLanguageModelV3) => {
  const stack = withMiddleware(createAgentStack(), retry({ attempts: 2, baseMs: 1, retryOn: () => true }));
  const errors: string[] = [];
  const result = streamText({
    model: wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }),
    prompt: "hi",
    onError: ({ error }) => void errors.push((error as Error).message),
  });
  return { result, errors };
};

const shown = async (result: ReturnType<typeof streamText>) => {
  const parts: string[] = [];
  for await (const p of result.fullStream) {
    if (p.type === "reasoning-start" || p.type === "text-delta") parts.push(p.type);
    if (p.type === "reasoning-delta") parts.push(`reasoning: ${p.text}`);
  }
  return parts;
};

describe("a retried AI SDK stream", () => {
  it("is not retried once the reader was shown reasoning: the reader would see it twice", async () => {
    const { model, calls } = breaksOnce((n) => [...head(n), ...reasoning(n)]);
    const { result, errors } = retried(model);

    expect(await shown(result)).toEqual(["reasoning-start", "reasoning: thinking (attempt 1)"]);
    expect(calls()).toBe(1);
    expect(errors).toEqual(["connection reset"]);
  });

  it("sends the stream-start and response metadata of the attempt it keeps, once, when an attempt that showed nothing is retried", async () => {
    const { model, calls } = breaksOnce(head);
    const { result } = retried(model);

    const starts: unknown[] = [];
    for await (const p of result.fullStream) if (p.type === "start-step") starts.push(p.warnings);

    expect(calls()).toBe(2);
    expect(starts).toEqual([[{ type: "other", message: "warning of attempt 2" }]]);
    expect(await result.warnings).toEqual([{ type: "other", message: "warning of attempt 2" }]);
    expect((await result.response).id).toBe("resp-2");
    expect(await result.reasoningText).toBe("thinking (attempt 2)");
    expect(await result.text).toBe("Answer");
  });
});

const SECRET = "sk-live-0123456789abcdefghij";

/** A provider whose every stream shows reasoning, then text: the first one's text holds an API key. */
const leaksOnce = () => {
  let calls = 0;
  const model = new MockLanguageModelV3({
    doStream: async () => {
      const n = ++calls;
      return {
        stream: simulateReadableStream({
          chunks: [
            ...head(n),
            ...reasoning(n),
            { type: "reasoning-end", id: "r1" },
            { type: "text-start", id: "t1" },
            { type: "text-delta", id: "t1", delta: n === 1 ? `the key is ${SECRET}` : "no key for you" },
            { type: "text-end", id: "t1" },
            { type: "finish", finishReason: stop, usage: usage(10, 5) },
          ] as never[],
        }),
      };
    },
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

describe("an AI SDK stream that showed reasoning and that an inner guard then failed", () => {
  it.each([
    ["retry", retry({ attempts: 2, baseMs: 1 })],
    ["fallback", fallback({ models: [backup] })],
  ])("is left failed by %s: the reader keeps one attempt's reasoning and warnings, and gets no other answer", async (_, middleware) => {
    const { model, calls } = leaksOnce();
    const stack = withMiddleware(createAgentStack(), middleware, redaction({ strategies: { api_key: "block" } }));
    const errors: unknown[] = [];
    const result = streamText({
      model: wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }),
      prompt: "hi",
      onError: ({ error }) => void errors.push(error),
    });

    expect(await shown(result)).toEqual(["reasoning-start", "reasoning: thinking (attempt 1)"]);
    expect(calls()).toBe(1);
    expect(errors).toEqual([expect.any(RedactionBlockedError)]);
    expect(await result.text).toBe("");
    expect(await result.warnings).toEqual([{ type: "other", message: "warning of attempt 1" }]);
  });
});
