/**
 * The same adapter against language model specification V4. ai 7 declares Node >= 22, yet its
 * generateText and streamText run on Node 20 for everything used here, so these tests drive
 * the real ai 7 (installed as `ai-v7`) with its own `MockLanguageModelV4`; the last block uses
 * a hand-built V4 model object, with no SDK in between, for V4-only parts.
 */
import { generateText, jsonSchema, simulateReadableStream, stepCountIs, streamText, tool, wrapLanguageModel } from "ai-v7";
import { MockLanguageModelV4 } from "ai-v7/test";
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "provider-v4";
import { describe, expect, it } from "vitest";
import { aiSdkMiddleware } from "../../src/adapters/ai-sdk.ts";
import { wrapAiSdkTools } from "../../src/adapters/ai-sdk-tools.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { chunkHook, outputGate } from "../../src/agent/stream/hooks.ts";
import type { ModelRequest, ModelResponse } from "../../src/agent/types.ts";
import { Continue, OutcomeRejectedError, Reject, Replace, Transform } from "../../src/core/index.ts";
import { generated, SECRET, textParts, toolParts, usage } from "./ai-sdk-fixtures.ts";

const textModel = (text = "Hello there") => new MockLanguageModelV4({ doGenerate: async () => generated(text) as never });
const streamModel = (chunks: readonly string[]) =>
  new MockLanguageModelV4({ doStream: async () => ({ stream: simulateReadableStream({ chunks: textParts(chunks) as never[] }) }) });

describe("aiSdkMiddleware with ai 7 (spec V4)", () => {
  it("runs generateText through modelCall: hooks see the request and response, and an after hook rewrites the text", async () => {
    const seen: unknown[] = [];
    const stack = createAgentStack().use("modelCall", {
      name: "watch",
      before: (req, ctx) => void seen.push(ctx.subject, (req as ModelRequest).messages),
      after: (res) => Transform({ ...res, text: `${res.text}!` }),
    });
    const result = await generateText({
      model: wrapLanguageModel({ model: textModel("Hi"), middleware: aiSdkMiddleware(stack) }),
      prompt: "Hello",
    });
    expect(result.text).toBe("Hi!");
    expect(seen).toEqual(["mock-model-id", [{ role: "user", content: "Hello" }]]);
  });

  it("accepts a middleware that declares v4", async () => {
    const middleware = aiSdkMiddleware(createAgentStack(), { specificationVersion: "v4" });
    expect(middleware.specificationVersion).toBe("v4");
    expect((await generateText({ model: wrapLanguageModel({ model: textModel("ok"), middleware }), prompt: "x" })).text).toBe("ok");
  });

  it("answers from a Replace without calling the provider", async () => {
    const model = textModel();
    const stack = createAgentStack().use("modelCall", {
      name: "cache",
      before: () =>
        Replace<ModelResponse>({ text: "cached", toolCalls: [], finishReason: "stop", usage: { inputTokens: 0, outputTokens: 1 } }),
    });
    expect((await generateText({ model: wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }), prompt: "x" })).text).toBe(
      "cached",
    );
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it("makes generateText throw when a hook fails closed", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "strict",
      failMode: "closed",
      before: () => {
        throw new Error("down");
      },
    });
    await expect(
      generateText({ model: wrapLanguageModel({ model: textModel(), middleware: aiSdkMiddleware(stack) }), prompt: "x" }),
    ).rejects.toBeInstanceOf(OutcomeRejectedError);
  });

  it("streams through chunk hooks, with usage and time to first chunk for after hooks", async () => {
    const responses: ModelResponse[] = [];
    const stack = createAgentStack()
      .use(
        "modelCall",
        chunkHook({ name: "shout", chunk: (p) => (p.type === "text-delta" ? { ...p, text: p.text.toUpperCase() } : undefined) }),
      )
      .use("modelCall", { name: "watch", priority: 1, after: (res) => void responses.push(res as ModelResponse) });
    const result = streamText({
      model: wrapLanguageModel({ model: streamModel(["hel", "lo"]), middleware: aiSdkMiddleware(stack) }),
      prompt: "x",
    });
    expect(await result.text).toBe("HELLO");
    expect((await result.usage).outputTokens).toBe(5);
    await stack.flush();
    expect(responses[0]).toMatchObject({ text: "HELLO", usage: { inputTokens: 10, outputTokens: 5 } });
    expect(typeof responses[0]?.timeToFirstChunkMs).toBe("number");
  });

  it("gives an output gate the same verdict on streamText as on generateText", async () => {
    const stack = createAgentStack().use(
      "modelCall",
      outputGate({ name: "no-secrets", check: (t) => (t.includes(SECRET) ? Reject("a secret") : Continue) }),
    );
    const answer = `key ${SECRET} here`;
    const viaGenerate = (
      await generateText({ model: wrapLanguageModel({ model: textModel(answer), middleware: aiSdkMiddleware(stack) }), prompt: "k" })
    ).text;
    const viaStream = await streamText({
      model: wrapLanguageModel({ model: streamModel(answer.match(/.{1,4}/g) ?? []), middleware: aiSdkMiddleware(stack) }),
      prompt: "k",
    }).text;
    expect(viaStream).toBe(viaGenerate);
    expect(viaGenerate).toContain("blocked by no-secrets");
  });

  it("lets the SDK run a streamed tool call the hooks saw", async () => {
    const calls: unknown[] = [];
    const stack = createAgentStack().use("modelCall", { name: "watch", after: (res) => void calls.push(...res.toolCalls) });
    const model = new MockLanguageModelV4({
      doStream: async () => ({ stream: simulateReadableStream({ chunks: toolParts("weather", { city: "Oslo" }) as never[] }) }),
    });
    const result = streamText({
      model: wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }),
      prompt: "w",
      tools: {
        weather: tool({ inputSchema: jsonSchema<{ city: string }>({ type: "object" }), execute: async ({ city }) => `sunny in ${city}` }),
      },
    });
    expect((await result.toolResults).map((r) => r.output)).toEqual(["sunny in Oslo"]);
    expect(calls).toEqual([{ id: "call-1", name: "weather", input: { city: "Oslo" } }]);
  });
});

describe("wrapAiSdkTools with ai 7", () => {
  it("sends a rejected call to the model as an error result, and runs allowed calls", async () => {
    let turn = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async () =>
        turn++ === 0
          ? {
              content: [
                { type: "tool-call", toolCallId: "a", toolName: "bash", input: '{"command":"rm -rf /"}' },
                { type: "tool-call", toolCallId: "b", toolName: "bash", input: '{"command":"ls"}' },
              ],
              finishReason: { unified: "tool-calls", raw: undefined },
              usage: usage(1, 1),
              warnings: [],
            }
          : (generated("done") as never),
    });
    const stack = createAgentStack().use("toolCall", {
      name: "no-rm",
      match: "bash(rm *)",
      before: () => Reject("Destructive command blocked"),
    });
    const tools = wrapAiSdkTools(stack, {
      bash: tool({ inputSchema: jsonSchema<{ command: string }>({ type: "object" }), execute: async ({ command }) => `ran ${command}` }),
    });
    await generateText({ model, tools, prompt: "x", stopWhen: stepCountIs(3) });
    const results = model.doGenerateCalls[1]?.prompt.filter((m) => m.role === "tool").flatMap((m) => m.content);
    expect(results?.map((p) => (p.type === "tool-result" ? p.output : undefined))).toEqual([
      // ai 7 writes `error.toString()` where ai 6 wrote `error.message`: the class name leads.
      { type: "error-text", value: "ToolCallError: Tool call bash was rejected by no-rm: Destructive command blocked" },
      { type: "text", value: "ran ls" },
    ]);
  });
});

/** A V4 language model written by hand: the structural shape, no mock class, no SDK. */
const handBuilt = (parts: readonly LanguageModelV4StreamPart[]) => {
  const calls: LanguageModelV4CallOptions[] = [];
  const model: LanguageModelV4 = {
    specificationVersion: "v4",
    provider: "hand",
    modelId: "hand-v4",
    supportedUrls: {},
    doGenerate: async (options) => {
      calls.push(options);
      return {
        content: [{ type: "text", text: "partial answer" }],
        finishReason: { unified: "interrupted", raw: "user_cancelled" },
        usage: usage(4, 2),
        warnings: [],
      };
    },
    doStream: async (options) => {
      calls.push(options);
      return {
        stream: new ReadableStream({
          start: (c) => {
            for (const p of parts) c.enqueue(p);
            c.close();
          },
        }),
      };
    },
  };
  return { model, calls };
};

const read = async <T>(stream: ReadableStream<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const part of stream as unknown as AsyncIterable<T>) out.push(part);
  return out;
};

describe("aiSdkMiddleware with a hand-built V4 model", () => {
  const params = (): LanguageModelV4CallOptions => ({ prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });

  it("maps V4's interrupted finish reason to other for hooks, and hands back the provider's own result", async () => {
    const { model } = handBuilt([]);
    const reasons: unknown[] = [];
    const stack = createAgentStack().use("modelCall", { name: "watch", after: (res) => void reasons.push(res.finishReason) });
    const p = params();
    const result = await aiSdkMiddleware(stack).wrapGenerate({
      doGenerate: () => model.doGenerate(p),
      doStream: () => model.doStream(p),
      params: p,
      model,
    });
    expect(reasons).toEqual(["other"]);
    expect(result.finishReason).toEqual({ unified: "interrupted", raw: "user_cancelled" });
  });

  it("drops V4's ping parts and passes other parts through in order, reframing text", async () => {
    const { model, calls } = handBuilt([
      { type: "stream-start", warnings: [] },
      { type: "ping" },
      { type: "reasoning-start", id: "r1" },
      { type: "reasoning-delta", id: "r1", delta: "hmm" },
      { type: "reasoning-end", id: "r1" },
      { type: "text-start", id: "t1" },
      { type: "text-delta", id: "t1", delta: "Hi" },
      { type: "ping" },
      { type: "text-delta", id: "t1", delta: "!" },
      { type: "text-end", id: "t1" },
      { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(4, 2) },
    ]);
    const p = { ...params(), abortSignal: new AbortController().signal };
    const stack = createAgentStack().use("modelCall", { name: "watch", after: () => undefined });
    const { stream } = await aiSdkMiddleware(stack, { specificationVersion: "v4" }).wrapStream({
      doGenerate: () => model.doGenerate(p),
      doStream: () => model.doStream(p),
      params: p,
      model,
    });
    const parts = await read(stream);
    expect(parts.map((x) => x.type)).toEqual([
      "stream-start",
      "reasoning-start",
      "reasoning-delta",
      "reasoning-end",
      "text-start",
      "text-delta",
      "text-delta",
      "text-end",
      "finish",
    ]);
    expect(
      parts
        .filter((x) => x.type === "text-delta")
        .map((x) => (x as { delta: string }).delta)
        .join(""),
    ).toBe("Hi!");
    expect(parts.at(-1)).toEqual({ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(4, 2) });
    expect(calls).toHaveLength(1);
  });
});

describe("a text block's citations with ai 7", () => {
  const citations = [
    {
      source: { type: "source", sourceType: "url", id: "s1", url: "https://example.com/doc" },
      startIndex: 0,
      endIndex: 5,
      citedText: "Hello",
    },
  ];
  const cited = () =>
    new MockLanguageModelV4({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            { type: "stream-start", warnings: [] },
            { type: "text-start", id: "t1" },
            { type: "text-delta", id: "t1", delta: "Hello" },
            { type: "text-end", id: "t1", citations },
            { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(10, 5) },
          ] as never[],
        }),
      }),
      doGenerate: async () => ({ ...generated("Hello"), content: [{ type: "text", text: "Hello", citations }] }) as never,
    });
  const streamedText = async (stack: ReturnType<typeof createAgentStack>) => {
    const result = streamText({
      model: wrapLanguageModel({ model: cited(), middleware: aiSdkMiddleware(stack, { specificationVersion: "v4" }) }),
      prompt: "x",
    });
    return (await result.content).find((p) => p.type === "text");
  };

  it("reach the step's content on streamText, as on generateText, while hooks leave the text alone", async () => {
    const watching = createAgentStack().use("modelCall", { name: "watch", after: () => undefined });
    const generatedText = (
      await generateText({
        model: wrapLanguageModel({ model: cited(), middleware: aiSdkMiddleware(watching, { specificationVersion: "v4" }) }),
        prompt: "x",
      })
    ).content.find((p) => p.type === "text");

    expect(generatedText).toMatchObject({ citations });
    expect(await streamedText(watching)).toMatchObject({ text: "Hello", citations });
  });

  it("are left off text a hook changed, as on generateText: they would cite text the provider did not write", async () => {
    const shouting = createAgentStack().use(
      "modelCall",
      chunkHook({ name: "shout", chunk: (p) => (p.type === "text-delta" ? { ...p, text: p.text.toUpperCase() } : undefined) }),
    );

    const text = await streamedText(shouting);

    expect(text).toMatchObject({ text: "HELLO" });
    expect(text).not.toHaveProperty("citations");
  });
});
