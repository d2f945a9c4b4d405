import { describe, expect, it } from "vitest";
import {
  StreamDivergedError,
  createAgentStack,
  createScriptedModel,
  wrapModel,
  type LanguageModel,
  type ModelResponse,
  type StreamPart,
} from "../../../src/agent/index.ts";
import { Replace } from "../../../src/core/index.ts";
import { collect, request } from "../stream-helpers.ts";

/** A model whose first stream fails after "Hel" and whose second answers `second`. */
const failsThenAnswers = (second: string): LanguageModel => {
  let calls = 0;
  return {
    id: "m",
    generate: async () => {
      throw new Error("unused");
    },
    async *stream() {
      if (calls++ === 0) {
        yield { type: "text-delta", text: "Hel" };
        throw new Error("connection reset");
      }
      yield { type: "text-delta", text: second };
      yield { type: "finish", finishReason: "stop", usage: { inputTokens: 1, outputTokens: 2 } };
    },
  };
};

const retryOnce = createAgentStack().use("modelCall", {
  name: "my-retry",
  around: async (_ctx, next) => {
    const o = await next();
    return o._tag === "Failed" ? next() : o;
  },
});

describe("streamThroughStack", () => {
  it("ends the consumer's stream with a StreamDivergedError, not a finish, when a retry's answer does not continue the text already released", async () => {
    const call = wrapModel(retryOnce, failsThenAnswers("Goodbye")).streamWithOutcome(request());
    const parts = await collect(call.parts);
    const result = await call.done;

    expect(parts.map((p) => p.type)).toEqual(["text-delta", "error"]);
    const error = (parts[1] as Extract<StreamPart, { type: "error" }>).error;
    expect(error).toBeInstanceOf(StreamDivergedError);
    expect(error).toMatchObject({ released: "Hel", response: { text: "Goodbye" } });
    expect(result).toMatchObject({ diverged: true, emittedText: "Hel" });
  });

  it("releases the rest of a retry's answer when it continues the text already released", async () => {
    const call = wrapModel(retryOnce, failsThenAnswers("Hello")).streamWithOutcome(request());
    const parts = await collect(call.parts);

    expect(parts.map((p) => (p.type === "text-delta" ? p.text : p.type))).toEqual(["Hel", "lo", "finish"]);
  });

  it.each([
    ["without usage (a cache entry restored from JSON)", { text: "cached", toolCalls: [], finishReason: "stop" }],
    ["with a usage that counts no tokens", { text: "cached", toolCalls: [], finishReason: "stop", usage: {} }],
    ["without a finish reason", { text: "cached", toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 } }],
  ])("fails the hook that answers a response %s, saying what a response needs; open, the model streams", async (_, answer) => {
    const closed = createAgentStack().use("modelCall", {
      name: "cache",
      failMode: "closed",
      before: () => Replace(answer as unknown as ModelResponse),
    });
    const open = createAgentStack().use("modelCall", { name: "cache", before: () => Replace(answer as unknown as ModelResponse) });

    const call = wrapModel(closed, createScriptedModel({ turns: ["fresh"] })).streamWithOutcome(request());
    const parts = await collect(call.parts);
    const { outcome } = await call.done;
    const fresh = await wrapModel(open, createScriptedModel({ turns: ["fresh"] })).streamWithOutcome(request()).done;

    expect(parts.map((p) => p.type)).toEqual(["error"]);
    expect(outcome).toMatchObject({
      _tag: "Rejected",
      by: "cache",
      cause: {
        name: "HookError",
        kind: "invalid-action",
        message: expect.stringMatching(
          /Replace gave modelCall an output it does not take: the modelCall response is not a response \(.*finishReason a string, .*and usage/,
        ),
      },
    });
    expect(fresh.outcome).toMatchObject({ _tag: "Completed", value: { text: "fresh" } });
  });

  describe("says what the call spent", () => {
    // "Hel" streamed before the reset: 1 token estimated out, and the request's tokens in.
    const failedSpent = { outputTokens: 1 };

    it("counting the failed stream and the retry's answer when an around hook calls next() again", async () => {
      const { spent } = await wrapModel(retryOnce, failsThenAnswers("Hello")).streamWithOutcome(request()).done;

      expect(spent.outputTokens).toBe(failedSpent.outputTokens + 2);
      expect(spent.inputTokens).toBeGreaterThan(1);
    });

    it("counting the failed stream and the usage of the answer a recover hook gave in its place", async () => {
      const answer = { text: "sorry", toolCalls: [], finishReason: "stop", usage: { inputTokens: 0, outputTokens: 7 } } as ModelResponse;
      const stack = createAgentStack().use("modelCall", { name: "apologise", recover: () => Replace(answer) });

      const { spent } = await wrapModel(stack, failsThenAnswers("unused")).streamWithOutcome(request()).done;

      expect(spent.outputTokens).toBe(failedSpent.outputTokens + 7);
    });

    it("counting a cache's answer by its usage when no stream was opened", async () => {
      const answer = { text: "cached", toolCalls: [], finishReason: "stop", usage: { inputTokens: 3, outputTokens: 4 } } as ModelResponse;
      const stack = createAgentStack().use("modelCall", { name: "cache", before: () => Replace(answer) });

      const { spent } = await wrapModel(stack, createScriptedModel({ turns: ["fresh"] })).streamWithOutcome(request()).done;

      expect(spent).toEqual({ inputTokens: 3, outputTokens: 4 });
    });

    it("counting a stream once when an after hook rewrites its text", async () => {
      const stack = createAgentStack().use("modelCall", {
        name: "shout",
        after: (res) => Replace({ ...(res as ModelResponse), text: res.text.toUpperCase() }),
      });

      const { spent } = await wrapModel(
        stack,
        createScriptedModel({ turns: [{ text: "fresh", usage: { inputTokens: 5, outputTokens: 6 } }] }),
      ).streamWithOutcome(request()).done;

      expect(spent).toEqual({ inputTokens: 5, outputTokens: 6 });
    });
  });
});
