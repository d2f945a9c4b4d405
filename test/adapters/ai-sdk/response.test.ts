import { generateText, simulateReadableStream, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { aiSdkMiddleware } from "../../../src/adapters/ai-sdk.ts";
import { createAgentStack } from "../../../src/agent/stack.ts";
import type { LanguageModel } from "../../../src/agent/model.ts";
import { outputGate } from "../../../src/agent/stream/hooks.ts";
import { Continue, Outcome, OutcomeRejectedError, Reject, Replace, Transform } from "../../../src/core/index.ts";
import { fallback, withMiddleware } from "../../../src/middleware/index.ts";
import { fromResponse, toResponse } from "../../../src/adapters/ai-sdk/response.ts";
import { stop, usage } from "../ai-sdk-fixtures.ts";

const CARD = "4111 1111 1111 1111";

/** A provider whose answer repeats a card number, in its reasoning too, with a source, warnings and response data of its own. */
const leaky = (modelId = "primary-model") =>
  new MockLanguageModelV3({
    modelId,
    doGenerate: async () => ({
      content: [
        { type: "reasoning" as const, text: `The card is ${CARD}, I will repeat it.` },
        { type: "source" as const, sourceType: "url" as const, id: "s1", url: "https://internal.example/cards" },
        { type: "text" as const, text: `Your card is ${CARD}.` },
      ],
      finishReason: stop,
      usage: usage(100, 60),
      warnings: [{ type: "other" as const, message: "primary warning" }],
      response: { id: "primary-resp", modelId, timestamp: new Date(0) },
    }),
  });

/** An inner guard that fails the call when the answer holds a card number, as redaction's `block` does. */
const blockCards = {
  name: "block-cards",
  priority: 1000,
  around: async (_ctx: unknown, next: () => Promise<Outcome<{ text: string }>>) => {
    const o = await next();
    return o._tag === "Completed" && o.value.text.includes(CARD) ? Outcome.failed(new Error("card number in output")) : o;
  },
};

const backup = (id: string): LanguageModel => ({
  id,
  generate: async () => ({
    text: "I can't share card numbers.",
    toolCalls: [],
    finishReason: "stop",
    usage: { inputTokens: 7, outputTokens: 9 },
    model: id,
  }),
});

const expectNothingOfTheRejectedAnswer = (result: Awaited<ReturnType<typeof generateText>>) => {
  expect(result.reasoningText).toBeUndefined();
  expect(result.sources).toEqual([]);
  expect(result.warnings).toEqual([]);
  expect(result.response.id).not.toBe("primary-resp");
  expect(JSON.stringify(result.content)).not.toContain(CARD);
};

describe("the generate result aiSdkMiddleware hands back", () => {
  it("holds only a fallback model's answer, none of the rejected provider answer's reasoning, sources, warnings or response data", async () => {
    const stack = withMiddleware(createAgentStack(), fallback({ models: [backup("backup-model")] })).use("modelCall", blockCards as never);
    const result = await generateText({
      model: wrapLanguageModel({ model: leaky(), middleware: aiSdkMiddleware(stack) }),
      prompt: "what is my card?",
    });
    expect(result.text).toBe("I can't share card numbers.");
    expectNothingOfTheRejectedAnswer(result);
    expect(result.usage).toMatchObject({
      inputTokens: 7,
      outputTokens: 9,
      inputTokenDetails: { noCacheTokens: undefined },
      outputTokenDetails: { textTokens: undefined },
    });
  });

  it("does so even when the fallback model has the primary's id (the same model from another provider)", async () => {
    const stack = withMiddleware(createAgentStack(), fallback({ models: [backup("primary-model")] })).use("modelCall", blockCards as never);
    const result = await generateText({
      model: wrapLanguageModel({ model: leaky(), middleware: aiSdkMiddleware(stack) }),
      prompt: "what is my card?",
    });
    expect(result.text).toBe("I can't share card numbers.");
    expectNothingOfTheRejectedAnswer(result);
  });

  it("holds only a recover hook's answer when it answers for a rejected provider answer", async () => {
    const stack = createAgentStack()
      .use("modelCall", {
        name: "apologise",
        recover: () => Replace({ text: "Sorry.", toolCalls: [], finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } }),
      })
      .use("modelCall", blockCards as never);
    const result = await generateText({
      model: wrapLanguageModel({ model: leaky(), middleware: aiSdkMiddleware(stack) }),
      prompt: "what is my card?",
    });
    expect(result.text).toBe("Sorry.");
    expectNothingOfTheRejectedAnswer(result);
  });

  it("still writes an after hook's rewrite into the provider's own result, reasoning and response data kept", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "mask",
      after: (res) => Transform({ ...res, text: res.text.replaceAll(CARD, "[card]") }),
    });
    const result = await generateText({
      model: wrapLanguageModel({ model: leaky(), middleware: aiSdkMiddleware(stack) }),
      prompt: "what is my card?",
    });
    expect(result.text).toBe("Your card is [card].");
    expect(result.reasoningText).toContain("I will repeat it");
    expect(result.response.id).toBe("primary-resp");
  });
});

describe("a provider-executed tool in the generate result aiSdkMiddleware hands back", () => {
  const search = {
    type: "tool-call" as const,
    toolCallId: "ws1",
    toolName: "web_search",
    input: '{"query":"alice"}',
    providerExecuted: true,
  };
  const found = {
    type: "tool-result" as const,
    toolCallId: "ws1",
    toolName: "web_search",
    result: { hits: ["12 Secret Lane"] },
    providerExecuted: true,
  };
  const answer = "She lives at 12 Secret Lane.";
  const searching = () =>
    new MockLanguageModelV3({
      doGenerate: async () => ({
        content: [search, found, { type: "text" as const, text: answer }],
        finishReason: stop,
        usage: usage(10, 5),
        warnings: [],
      }),
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            search,
            found,
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: answer },
            { type: "text-end", id: "t" },
            { type: "finish", finishReason: stop, usage: usage(10, 5) },
          ] as never[],
        }),
      }),
    });

  it("goes with its call when an output gate blocks the answer: the same verdict as on streamText", async () => {
    const stack = createAgentStack().use(
      "modelCall",
      outputGate({ name: "no-address", check: (t) => (t.includes("Secret Lane") ? Reject("address") : Continue) }),
    );
    const model = wrapLanguageModel({ model: searching(), middleware: aiSdkMiddleware(stack) });
    const streamed = streamText({ model, prompt: "where does alice live?" });
    const generated = await generateText({ model, prompt: "where does alice live?" });
    expect(generated.text).toBe(await streamed.text);
    expect(generated.content.map((p) => p.type)).toEqual((await streamed.content).map((p) => p.type));
    expect(JSON.stringify(generated.content)).not.toContain("Secret Lane");
  });

  it("goes with its call when an after hook removes the call", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "no-search",
      after: (res) => Transform({ ...res, text: "[removed]", toolCalls: res.toolCalls.filter((c) => c.name !== "web_search") }),
    });
    const result = await generateText({
      model: wrapLanguageModel({ model: searching(), middleware: aiSdkMiddleware(stack) }),
      prompt: "where does alice live?",
    });
    expect(result.content).toEqual([{ type: "text", text: "[removed]" }]);
  });

  it("stays when it answers a call of an earlier step (a deferred result), which was never in this result", () => {
    const deferred = { ...found, toolCallId: "earlier" };
    const result = { content: [search, deferred, { type: "text", text: answer }], finishReason: stop, usage: usage(10, 5), warnings: [] };
    const produced = toResponse(result, { model: "m", messages: [] });
    const out = fromResponse(result, produced, { ...produced, toolCalls: [] });
    expect(out.content).toEqual([deferred, { type: "text", text: answer }]);
  });

  it("stays, after its call, when the hooks kept the call", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "shout",
      after: (res) => Transform({ ...res, text: res.text.toUpperCase() }),
    });
    const result = await generateText({
      model: wrapLanguageModel({ model: searching(), middleware: aiSdkMiddleware(stack) }),
      prompt: "where does alice live?",
    });
    expect(result.content.map((p) => p.type)).toEqual(["tool-call", "tool-result", "text"]);
    expect(result.text).toBe(answer.toUpperCase());
  });
});

describe("a response without usage that a hook settled on, on generateText", () => {
  const answering = () =>
    new MockLanguageModelV3({
      doGenerate: async () => ({ content: [{ type: "text" as const, text: "hi" }], finishReason: stop, usage: usage(10, 5), warnings: [] }),
    });
  const refusal =
    /output it does not take: the modelCall response is not a response \(.*usage.*\), got \{"text":"(cached|HI)","toolCalls":\[\]\}/;

  it("is the hook's failure, saying what is missing: a cache entry restored without usage (failing closed)", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "cache",
      failMode: "closed",
      before: () => Replace({ text: "cached", toolCalls: [] } as never),
    });
    const error = await generateText({
      model: wrapLanguageModel({ model: answering(), middleware: aiSdkMiddleware(stack) }),
      prompt: "x",
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeRejectedError);
    expect((error as Error).cause).toMatchObject({ name: "HookError", hook: "cache", kind: "invalid-action" });
    expect((error as Error).message).toMatch(refusal);
  });

  it("is the hook's failure the same when an after hook rebuilt the response without usage", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "strip",
      failMode: "closed",
      after: (res) => Transform({ text: res.text.toUpperCase(), toolCalls: [] } as never),
    });
    const error = await generateText({
      model: wrapLanguageModel({ model: answering(), middleware: aiSdkMiddleware(stack) }),
      prompt: "x",
      maxRetries: 0,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeRejectedError);
    expect((error as Error).message).toMatch(refusal);
  });
});

describe("a response whose usage is not token counts, that an after hook settled on", () => {
  const provider = () =>
    new MockLanguageModelV3({
      doGenerate: async () => ({ content: [{ type: "text" as const, text: "hi" }], finishReason: stop, usage: usage(10, 5), warnings: [] }),
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "hi" },
            { type: "text-end", id: "t" },
            { type: "finish", finishReason: stop, usage: usage(10, 5) },
          ] as never[],
        }),
      }),
    });

  it.each([
    ["NaN", { inputTokens: Number.NaN, outputTokens: 5 }],
    ["negative", { inputTokens: -3, outputTokens: 5 }],
    ["infinite", { inputTokens: Number.POSITIVE_INFINITY, outputTokens: 5 }],
  ])("is the hook's failure on generateText as on streamText, with the same error, when a count is %s", async (_, bad) => {
    const stack = createAgentStack().use("modelCall", {
      name: "rebuild",
      failMode: "closed",
      after: (res) => Transform({ ...res, usage: bad }),
    });
    const model = wrapLanguageModel({ model: provider(), middleware: aiSdkMiddleware(stack) });

    const generated = await generateText({ model, prompt: "x", maxRetries: 0 }).catch((e: unknown) => e);
    const errors: unknown[] = [];
    await streamText({ model, prompt: "x", onError: ({ error }) => void errors.push(error) }).consumeStream();

    // The same words; what follows "got" is the response, which on a stream has its time to first chunk.
    const said = (error: unknown) => [(error as Error).name, (error as Error).message.split(", got ")[0]];
    expect(generated).toBeInstanceOf(OutcomeRejectedError);
    expect(errors.map(said)).toEqual([said(generated)]);
    expect((generated as Error).message).toMatch(
      /^rejected by rebuild: hook "rebuild" failed in after on modelCall: .*: the modelCall response is not a response \(.*usage .*token counts\), got \{"text":"hi"/,
    );
  });
});
