/**
 * The LangChain adapter's telemetry against the GenAI conventions, with LangChain's real
 * `ChatOpenAI` calling a real HTTP server on 127.0.0.1 that speaks the Chat Completions API: the
 * provider is the model's own (`ls_provider`), the endpoint its configured base URL, the response
 * id the provider's, and streamed calls record the convention's streaming metrics.
 */
import { SpanKind } from "@opentelemetry/api";
import { AzureChatOpenAI, ChatOpenAI } from "@langchain/openai";
import { createAgent, initChatModel } from "langchain";
import { describe, expect, it } from "vitest";
import { langchainMiddleware } from "../../src/adapters/langchain.ts";
import type { ModelRequest, ModelResponse } from "../../src/agent/types.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { Replace } from "../../src/core/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { histogramPoints } from "../middleware/otel.ts";
import { chatBuckets, idOf, parentOf, telemetry, serveChatCompletions } from "./telemetry-harness.ts";

const server = serveChatCompletions({
  id: "chatcmpl-lc-1",
  chunks: ["Hel", "lo", " there"],
  usage: { prompt_tokens: 9, completion_tokens: 3 },
  chunkDelayMs: 5,
});

const chatModel = (streaming: boolean) =>
  new ChatOpenAI({ model: "gpt-4o", apiKey: "test-key", streaming, configuration: { baseURL: server.baseURL } });

describe("langchainMiddleware's model calls, traced per the GenAI conventions", () => {
  it("makes one CLIENT chat span under the step, with the model's provider, its endpoint and the response id", async () => {
    const { spans, collect, middleware, underApp } = telemetry();
    const stack = withMiddleware(createAgentStack(), middleware);
    const agent = createAgent({ model: chatModel(false), tools: [], middleware: [langchainMiddleware(stack)] });
    const { app } = await underApp(() => agent.invoke({ messages: [{ role: "user", content: "hi" }] }));
    await stack.flush();
    const chats = spans().filter((s) => s.attributes["gen_ai.operation.name"] === "chat");
    expect(chats.map((s) => [s.name, s.kind])).toEqual([["chat gpt-4o", SpanKind.CLIENT]]);
    const chat = chats[0]!;
    expect(chat.attributes).toMatchObject({
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o",
      "gen_ai.request.stream": false,
      "gen_ai.response.id": "chatcmpl-lc-1",
      "gen_ai.response.model": "gpt-4o",
      "gen_ai.usage.input_tokens": 9,
      "gen_ai.usage.output_tokens": 3,
      "server.address": "127.0.0.1",
      "server.port": server.port,
    });
    // Not streamed: no time to first chunk.
    expect(chat.attributes["gen_ai.response.time_to_first_chunk"]).toBeUndefined();
    const step = spans().find((s) => idOf(s) === parentOf(chat))!;
    expect(step.name).toBe("step");
    expect(parentOf(step)).toBe(idOf(app));
    const collected = await collect();
    const durations = histogramPoints(collected.get("gen_ai.client.operation.duration"));
    expect(durations.map((p) => p.attributes)).toEqual([
      expect.objectContaining({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "server.address": "127.0.0.1",
        "server.port": server.port,
      }),
    ]);
    expect(collected.get("gen_ai.client.operation.time_to_first_chunk")).toBeUndefined();
    expect(collected.get("gen_ai.client.operation.time_per_output_chunk")).toBeUndefined();
  });

  it("records a streamed call's time to first chunk on its span and both streaming metrics, in seconds with the convention's buckets", async () => {
    const { spans, collect, middleware } = telemetry();
    const stack = withMiddleware(createAgentStack(), middleware);
    const agent = createAgent({ model: chatModel(true), tools: [], middleware: [langchainMiddleware(stack)] });
    const stream = await agent.stream({ messages: [{ role: "user", content: "hi" }] }, { streamMode: "messages" });
    for await (const _ of stream);
    await stack.flush();
    const chat = spans().find((s) => s.name === "chat gpt-4o")!;
    expect(chat.attributes).toMatchObject({
      "gen_ai.request.stream": true,
      "gen_ai.response.id": "chatcmpl-lc-1",
      "server.address": "127.0.0.1",
    });
    const ttfcOnSpan = chat.attributes["gen_ai.response.time_to_first_chunk"] as number;
    expect(ttfcOnSpan).toBeGreaterThan(0);
    expect(ttfcOnSpan).toBeLessThan(10); // seconds, not milliseconds
    const collected = await collect();
    const first = collected.get("gen_ai.client.operation.time_to_first_chunk")!;
    const perChunk = collected.get("gen_ai.client.operation.time_per_output_chunk")!;
    for (const metric of [first, perChunk]) {
      expect(metric.descriptor.unit).toBe("s");
      expect(histogramPoints(metric)[0]!.buckets.boundaries).toEqual(chatBuckets);
      expect(histogramPoints(metric)[0]!.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o",
        "server.address": "127.0.0.1",
        "server.port": server.port,
      });
    }
    expect(histogramPoints(first)[0]!.count).toBe(1);
    // The adapter hands on each text delta and then the finish: three deltas and a finish are three chunks after the first.
    const intervals = histogramPoints(perChunk)[0]!;
    expect(intervals.count).toBe(3);
    // Each delta came at least 5 ms after the one before it.
    expect(intervals.sum).toBeGreaterThanOrEqual(0.009);
  });

  it("takes an initChatModel model's provider and endpoint from its configuration, not its class", async () => {
    const { spans, middleware } = telemetry();
    const stack = withMiddleware(createAgentStack(), middleware);
    const model = await initChatModel("gpt-4o", {
      modelProvider: "openai",
      apiKey: "test-key",
      configuration: { baseURL: server.baseURL },
    });
    const agent = createAgent({ model, tools: [], middleware: [langchainMiddleware(stack)] });
    await agent.invoke({ messages: [{ role: "user", content: "hi" }] });
    await stack.flush();
    const chat = spans().find((s) => s.attributes["gen_ai.operation.name"] === "chat")!;
    expect(chat.name).toBe("chat gpt-4o");
    expect(chat.attributes).toMatchObject({
      "gen_ai.provider.name": "openai",
      "gen_ai.response.id": "chatcmpl-lc-1",
      "server.address": "127.0.0.1",
      "server.port": server.port,
    });
  });

  it("names an Azure OpenAI model azure.ai.openai, at its resource's endpoint, as its own ls_provider says", async () => {
    const seen: ModelRequest[] = [];
    const { spans, middleware } = telemetry();
    // Answered before it leaves: no network, and the span still says where it would have gone.
    const stack = withMiddleware(createAgentStack(), middleware).use("modelCall", {
      name: "offline",
      before: (request) => {
        seen.push(request as ModelRequest);
        const offline: ModelResponse = { text: "offline", toolCalls: [], finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } };
        return Replace(offline);
      },
    });
    const model = new AzureChatOpenAI({
      model: "gpt-4o",
      azureOpenAIApiKey: "test-key",
      azureOpenAIApiInstanceName: "contoso",
      azureOpenAIApiDeploymentName: "chat",
      azureOpenAIApiVersion: "2024-10-21",
    });
    const agent = createAgent({ model, tools: [], middleware: [langchainMiddleware(stack)] });
    await agent.invoke({ messages: [{ role: "user", content: "hi" }] });
    await stack.flush();
    expect(seen[0]).toMatchObject({ provider: "azure", server: { address: "contoso.openai.azure.com", port: 443 } });
    const chat = spans().find((s) => s.attributes["gen_ai.operation.name"] === "chat")!;
    expect(chat.kind).toBe(SpanKind.CLIENT);
    expect(chat.attributes).toMatchObject({
      "gen_ai.provider.name": "azure.ai.openai",
      "server.address": "contoso.openai.azure.com",
      "server.port": 443,
    });
  });
});
