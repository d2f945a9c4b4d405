import { describe, expect, it } from "vitest";
import { fromRequest, toRequest } from "../../../src/adapters/ai-sdk/prompt.ts";
import type { SdkCallOptions, SdkMessage, SdkPart } from "../../../src/adapters/ai-sdk/spec.ts";
import type { Message, ModelRequest } from "../../../src/agent/types.ts";

const reasoning = { type: "reasoning", text: "I should search.", providerOptions: { anthropic: { signature: "sig-1" } } };
const search = { type: "tool-call", toolCallId: "ws1", toolName: "web_search", input: { query: "bob" }, providerExecuted: true };
const found = {
  type: "tool-result",
  toolCallId: "ws1",
  toolName: "web_search",
  output: { type: "json", value: { hits: ["bob@example.com"] } },
};
const read = { type: "tool-call", toolCallId: "c2", toolName: "Read", input: { path: "bob.txt" } };

const prompt = (assistant: readonly object[]): SdkCallOptions => ({
  prompt: [
    { role: "user", content: [{ type: "text", text: "find bob" }] },
    { role: "assistant", content: assistant },
    { role: "user", content: [{ type: "text", text: "thanks" }] },
  ] as SdkMessage[],
});

/** The assistant message as sent after a hook settled on `change` of it. */
const sent = (params: SdkCallOptions, change: (assistant: Message) => Message): readonly SdkPart[] => {
  const mapped = toRequest(params, "gpt", false);
  const messages = [...mapped.request.messages];
  messages[1] = change(messages[1] as Message);
  const next = fromRequest(params, mapped, { ...mapped.request, messages } as ModelRequest, []);
  return (next.prompt[1] as { content: readonly SdkPart[] }).content;
};

const redact = (m: Message): Message => ({ ...m, content: m.content.replaceAll("bob@example.com", "[email]") });

describe("an assistant message a hook rewrote", () => {
  it("keeps its parts in their order: reasoning first, a provider tool's result after its call, the new text where the text was", () => {
    const parts = sent(prompt([reasoning, search, found, { type: "text", text: "Bob is bob@example.com." }]), redact);
    expect(parts).toEqual([reasoning, search, found, { type: "text", text: "Bob is [email]." }]);
    expect(parts[0]).toBe(reasoning);
    expect(parts[1]).toBe(search);
    expect(parts[2]).toBe(found);
  });

  it("puts its text where the first text part was and each tool call where it was, the hook's changed call included", () => {
    const params = prompt([{ type: "text", text: "Searching for " }, search, found, { type: "text", text: "bob@example.com." }, read]);
    const parts = sent(params, (m) => ({
      ...redact(m),
      toolCalls: (m.toolCalls ?? []).map((c) => (c.id === "c2" ? { ...c, input: { path: "[name].txt" } } : c)),
    }));
    expect(parts).toEqual([{ type: "text", text: "Searching for [email]." }, search, found, { ...read, input: { path: "[name].txt" } }]);
    expect(parts[1]).toBe(search);
  });

  it("leaves out a call the hook removed, and adds a call it made after the others", () => {
    const params = prompt([reasoning, read, { type: "text", text: "Reading." }]);
    const parts = sent(params, (m) => ({ ...m, toolCalls: [{ id: "c3", name: "Glob", input: { pattern: "*" } }] }));
    expect(parts).toEqual([
      reasoning,
      { type: "text", text: "Reading." },
      { type: "tool-call", toolCallId: "c3", toolName: "Glob", input: { pattern: "*" } },
    ]);
  });
});
