/**
 * The AI SDK adapter's telemetry against the GenAI conventions, with the real `@ai-sdk/openai`
 * provider calling a real HTTP server on 127.0.0.1 that speaks the Chat Completions API: the
 * provider is the model's provider id, the endpoint its configured base URL, the response id the
 * provider's, and streamed calls record the convention's streaming metrics. With the SDK's own
 * telemetry on and `aiSdkTracer`, each call is one CLIENT span.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { SpanKind } from "@opentelemetry/api";
import { generateText, streamText, wrapLanguageModel } from "ai";
import { describe, expect, it } from "vitest";
import { aiSdkMiddleware } from "../../src/adapters/ai-sdk.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { aiSdkTracer } from "../../src/middleware/tracing-ai-sdk.ts";
import { histogramPoints } from "../middleware/otel.ts";
import { chatBuckets, idOf, parentOf, telemetry, serveChatCompletions } from "./telemetry-harness.ts";

const server = serveChatCompletions({
  id: "chatcmpl-ai-1",
  chunks: ["Hel", "lo", " there"],
  usage: { prompt_tokens: 7, completion_tokens: 3 },
  chunkDelayMs: 5,
});

const setup = () => {
  const t = telemetry();
  const stack = withMiddleware(createAgentStack(), t.middleware);
  const openai = createOpenAI({ apiKey: "test-key", baseURL: server.baseURL });
  const model = wrapLanguageModel({ model: openai.chat("gpt-4o"), middleware: aiSdkMiddleware(stack) });
  return { ...t, stack, model };
};

describe("aiSdkMiddleware's model calls, traced per the GenAI conventions", () => {
  it("makes one CLIENT chat span with the provider id's provider, the base URL's endpoint and the response id", async () => {
    const { spans, collect, stack, model, underApp } = setup();
    const { app } = await underApp(() => generateText({ model, prompt: "Hi" }));
    await stack.flush();
    const chats = spans().filter((s) => s.attributes["gen_ai.operation.name"] === "chat");
    expect(chats.map((s) => [s.name, s.kind])).toEqual([["chat gpt-4o", SpanKind.CLIENT]]);
    expect(chats[0]!.attributes).toMatchObject({
      "gen_ai.provider.name": "openai",
      "gen_ai.request.stream": false,
      "gen_ai.response.id": "chatcmpl-ai-1",
      "gen_ai.response.model": "gpt-4o",
      "gen_ai.usage.input_tokens": 7,
      "gen_ai.usage.output_tokens": 3,
      "server.address": "127.0.0.1",
      "server.port": server.port,
    });
    expect(parentOf(chats[0]!)).toBe(idOf(app));
    const durations = histogramPoints((await collect()).get("gen_ai.client.operation.duration"));
    expect(durations.map((p) => [p.count, p.buckets.boundaries])).toEqual([[1, chatBuckets]]);
    expect(durations[0]!.attributes).toMatchObject({ "server.address": "127.0.0.1", "server.port": server.port });
  });

  it("records a streamed call's response id, time to first chunk and time per output chunk", async () => {
    const { spans, collect, stack, model } = setup();
    await streamText({ model, prompt: "Hi" }).consumeStream();
    await stack.flush();
    const chat = spans().find((s) => s.name === "chat gpt-4o")!;
    expect(chat.attributes).toMatchObject({
      "gen_ai.request.stream": true,
      "gen_ai.response.id": "chatcmpl-ai-1",
      "server.port": server.port,
    });
    expect(chat.attributes["gen_ai.response.time_to_first_chunk"]).toBeGreaterThan(0);
    const collected = await collect();
    const first = histogramPoints(collected.get("gen_ai.client.operation.time_to_first_chunk"));
    const perChunk = histogramPoints(collected.get("gen_ai.client.operation.time_per_output_chunk"));
    expect(first.map((p) => [p.count, p.buckets.boundaries])).toEqual([[1, chatBuckets]]);
    expect(perChunk[0]!.buckets.boundaries).toEqual(chatBuckets);
    // The provider's parts after the first: metadata, text framing, three deltas, the finish.
    expect(perChunk[0]!.count).toBeGreaterThanOrEqual(3);
    expect(perChunk[0]!.attributes).toMatchObject({ "gen_ai.provider.name": "openai", "server.address": "127.0.0.1" });
  });

  it("with the SDK's telemetry on through aiSdkTracer, makes one CLIENT span per call, the SDK's, with the endpoint", async () => {
    const { spans, stack, model, tracer } = setup();
    await generateText({ model, prompt: "Hi", experimental_telemetry: { isEnabled: true, tracer: aiSdkTracer(tracer) } });
    await stack.flush();
    const genAi = spans().filter((s) => Object.keys(s.attributes).some((k) => k.startsWith("gen_ai.")));
    expect(genAi.map((s) => [s.name, s.kind, s.attributes["ai.operationId"]])).toEqual([
      ["chat gpt-4o", SpanKind.CLIENT, "ai.generateText.doGenerate"],
    ]);
    expect(genAi[0]!.attributes).toMatchObject({ "server.address": "127.0.0.1", "gen_ai.response.id": "chatcmpl-ai-1" });
  });
});
