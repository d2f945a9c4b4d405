/**
 * Telemetry checked item by item against the OpenTelemetry GenAI conventions (see semconv.ts for
 * the version): span names, kinds, attributes, parentage, metric names, units and buckets, read
 * back through the real OpenTelemetry SDK with in-memory exporters, for an agent run, a refused
 * tool call, a failed and a streamed model call, and the AI SDK with each provider id, its own
 * telemetry on or off.
 */
import { context, SpanKind, SpanStatusCode, type Tracer } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { generateText, simulateReadableStream, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aiSdkMiddleware } from "../../src/adapters/ai-sdk.ts";
import { createAgent, createAgentStack, createScriptedModel } from "../../src/agent/index.ts";
import { Reject } from "../../src/core/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { metrics } from "../../src/middleware/metrics.ts";
import { providerOf, providerOfSdk } from "../../src/middleware/telemetry-attrs.ts";
import { tracing, type TracingOptions } from "../../src/middleware/tracing.ts";
import { bashTool } from "../agent/helpers.ts";
import { generated, textParts } from "../adapters/ai-sdk-fixtures.ts";
import { histogramPoints, meterHarness, tracerHarness } from "./otel.ts";

// The convention's bucket boundaries, written out here rather than imported, so a wrong constant fails.
const chatBuckets = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const agentBuckets = [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 51.2, 102.4, 204.8, 409.6];
const tokenBuckets = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];

const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => void context.setGlobalContextManager(contextManager.enable()));
afterAll(() => {
  context.disable();
});

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;

/** A tracer whose spans count their `end()` calls, to check that each is ended exactly once. */
const countingTracer = (tracer: Tracer) => {
  const ends = new Map<string, number>();
  const counted: Tracer = {
    startSpan: (name, options, ctx) => {
      const span = tracer.startSpan(name, options, ctx);
      const end = span.end.bind(span);
      span.end = (time) => {
        const id = span.spanContext().spanId;
        ends.set(id, (ends.get(id) ?? 0) + 1);
        end(time);
      };
      return span;
    },
    startActiveSpan: tracer.startActiveSpan.bind(tracer) as Tracer["startActiveSpan"],
  };
  return { tracer: counted, ends };
};

const setup = (options: TracingOptions = {}) => {
  const traces = tracerHarness();
  const counting = countingTracer(traces.tracer);
  const meters = meterHarness();
  const middleware = [tracing({ tracer: counting.tracer, ...options }), metrics({ meter: meters.meter })];
  return { ...traces, ends: counting.ends, collect: meters.collect, middleware };
};

const agentModel = () =>
  createScriptedModel({
    id: "gpt-4o",
    turns: [
      { toolCalls: [{ name: "Bash", input: { command: "ls" }, id: "c1" }], usage: { inputTokens: 12, outputTokens: 3 } },
      { text: "Done.", usage: { inputTokens: 20, outputTokens: 2 } },
    ],
  });

describe("an agent run, against the GenAI conventions", () => {
  it("is one trace under one invoke_agent span, with chat and execute_tool spans nested by step", async () => {
    const { spans, ends, middleware } = setup();
    const stack = withMiddleware(createAgentStack(), middleware);
    await createAgent({ model: agentModel(), stack, tools: [bashTool()], name: "coder" }).run("go", { sessionId: "s1" });
    await stack.flush();
    const all = spans();
    const named = (n: string) => all.filter((s) => s.name === n);

    expect(new Set(all.map((s) => s.spanContext().traceId)).size).toBe(1);
    const roots = all.filter((s) => parentOf(s) === undefined);
    expect(roots.map((s) => s.name)).toEqual(["invoke_agent coder"]);
    const agent = roots[0]!;
    expect(agent.kind).toBe(SpanKind.INTERNAL);
    expect(agent.attributes).toEqual({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "coder",
      "gen_ai.conversation.id": "s1",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o",
      "gen_ai.response.finish_reasons": ["stop"],
      "agent_onion.outcome": "completed",
    });
    expect(agent.status.code).toBe(SpanStatusCode.UNSET);
    // Everything of agent.run() is under it: the session's opening and closing too.
    for (const n of ["sessionStart", "userPrompt", "sessionEnd", "step"]) for (const s of named(n)) expect(parentOf(s)).toBe(idOf(agent));
    const steps = named("step");
    expect(steps).toHaveLength(2);

    const chats = named("chat gpt-4o");
    expect(chats).toHaveLength(2);
    chats.forEach((chat, i) => {
      expect(chat.kind).toBe(SpanKind.CLIENT);
      expect(parentOf(chat)).toBe(idOf(steps[i]!));
      expect(chat.attributes).toEqual({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.request.stream": false,
        "gen_ai.conversation.id": "s1",
        "gen_ai.response.model": "gpt-4o",
        "gen_ai.response.finish_reasons": [i === 0 ? "tool-calls" : "stop"],
        "gen_ai.usage.input_tokens": i === 0 ? 12 : 20,
        "gen_ai.usage.output_tokens": i === 0 ? 3 : 2,
        "agent_onion.point": "modelCall",
        "agent_onion.subject": "gpt-4o",
        "agent_onion.outcome": "completed",
      });
    });
    const [tool] = named("execute_tool Bash");
    expect(tool!.kind).toBe(SpanKind.INTERNAL);
    expect(parentOf(tool!)).toBe(idOf(steps[0]!));
    expect(tool!.attributes).toEqual({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "Bash",
      "gen_ai.tool.call.id": "c1",
      "gen_ai.tool.type": "function",
      "agent_onion.point": "toolCall",
      "agent_onion.subject": "Bash",
      "agent_onion.outcome": "completed",
    });
    // Every span this tracing made was ended exactly once.
    expect([...ends.values()].every((n) => n === 1)).toBe(true);
    expect(new Set(all.map(idOf)).size).toBe(all.length);
  });

  it("records the convention's metrics with their names, units, buckets and attributes", async () => {
    const { collect, middleware } = setup();
    const stack = withMiddleware(createAgentStack(), middleware);
    await createAgent({ model: agentModel(), stack, tools: [bashTool()], name: "coder" }).run("go", { sessionId: "s1" });
    await stack.flush();
    const collected = await collect();
    const histogram = (name: string) => {
      const metric = collected.get(name);
      return { unit: metric?.descriptor.unit, points: histogramPoints(metric) };
    };

    const agent = histogram("gen_ai.invoke_agent.duration");
    expect(agent.unit).toBe("s");
    expect(agent.points.map((p) => p.buckets.boundaries)).toEqual([agentBuckets]);
    expect(agent.points.map((p) => p.attributes)).toEqual([
      { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "coder", "agent_onion.outcome": "completed" },
    ]);

    const tool = histogram("gen_ai.execute_tool.duration");
    expect(tool.unit).toBe("s");
    expect(tool.points.map((p) => p.buckets.boundaries)).toEqual([chatBuckets]);
    expect(tool.points.map((p) => p.attributes)).toEqual([
      {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "Bash",
        "gen_ai.tool.type": "function",
        "gen_ai.agent.name": "coder",
        "agent_onion.outcome": "completed",
      },
    ]);

    const chat = histogram("gen_ai.client.operation.duration");
    expect(chat.unit).toBe("s");
    expect(chat.points.map((p) => [p.buckets.boundaries, p.count])).toEqual([[chatBuckets, 2]]);
    expect(chat.points[0]!.attributes).toEqual({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o",
      "gen_ai.response.model": "gpt-4o",
      "agent_onion.outcome": "completed",
    });

    const tokens = histogram("gen_ai.client.token.usage");
    expect(tokens.unit).toBe("{token}");
    expect(tokens.points.map((p) => [p.attributes["gen_ai.token.type"], p.sum, p.buckets.boundaries])).toEqual([
      ["input", 32, tokenBuckets],
      ["output", 5, tokenBuckets],
    ]);
    for (const p of tokens.points)
      expect(p.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o",
      });
    // Not a streamed call: no time to first chunk.
    expect(histogram("gen_ai.client.operation.time_to_first_chunk").points).toEqual([]);
  });

  it("marks a refused tool call with error.type on its span and its duration, and a refusing stop gate with none", async () => {
    const { spans, collect, middleware } = setup();
    const stack = withMiddleware(createAgentStack(), middleware)
      .use("toolCall", { name: "no-bash", before: () => Reject("not here") })
      .use("stop", { name: "once-more", before: () => (stops++ === 0 ? Reject("check again") : undefined) });
    let stops = 0;
    const model = createScriptedModel({
      id: "gpt-4o",
      turns: [{ toolCalls: [{ name: "Bash", input: { command: "ls" }, id: "c1" }] }],
      whenDone: "Done.",
    });
    await createAgent({ model, stack, tools: [bashTool()], name: "coder" }).run("go");
    await stack.flush();
    const tool = spans().find((s) => s.name === "execute_tool Bash")!;
    expect(tool.attributes).toMatchObject({
      "error.type": "OutcomeRejectedError",
      "agent_onion.outcome": "rejected",
      "agent_onion.rejected_by": "no-bash",
      "agent_onion.reason": "not here",
    });
    expect(tool.status).toEqual({ code: SpanStatusCode.ERROR, message: "not here" });
    const collected = await collect();
    expect(histogramPoints(collected.get("gen_ai.execute_tool.duration")).map((p) => p.attributes)).toEqual([
      {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "Bash",
        "gen_ai.tool.type": "function",
        "gen_ai.agent.name": "coder",
        "agent_onion.outcome": "rejected",
        "error.type": "OutcomeRejectedError",
      },
    ]);
    // A stop gate's Reject means "keep going": a decision, not an error.
    const stop = spans().find((s) => s.name === "stop" && s.attributes["agent_onion.outcome"] === "rejected")!;
    expect(stop.attributes["error.type"]).toBeUndefined();
    expect(stop.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("marks a failed model call with the error's class on the chat span, its duration and the agent span", async () => {
    const { spans, collect, middleware } = setup();
    const stack = withMiddleware(createAgentStack(), middleware);
    const model = createScriptedModel({ id: "claude-sonnet-4-5", turns: [{ error: new RangeError("overloaded") }] });
    const turn = await createAgent({ model, stack, name: "coder" }).run("go");
    expect(turn.status).toBe("failed");
    await stack.flush();
    const chat = spans().find((s) => s.name === "chat claude-sonnet-4-5")!;
    expect(chat.attributes).toMatchObject({
      "error.type": "RangeError",
      "agent_onion.outcome": "failed",
      "gen_ai.provider.name": "anthropic",
    });
    expect(chat.status).toEqual({ code: SpanStatusCode.ERROR, message: "overloaded" });
    const agent = spans().find((s) => s.name === "invoke_agent coder")!;
    expect(agent.status.code).toBe(SpanStatusCode.ERROR);
    expect(agent.attributes["error.type"]).toEqual(expect.any(String));
    expect(agent.attributes["gen_ai.provider.name"]).toBe("anthropic");
    const collected = await collect();
    expect(histogramPoints(collected.get("gen_ai.client.operation.duration")).map((p) => p.attributes)).toEqual([
      {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "anthropic",
        "gen_ai.request.model": "claude-sonnet-4-5",
        "agent_onion.outcome": "failed",
        "error.type": "RangeError",
      },
    ]);
    expect(collected.get("gen_ai.client.token.usage")?.dataPoints ?? []).toEqual([]);
  });

  it("marks a streamed model call with gen_ai.request.stream and records its time to first chunk", async () => {
    const { spans, collect, middleware } = setup();
    const stack = withMiddleware(createAgentStack(), middleware);
    const model = createScriptedModel({
      id: "gpt-4o",
      turns: [{ chunks: ["Hel", "lo"], usage: { inputTokens: 4, outputTokens: 2 } }],
      firstChunkDelayMs: 5,
    });
    await createAgent({ model, stack, name: "coder", stream: true }).run("go");
    await stack.flush();
    const chat = spans().find((s) => s.name === "chat gpt-4o")!;
    expect(chat.attributes).toMatchObject({
      "gen_ai.request.stream": true,
      "gen_ai.usage.input_tokens": 4,
      "gen_ai.usage.output_tokens": 2,
    });
    expect(chat.attributes["gen_ai.response.time_to_first_chunk"]).toBeGreaterThanOrEqual(0.004);
    expect(chat.attributes["gen_ai.response.time_to_first_chunk"]).toBeLessThan(10);
    const collected = await collect();
    const ttfc = histogramPoints(collected.get("gen_ai.client.operation.time_to_first_chunk"));
    expect(ttfc.map((p) => [p.count, p.buckets.boundaries])).toEqual([[1, chatBuckets]]);
    // One per chunk after the first: the second text chunk and the finish.
    const perChunk = collected.get("gen_ai.client.operation.time_per_output_chunk")!;
    expect(perChunk.descriptor.unit).toBe("s");
    expect(histogramPoints(perChunk).map((p) => [p.count, p.buckets.boundaries])).toEqual([[2, chatBuckets]]);
    expect(histogramPoints(perChunk)[0]!.attributes).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai" });
    expect(ttfc[0]!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o",
    });
  });

  it("nests a sub-agent's invoke_agent span under the tool call that started it, with its own name and provider", async () => {
    const { spans, middleware } = setup();
    const stack = withMiddleware(createAgentStack(), middleware);
    const parent = createScriptedModel({
      id: "gpt-4o",
      turns: [{ toolCalls: [{ name: "helper", input: { prompt: "look it up" } }] }, "Done."],
    });
    const child = createScriptedModel({ id: "claude-haiku-4-5", turns: ["found it"] });
    await createAgent({ model: parent, stack, name: "coder", subagents: [{ name: "helper", model: child }] }).run("hello");
    await stack.flush();
    const all = spans();
    const root = all.find((s) => s.name === "invoke_agent coder")!;
    const sub = all.find((s) => s.name === "invoke_agent helper")!;
    expect(parentOf(root)).toBeUndefined();
    expect(sub.attributes).toMatchObject({ "gen_ai.agent.name": "helper", "gen_ai.provider.name": "anthropic" });
    expect(root.attributes["gen_ai.provider.name"]).toBe("openai");
    // Up from the sub-agent's span: the tool call, its step, the root.
    const byId = new Map(all.map((s) => [idOf(s), s]));
    const chain: string[] = [];
    for (let at = byId.get(parentOf(sub)!); at !== undefined; at = parentOf(at) === undefined ? undefined : byId.get(parentOf(at)!))
      chain.push(at.name);
    expect(chain.at(-1)).toBe("invoke_agent coder");
    expect(chain).toContain("execute_tool helper");
  });

  it("gives each turn of an open session its own invoke_agent span, with the session's id as the conversation", async () => {
    const { spans, middleware } = setup();
    const stack = withMiddleware(createAgentStack(), middleware);
    const agent = createAgent({ model: createScriptedModel({ id: "gpt-4o", turns: ["one", "two"] }), stack, name: "coder" });
    const session = await agent.session({ sessionId: "s2" });
    await session.prompt("a");
    await session.prompt("b");
    await session.close();
    await stack.flush();
    const runs = spans().filter((s) => s.name === "invoke_agent coder");
    expect(runs).toHaveLength(2);
    for (const run of runs) {
      expect(parentOf(run)).toBeUndefined();
      expect(run.attributes).toMatchObject({ "gen_ai.conversation.id": "s2", "gen_ai.provider.name": "openai" });
      expect(spans().filter((s) => s.name === "chat gpt-4o" && s.spanContext().traceId === run.spanContext().traceId)).toHaveLength(1);
    }
  });
});

describe("a point's span ends exactly once, whatever happens inside", () => {
  const call = { id: "c1", name: "Bash", input: { command: "ls" } };

  const endsOnce = async (
    register: (stack: ReturnType<typeof createAgentStack>) => ReturnType<typeof createAgentStack>,
    operation: (signal: AbortSignal) => Promise<{ content: string }> | { content: string } = () => ({ content: "ok" }),
    abortAfterMs?: number,
  ) => {
    const { spans, ends, middleware } = setup();
    const stack = register(withMiddleware(createAgentStack(), middleware));
    const controller = new AbortController();
    if (abortAfterMs !== undefined) setTimeout(() => controller.abort(new Error("user cancelled")), abortAfterMs);
    const outcome = await stack.run("toolCall", call, (_c, ctx) => operation(ctx.signal), { signal: controller.signal });
    await stack.flush();
    const found = spans().filter((s) => s.name === "execute_tool Bash");
    expect(found).toHaveLength(1);
    expect(ends.get(idOf(found[0]!))).toBe(1);
    return { outcome, span: found[0]! };
  };

  it("when a hook inside rejects", async () => {
    const { span } = await endsOnce((s) => s.use("toolCall", { name: "inner", before: () => Reject("no") }));
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes["error.type"]).toBe("OutcomeRejectedError");
  });

  it("when a hook inside throws and fails closed", async () => {
    const { span, outcome } = await endsOnce((s) =>
      s.use("toolCall", {
        name: "inner",
        before: () => {
          throw new TypeError("bug");
        },
      }),
    );
    expect(outcome._tag).toBe("Rejected");
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes["error.type"]).toBe(outcome._tag === "Rejected" ? outcome.cause?.name : "?");
    expect(span.attributes["error.type"]).not.toBe("OutcomeRejectedError");
  });

  it("when a hook inside times out", async () => {
    const { span, outcome } = await endsOnce((s) =>
      s.use("toolCall", { name: "slow", timeoutMs: 20, before: () => new Promise<undefined>(() => {}) }),
    );
    expect(outcome._tag).toBe("Rejected");
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes["error.type"]).toBe(outcome._tag === "Rejected" ? outcome.cause?.name : "?");
    expect(span.attributes["hook.outcome"]).toBeUndefined();
  });

  it("when the caller aborts while the operation never settles", async () => {
    const { span, outcome } = await endsOnce(
      (s) => s,
      () => new Promise(() => {}),
      20,
    );
    expect(outcome._tag).toBe("Failed");
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes["error.type"]).toBe("RunAbortedError");
  });
});

/** The AI SDK's provider ids, as its providers set `LanguageModel.provider`, and the convention's names for them. */
const providers: readonly (readonly [string, string])[] = [
  ["amazon-bedrock", "aws.bedrock"],
  ["azure.chat", "azure.ai.openai"],
  ["google.vertex.chat", "gcp.vertex_ai"],
  ["google.generative-ai", "gcp.gemini"],
  ["openai.responses", "openai"],
  ["anthropic.messages", "anthropic"],
  ["mistral.chat", "mistral_ai"],
  ["ollama.chat", "ollama"],
];

describe("providerOfSdk", () => {
  it("maps every AI SDK provider id of the docs to the convention's well-known value, and others to their first segment", () => {
    const table: Record<string, string | undefined> = {
      "amazon-bedrock": "aws.bedrock",
      "azure.chat": "azure.ai.openai",
      "azure.responses": "azure.ai.openai",
      "google.vertex.chat": "gcp.vertex_ai",
      "vertex.anthropic.messages": "gcp.vertex_ai",
      "google.generative-ai": "gcp.gemini",
      "openai.chat": "openai",
      "openai.responses": "openai",
      "anthropic.messages": "anthropic",
      "mistral.chat": "mistral_ai",
      "cohere.chat": "cohere",
      "xai.chat": "x_ai",
      "deepseek.chat": "deepseek",
      "groq.chat": "groq",
      perplexity: "perplexity",
      "moonshotai.chat": "moonshot_ai",
      "ollama.chat": "ollama",
      "": undefined,
    };
    expect(Object.fromEntries(Object.keys(table).map((id) => [id, providerOfSdk(id)]))).toEqual(table);
    expect(providerOf("anthropic.claude-3-5-sonnet", undefined, "amazon-bedrock")).toBe("aws.bedrock");
    expect(providerOf("anthropic.claude-3-5-sonnet", "my-proxy", "amazon-bedrock")).toBe("my-proxy");
  });
});

describe("providerOfSdk with LangChain's ls_provider and the convention's own values", () => {
  it("maps LangChain's provider ids to the convention's well-known values, and keeps a well-known value as it is", () => {
    const table: Record<string, string> = {
      openai: "openai",
      azure: "azure.ai.openai",
      azure_openai: "azure.ai.openai",
      anthropic: "anthropic",
      amazon_bedrock: "aws.bedrock",
      google_vertexai: "gcp.vertex_ai",
      google_genai: "gcp.gemini",
      mistral: "mistral_ai",
      groq: "groq",
      xai: "x_ai",
      deepseek: "deepseek",
      ollama: "ollama",
      FakeBuiltModel: "fakebuiltmodel",
      bedrock: "aws.bedrock",
      bedrock_converse: "aws.bedrock",
      "google-vertexai": "gcp.vertex_ai",
      "google-vertexai-web": "gcp.vertex_ai",
      "google-genai": "gcp.gemini",
      mistralai: "mistral_ai",
      "aws.bedrock": "aws.bedrock",
      "gcp.vertex_ai": "gcp.vertex_ai",
      "azure.ai.inference": "azure.ai.inference",
      "ibm.watsonx.ai": "ibm.watsonx.ai",
    };
    expect(Object.fromEntries(Object.keys(table).map((id) => [id, providerOfSdk(id)]))).toEqual(table);
  });
});

describe("the AI SDK through aiSdkMiddleware", () => {
  const model = (provider: string) =>
    new MockLanguageModelV3({
      provider,
      modelId: "anthropic.claude-3-5-sonnet",
      doGenerate: async () => generated("Hi") as never,
      doStream: async () => ({ stream: simulateReadableStream({ chunks: textParts(["H", "i"]) as never[] }) }),
    });

  for (const [id, name] of providers)
    it(`reports a model of provider ${id} as gen_ai.provider.name ${name}, not a guess from its model id`, async () => {
      const { spans, collect, middleware } = setup();
      const stack = withMiddleware(createAgentStack(), middleware);
      const wrapped = wrapLanguageModel({ model: model(id), middleware: aiSdkMiddleware(stack, { run: { sessionId: "s3" } }) });
      await generateText({ model: wrapped, prompt: "Hi", maxOutputTokens: 50, temperature: 0.2 });
      const streamed = streamText({ model: wrapped, prompt: "Hi" });
      await streamed.consumeStream();
      await stack.flush();
      const chats = spans().filter((s) => s.name === "chat anthropic.claude-3-5-sonnet");
      expect(
        chats.map((s) => [
          s.kind,
          s.attributes["gen_ai.provider.name"],
          s.attributes["gen_ai.request.stream"],
          s.attributes["gen_ai.conversation.id"],
        ]),
      ).toEqual([
        [SpanKind.CLIENT, name, false, "s3"],
        [SpanKind.CLIENT, name, true, "s3"],
      ]);
      expect(chats[0]!.attributes).toMatchObject({ "gen_ai.request.max_tokens": 50, "gen_ai.request.temperature": 0.2 });
      expect(chats[1]!.attributes["gen_ai.request.max_tokens"]).toBeUndefined();
      const durations = histogramPoints((await collect()).get("gen_ai.client.operation.duration"));
      expect(new Set(durations.map((p) => p.attributes["gen_ai.provider.name"]))).toEqual(new Set([name]));
    });

  const sdkSpans = (all: readonly ReadableSpan[]) => all.filter((s) => typeof s.attributes["ai.operationId"] === "string");
  /** Spans a GenAI backend counts as model calls. */
  const modelCallSpans = (all: readonly ReadableSpan[]) =>
    all.filter(
      (s) => s.attributes["gen_ai.operation.name"] === "chat" || String(s.attributes["ai.operationId"]).match(/\.do(Generate|Stream)$/),
    );

  it("with both telemetry systems on, makes one span per model call: the SDK's, named and attributed per the convention", async () => {
    const { spans, tracer, middleware } = setup();
    const stack = withMiddleware(createAgentStack(), middleware).use("modelCall", { name: "tag", before: async () => undefined });
    const wrapped = wrapLanguageModel({ model: model("amazon-bedrock"), middleware: aiSdkMiddleware(stack) });
    await generateText({ model: wrapped, prompt: "Hi", experimental_telemetry: { isEnabled: true, tracer } });
    const streamed = streamText({ model: wrapped, prompt: "Hi", experimental_telemetry: { isEnabled: true, tracer } });
    await streamed.consumeStream();
    await stack.flush();
    const all = spans();
    const calls = modelCallSpans(all);
    expect(calls.map((s) => [s.name, s.attributes["ai.operationId"]])).toEqual([
      ["chat anthropic.claude-3-5-sonnet", "ai.generateText.doGenerate"],
      ["chat anthropic.claude-3-5-sonnet", "ai.streamText.doStream"],
    ]);
    for (const call of calls) {
      expect(call.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "aws.bedrock",
        "gen_ai.request.model": "anthropic.claude-3-5-sonnet",
        "agent_onion.outcome": "completed",
      });
      // Our hook spans hang under the SDK's span.
      expect(all.filter((s) => parentOf(s) === idOf(call)).map((s) => s.name)).toContain("hook tag");
    }
    expect(calls.map((s) => s.attributes["gen_ai.request.stream"])).toEqual([false, true]);
    expect(sdkSpans(all).length).toBe(4); // ai.generateText and its doGenerate, ai.streamText and its doStream
  });

  it('with aiSdkSpans: "separate", makes its own chat span under the SDK\'s', async () => {
    const { spans, tracer, middleware } = setup({ aiSdkSpans: "separate" });
    const stack = withMiddleware(createAgentStack(), middleware);
    const wrapped = wrapLanguageModel({ model: model("azure.chat"), middleware: aiSdkMiddleware(stack) });
    await generateText({ model: wrapped, prompt: "Hi", experimental_telemetry: { isEnabled: true, tracer } });
    await stack.flush();
    const all = spans();
    const sdk = all.find((s) => s.attributes["ai.operationId"] === "ai.generateText.doGenerate")!;
    const ours = all.find((s) => s.name === "chat anthropic.claude-3-5-sonnet")!;
    expect(ours.kind).toBe(SpanKind.CLIENT);
    expect(parentOf(ours)).toBe(idOf(sdk));
    expect(ours.attributes["gen_ai.provider.name"]).toBe("azure.ai.openai");
    expect(() => tracing({ aiSdkSpans: "both" as never })).toThrow(/aiSdkSpans/);
  });
});
