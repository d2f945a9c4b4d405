import { getEventListeners } from "node:events";
import { generateText, jsonSchema, simulateReadableStream, streamText, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { aiSdkMiddleware, UnsupportedSpecificationError, type AiSdkMiddlewareOptions } from "../../src/adapters/ai-sdk.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { chunkHook, outputGate } from "../../src/agent/stream/hooks.ts";
import type { ModelRequest, ModelResponse } from "../../src/agent/types.ts";
import { Continue, OutcomeRejectedError, Reject, Replace, Transform } from "../../src/core/index.ts";
import { retry, withMiddleware } from "../../src/middleware/index.ts";
import { generated, SECRET, textParts, toolParts, usage } from "./ai-sdk-fixtures.ts";

const textModel = (text = "Hello there", extra: readonly object[] = []) =>
  new MockLanguageModelV3({ doGenerate: async () => generated(text, extra) as never });
const streamModel = (chunks: readonly string[], extra: readonly object[] = []) =>
  new MockLanguageModelV3({ doStream: async () => ({ stream: simulateReadableStream({ chunks: textParts(chunks, extra) as never[] }) }) });

type Stack = ReturnType<typeof createAgentStack>;
const wrap = (stack: Stack, model: MockLanguageModelV3, options?: AiSdkMiddlewareOptions) =>
  wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack, options) });

const watching = () => {
  const requests: ModelRequest[] = [];
  const responses: ModelResponse[] = [];
  const subjects: unknown[] = [];
  const stack = createAgentStack().use("modelCall", {
    name: "watch",
    before: (req, ctx) => void (requests.push(req as ModelRequest), subjects.push(ctx.subject)),
    after: (res) => void responses.push(res as ModelResponse),
  });
  return { stack, requests, responses, subjects };
};

describe("aiSdkMiddleware with generateText (ai 6, spec V3)", () => {
  it("shows before hooks the SDK's call as a ModelRequest, with the model id as subject", async () => {
    const { stack, requests, subjects } = watching();
    await generateText({
      model: wrap(stack, textModel()),
      system: "Be brief.",
      prompt: "Hi",
      temperature: 0.2,
      tools: {
        weather: tool({ description: "Weather", inputSchema: jsonSchema({ type: "object", properties: { city: { type: "string" } } }) }),
      },
    });
    expect(subjects).toEqual(["mock-model-id"]);
    expect(requests[0]).toMatchObject({
      model: "mock-model-id",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hi" },
      ],
      temperature: 0.2,
      tools: [{ name: "weather", description: "Weather", inputSchema: { type: "object", properties: { city: { type: "string" } } } }],
    });
  });

  it("shows after hooks the response with text, usage and finish reason", async () => {
    const { stack, responses } = watching();
    const result = await generateText({ model: wrap(stack, textModel("Hello there")), prompt: "Hi" });
    expect(result.text).toBe("Hello there");
    expect(responses).toEqual([
      {
        text: "Hello there",
        toolCalls: [],
        finishReason: "stop",
        usage: { inputTokens: 10, outputTokens: 5 },
        model: "mock-model-id",
        id: "resp-1",
      },
    ]);
  });

  it("passes an unchanged call to the provider exactly as the SDK built it", async () => {
    const model = textModel();
    await generateText({ model: wrapLanguageModel({ model, middleware: aiSdkMiddleware(watching().stack) }), prompt: "Hi" });
    const direct = textModel();
    await generateText({ model: direct, prompt: "Hi" });
    expect(model.doGenerateCalls[0]?.prompt).toEqual(direct.doGenerateCalls[0]?.prompt);
  });

  it("sends a request a before hook rewrote, keeping the file attached to the rewritten message", async () => {
    const model = textModel();
    const stack = createAgentStack().use("modelCall", {
      name: "redact",
      before: (req) =>
        Transform({
          ...req,
          messages: req.messages.map((m) => ({ ...m, content: m.content.replaceAll(SECRET, "[secret]") })),
          temperature: 0,
        }),
    });
    await generateText({
      model: wrap(stack, model),
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: `my key is ${SECRET}` },
            { type: "file", data: new Uint8Array([1, 2]), mediaType: "image/png" },
          ],
        },
      ],
    });
    const sent = model.doGenerateCalls[0];
    expect(sent?.temperature).toBe(0);
    expect(sent?.prompt).toEqual([
      {
        role: "user",
        content: [{ type: "text", text: "my key is [secret]" }, expect.objectContaining({ type: "file", mediaType: "image/png" })],
      },
    ]);
  });

  it("never gives a rewritten message another message's file when a hook also dropped messages before it", async () => {
    const model = textModel();
    const image = (data: number) => ({ type: "file" as const, data: new Uint8Array([data]), mediaType: "image/png" });
    const stack = createAgentStack().use("modelCall", {
      name: "forget-and-redact",
      // Keeps only the last message, with its secret redacted.
      before: (req) =>
        Transform({ ...req, messages: req.messages.slice(-1).map((m) => ({ ...m, content: m.content.replaceAll(SECRET, "[secret]") })) }),
    });
    await generateText({
      model: wrap(stack, model),
      messages: [
        { role: "user", content: [{ type: "text", text: "old question" }, image(1)] },
        { role: "assistant", content: [{ type: "text", text: "old answer" }] },
        { role: "user", content: [{ type: "text", text: `my key is ${SECRET}` }, image(2)] },
      ],
    });
    expect(model.doGenerateCalls[0]?.prompt).toEqual([{ role: "user", content: [{ type: "text", text: "my key is [secret]" }] }]);
  });

  it("writes a response an after hook rewrote into the provider's result, keeping its reasoning", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "shout",
      after: (res) => Transform({ ...res, text: res.text.toUpperCase() }),
    });
    const result = await generateText({
      model: wrap(stack, textModel("hello", [{ type: "reasoning", text: "thinking..." }])),
      prompt: "Hi",
    });
    expect(result.text).toBe("HELLO");
    expect(result.reasoningText).toBe("thinking...");
    expect(result.response.id).toBe("resp-1");
  });

  it("answers from a Replace in before without calling the provider", async () => {
    const model = textModel();
    const cached: ModelResponse = { text: "from cache", toolCalls: [], finishReason: "stop", usage: { inputTokens: 0, outputTokens: 3 } };
    const stack = createAgentStack().use("modelCall", { name: "cache", before: () => Replace(cached) });
    const result = await generateText({ model: wrap(stack, model), prompt: "Hi" });
    expect(result.text).toBe("from cache");
    expect(result.usage.outputTokens).toBe(3);
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it("makes generateText throw when a hook fails closed (Reject is impossible on modelCall)", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "strict-guard",
      failMode: "closed",
      before: () => {
        throw new Error("policy service down");
      },
    });
    const error = await generateText({ model: wrap(stack, textModel()), prompt: "Hi" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeRejectedError);
    expect((error as OutcomeRejectedError).by).toBe("strict-guard");
    expect(error).toMatchObject({ cause: { hook: "strict-guard", point: "modelCall", kind: "threw" } }); // a guard that broke, not one that said no
  });

  it("lets a fail-open hook failure (the default on modelCall) through, and the call completes", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "flaky",
      before: () => {
        throw new Error("metrics down");
      },
    });
    expect((await generateText({ model: wrap(stack, textModel("ok")), prompt: "Hi" })).text).toBe("ok");
    expect(stack.stats.failOpen).toBe(1);
  });

  it("treats a Reject arriving at run time as a hook failure (R2)", async () => {
    const stack = createAgentStack().use("modelCall", { name: "untyped", failMode: "closed", before: (() => Reject("no")) as never });
    await expect(generateText({ model: wrap(stack, textModel()), prompt: "Hi" })).rejects.toThrow(/Reject\("no"\) is not allowed/);
  });

  it("rethrows the provider's own error unchanged, and a recover hook can answer instead", async () => {
    const failure = new Error("503 from provider");
    const failing = () =>
      new MockLanguageModelV3({
        doGenerate: async () => {
          throw failure;
        },
      });
    const caught = await generateText({ model: wrap(createAgentStack(), failing()), prompt: "Hi", maxRetries: 0 }).catch((e: unknown) => e);
    expect(caught).toBe(failure);
    const stack = createAgentStack().use("modelCall", {
      name: "fallback",
      recover: () => Replace({ text: "fallback answer", toolCalls: [], finishReason: "stop", usage: { inputTokens: 0, outputTokens: 0 } }),
    });
    expect((await generateText({ model: wrap(stack, failing()), prompt: "Hi", maxRetries: 0 })).text).toBe("fallback answer");
  });

  it("puts context hooks add into this call, after the leading system messages", async () => {
    const model = textModel();
    const stack = createAgentStack().use("modelCall", {
      name: "ctx",
      before: (_req, ctx) => void ctx.addContext("The user is on the free plan."),
    });
    await generateText({ model: wrap(stack, model), system: "Be brief.", prompt: "Hi" });
    expect(model.doGenerateCalls[0]?.prompt.map((m) => m.role)).toEqual(["system", "system", "user"]);
    expect(model.doGenerateCalls[0]?.prompt[1]).toEqual({ role: "system", content: "The user is on the free plan." });
  });

  it("sends each hook's context once when retry() runs the call again, as the hook gave it for that attempt", async () => {
    let calls = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        if (calls++ === 0) throw new Error("503 overloaded");
        return generated("ok") as never;
      },
    });
    let attempt = 0;
    const stack = withMiddleware(
      createAgentStack()
        .use("modelCall", { name: "outside", priority: 0, before: (_req, ctx) => void ctx.addContext("Tenant: acme") })
        .use("modelCall", { name: "policy", before: (_req, ctx) => void ctx.addContext("Policy: be polite") })
        .use("modelCall", { name: "attempt", before: (_req, ctx) => void ctx.addContext(`Attempt ${++attempt}`) }),
      retry({ attempts: 2, baseMs: 0, retryOn: () => true }),
    );
    await generateText({ model: wrap(stack, model), prompt: "Hi", maxRetries: 0 });
    const system = (i: number) => model.doGenerateCalls[i]!.prompt.filter((m) => m.role === "system").map((m) => m.content);
    expect(system(0)).toEqual(["Tenant: acme\n\nPolicy: be polite\n\nAttempt 1"]);
    expect(system(1)).toEqual(["Tenant: acme\n\nPolicy: be polite\n\nAttempt 2"]);
  });

  it("shows after hooks the model's tool calls with parsed input, and the SDK still runs the tool", async () => {
    const { stack, responses } = watching();
    const model = new MockLanguageModelV3({
      doGenerate: async () => ({
        content: [{ type: "tool-call", toolCallId: "c1", toolName: "weather", input: '{"city":"Oslo"}' }],
        finishReason: { unified: "tool-calls", raw: "tool_use" },
        usage: usage(3, 2),
        warnings: [],
      }),
    });
    const result = await generateText({
      model: wrap(stack, model),
      prompt: "Weather?",
      tools: {
        weather: tool({ inputSchema: jsonSchema<{ city: string }>({ type: "object" }), execute: async ({ city }) => `sunny in ${city}` }),
      },
    });
    expect(responses[0]?.toolCalls).toEqual([{ id: "c1", name: "weather", input: { city: "Oslo" } }]);
    expect(result.toolResults.map((r) => r.output)).toEqual(["sunny in Oslo"]);
  });

  it("rewrites a tool call's input in the provider's result when an after hook changes it", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: async () => ({
        content: [{ type: "tool-call", toolCallId: "c1", toolName: "weather", input: '{"city":"Oslo"}' }],
        finishReason: { unified: "tool-calls", raw: "tool_use" },
        usage: usage(3, 2),
        warnings: [],
      }),
    });
    const stack = createAgentStack().use("modelCall", {
      name: "pin-city",
      after: (res) => Transform({ ...res, toolCalls: res.toolCalls.map((c) => ({ ...c, input: { city: "Bergen" } })) }),
    });
    const result = await generateText({
      model: wrap(stack, model),
      prompt: "Weather?",
      tools: {
        weather: tool({ inputSchema: jsonSchema<{ city: string }>({ type: "object" }), execute: async ({ city }) => `sunny in ${city}` }),
      },
    });
    expect(result.toolResults.map((r) => r.output)).toEqual(["sunny in Bergen"]);
  });

  it("gives hooks the run options of each call (session, metadata)", async () => {
    const seen: unknown[] = [];
    const stack = createAgentStack().use("modelCall", {
      name: "who",
      before: (_r, ctx) => void seen.push(ctx.sessionId, ctx.metadata.user, ctx.metadata.type),
    });
    await generateText({
      model: wrap(stack, textModel(), { run: (call) => ({ sessionId: "s1", metadata: { user: "ada", type: call.type } }) }),
      prompt: "Hi",
    });
    expect(seen).toEqual(["s1", "ada", "generate"]);
  });

  it("throws the caller's abort reason when generateText is aborted", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: ({ abortSignal }) =>
        new Promise((_r, reject) => abortSignal?.addEventListener("abort", () => reject(abortSignal.reason))),
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 10);
    const error = await generateText({
      model: wrap(createAgentStack().use("modelCall", { name: "w", before: () => Continue }), model),
      prompt: "Hi",
      abortSignal: controller.signal,
    }).catch((e: unknown) => e);
    expect((error as Error).name).toBe("AbortError");
  });

  it("hands the provider a signal of the run's own, so what the provider leaves listening goes with the run", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: async ({ abortSignal }) => {
        abortSignal?.addEventListener("abort", () => {}); // never removed, as some providers do
        return generated("ok") as never;
      },
    });
    const controller = new AbortController();
    const stack = createAgentStack().use("modelCall", { name: "w", before: () => Continue });
    const params = {
      prompt: [{ role: "user" as const, content: [{ type: "text" as const, text: "Hi" }] }],
      abortSignal: controller.signal,
    };
    for (let i = 0; i < 20; i++) await wrap(stack, model).doGenerate(params);
    expect(model.doGenerateCalls[0]?.abortSignal).not.toBe(controller.signal);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("passes calls straight through when the stack has no modelCall hook", async () => {
    const model = textModel("direct");
    const result = await generateText({
      model: wrap(createAgentStack().use("toolCall", { name: "t", before: () => undefined }), model),
      prompt: "Hi",
    });
    expect(result.text).toBe("direct");
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it("refuses a model of a specification it does not know", async () => {
    const middleware = aiSdkMiddleware(createAgentStack());
    const v2 = { specificationVersion: "v2", provider: "p", modelId: "m", doGenerate: async () => ({}), doStream: async () => ({}) };
    await expect(
      middleware.wrapGenerate({
        doGenerate: async () => ({}) as never,
        doStream: async () => ({}) as never,
        params: { prompt: [] },
        model: v2 as never,
      }),
    ).rejects.toBeInstanceOf(UnsupportedSpecificationError);
  });
});

describe("aiSdkMiddleware with streamText (ai 6, spec V3)", () => {
  it("streams the text and shows after hooks the assembled response with usage and time to first chunk", async () => {
    const { stack, responses } = watching();
    const result = streamText({ model: wrap(stack, streamModel(["Hel", "lo ", "there"])), prompt: "Hi" });
    expect(await result.text).toBe("Hello there");
    expect((await result.usage).inputTokens).toBe(10);
    await stack.flush();
    expect(responses[0]).toMatchObject({ text: "Hello there", finishReason: "stop", usage: { inputTokens: 10, outputTokens: 5 } });
    expect(typeof responses[0]?.timeToFirstChunkMs).toBe("number");
  });

  it("keeps the stream valid for the SDK: framed text, the provider's metadata, finish last", async () => {
    const result = streamText({ model: wrap(watching().stack, streamModel(["a", "b"])), prompt: "Hi" });
    const types: string[] = [];
    for await (const part of result.fullStream) types.push(part.type);
    expect(types).toEqual(["start", "start-step", "text-start", "text-delta", "text-delta", "text-end", "finish-step", "finish"]);
    expect((await result.response).id).toBe("resp-1");
  });

  it("transforms the stream chunk by chunk with a chunk hook", async () => {
    const stack = createAgentStack().use(
      "modelCall",
      chunkHook({ name: "shout", chunk: (p) => (p.type === "text-delta" ? { ...p, text: p.text.toUpperCase() } : undefined) }),
    );
    expect(await streamText({ model: wrap(stack, streamModel(["hel", "lo"])), prompt: "Hi" }).text).toBe("HELLO");
  });

  it("gives an output gate the same verdict on streamText as on generateText", async () => {
    const gate = outputGate({ name: "no-secrets", check: (text) => (text.includes(SECRET) ? Reject("a secret") : Continue) });
    const stack = createAgentStack().use("modelCall", gate);
    const answer = `the key is ${SECRET}, enjoy`;
    const generatedText = (await generateText({ model: wrap(stack, textModel(answer)), prompt: "key?" })).text;
    const chunks: string[] = [];
    const streamed = streamText({ model: wrap(stack, streamModel(answer.match(/.{1,3}/g) ?? [])), prompt: "key?" });
    for await (const chunk of streamed.textStream) chunks.push(chunk);
    expect(generatedText).toBe("[output blocked by no-secrets: a secret]");
    expect(chunks.join("")).toBe(generatedText);
  });

  it("never emits a secret split across chunk boundaries, at any split index", async () => {
    const stack = createAgentStack().use(
      "modelCall",
      outputGate({
        name: "redact",
        holdBack: { window: SECRET.length },
        check: (text) => (text.includes(SECRET) ? Transform(text.replaceAll(SECRET, "[redacted]")) : Continue),
      }),
    );
    const answer = `key: ${SECRET} end`;
    for (let i = 1; i < answer.length; i++) {
      const chunks: string[] = [];
      for await (const c of streamText({ model: wrap(stack, streamModel([answer.slice(0, i), answer.slice(i)])), prompt: "k" }).textStream)
        chunks.push(c);
      expect(chunks.join("")).toBe("key: [redacted] end");
      expect(chunks.some((c) => c.includes(SECRET.slice(0, 6)))).toBe(false);
    }
  });

  it("holds a streamed tool call until the post-phase, and after hooks see it", async () => {
    const { stack, responses } = watching();
    const model = new MockLanguageModelV3({
      doStream: async () => ({ stream: simulateReadableStream({ chunks: toolParts("weather", { city: "Oslo" }) as never[] }) }),
    });
    const result = streamText({
      model: wrap(stack, model),
      prompt: "Weather?",
      tools: {
        weather: tool({ inputSchema: jsonSchema<{ city: string }>({ type: "object" }), execute: async ({ city }) => `sunny in ${city}` }),
      },
    });
    expect((await result.toolResults).map((r) => r.output)).toEqual(["sunny in Oslo"]);
    await stack.flush();
    expect(responses[0]?.toolCalls).toEqual([{ id: "call-1", name: "weather", input: { city: "Oslo" } }]);
  });

  it("still runs the post-phase with partial text when the caller aborts mid-stream", async () => {
    const { stack, responses } = watching();
    const controller = new AbortController();
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: simulateReadableStream({ chunks: textParts(["one ", "two ", "three"]) as never[], chunkDelayInMs: 30 }),
      }),
    });
    const result = streamText({ model: wrap(stack, model), prompt: "Hi", abortSignal: controller.signal });
    const seen: string[] = [];
    try {
      for await (const chunk of result.textStream) {
        seen.push(chunk);
        controller.abort();
      }
    } catch {
      // the SDK may surface the abort; what matters is the post-phase below
    }
    await stack.flush();
    for (let i = 0; i < 20 && responses.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(responses[0]).toMatchObject({ aborted: true });
    expect(responses[0]?.text.startsWith(seen.join(""))).toBe(true);
  });

  it("ends the provider's stream with the reason the consumer cancelled with", async () => {
    let signal: AbortSignal | undefined;
    const model = new MockLanguageModelV3({
      doStream: async ({ abortSignal }) => {
        signal = abortSignal;
        return { stream: simulateReadableStream({ chunks: textParts(["one ", "two ", "three"]) as never[], chunkDelayInMs: 50 }) };
      },
    });
    const middleware = aiSdkMiddleware(watching().stack);
    const params = { prompt: [{ role: "user", content: [{ type: "text", text: "Hi" }] }] };
    const { stream } = await (middleware.wrapStream as NonNullable<typeof middleware.wrapStream>)({
      doStream: () => model.doStream(params as never),
      doGenerate: () => model.doGenerate(params as never),
      params: params as never,
      model,
    });
    const reader = (stream as ReadableStream<unknown>).getReader();
    await reader.read();
    const reason = new Error("the user closed the tab");
    await reader.cancel(reason);
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBe(reason);
  });

  it("makes the stream fail with the hook's name when a hook fails closed before any part", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "strict-guard",
      failMode: "closed",
      before: () => {
        throw new Error("down");
      },
    });
    const errors: unknown[] = [];
    const result = streamText({ model: wrap(stack, streamModel(["x"])), prompt: "Hi", onError: ({ error }) => void errors.push(error) });
    await result.consumeStream();
    expect(errors[0]).toBeInstanceOf(OutcomeRejectedError);
  });

  it("streams from the request a before hook rewrote, with hook-added context in place", async () => {
    const model = streamModel(["ok"]);
    const stack = createAgentStack().use("modelCall", {
      name: "redact",
      before: (req, ctx) => {
        ctx.addContext("Answer in English.");
        return Transform({ ...req, messages: req.messages.map((m) => ({ ...m, content: m.content.replaceAll(SECRET, "[secret]") })) });
      },
    });
    expect(await streamText({ model: wrap(stack, model), system: "Be brief.", prompt: `key ${SECRET}` }).text).toBe("ok");
    expect(model.doStreamCalls[0]?.prompt).toEqual([
      { role: "system", content: "Be brief." },
      { role: "system", content: "Answer in English." },
      { role: "user", content: [{ type: "text", text: "key [secret]" }] },
    ]);
  });

  it("answers a stream from a Replace in before, framed as a provider would", async () => {
    const model = streamModel(["never"]);
    const stack = createAgentStack().use("modelCall", {
      name: "cache",
      before: () =>
        Replace<ModelResponse>({ text: "cached", toolCalls: [], finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } }),
    });
    const result = streamText({ model: wrap(stack, model), prompt: "Hi" });
    expect(await result.text).toBe("cached");
    expect(model.doStreamCalls).toHaveLength(0);
  });
});
