import { describe, expect, it } from "vitest";
import * as semconv from "@opentelemetry/semantic-conventions/incubating";
import { ATTR_ERROR_TYPE, ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT } from "@opentelemetry/semantic-conventions";
import { Reject, Transform } from "../../src/core/index.ts";
import {
  createAgent,
  createAgentStack,
  createScriptedModel,
  streamThroughStack,
  type ModelRequest,
  type StreamPart,
} from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { metrics } from "../../src/middleware/metrics.ts";
import { durationBuckets, GenAiAttr, GenAiMetric, GenAiProvider, tokenBuckets } from "../../src/middleware/semconv.ts";
import { bashTool } from "../agent/helpers.ts";
import { counterPoints, histogramPoints, meterHarness } from "./otel.ts";

const request: ModelRequest = { model: "claude-sonnet-4-5", messages: [{ role: "user", content: "hi" }] };
const response = {
  text: "hello",
  toolCalls: [],
  finishReason: "stop" as const,
  usage: { inputTokens: 12, outputTokens: 5 },
  model: "claude-sonnet-4-5-20250929",
};

describe("metrics: the copied conventions", () => {
  it("match @opentelemetry/semantic-conventions", () => {
    expect(GenAiMetric.operationDuration).toBe(semconv.METRIC_GEN_AI_CLIENT_OPERATION_DURATION);
    expect(GenAiMetric.tokenUsage).toBe(semconv.METRIC_GEN_AI_CLIENT_TOKEN_USAGE);
    expect(GenAiMetric.timeToFirstChunk).toBe(semconv.METRIC_GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK);
    expect(GenAiAttr.operationName).toBe(semconv.ATTR_GEN_AI_OPERATION_NAME);
    expect(GenAiAttr.providerName).toBe(semconv.ATTR_GEN_AI_PROVIDER_NAME);
    expect(GenAiAttr.system).toBe(semconv.ATTR_GEN_AI_SYSTEM);
    expect(GenAiAttr.requestModel).toBe(semconv.ATTR_GEN_AI_REQUEST_MODEL);
    expect(GenAiAttr.responseModel).toBe(semconv.ATTR_GEN_AI_RESPONSE_MODEL);
    expect(GenAiAttr.tokenType).toBe(semconv.ATTR_GEN_AI_TOKEN_TYPE);
    expect(GenAiAttr.toolName).toBe(semconv.ATTR_GEN_AI_TOOL_NAME);
    expect(GenAiAttr.toolCallId).toBe(semconv.ATTR_GEN_AI_TOOL_CALL_ID);
    expect(GenAiAttr.toolType).toBe(semconv.ATTR_GEN_AI_TOOL_TYPE);
    expect(GenAiAttr.agentName).toBe(semconv.ATTR_GEN_AI_AGENT_NAME);
    expect(GenAiAttr.conversationId).toBe(semconv.ATTR_GEN_AI_CONVERSATION_ID);
    expect(GenAiAttr.requestStream).toBe(semconv.ATTR_GEN_AI_REQUEST_STREAM);
    expect(GenAiAttr.requestMaxTokens).toBe(semconv.ATTR_GEN_AI_REQUEST_MAX_TOKENS);
    expect(GenAiAttr.requestTemperature).toBe(semconv.ATTR_GEN_AI_REQUEST_TEMPERATURE);
    expect(GenAiAttr.inputTokens).toBe(semconv.ATTR_GEN_AI_USAGE_INPUT_TOKENS);
    expect(GenAiAttr.outputTokens).toBe(semconv.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS);
    expect(GenAiAttr.finishReasons).toBe(semconv.ATTR_GEN_AI_RESPONSE_FINISH_REASONS);
    expect(GenAiAttr.errorType).toBe(ATTR_ERROR_TYPE);
    expect(GenAiMetric.timePerOutputChunk).toBe(semconv.METRIC_GEN_AI_CLIENT_OPERATION_TIME_PER_OUTPUT_CHUNK);
    expect(GenAiAttr.responseId).toBe(semconv.ATTR_GEN_AI_RESPONSE_ID);
    expect(GenAiAttr.responseTimeToFirstChunk).toBe(semconv.ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK);
    expect(GenAiAttr.serverAddress).toBe(ATTR_SERVER_ADDRESS);
    expect(GenAiAttr.serverPort).toBe(ATTR_SERVER_PORT);
    expect([
      semconv.GEN_AI_OPERATION_NAME_VALUE_CHAT,
      semconv.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
      semconv.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
    ]).toEqual(["chat", "execute_tool", "invoke_agent"]);
    expect([semconv.GEN_AI_TOKEN_TYPE_VALUE_INPUT, semconv.GEN_AI_TOKEN_TYPE_VALUE_OUTPUT]).toEqual(["input", "output"]);
  });

  it("name every well-known provider as the package does (moonshot_ai is newer than the package)", () => {
    const known = Object.entries(semconv)
      .filter(([k]) => k.startsWith("GEN_AI_PROVIDER_NAME_VALUE_"))
      .map(([, v]) => v)
      .sort();
    expect(
      Object.values(GenAiProvider)
        .filter((v) => v !== "moonshot_ai")
        .sort(),
    ).toEqual(known);
  });
});

describe("metrics, read back through the OpenTelemetry SDK", () => {
  it("records gen_ai.client.operation.duration in seconds with the convention's buckets and required attributes", async () => {
    const { meter, collect } = meterHarness();
    const stack = withMiddleware(createAgentStack(), metrics({ meter }));
    await stack.run("modelCall", request, async () => (await new Promise((r) => setTimeout(r, 30)), response));
    await stack.flush();
    const m = (await collect()).get("gen_ai.client.operation.duration");
    expect(m?.descriptor).toMatchObject({ unit: "s", type: "HISTOGRAM" });
    const [point, ...rest] = histogramPoints(m);
    expect(rest).toEqual([]);
    expect(point?.buckets.boundaries).toEqual(durationBuckets);
    expect(point?.attributes).toEqual({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "anthropic",
      "gen_ai.request.model": "claude-sonnet-4-5",
      "gen_ai.response.model": "claude-sonnet-4-5-20250929",
      "agent_onion.outcome": "completed",
    });
    expect(point?.count).toBe(1);
    expect(point?.sum).toBeGreaterThanOrEqual(0.025);
    expect(point?.sum).toBeLessThan(5);
  });

  it("records gen_ai.client.token.usage in {token} with its buckets, one point per token type", async () => {
    const { meter, collect } = meterHarness();
    const stack = withMiddleware(createAgentStack(), metrics({ meter, provider: "aws.bedrock", legacySystemAttribute: true }));
    await stack.run("modelCall", request, () => response);
    await stack.flush();
    const m = (await collect()).get("gen_ai.client.token.usage");
    expect(m?.descriptor.unit).toBe("{token}");
    const points = histogramPoints(m);
    expect(points.map((p) => [p.attributes["gen_ai.token.type"], p.sum])).toEqual([
      ["input", 12],
      ["output", 5],
    ]);
    expect(points[0]?.buckets.boundaries).toEqual(tokenBuckets);
    expect(points[0]?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "aws.bedrock",
      "gen_ai.system": "aws.bedrock",
      "gen_ai.request.model": "claude-sonnet-4-5",
    });
  });

  it("reports no token usage when the usage is an estimate, and error.type when the call failed", async () => {
    const { meter, collect } = meterHarness();
    const stack = withMiddleware(createAgentStack(), metrics({ meter }));
    await stack.run("modelCall", request, () => ({ ...response, usageEstimated: true }));
    await stack.run("modelCall", request, () => Promise.reject(new TypeError("bad gateway")));
    await stack.flush();
    const collected = await collect();
    expect(collected.get("gen_ai.client.token.usage")).toBeUndefined();
    const failed = histogramPoints(collected.get("gen_ai.client.operation.duration")).find((p) => p.attributes["error.type"] !== undefined);
    expect(failed?.attributes).toMatchObject({
      "error.type": "TypeError",
      "agent_onion.outcome": "failed",
      "gen_ai.provider.name": "anthropic",
    });
  });

  it("reports the token usage a provider reported for a stream that then failed", async () => {
    const { meter, collect } = meterHarness();
    const stack = withMiddleware(createAgentStack(), metrics({ meter }));
    const provider = async function* (): AsyncGenerator<StreamPart> {
      yield { type: "text-delta", text: "partial answer" };
      yield { type: "finish", finishReason: "stop", usage: { inputTokens: 20, outputTokens: 7 } };
      throw new Error("connection reset");
    };
    const call = streamThroughStack(stack, request, provider);
    for await (const _ of call.parts);
    expect((await call.done).outcome).toMatchObject({ _tag: "Failed", error: { name: "ModelStreamError" } });
    await stack.flush();
    const points = histogramPoints((await collect()).get("gen_ai.client.token.usage"));
    expect(points.map((p) => [p.attributes["gen_ai.token.type"], p.sum])).toEqual([
      ["input", 20],
      ["output", 7],
    ]);
    expect(points[0]?.attributes).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.request.model": "claude-sonnet-4-5" });
  });

  it("records the time to the first chunk of a stream", async () => {
    const { meter, collect } = meterHarness();
    const model = createScriptedModel({ turns: ["hello there"], firstChunkDelayMs: 20 });
    const stack = withMiddleware(createAgentStack(), metrics({ meter }));
    await createAgent({ model, stream: true, stack }).run("hi");
    await stack.flush();
    const m = (await collect()).get("gen_ai.client.operation.time_to_first_chunk");
    expect(m?.descriptor.unit).toBe("s");
    expect(histogramPoints(m)[0]?.sum).toBeGreaterThanOrEqual(0.015);
  });

  it("records tool and agent durations with tool and agent names, never tool arguments", async () => {
    const { meter, collect } = meterHarness();
    const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "Bash", input: { command: "cat /etc/secret-file" } }] }, "Done."] });
    const stack = withMiddleware(createAgentStack(), metrics({ meter }));
    await createAgent({ model, stack, tools: [bashTool()], name: "coder" }).run("go");
    await stack.flush();
    const collected = await collect();
    expect(collected.get("gen_ai.execute_tool.duration")?.descriptor.unit).toBe("s");
    expect(histogramPoints(collected.get("gen_ai.execute_tool.duration")).map((p) => p.attributes)).toEqual([
      {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "Bash",
        "gen_ai.tool.type": "function",
        "gen_ai.agent.name": "coder",
        "agent_onion.outcome": "completed",
      },
    ]);
    expect(histogramPoints(collected.get("gen_ai.invoke_agent.duration")).map((p) => p.attributes)).toEqual([
      { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "coder", "agent_onion.outcome": "completed" },
    ]);
    expect(histogramPoints(collected.get("gen_ai.client.operation.duration"))[0]?.count).toBe(2);
    const everything = JSON.stringify([...collected.values()].map((m) => m.dataPoints.map((p) => p.attributes)));
    expect(everything).not.toContain("secret-file");
  });

  it("records hook overhead per hook and point, and counts rejections, shadow rejections, failures and fail-open failures", async () => {
    const { meter, collect } = meterHarness();
    const stack = withMiddleware(createAgentStack(), metrics({ meter }))
      .use("toolCall", { name: "shadow-no", shadow: true, before: () => Reject("would block") })
      .use("toolCall", {
        name: "flaky",
        failMode: "open",
        before: () => {
          throw new Error("crash");
        },
      })
      .use("toolCall", { name: "tag", before: (c) => Transform(c) })
      .use("toolCall", { name: "no-rm", match: "Bash(rm *)", before: () => Reject("no") });
    const call = (command: string) => ({ id: "1", name: "Bash", input: { command } });
    await stack.run("toolCall", call("ls"), () => ({ content: "" }));
    await stack.run("toolCall", call("rm x"), () => ({ content: "" }));
    await stack.flush();
    const collected = await collect();
    const hook = collected.get("agent_onion.hook.duration");
    expect(hook?.descriptor.unit).toBe("s");
    const byHook = Object.fromEntries(
      histogramPoints(hook).map((p) => [`${p.attributes["hook.name"]}/${p.attributes["hook.outcome"]}`, p.count]),
    );
    expect(byHook).toEqual({ "shadow-no/deny": 2, "flaky/error": 2, "tag/transform": 2, "no-rm/deny": 1 });
    expect(histogramPoints(hook).every((p) => p.attributes["hook.point"] === "toolCall" && p.attributes["hook.phase"] === "before")).toBe(
      true,
    );
    expect(counterPoints(collected.get("agent_onion.hook.rejections"))).toEqual([
      { attributes: { "hook.name": "shadow-no", "hook.point": "toolCall", "hook.shadow": true }, value: 2 },
      { attributes: { "hook.name": "no-rm", "hook.point": "toolCall" }, value: 1 },
    ]);
    expect(counterPoints(collected.get("agent_onion.hook.fail_open"))).toEqual([
      { attributes: { "hook.name": "flaky", "hook.point": "toolCall", "error.type": "threw" }, value: 2 },
    ]);
    expect(counterPoints(collected.get("agent_onion.hook.failures"))).toEqual([
      { attributes: { "hook.name": "flaky", "hook.point": "toolCall", "hook.failure_mode": "open", "error.type": "threw" }, value: 2 },
    ]);
  });

  it("records hook durations that were measured, not the untimed synchronous Continue of every hook", async () => {
    const { meter, collect } = meterHarness();
    let stack = withMiddleware(createAgentStack(), metrics({ meter }));
    for (let i = 0; i < 20; i++) stack = stack.use("toolCall", { name: `pass-${i}`, before: () => undefined, after: () => undefined });
    stack = stack.use("toolCall", { name: "slow", before: async () => void (await new Promise((r) => setTimeout(r, 2))) });
    await stack.run("toolCall", { id: "1", name: "Read", input: {} }, () => ({ content: "" }));
    await stack.flush();
    const points = histogramPoints((await collect()).get("agent_onion.hook.duration"));
    expect(points.map((p) => [p.attributes["hook.name"], p.attributes["hook.outcome"], p.count])).toEqual([["slow", "allow", 1]]);
    expect(points[0]!.sum).toBeGreaterThan(0.001);
  });

  it("counts a rejection an around hook made by returning a Rejected outcome", async () => {
    const { meter, collect } = meterHarness();
    const stack = withMiddleware(createAgentStack(), metrics({ meter })).use("toolCall", {
      name: "gatekeeper",
      around: () => Reject("closed"),
    });
    await stack.run("toolCall", { id: "1", name: "Bash", input: {} }, () => ({ content: "" }));
    await stack.flush();
    expect(counterPoints((await collect()).get("agent_onion.hook.rejections")).map((p) => p.value)).toEqual([1]);
  });

  it("scrubs hook names, which may carry a credential, to a placeholder that keeps their cardinality low", async () => {
    const { meter, collect } = meterHarness();
    const stack = withMiddleware(createAgentStack(), metrics({ meter }))
      .use("toolCall", { name: "notify:sk_live_4eC39HqLyjWDarjtT1zdp7dc", match: "Bash", before: () => Reject("no") })
      .use("toolCall", { name: "gate:sk_live_9fZ21KqLyjWDarjtT1zdp7dc", match: "Read", around: () => Reject("closed") });
    await stack.run("toolCall", { id: "1", name: "Bash", input: {} }, () => ({ content: "" }));
    await stack.run("toolCall", { id: "2", name: "Read", input: {} }, () => ({ content: "" }));
    await stack.flush();
    const collected = await collect();
    const everything = JSON.stringify([...collected.values()].map((m) => m.dataPoints.map((p) => p.attributes)));
    expect(everything).not.toContain("sk_live_");
    expect(counterPoints(collected.get("agent_onion.hook.rejections")).map((p) => p.attributes["hook.name"])).toEqual([
      "notify:[REDACTED:api_key]",
      "gate:[REDACTED:api_key]",
    ]);
  });

  it("caps distinct tool names: past the limit they read _OTHER", async () => {
    const { meter, collect } = meterHarness();
    const stack = withMiddleware(createAgentStack(), metrics({ meter, maxValues: 2 }));
    for (const name of ["a", "b", "c", "d"]) await stack.run("toolCall", { id: "1", name, input: {} }, () => ({ content: "" }));
    await stack.flush();
    const names = histogramPoints((await collect()).get("gen_ai.execute_tool.duration")).map((p) => [
      p.attributes["gen_ai.tool.name"],
      p.count,
    ]);
    expect(names).toEqual([
      ["a", 1],
      ["b", 1],
      ["_OTHER", 2],
    ]);
  });

  it("writes a call's endpoint as server.address and server.port, capping distinct addresses like names", async () => {
    const { meter, collect } = meterHarness();
    const stack = withMiddleware(createAgentStack(), metrics({ meter, maxValues: 1 }));
    const answer = () => ({ text: "", toolCalls: [], finishReason: "stop" as const, usage: { inputTokens: 1, outputTokens: 1 } });
    for (const address of ["a.example", "b.example"])
      await stack.run("modelCall", { model: "gpt-4o", messages: [], server: { address, port: 8443 } }, answer);
    await stack.run("modelCall", { model: "gpt-4o", messages: [] }, answer);
    await stack.flush();
    const points = histogramPoints((await collect()).get("gen_ai.client.operation.duration")).map((p) => [
      p.attributes["server.address"],
      p.attributes["server.port"],
    ]);
    // Past the cap the address reads _OTHER, and its port goes with it (the port is required only with an address).
    expect(points).toEqual([
      ["a.example", 8443],
      ["_OTHER", undefined],
      [undefined, undefined],
    ]);
  });

  it("uses the global meter provider registered after the middleware was made", async () => {
    const { metrics: api } = await import("@opentelemetry/api");
    const m = metrics();
    const { provider, collect } = meterHarness();
    api.setGlobalMeterProvider(provider);
    try {
      const stack = withMiddleware(createAgentStack(), m);
      await stack.run("modelCall", request, () => response);
      await stack.flush();
      expect((await collect()).has("gen_ai.client.operation.duration")).toBe(true);
    } finally {
      api.disable();
    }
  });

  it("checks its options", () => {
    expect(() => metrics({ maxValues: 0 })).toThrow(/maxValues/);
    expect(() => metrics({ points: ["nope"] })).toThrow(/not an agent point/);
  });

  it("refuses points that are not a list of agent point names when it is made, naming the hook and the field", () => {
    expect(() => metrics({ points: "toolCall" as never })).toThrow(
      new TypeError('metrics: points must be a list of agent point names, got "toolCall"'),
    );
    expect(() => metrics({ points: "" as never })).toThrow(new TypeError('metrics: points must be a list of agent point names, got ""'));
    expect(() => metrics({ name: "m2", points: ["toolCall", 7] as never })).toThrow(/^m2: 7 is not an agent point \(known: sessionStart, /);
  });

  it("refuses a provider or a meter it could not use when it is made, naming the hook and the field", () => {
    expect(() => metrics({ provider: 5 as never })).toThrow(
      new TypeError("metrics: provider must be a provider name or a function of the model id, got 5"),
    );
    expect(() => metrics({ provider: " " })).toThrow(/metrics: provider must be/);
    expect(() => metrics({ name: "m2", meter: {} as never })).toThrow(
      new TypeError("m2: meter must be an OpenTelemetry Meter (with createHistogram and createCounter), got [object Object]"),
    );
    expect(() => metrics({ meter: meterHarness().meter, provider: (model) => model.split("/")[0] })).not.toThrow();
  });
});
