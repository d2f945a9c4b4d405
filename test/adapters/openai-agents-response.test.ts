import { Usage, type ModelResponse as SdkResponse } from "@openai/agents";
import { assistantMessage, functionCall } from "@openai/agents/testing";
import { describe, expect, it } from "vitest";
import type { ModelResponse } from "../../src/agent/types.ts";
import { fromResponse, outputText, toResponse } from "../../src/adapters/openai-agents/response.ts";

const reasoning = { type: "reasoning", id: "rs_1", content: [], providerData: { encrypted: "x" } };
const sdk: SdkResponse = {
  usage: new Usage({ requests: 1, inputTokens: 30, outputTokens: 9, totalTokens: 39, inputTokensDetails: { cached_tokens: 10 } }),
  responseId: "resp_1",
  output: [
    reasoning,
    assistantMessage("Your key is sk-live-123.", { id: "msg_1" }),
    functionCall("rotate_key", { key: "sk-live-123" }, { callId: "c1", id: "fc_1" }),
  ] as SdkResponse["output"],
};

describe("openai-agents response mapping", () => {
  it("shows the assistant's text, the function calls, the usage, and tool-calls as the finish reason", () => {
    expect(toResponse(sdk, "gpt-4.1")).toEqual({
      text: "Your key is sk-live-123.",
      toolCalls: [{ id: "c1", name: "rotate_key", input: { key: "sk-live-123" } }],
      finishReason: "tool-calls",
      usage: { inputTokens: 30, outputTokens: 9 },
      model: "gpt-4.1",
      id: "resp_1",
    });
    expect(toResponse({ ...sdk, output: [{ ...assistantMessage("cut"), status: "incomplete" }] }, "m").finishReason).toBe("length");
  });

  it("gives back the model's own response when hooks changed nothing", () => {
    const produced = toResponse(sdk, "m");
    expect(fromResponse(sdk, produced, produced)).toBe(sdk);
    expect(fromResponse(sdk, produced, { ...produced })).toBe(sdk);
  });

  it("writes rewritten text into the message, keeping its id, the reasoning item and the usage object", () => {
    const produced = toResponse(sdk, "m");
    const out = fromResponse(sdk, produced, { ...produced, text: "Your key is [redacted]." });
    expect(outputText(out.output)).toBe("Your key is [redacted].");
    expect(out.output[0]).toBe(reasoning);
    expect(out.output[1]).toMatchObject({ id: "msg_1", content: [{ type: "output_text", text: "Your key is [redacted]." }] });
    expect(out.output[2]).toBe(sdk.output[2]);
    expect(out.usage).toBe(sdk.usage);
    expect(out.responseId).toBe("resp_1");
    expect(outputText(sdk.output)).toBe("Your key is sk-live-123.");
  });

  it("rewrites a changed call's arguments in its item, drops a removed call, and adds a new one", () => {
    const produced = toResponse(sdk, "m");
    const changed = fromResponse(sdk, produced, {
      ...produced,
      toolCalls: [{ id: "c1", name: "rotate_key", input: { key: "[redacted]" } }],
    });
    expect(changed.output[2]).toMatchObject({ id: "fc_1", callId: "c1", arguments: '{"key":"[redacted]"}' });
    const dropped = fromResponse(sdk, produced, { ...produced, toolCalls: [] });
    expect(dropped.output.map((i) => i.type)).toEqual(["reasoning", "message"]);
    const added = fromResponse(sdk, produced, { ...produced, toolCalls: [...produced.toolCalls, { id: "c2", name: "audit", input: {} }] });
    expect(added.output[3]).toMatchObject({ type: "function_call", callId: "c2", name: "audit", arguments: "{}" });
  });

  it("patches changed usage totals and keeps the details", () => {
    const produced = toResponse(sdk, "m");
    const out = fromResponse(sdk, produced, { ...produced, usage: { inputTokens: 31, outputTokens: 9 } });
    expect(out.usage).toBeInstanceOf(Usage);
    expect(out.usage).toMatchObject({ inputTokens: 31, outputTokens: 9, totalTokens: 40, inputTokensDetails: [{ cached_tokens: 10 }] });
  });

  it("builds a response of its own for an answer no model gave (a cache's)", () => {
    const cached: ModelResponse = {
      text: "from cache",
      toolCalls: [{ id: "k1", name: "lookup", input: { q: "x" } }],
      finishReason: "tool-calls",
      usage: { inputTokens: 0, outputTokens: 0 },
    };
    const out = fromResponse(undefined, undefined, cached);
    expect(out.usage).toBeInstanceOf(Usage);
    expect(out.output).toMatchObject([
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "from cache" }] },
      { type: "function_call", callId: "k1", name: "lookup", arguments: '{"q":"x"}' },
    ]);
  });

  it("drops a message a hook emptied rather than leave an empty answer", () => {
    const only: SdkResponse = { usage: new Usage(), output: [assistantMessage("secret")] as SdkResponse["output"] };
    const produced = toResponse(only, "m");
    expect(fromResponse(only, produced, { ...produced, text: "" }).output).toEqual([]);
  });
});
