import { convertToModelMessages, jsonSchema, readUIMessageStream, streamText, tool, wrapLanguageModel, type UIMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { aiSdkMiddleware, type AiSdkMiddlewareOptions } from "../../../src/adapters/ai-sdk.ts";
import { createAgentStack } from "../../../src/agent/stack.ts";
import { outputGate } from "../../../src/agent/stream/hooks.ts";
import type { ModelResponse } from "../../../src/agent/types.ts";
import { Continue, Transform } from "../../../src/core/index.ts";
import { redaction, withMiddleware } from "../../../src/middleware/index.ts";
import { usage } from "../ai-sdk-fixtures.ts";

type Stack = ReturnType<typeof createAgentStack>;

/**
 * A provider that streams one `weather` call's input in `pieces`, then waits until the reader has
 * seen a piece of it (or 100 ms passed) before it ends the call: `live` says which came first.
 */
const slowCall = (pieces: readonly string[]) => {
  let saw: (live: boolean) => void = () => {};
  const live = new Promise<boolean>((resolve) => (saw = resolve));
  const model = new MockLanguageModelV3({
    doStream: async () => ({
      stream: new ReadableStream({
        async start(controller) {
          controller.enqueue({ type: "stream-start", warnings: [] });
          controller.enqueue({ type: "tool-input-start", id: "call-1", toolName: "weather" });
          for (const delta of pieces) controller.enqueue({ type: "tool-input-delta", id: "call-1", delta });
          const timer = setTimeout(() => saw(false), 100);
          await live;
          clearTimeout(timer);
          controller.enqueue({ type: "tool-input-end", id: "call-1" });
          controller.enqueue({ type: "tool-call", toolCallId: "call-1", toolName: "weather", input: pieces.join("") });
          controller.enqueue({ type: "finish", finishReason: { unified: "tool-calls", raw: "tool_use" }, usage: usage(10, 5) });
          controller.close();
        },
      }),
    }),
  });
  return { model, live, readerSaw: () => saw(true) };
};

const oslo = ['{"city":', '"Os', 'lo"}'];

const weatherTools = (ran: string[] = []) => ({
  weather: tool({
    inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } } }),
    execute: async ({ city }) => (ran.push(city), `sunny in ${city}`),
  }),
});

const watching = () => {
  const responses: ModelResponse[] = [];
  const stack = createAgentStack().use("modelCall", {
    name: "watch",
    before: () => Continue,
    after: (res) => void responses.push(res as ModelResponse),
  });
  return { stack, responses };
};

/** An after hook that sends the call to Bergen instead. */
const toBergen = createAgentStack().use("modelCall", {
  name: "pin-city",
  after: (res) => Transform({ ...res, toolCalls: res.toolCalls.map((c) => ({ ...c, input: { city: "Bergen" } })) }),
});

/** An after hook that drops every tool call and says so. */
const noTools = createAgentStack().use("modelCall", {
  name: "no-tools",
  after: (res) => Transform({ ...res, text: "I will not look that up.", toolCalls: [], finishReason: "stop" as const }),
});

const run = (stack: Stack, model: MockLanguageModelV3, ran?: string[], options?: AiSdkMiddlewareOptions) =>
  streamText({
    model: wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack, options) }),
    prompt: "Weather in Oslo?",
    tools: weatherTools(ran),
  });

/** The full stream's parts about tools, reporting a streamed piece of input as soon as it is read. */
const toolParts = async (result: ReturnType<typeof run>, readerSaw: () => void) => {
  const parts: { type: string; input?: unknown; delta?: string }[] = [];
  for await (const part of result.fullStream) {
    if (part.type === "tool-input-delta") readerSaw();
    if (part.type.startsWith("tool-")) parts.push(part as never);
  }
  return parts;
};

/** The UI message the chat would show at the end, and the UI chunks about tools it was built from. */
const uiMessage = async (result: ReturnType<typeof run>, readerSaw: () => void) => {
  const chunks: string[] = [];
  const stream = result.toUIMessageStream().pipeThrough(
    new TransformStream({
      transform(chunk, controller) {
        if (chunk.type === "tool-input-delta") readerSaw();
        if (chunk.type.startsWith("tool-")) chunks.push(chunk.type);
        controller.enqueue(chunk);
      },
    }),
  );
  let message: UIMessage | undefined;
  for await (const m of readUIMessageStream({ stream })) message = m;
  const tools = (message?.parts ?? []).filter((p) => p.type === "tool-weather") as {
    state: string;
    input?: unknown;
    rawInput?: unknown;
    output?: unknown;
  }[];
  return { message: message as UIMessage, chunks, tools };
};

describe("aiSdkMiddleware, a tool call's streamed input", () => {
  it("reaches fullStream as the provider streams it, before the call is complete, and hooks see the final input", async () => {
    const { stack, responses } = watching();
    const { model, live, readerSaw } = slowCall(oslo);
    const parts = await toolParts(run(stack, model), readerSaw);
    expect(await live).toBe(true);
    expect(parts.map((p) => p.type)).toEqual([
      "tool-input-start",
      "tool-input-delta",
      "tool-input-delta",
      "tool-input-delta",
      "tool-input-end",
      "tool-call",
      "tool-result",
    ]);
    expect(
      parts
        .filter((p) => p.type === "tool-input-delta")
        .map((p) => p.delta)
        .join(""),
    ).toBe('{"city":"Oslo"}');
    await stack.flush();
    expect(responses[0]?.toolCalls).toEqual([{ id: "call-1", name: "weather", input: { city: "Oslo" } }]);
  });

  it("reaches the UI message stream, so a chat shows the input streaming, then the call and its result", async () => {
    const { model, live, readerSaw } = slowCall(oslo);
    const { chunks, tools } = await uiMessage(run(watching().stack, model), readerSaw);
    expect(await live).toBe(true);
    expect(chunks).toEqual([
      "tool-input-start",
      "tool-input-delta",
      "tool-input-delta",
      "tool-input-delta",
      "tool-input-available",
      "tool-output-available",
    ]);
    expect(tools).toEqual([expect.objectContaining({ state: "output-available", input: { city: "Oslo" }, output: "sunny in Oslo" })]);
  });

  it("ends with the call as hooks rewrote it: the tool-call part and the UI carry the hooked input, and that is what runs", async () => {
    const ran: string[] = [];
    const { model, readerSaw } = slowCall(oslo);
    const result = run(toBergen, model, ran);
    const [parts, ui] = await Promise.all([toolParts(result, readerSaw), uiMessage(result, () => {})]);
    expect(parts.find((p) => p.type === "tool-call")?.input).toEqual({ city: "Bergen" });
    expect(ran).toEqual(["Bergen"]);
    expect(ui.tools).toEqual([
      expect.objectContaining({ state: "output-available", input: { city: "Bergen" }, output: "sunny in Bergen" }),
    ]);
    expect(ui.tools[0]?.rawInput).toBeUndefined();
  });

  it("leaves a call hooks dropped after its input streamed as never made: no tool-call, nothing runs, and the model never sees it", async () => {
    const ran: string[] = [];
    const { model, readerSaw } = slowCall(oslo);
    const result = run(noTools, model, ran);
    const [parts, ui] = await Promise.all([toolParts(result, readerSaw), uiMessage(result, () => {})]);
    expect(parts.map((p) => p.type)).toEqual([
      "tool-input-start",
      "tool-input-delta",
      "tool-input-delta",
      "tool-input-delta",
      "tool-input-end",
    ]);
    expect(ran).toEqual([]);
    expect(await result.text).toBe("I will not look that up.");
    // The UI keeps the preview in state input-streaming, which the SDK leaves out of the history it sends back.
    expect(ui.tools.map((t) => t.state)).toEqual(["input-streaming"]);
    const history = await convertToModelMessages([ui.message]);
    expect(history).toEqual([{ role: "assistant", content: [{ type: "text", text: "I will not look that up." }] }]);
  });

  describe("when the stream holds back (hold-back, output gate or chunk hook)", () => {
    it("waits for the call, then goes out whole just before it when hooks left the call as streamed", async () => {
      const { model, live, readerSaw } = slowCall(oslo);
      const parts = await toolParts(run(watching().stack, model, undefined, { holdBack: "all" }), readerSaw);
      expect(await live).toBe(false);
      expect(parts.map((p) => p.type)).toEqual([
        "tool-input-start",
        "tool-input-delta",
        "tool-input-delta",
        "tool-input-delta",
        "tool-input-end",
        "tool-call",
        "tool-result",
      ]);
    });

    it("is not shown at all for a call hooks rewrote: the UI gets the call with the hooked input directly", async () => {
      const { model, live, readerSaw } = slowCall(oslo);
      const result = run(toBergen, model, undefined, { holdBack: "all" });
      const [parts, ui] = await Promise.all([toolParts(result, readerSaw), uiMessage(result, () => {})]);
      expect(await live).toBe(false);
      expect(parts.map((p) => p.type)).toEqual(["tool-call", "tool-result"]);
      expect(ui.chunks).toEqual(["tool-input-available", "tool-output-available"]);
      expect(ui.tools).toEqual([expect.objectContaining({ state: "output-available", input: { city: "Bergen" } })]);
    });

    it("is not shown at all for a call hooks dropped", async () => {
      const { model, readerSaw } = slowCall(oslo);
      const result = run(noTools, model, undefined, { holdBack: "all" });
      const [parts, ui] = await Promise.all([toolParts(result, readerSaw), uiMessage(result, () => {})]);
      expect(parts).toEqual([]);
      expect(ui.tools).toEqual([]);
    });

    it("waits under an output gate, which checks text, not tool input", async () => {
      const stack = createAgentStack().use("modelCall", outputGate({ name: "polite", check: () => Continue }));
      const { model, live, readerSaw } = slowCall(oslo);
      const parts = await toolParts(run(stack, model), readerSaw);
      expect(await live).toBe(false);
      expect(parts.map((p) => p.type)).toEqual([
        "tool-input-start",
        "tool-input-delta",
        "tool-input-delta",
        "tool-input-delta",
        "tool-input-end",
        "tool-call",
        "tool-result",
      ]);
    });

    it("never shows a secret the model wrote into a tool input under redaction, in the full stream or the UI", async () => {
      const key = "sk-abcdefghijklmnopqrstuvwxyz0123";
      const ran: string[] = [];
      const stack = withMiddleware(createAgentStack(), redaction());
      const { model, live, readerSaw } = slowCall(['{"city":"Oslo ', key.slice(0, 10), `${key.slice(10)}"}`]);
      const result = run(stack, model, ran);
      const shown: unknown[] = [];
      const ui: unknown[] = [];
      const read = async (stream: AsyncIterable<{ type: string }>, into: unknown[]) => {
        for await (const part of stream) {
          if (part.type === "tool-input-delta") readerSaw();
          into.push(part);
        }
      };
      await Promise.all([read(result.fullStream, shown), read(result.toUIMessageStream(), ui)]);
      expect(await live).toBe(false);
      expect(ran).toHaveLength(1);
      for (const text of [JSON.stringify(shown), JSON.stringify(ui), ran[0]]) {
        expect(text).not.toContain(key);
        expect(text).not.toContain(key.slice(0, 10));
      }
    });
  });
});
