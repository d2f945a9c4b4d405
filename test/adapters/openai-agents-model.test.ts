import { Agent, run, setTracingDisabled, Usage, type ModelRequest as SdkRequest, type StreamEvent } from "@openai/agents";
import { assistantMessage, functionCall, modelError, modelResponse, modelStream, ScriptedModel } from "@openai/agents/testing";
import { describe, expect, it } from "vitest";
import { Continue, Replace, Transform } from "../../src/core/action.ts";
import { OutcomeRejectedError } from "../../src/core/outcome.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { outputGate } from "../../src/agent/stream/hooks.ts";
import type { ModelRequest, ModelResponse } from "../../src/agent/types.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { retry } from "../../src/middleware/retry.ts";
import { guardModel, guardModelProvider } from "../../src/adapters/openai-agents/index.ts";

setTracingDisabled(true);

const usage = (inputTokens: number, outputTokens: number) =>
  new Usage({ requests: 1, inputTokens, outputTokens, totalTokens: inputTokens + outputTokens });
const answer = (text: string, u = usage(11, 7)) => modelResponse({ usage: u, output: [assistantMessage(text)], responseId: "resp_1" });

/** A stream as the OpenAI models send it: started, text deltas, then the whole response with its usage. */
const streamOf = (chunks: readonly string[], u = { inputTokens: 9, outputTokens: 4 }) =>
  modelStream([
    { type: "response_started" },
    ...chunks.map((delta) => ({ type: "output_text_delta" as const, delta, itemId: "msg_1" })),
    {
      type: "response_done",
      response: {
        id: "resp_2",
        usage: { requests: 1, ...u, totalTokens: u.inputTokens + u.outputTokens },
        output: [assistantMessage(chunks.join(""), { id: "msg_1" })],
      },
    },
  ] as StreamEvent[]);

describe("guardModel: a request as hooks see it", () => {
  it("shows the instructions, the user's message, earlier tool calls and results, the tools and the settings", async () => {
    const seen: ModelRequest[] = [];
    const stack = createAgentStack().use("modelCall", { name: "look", before: (req) => void seen.push(req as ModelRequest) });
    const inner = new ScriptedModel([[functionCall("lookup", { q: "tides" }, { callId: "c1" })], answer("High tide at 6.")]);
    const { tool } = await import("@openai/agents");
    const { z } = await import("zod");
    const lookup = tool({
      name: "lookup",
      description: "Look things up",
      parameters: z.object({ q: z.string() }),
      execute: async ({ q }) => `tides for ${q}: 6am`,
    });
    const agent = new Agent({
      name: "a",
      instructions: "Be brief.",
      model: guardModel(stack, inner, { name: "gpt-test" }),
      tools: [lookup],
      modelSettings: { temperature: 0.2, maxTokens: 50 },
    });
    await run(agent, "When is high tide?");
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatchObject({
      model: "gpt-test",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "When is high tide?" },
      ],
      tools: [{ name: "lookup", description: "Look things up" }],
      temperature: 0.2,
      maxOutputTokens: 50,
      stream: false,
    });
    expect(seen[1]?.messages.slice(2)).toEqual([
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "lookup", input: { q: "tides" } }] },
      { role: "tool", content: "tides for tides: 6am", toolCallId: "c1", toolName: "lookup" },
    ]);
  });

  it("sends the SDK's own request object when no hook changed it", async () => {
    const stack = createAgentStack().use("modelCall", { name: "noop", before: () => Continue });
    let given: SdkRequest | undefined;
    const inner = new ScriptedModel([answer("ok")]);
    const spy = {
      getResponse: (r: SdkRequest) => ((given = r), inner.getResponse(r)),
      getStreamedResponse: (r: SdkRequest) => inner.getStreamedResponse(r),
    };
    const request: SdkRequest = { input: "hi", modelSettings: {}, tools: [], handoffs: [], outputType: "text", tracing: false };
    await guardModel(stack, spy).getResponse(request);
    expect(given).toBe(request);
  });
});

describe("guardModel: rewrites reach the model", () => {
  it("a before hook's rewrite of the user's message reaches the model, with the item's other fields kept", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "mask",
      before: (req) =>
        Transform({
          ...req,
          messages: req.messages.map((m) =>
            m.role === "user" ? { ...m, content: m.content.replaceAll("4111 1111 1111 1111", "[card]") } : m,
          ),
        }),
    });
    const inner = new ScriptedModel([answer("Noted.")]);
    const agent = new Agent({ name: "a", instructions: "Be kind.", model: guardModel(stack, inner) });
    await run(agent, [
      {
        role: "user",
        id: "item-7",
        content: [
          { type: "input_text", text: "My card is 4111 1111 1111 1111" },
          { type: "input_image", image: "https://example.com/x.png" },
        ],
      },
    ]);
    const sent = inner.calls[0]?.request;
    expect(sent?.systemInstructions).toBe("Be kind.");
    expect(sent?.input).toEqual([
      {
        role: "user",
        id: "item-7",
        content: [
          { type: "input_text", text: "My card is [card]" },
          { type: "input_image", image: "https://example.com/x.png" },
        ],
      },
    ]);
  });

  it("a rewrite of the instructions, the temperature and the tools offered reaches the model; a removed tool is not offered", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "tune",
      before: (req) =>
        Transform({
          ...req,
          temperature: 0,
          messages: req.messages.map((m) => (m.role === "system" ? { ...m, content: `${m.content} Never share secrets.` } : m)),
          tools: (req.tools ?? []).filter((t) => t.name !== "delete_all"),
        }),
    });
    const { tool } = await import("@openai/agents");
    const { z } = await import("zod");
    const keep = tool({ name: "search", description: "search", parameters: z.object({}), execute: async () => "" });
    const drop = tool({ name: "delete_all", description: "delete", parameters: z.object({}), execute: async () => "" });
    const inner = new ScriptedModel([answer("ok")]);
    await run(
      new Agent({
        name: "a",
        instructions: "Help.",
        model: guardModel(stack, inner),
        tools: [keep, drop],
        modelSettings: { temperature: 0.9 },
      }),
      "hi",
    );
    const sent = inner.calls[0]?.request;
    expect(sent?.systemInstructions).toBe("Help. Never share secrets.");
    expect(sent?.modelSettings.temperature).toBe(0);
    expect(sent?.tools.map((t) => t.name)).toEqual(["search"]);
  });

  it("context a before hook adds reaches this very call after the instructions", async () => {
    const stack = createAgentStack().use("modelCall", { name: "policy", before: (_req, ctx) => void ctx.addContext("Answer in French.") });
    const inner = new ScriptedModel([answer("Bonjour")]);
    await run(new Agent({ name: "a", instructions: "Be brief.", model: guardModel(stack, inner) }), "hi");
    expect(inner.calls[0]?.request.systemInstructions).toBe("Be brief.\n\nAnswer in French.");
  });

  it("an after hook's rewrite of the answer is what the run returns and records, with the message's id kept", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "upper",
      after: (res) => Transform({ ...res, text: res.text.toUpperCase() }),
    });
    const inner = new ScriptedModel([modelResponse({ usage: usage(3, 2), output: [assistantMessage("quiet please", { id: "msg_9" })] })]);
    const result = await run(new Agent({ name: "a", model: guardModel(stack, inner) }), "hi");
    expect(result.finalOutput).toBe("QUIET PLEASE");
    expect(result.newItems.map((i) => i.rawItem)).toMatchObject([
      { id: "msg_9", content: [{ type: "output_text", text: "QUIET PLEASE" }] },
    ]);
  });

  it("an after hook that drops a tool call keeps the SDK from running it", async () => {
    const ran: string[] = [];
    const { tool } = await import("@openai/agents");
    const { z } = await import("zod");
    const wipe = tool({ name: "wipe", description: "wipe", parameters: z.object({}), execute: async () => (ran.push("wipe"), "wiped") });
    const stack = createAgentStack().use("modelCall", {
      name: "no-wipe",
      after: (res) =>
        Transform({
          ...res,
          toolCalls: res.toolCalls.filter((c) => c.name !== "wipe"),
          text: res.toolCalls.length > 0 ? "I will not wipe." : res.text,
        }),
    });
    const inner = new ScriptedModel([[functionCall("wipe", {}, { callId: "w1" })]]);
    const result = await run(new Agent({ name: "a", model: guardModel(stack, inner), tools: [wipe] }), "wipe it");
    expect(ran).toEqual([]);
    expect(result.finalOutput).toBe("I will not wipe.");
  });

  it("a before hook's Replace (a cache) answers without calling the model, and the run records its usage", async () => {
    const cached: ModelResponse = { text: "from cache", toolCalls: [], finishReason: "stop", usage: { inputTokens: 0, outputTokens: 0 } };
    const stack = createAgentStack().use("modelCall", { name: "cache", before: () => Replace(cached) });
    const inner = new ScriptedModel([]);
    const result = await run(new Agent({ name: "a", model: guardModel(stack, inner) }), "hi");
    expect(result.finalOutput).toBe("from cache");
    expect(inner.calls).toHaveLength(0);
    expect(result.state.usage.totalTokens).toBe(0);
  });
});

describe("guardModel: usage and errors", () => {
  it("hooks see the usage the model reported, and the run's usage is the model's", async () => {
    const seen: ModelResponse[] = [];
    const stack = createAgentStack().use("modelCall", { name: "usage", after: (res) => void seen.push(res as ModelResponse) });
    const result = await run(new Agent({ name: "a", model: guardModel(stack, new ScriptedModel([answer("hi", usage(120, 30))])) }), "hi");
    expect(seen[0]?.usage).toEqual({ inputTokens: 120, outputTokens: 30 });
    expect(seen[0]?.finishReason).toBe("stop");
    expect(result.state.usage).toMatchObject({ requests: 1, inputTokens: 120, outputTokens: 30, totalTokens: 150 });
  });

  it("a model's error reaches the caller unchanged, after hooks' recover saw it", async () => {
    const boom = new Error("rate limited");
    const seen: unknown[] = [];
    const stack = createAgentStack().use("modelCall", { name: "watch", recover: (error) => (seen.push(error), Continue) });
    const agent = new Agent({ name: "a", model: guardModel(stack, new ScriptedModel([modelError(boom)])) });
    await expect(run(agent, "hi")).rejects.toBe(boom);
    expect(seen).toEqual([boom]);
  });

  it("retry() runs the call again after a model error and the run goes on with the answer", async () => {
    const stack = withMiddleware(createAgentStack(), retry({ attempts: 2, baseMs: 0, retryOn: () => true }));
    const inner = new ScriptedModel([modelError(new Error("flaky")), answer("second time lucky")]);
    const result = await run(new Agent({ name: "a", model: guardModel(stack, inner) }), "hi");
    expect(result.finalOutput).toBe("second time lucky");
    expect(inner.calls).toHaveLength(2);
  });

  it("a hook that fails closed makes the call throw an OutcomeRejectedError naming it", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "broken",
      failMode: "closed",
      before: () => {
        throw new Error("bug");
      },
    });
    const agent = new Agent({ name: "a", model: guardModel(stack, new ScriptedModel([answer("never")])) });
    await expect(run(agent, "hi")).rejects.toSatisfy((e: unknown) => e instanceof OutcomeRejectedError && e.by === "broken");
  });

  it("a caller's abort ends the run with the caller's reason", async () => {
    const controller = new AbortController();
    const reason = new Error("user left");
    const stack = createAgentStack().use("modelCall", {
      name: "slow",
      before: async () => {
        controller.abort(reason);
        await new Promise((r) => setTimeout(r, 50));
      },
    });
    const agent = new Agent({ name: "a", model: guardModel(stack, new ScriptedModel([answer("late")])) });
    await expect(run(agent, "hi", { signal: controller.signal })).rejects.toBe(reason);
  });
});

describe("guardModel: streams are gated", () => {
  const SECRET = "sk-live-4f9a2c";
  const gate = outputGate({
    name: "redact-keys",
    holdBack: { window: SECRET.length },
    check: (text) => (text.includes(SECRET) ? Transform(text.replaceAll(SECRET, "[redacted]")) : Continue),
  });

  it("a secret split across deltas never reaches the stream's reader, and the run's answer is the gated one", async () => {
    const stack = createAgentStack().use("modelCall", gate);
    const inner = new ScriptedModel([streamOf(["Your key is sk-", "live-4f", "9a2c, keep it safe."])]);
    const streamed = await run(new Agent({ name: "a", model: guardModel(stack, inner) }), "key?", { stream: true });
    let text = "";
    for await (const event of streamed)
      if (event.type === "raw_model_stream_event" && event.data.type === "output_text_delta") text += event.data.delta;
    await streamed.completed;
    expect(text).toBe("Your key is [redacted], keep it safe.");
    expect(streamed.finalOutput).toBe("Your key is [redacted], keep it safe.");
    expect(JSON.stringify(streamed.history)).not.toContain(SECRET);
    expect(streamed.state.usage).toMatchObject({ inputTokens: 9, outputTokens: 4 });
  });

  it("the same gate gives the same answer without a stream", async () => {
    const stack = createAgentStack().use("modelCall", gate);
    const result = await run(
      new Agent({ name: "a", model: guardModel(stack, new ScriptedModel([answer(`Your key is ${SECRET}, keep it safe.`)])) }),
      "key?",
    );
    expect(result.finalOutput).toBe("Your key is [redacted], keep it safe.");
  });

  it("after hooks of a streamed call see the assembled answer with the usage the model reported", async () => {
    const seen: ModelResponse[] = [];
    const stack = createAgentStack().use("modelCall", { name: "look", after: (res) => void seen.push(res as ModelResponse) });
    const streamed = await run(
      new Agent({
        name: "a",
        model: guardModel(stack, new ScriptedModel([streamOf(["Hel", "lo"], { inputTokens: 21, outputTokens: 2 })])),
      }),
      "hi",
      { stream: true },
    );
    await streamed.completed;
    expect(seen).toMatchObject([{ text: "Hello", usage: { inputTokens: 21, outputTokens: 2 }, finishReason: "stop" }]);
    expect(streamed.finalOutput).toBe("Hello");
  });

  it("events the gate does not look at (response_started) pass through as the model sent them", async () => {
    const stack = createAgentStack().use("modelCall", gate);
    const streamed = await run(new Agent({ name: "a", model: guardModel(stack, new ScriptedModel([streamOf(["plain"])])) }), "hi", {
      stream: true,
    });
    const types: string[] = [];
    for await (const event of streamed) if (event.type === "raw_model_stream_event") types.push(event.data.type);
    await streamed.completed;
    expect(types).toEqual(["response_started", "output_text_delta", "response_done"]);
  });
});

describe("guardModelProvider", () => {
  it("guards every model the provider gives out, named as asked", async () => {
    const seen: string[] = [];
    const stack = createAgentStack().use("modelCall", { name: "ids", before: (req) => void seen.push(req.model) });
    const inner = new ScriptedModel([answer("one")]);
    const { Runner } = await import("@openai/agents");
    const runner = new Runner({ modelProvider: guardModelProvider(stack, { getModel: () => inner }) });
    const result = await runner.run(new Agent({ name: "a", model: "gpt-named" }), "hi");
    expect(result.finalOutput).toBe("one");
    expect(seen).toEqual(["gpt-named"]);
  });
});

describe("guardModel: bad input", () => {
  it("refuses a stack without run, a model that is not one, and options of the wrong kind, naming the field", () => {
    const stack = createAgentStack();
    const model = new ScriptedModel([]);
    expect(() => guardModel({} as never, model)).toThrow(/guardModel: stack must be a stack with run/);
    expect(() => guardModel(stack, {} as never)).toThrow(/guardModel: model must be an Agents SDK Model/);
    expect(() => guardModel(stack, model, { name: "" })).toThrow(/guardModel: name must be a non-empty string/);
    expect(() => guardModel(stack, model, { run: 3 as never })).toThrow(/guardModel: run must be run options/);
    expect(() => guardModel(stack, model, { holdBack: { window: -1 } })).toThrow(/guardModel: /);
    expect(() => guardModelProvider(stack, {} as never)).toThrow(/guardModelProvider: provider must be/);
  });

  it("returns the model itself for a stack with no modelCall hook, and does not guard a model twice", () => {
    const model = new ScriptedModel([]);
    expect(guardModel(createAgentStack(), model)).toBe(model);
    const stack = createAgentStack().use("modelCall", { name: "x", before: () => Continue });
    const once = guardModel(stack, model);
    expect(guardModel(stack, once)).toBe(once);
  });

  it("keeps the model's other methods working on the model itself", () => {
    const stack = createAgentStack().use("modelCall", { name: "x", before: () => Continue });
    const model = new ScriptedModel([answer("a")]);
    const guarded = guardModel(stack, model) as ScriptedModel;
    expect(guarded.remainingSteps).toBe(1);
    expect(() => guarded.assertComplete()).toThrow();
  });
});
