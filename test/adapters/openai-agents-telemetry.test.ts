/**
 * The OpenAI Agents adapter's telemetry against the GenAI conventions, with the SDK's real
 * `OpenAIProvider` and the real OpenAI client calling a real HTTP server on 127.0.0.1 that speaks
 * the Responses and Chat Completions APIs: the provider and endpoint are the client's, the response
 * id the provider's, and streamed calls record the convention's streaming metrics.
 */
import { SpanKind } from "@opentelemetry/api";
import { Agent, OpenAIProvider, Runner, setTracingDisabled } from "@openai/agents";
import { AzureOpenAI } from "openai";
import { describe, expect, it } from "vitest";
import { guardModelProvider } from "../../src/adapters/openai-agents/index.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { histogramPoints } from "../middleware/otel.ts";
import { chatBuckets, idOf, parentOf, telemetry, serveChatCompletions } from "./telemetry-harness.ts";

setTracingDisabled(true);

const server = serveChatCompletions({
  id: "chatcmpl-oa-1",
  chunks: ["High", " tide", " at 6."],
  usage: { prompt_tokens: 12, completion_tokens: 4 },
  chunkDelayMs: 5,
});

const runnerFor = (stack: Parameters<typeof guardModelProvider>[0], provider: OpenAIProvider) =>
  new Runner({ modelProvider: guardModelProvider(stack, provider), tracingDisabled: true });

describe("guardModel's model calls, traced per the GenAI conventions", () => {
  it("makes one CLIENT chat span with the client's provider and endpoint and the response id, under the application's span", async () => {
    const { spans, collect, middleware, underApp } = telemetry();
    const stack = withMiddleware(createAgentStack(), middleware);
    const runner = runnerFor(stack, new OpenAIProvider({ apiKey: "test-key", baseURL: server.baseURL, useResponses: true }));
    const { app } = await underApp(() => runner.run(new Agent({ name: "tides", model: "gpt-4.1" }), "When is high tide?"));
    await stack.flush();
    const chats = spans().filter((s) => s.attributes["gen_ai.operation.name"] === "chat");
    expect(chats.map((s) => [s.name, s.kind])).toEqual([["chat gpt-4.1", SpanKind.CLIENT]]);
    expect(chats[0]!.attributes).toMatchObject({
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4.1",
      "gen_ai.request.stream": false,
      "gen_ai.response.id": "chatcmpl-oa-1",
      "gen_ai.usage.input_tokens": 12,
      "gen_ai.usage.output_tokens": 4,
      "server.address": "127.0.0.1",
      "server.port": server.port,
    });
    expect(parentOf(chats[0]!)).toBe(idOf(app));
    const durations = histogramPoints((await collect()).get("gen_ai.client.operation.duration"));
    expect(durations.map((p) => [p.count, p.buckets.boundaries])).toEqual([[1, chatBuckets]]);
    expect(durations[0]!.attributes).toMatchObject({
      "gen_ai.provider.name": "openai",
      "server.address": "127.0.0.1",
      "server.port": server.port,
    });
  });

  it("records a streamed call's response id, time to first chunk and time per output chunk", async () => {
    const { spans, collect, middleware } = telemetry();
    const stack = withMiddleware(createAgentStack(), middleware);
    const runner = runnerFor(stack, new OpenAIProvider({ apiKey: "test-key", baseURL: server.baseURL, useResponses: true }));
    const result = await runner.run(new Agent({ name: "tides", model: "gpt-4.1" }), "When is high tide?", { stream: true });
    await result.completed;
    await stack.flush();
    const chat = spans().find((s) => s.name === "chat gpt-4.1")!;
    expect(chat.attributes).toMatchObject({ "gen_ai.request.stream": true, "gen_ai.response.id": "chatcmpl-oa-1" });
    expect(chat.attributes["gen_ai.response.time_to_first_chunk"]).toBeGreaterThan(0);
    const collected = await collect();
    const first = histogramPoints(collected.get("gen_ai.client.operation.time_to_first_chunk"));
    const perChunk = histogramPoints(collected.get("gen_ai.client.operation.time_per_output_chunk"));
    expect(first.map((p) => [p.count, p.buckets.boundaries])).toEqual([[1, chatBuckets]]);
    expect(perChunk[0]!.buckets.boundaries).toEqual(chatBuckets);
    expect(perChunk[0]!.count).toBeGreaterThanOrEqual(3);
    expect(collected.get("gen_ai.client.operation.time_per_output_chunk")!.descriptor.unit).toBe("s");
    expect(perChunk[0]!.attributes).toMatchObject({ "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4.1" });
  });

  it("names a Chat Completions model openai, the API it speaks, and leaves its endpoint out: the model keeps its client private", async () => {
    const { spans, middleware } = telemetry();
    const stack = withMiddleware(createAgentStack(), middleware);
    const runner = runnerFor(stack, new OpenAIProvider({ apiKey: "test-key", baseURL: server.baseURL, useResponses: false }));
    await runner.run(new Agent({ name: "tides", model: "my-finetune" }), "When is high tide?");
    await stack.flush();
    const chat = spans().find((s) => s.attributes["gen_ai.operation.name"] === "chat")!;
    expect(chat.kind).toBe(SpanKind.CLIENT);
    // Not a guess from the model id ("my-finetune" would be unknown).
    expect(chat.attributes).toMatchObject({ "gen_ai.provider.name": "openai", "gen_ai.response.id": "chatcmpl-oa-1" });
    expect(chat.attributes["server.address"]).toBeUndefined();
  });

  it("names a model with an Azure OpenAI client azure.ai.openai, whatever its endpoint's host", async () => {
    const { spans, middleware } = telemetry();
    const stack = withMiddleware(createAgentStack(), middleware);
    const client = new AzureOpenAI({
      apiKey: "test-key",
      endpoint: `http://127.0.0.1:${server.port}`,
      apiVersion: "2024-10-21",
      deployment: "chat",
    });
    const runner = runnerFor(stack, new OpenAIProvider({ openAIClient: client, useResponses: true }));
    await runner.run(new Agent({ name: "tides", model: "gpt-4.1" }), "When is high tide?");
    await stack.flush();
    const chat = spans().find((s) => s.attributes["gen_ai.operation.name"] === "chat")!;
    expect(chat.kind).toBe(SpanKind.CLIENT);
    expect(chat.attributes).toMatchObject({
      "gen_ai.provider.name": "azure.ai.openai",
      "server.address": "127.0.0.1",
      "server.port": server.port,
      "gen_ai.response.id": "chatcmpl-oa-1",
    });
  });
});
