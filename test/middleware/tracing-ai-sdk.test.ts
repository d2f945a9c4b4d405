/**
 * `aiSdkTracer` with the real AI SDK (ai 6) and its telemetry on: the spans the SDK makes, read
 * back through the real OpenTelemetry SDK, with both telemetry systems on. Each model call is one
 * GenAI span, the SDK's, started as the convention's inference span (kind CLIENT, `chat {model}`,
 * the sampling-relevant attributes at creation), carrying agent-onion's attributes and hook spans.
 */
import { context, SpanKind, type Context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type Span,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { generateText, simulateReadableStream, stepCountIs, streamText, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aiSdkMiddleware } from "../../src/adapters/ai-sdk.ts";
import { wrapAiSdkTools } from "../../src/adapters/ai-sdk-tools.ts";
import { createAgentStack } from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { metrics } from "../../src/middleware/metrics.ts";
import { aiSdkTracer } from "../../src/middleware/tracing-ai-sdk.ts";
import { tracing } from "../../src/middleware/tracing.ts";
import { generated, stop, textParts, usage } from "../adapters/ai-sdk-fixtures.ts";
import { z } from "zod";
import { histogramPoints, meterHarness } from "./otel.ts";

const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => void context.setGlobalContextManager(contextManager.enable()));
afterAll(() => void context.disable());

/** What each span was when it started: its name, kind and attributes (what a sampler sees). */
interface Started {
  readonly name: string;
  readonly kind: SpanKind;
  readonly attributes: Record<string, unknown>;
}

const harness = () => {
  const exporter = new InMemorySpanExporter();
  const started: Started[] = [];
  const atStart: SpanProcessor = {
    onStart: (span: Span, _ctx: Context) => void started.push({ name: span.name, kind: span.kind, attributes: { ...span.attributes } }),
    onEnd: () => undefined,
    forceFlush: async () => undefined,
    shutdown: async () => undefined,
  };
  const provider = new BasicTracerProvider({ spanProcessors: [atStart, new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer("test");
  const meters = meterHarness();
  const stack = withMiddleware(createAgentStack(), tracing({ tracer }), metrics({ meter: meters.meter })).use("modelCall", {
    name: "tag",
    before: async () => undefined,
  });
  return { tracer, stack, started, spans: (): ReadableSpan[] => exporter.getFinishedSpans(), collect: meters.collect };
};

const model = (provider: string) =>
  new MockLanguageModelV3({
    provider,
    modelId: "claude-sonnet-4-5",
    doGenerate: async () => generated("Hi") as never,
    doStream: async () => ({ stream: simulateReadableStream({ chunks: textParts(["H", "i"]) as never[] }) }),
  });

/** Spans a GenAI backend reads as GenAI operations: those with `gen_ai.*` attributes. */
const genAiSpans = (all: readonly ReadableSpan[]) => all.filter((s) => Object.keys(s.attributes).some((k) => k.startsWith("gen_ai.")));
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;

describe("aiSdkTracer with the AI SDK's telemetry and tracing() both on", () => {
  it("makes one GenAI span per model call: the SDK's, started as a CLIENT chat span with the provider from its id", async () => {
    const { tracer, stack, started, spans } = harness();
    const wrapped = wrapLanguageModel({ model: model("amazon-bedrock"), middleware: aiSdkMiddleware(stack, { run: { sessionId: "s1" } }) });
    const telemetry = { isEnabled: true, tracer: aiSdkTracer(tracer) };
    await generateText({ model: wrapped, prompt: "Hi", experimental_telemetry: telemetry });
    await streamText({ model: wrapped, prompt: "Hi", experimental_telemetry: telemetry }).consumeStream();
    await stack.flush();
    const all = spans();
    // What the AI SDK emits: a span per call and one around each provider call inside it.
    expect(all.filter((s) => typeof s.attributes["ai.operationId"] === "string").map((s) => s.attributes["ai.operationId"])).toEqual([
      "ai.generateText.doGenerate",
      "ai.generateText",
      "ai.streamText.doStream",
      "ai.streamText",
    ]);
    const calls = genAiSpans(all);
    expect(calls.map((s) => [s.name, s.kind, s.attributes["ai.operationId"]])).toEqual([
      ["chat claude-sonnet-4-5", SpanKind.CLIENT, "ai.generateText.doGenerate"],
      ["chat claude-sonnet-4-5", SpanKind.CLIENT, "ai.streamText.doStream"],
    ]);
    for (const call of calls) {
      expect(call.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "aws.bedrock",
        "gen_ai.request.model": "claude-sonnet-4-5",
        "gen_ai.conversation.id": "s1",
        "gen_ai.response.id": "resp-1",
        "agent_onion.outcome": "completed",
      });
      expect(all.filter((s) => parentOf(s) === idOf(call)).map((s) => s.name)).toEqual(["hook tag"]);
    }
    expect(calls.map((s) => s.attributes["gen_ai.request.stream"])).toEqual([false, true]);
    // The sampling-relevant attributes were there when the span started, not written on later.
    const atStart = started.filter((s) => s.name.startsWith("chat "));
    expect(atStart).toHaveLength(2);
    for (const s of atStart)
      expect(s).toMatchObject({
        kind: SpanKind.CLIENT,
        attributes: { "gen_ai.operation.name": "chat", "gen_ai.provider.name": "aws.bedrock", "gen_ai.request.model": "claude-sonnet-4-5" },
      });
  });

  it("makes one GenAI span per tool call too: agent-onion's INTERNAL execute_tool span, inside the SDK's ai.toolCall", async () => {
    const { tracer, stack, spans } = harness();
    let calls = 0;
    const inner = new MockLanguageModelV3({
      provider: "anthropic.messages",
      modelId: "claude-sonnet-4-5",
      doGenerate: async () =>
        (++calls === 1
          ? {
              content: [{ type: "tool-call", toolCallId: "call-1", toolName: "bash", input: JSON.stringify({ command: "ls" }) }],
              finishReason: { unified: "tool-calls", raw: "tool_use" },
              usage: usage(10, 5),
              warnings: [],
            }
          : { content: [{ type: "text", text: "Done." }], finishReason: stop, usage: usage(12, 2), warnings: [] }) as never,
    });
    const tools = wrapAiSdkTools(stack, {
      bash: tool({ inputSchema: z.object({ command: z.string() }), execute: async ({ command }) => `ran ${command}` }),
    });
    await generateText({
      model: wrapLanguageModel({ model: inner, middleware: aiSdkMiddleware(stack) }),
      tools,
      prompt: "list",
      stopWhen: stepCountIs(3),
      experimental_telemetry: { isEnabled: true, tracer: aiSdkTracer(tracer) },
    });
    await stack.flush();
    const all = spans();
    const operations = genAiSpans(all).map((s) => [s.name, s.kind, s.attributes["gen_ai.operation.name"]]);
    expect(operations).toEqual([
      ["chat claude-sonnet-4-5", SpanKind.CLIENT, "chat"],
      ["execute_tool bash", SpanKind.INTERNAL, "execute_tool"],
      ["chat claude-sonnet-4-5", SpanKind.CLIENT, "chat"],
    ]);
    const execute = all.find((s) => s.name === "execute_tool bash")!;
    expect(execute.attributes).toMatchObject({ "gen_ai.tool.call.id": "call-1", "gen_ai.tool.type": "function" });
    expect(all.find((s) => idOf(s) === parentOf(execute))?.name).toBe("ai.toolCall");
  });

  it("records the model call's metrics once, with the provider from the SDK's id", async () => {
    const { tracer, stack, collect } = harness();
    const wrapped = wrapLanguageModel({ model: model("google.vertex.chat"), middleware: aiSdkMiddleware(stack) });
    await generateText({ model: wrapped, prompt: "Hi", experimental_telemetry: { isEnabled: true, tracer: aiSdkTracer(tracer) } });
    await stack.flush();
    const durations = histogramPoints((await collect()).get("gen_ai.client.operation.duration"));
    expect(durations.map((p) => [p.count, p.attributes["gen_ai.provider.name"]])).toEqual([[1, "gcp.vertex_ai"]]);
  });

  it("starts the SDK's other spans as it asks, and refuses a tracer that cannot start spans", async () => {
    const { tracer, started } = harness();
    await generateText({
      model: model("openai.chat"),
      prompt: "Hi",
      experimental_telemetry: { isEnabled: true, tracer: aiSdkTracer(tracer) },
    });
    expect(started.find((s) => s.attributes["ai.operationId"] === "ai.generateText")).toMatchObject({
      name: "ai.generateText",
      kind: SpanKind.INTERNAL,
    });
    expect(started.find((s) => s.name === "chat claude-sonnet-4-5")?.attributes["gen_ai.provider.name"]).toBe("openai");
    expect(() => aiSdkTracer({} as never)).toThrow(/aiSdkTracer: tracer must be an OpenTelemetry Tracer/);
  });
});
