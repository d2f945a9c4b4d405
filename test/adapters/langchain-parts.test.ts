import { AIMessageChunk } from "@langchain/core/messages";
import { FakeStreamingChatModel } from "@langchain/core/utils/testing";
import { AIMessage, HumanMessage, createAgent, fakeModel, type BaseMessage } from "langchain";
import { describe, expect, it } from "vitest";
import { langchainMiddleware } from "../../src/adapters/langchain.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import type { ModelResponse } from "../../src/agent/types.ts";
import { MemoryStore } from "../../src/core/index.ts";
import { cache, redaction, withMiddleware } from "../../src/middleware/index.ts";
import { ask } from "./langchain-fixtures.ts";

const KEY = "AKIAIOSFODNN7EXAMPLE";
const redacting = () => langchainMiddleware(withMiddleware(createAgentStack(), redaction()));

/** The agent's last message after a streamed run, and every chunk the stream showed. */
const streamed = async (chunks: AIMessageChunk[]) => {
  const agent = createAgent({ model: new FakeStreamingChatModel({ chunks, sleep: 0 }), tools: [], middleware: [redacting()] });
  const shown: BaseMessage[] = [];
  let last: BaseMessage | undefined;
  for await (const [mode, value] of await agent.stream({ messages: [new HumanMessage("hi")] }, { streamMode: ["messages", "values"] }))
    if (mode === "messages") shown.push((value as unknown as [BaseMessage])[0]);
    else last = (value as { messages: BaseMessage[] }).messages.at(-1);
  return { last, shown };
};

describe("langchainMiddleware and the other parts of a generated answer", () => {
  it("redacts a secret in a thinking block, keeping the block and dropping its signature", async () => {
    const message = new AIMessage({
      content: [
        { type: "thinking", thinking: `the key is ${KEY}`, signature: "sig-1" },
        { type: "text", text: "done" },
      ] as never,
    });
    const messages = await ask(createAgent({ model: fakeModel().respond(message), tools: [], middleware: [redacting()] }), "go");
    const last = messages.at(-1) as AIMessage;
    expect(JSON.stringify(last)).not.toContain(KEY);
    expect(last.content).toEqual([
      { type: "text", text: "done" },
      { type: "thinking", thinking: "the key is [REDACTED:api_key]" },
    ]);
  });

  it("redacts reasoning_content and a reasoning block's text, which hooks see as reasoning parts", async () => {
    const seen: ModelResponse[] = [];
    const stack = withMiddleware(createAgentStack(), redaction()).use("modelCall", {
      name: "watch",
      after: (r) => void seen.push(r as ModelResponse),
    });
    const message = new AIMessage({
      content: [
        { type: "reasoning", reasoning: `mail bob@example.com` },
        { type: "text", text: "ok" },
      ] as never,
      additional_kwargs: { reasoning_content: `use ${KEY}` },
    });
    const messages = await ask(
      createAgent({ model: fakeModel().respond(message), tools: [], middleware: [langchainMiddleware(stack)] }),
      "go",
    );
    expect(seen[0]?.parts).toEqual([
      { type: "reasoning", text: "use [REDACTED:api_key]" },
      { type: "reasoning", text: "mail [REDACTED:email]" },
    ]);
    const last = messages.at(-1) as AIMessage;
    expect(last.additional_kwargs.reasoning_content).toBe("use [REDACTED:api_key]");
    expect(last.content).toEqual([
      { type: "text", text: "ok" },
      { type: "reasoning", reasoning: "mail [REDACTED:email]" },
    ]);
  });

  it("redacts a text file given as data, and keeps the model's own message when nothing is found", async () => {
    const data = Buffer.from(`token ${KEY}`).toString("base64");
    const file = new AIMessage({ content: [{ type: "file", mimeType: "text/plain", data }] as never });
    const redacted = (await ask(createAgent({ model: fakeModel().respond(file), tools: [], middleware: [redacting()] }), "go")).at(-1);
    const block = (redacted?.content as unknown as { data: string }[])[0];
    expect(Buffer.from(String(block?.data), "base64").toString()).toBe("token [REDACTED:api_key]");
    const clean = new AIMessage({
      content: [
        { type: "thinking", thinking: "plain", signature: "s" },
        { type: "text", text: "hi" },
      ] as never,
    });
    const kept = (await ask(createAgent({ model: fakeModel().respond(clean), tools: [], middleware: [redacting()] }), "go")).at(-1);
    expect(kept).toBe(clean);
  });
});

describe("langchainMiddleware and the other parts of a streamed answer", () => {
  it("never streams a secret split across reasoning chunks, and the agent keeps the redacted reasoning", async () => {
    const { last, shown } = await streamed([
      new AIMessageChunk({ content: [{ type: "reasoning", reasoning: "the key is AKIAIOSF", index: 0 }] as never }),
      new AIMessageChunk({ content: [{ type: "reasoning", reasoning: "ODNN7EXAMPLE, fine", index: 0 }] as never }),
      new AIMessageChunk({ content: "Hello" }),
    ]);
    expect(JSON.stringify(shown)).not.toContain("AKIAIOSF");
    expect(last?.content).toEqual([
      { type: "reasoning", reasoning: "the key is [REDACTED:api_key], fine", index: 0 },
      { type: "text", text: "Hello" },
    ]);
  });

  it("redacts streamed reasoning_content, sent once", async () => {
    const { last, shown } = await streamed([
      new AIMessageChunk({ content: "", additional_kwargs: { reasoning_content: "mail bob@" } }),
      new AIMessageChunk({ content: "", additional_kwargs: { reasoning_content: "example.com now" } }),
      new AIMessageChunk({ content: "Hi" }),
    ]);
    expect(JSON.stringify(shown)).not.toContain("bob@");
    expect((last as AIMessage).additional_kwargs.reasoning_content).toBe("mail [REDACTED:email] now");
  });

  it("drops a streamed thinking block's signature when its text was rewritten, and keeps a clean one's", async () => {
    const thinking = (text: string) => [
      new AIMessageChunk({ content: [{ type: "thinking", thinking: text, index: 0 }] as never }),
      new AIMessageChunk({ content: [{ type: "thinking", thinking: "", signature: "sig-1", index: 0 }] as never }),
      new AIMessageChunk({ content: [{ type: "text", text: "ok", index: 1 }] as never }),
    ];
    const rewritten = await streamed(thinking(`use ${KEY}`));
    expect((rewritten.last?.content as object[])[0]).toEqual({ type: "thinking", thinking: "use [REDACTED:api_key]", index: 0 });
    const clean = await streamed(thinking("use the stairs"));
    expect((clean.last?.content as object[])[0]).toEqual({ type: "thinking", thinking: "use the stairs", signature: "sig-1", index: 0 });
  });

  it("streams the reasoning of a cached answer as a reasoning block", async () => {
    const stack = withMiddleware(createAgentStack({ store: new MemoryStore() }), cache({ ttlMs: 60_000, scope: "global" }));
    const message = new AIMessage({
      content: [
        { type: "reasoning", reasoning: "plan first" },
        { type: "text", text: "ok" },
      ] as never,
    });
    const model = fakeModel().respond(message);
    const agent = createAgent({ model, tools: [], middleware: [langchainMiddleware(stack)] });
    await ask(agent, "go");
    let last: BaseMessage | undefined;
    for await (const [mode, value] of await agent.stream({ messages: [new HumanMessage("go")] }, { streamMode: ["messages", "values"] }))
      if (mode === "values") last = (value as { messages: BaseMessage[] }).messages.at(-1);
    expect(model.callCount).toBe(1);
    expect(last?.content).toEqual([
      { type: "reasoning", reasoning: "plan first" },
      { type: "text", text: "ok" },
    ]);
  });
});
