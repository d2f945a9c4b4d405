import { Agent, run, setTracingDisabled, Usage, type StreamEvent } from "@openai/agents";
import { assistantMessage, modelResponse, modelStream, ScriptedModel } from "@openai/agents/testing";
import { describe, expect, it } from "vitest";
import { createAgentStack } from "../../src/agent/stack.ts";
import type { ModelResponse } from "../../src/agent/types.ts";
import { MemoryStore } from "../../src/core/index.ts";
import { cache, redaction, withMiddleware } from "../../src/middleware/index.ts";
import { guardModel } from "../../src/adapters/openai-agents/index.ts";

setTracingDisabled(true);

const KEY = "AKIAIOSFODNN7EXAMPLE";
const usage = { requests: 1, inputTokens: 5, outputTokens: 3, totalTokens: 8 };

/** A reasoning item as the Responses model gives one: a summary, the reasoning text, the provider's data. */
const reasoningItem = (summary: string, raw: string) => ({
  type: "reasoning" as const,
  id: "rs_1",
  content: [{ type: "input_text" as const, text: summary }],
  rawContent: [{ type: "reasoning_text" as const, text: raw }],
  providerData: { encryptedContent: "enc-1" },
});

const redacting = () => withMiddleware(createAgentStack(), redaction());

describe("guardModel and the reasoning of an answer", () => {
  it("redacts a secret in a generated answer's reasoning, in the run's items, and shows hooks reasoning parts", async () => {
    const seen: ModelResponse[] = [];
    const stack = redacting().use("modelCall", { name: "watch", after: (r) => void seen.push(r as ModelResponse) });
    const inner = new ScriptedModel([
      modelResponse({
        usage: new Usage(usage),
        output: [reasoningItem(`mail bob@example.com`, `the key is ${KEY}`), assistantMessage("done")],
      }),
    ]);
    const result = await run(new Agent({ name: "a", model: guardModel(stack, inner) }), "go");
    expect(seen[0]?.parts).toEqual([
      { type: "reasoning", text: "mail [REDACTED:email]" },
      { type: "reasoning", text: "the key is [REDACTED:api_key]" },
    ]);
    const items = JSON.stringify(result.newItems.map((i) => i.rawItem));
    expect(items).not.toContain(KEY);
    expect(items).not.toContain("bob@example.com");
    const item = result.newItems.find((i) => i.type === "reasoning_item")?.rawItem as ReturnType<typeof reasoningItem>;
    expect(item).toMatchObject({
      id: "rs_1",
      content: [{ text: "mail [REDACTED:email]" }],
      rawContent: [{ text: "the key is [REDACTED:api_key]" }],
      providerData: { encryptedContent: "enc-1" },
    });
    expect(result.finalOutput).toBe("done");
  });

  it("redacts a streamed answer's reasoning in the response the run records", async () => {
    const inner = new ScriptedModel([
      modelStream([
        { type: "response_started" },
        { type: "output_text_delta", delta: "done", itemId: "msg_1" },
        {
          type: "response_done",
          response: {
            id: "resp_1",
            usage,
            output: [reasoningItem("plan", `the key is ${KEY}`), assistantMessage("done", { id: "msg_1" })],
          },
        },
      ] as StreamEvent[]),
    ]);
    const streamed = await run(new Agent({ name: "a", model: guardModel(redacting(), inner) }), "go", { stream: true });
    const events: unknown[] = [];
    for await (const event of streamed) events.push(event);
    await streamed.completed;
    expect(JSON.stringify(streamed.newItems.map((i) => i.rawItem))).not.toContain(KEY);
    expect(JSON.stringify(events)).not.toContain(KEY);
    const item = streamed.newItems.find((i) => i.type === "reasoning_item")?.rawItem as ReturnType<typeof reasoningItem>;
    expect(item.rawContent).toEqual([{ type: "reasoning_text", text: "the key is [REDACTED:api_key]" }]);
    expect(streamed.finalOutput).toBe("done");
  });

  it("drops the signature in the provider data of reasoning it rewrote, which the provider would refuse", async () => {
    const signed = (raw: string) => ({ ...reasoningItem("plan", raw), providerData: { signature: "sig-1", model: "claude" } });
    const item = async (raw: string) => {
      const inner = new ScriptedModel([modelResponse({ usage: new Usage(usage), output: [signed(raw), assistantMessage("done")] })]);
      const result = await run(new Agent({ name: "a", model: guardModel(redacting(), inner) }), "go");
      return result.newItems.find((i) => i.type === "reasoning_item")?.rawItem as { providerData?: object };
    };
    expect((await item(`use ${KEY}`)).providerData).toEqual({ model: "claude" });
    expect((await item("use the stairs")).providerData).toEqual({ signature: "sig-1", model: "claude" });
  });

  it("keeps reasoning that holds nothing to redact as the model gave it", async () => {
    const response = { usage: new Usage(usage), output: [reasoningItem("plan", "think"), assistantMessage("done")] };
    const inner = new ScriptedModel([modelResponse(response)]);
    const result = await run(new Agent({ name: "a", model: guardModel(redacting(), inner) }), "go");
    expect(result.newItems.find((i) => i.type === "reasoning_item")?.rawItem).toEqual(response.output[0]);
  });

  it("gives a streamed run the reasoning of a cached answer, in the response it records", async () => {
    const stack = withMiddleware(createAgentStack({ store: new MemoryStore() }), cache({ ttlMs: 60_000, scope: "global" }));
    const inner = new ScriptedModel([
      modelResponse({ usage: new Usage(usage), output: [reasoningItem("plan", "think first"), assistantMessage("done")] }),
    ]);
    const agent = new Agent({ name: "a", model: guardModel(stack, inner) });
    await run(agent, "go");
    const streamed = await run(agent, "go", { stream: true });
    for await (const _ of streamed);
    await streamed.completed;
    const item = streamed.newItems.find((i) => i.type === "reasoning_item")?.rawItem as ReturnType<typeof reasoningItem>;
    // An answer that is not the model's response has only the parts' texts: one reasoning item holds them.
    expect(item?.content).toEqual([
      { type: "input_text", text: "plan" },
      { type: "input_text", text: "think first" },
    ]);
    expect(streamed.finalOutput).toBe("done");
  });
});
