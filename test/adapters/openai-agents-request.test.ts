import type { ModelRequest as SdkRequest } from "@openai/agents";
import { describe, expect, it } from "vitest";
import type { Message, ModelRequest } from "../../src/agent/types.ts";
import { fromRequest, toRequest } from "../../src/adapters/openai-agents/request.ts";

const base = { modelSettings: {}, tools: [], handoffs: [], outputType: "text" as const, tracing: false };
const reasoning = { type: "reasoning", id: "rs_1", content: [{ type: "input_text", text: "thinking" }], providerData: { encrypted: "x" } };
const conversation: SdkRequest = {
  ...base,
  systemInstructions: "Be brief.",
  input: [
    { type: "message", role: "user", id: "u1", content: "My card is 4111 1111 1111 1111" },
    reasoning,
    { type: "function_call", id: "fc_1", callId: "c1", name: "charge", arguments: '{"card":"4111 1111 1111 1111"}', status: "completed" },
    {
      type: "function_call_result",
      callId: "c1",
      name: "charge",
      status: "completed",
      output: { type: "text", text: "charged 4111 1111 1111 1111" },
    },
    { type: "message", role: "assistant", id: "a1", status: "completed", content: [{ type: "output_text", text: "Done." }] },
  ] as SdkRequest["input"],
};

const mask = (text: string) => text.replaceAll("4111 1111 1111 1111", "[card]");
/** What a redaction hook does: every message rewritten in place, `{ ...m, content }`. */
const redacted = (req: ModelRequest): ModelRequest => ({
  ...req,
  messages: req.messages.map(
    (m): Message => ({
      ...m,
      content: mask(m.content),
      ...(m.toolCalls !== undefined
        ? { toolCalls: m.toolCalls.map((c) => ({ ...c, input: JSON.parse(mask(JSON.stringify(c.input))) as Record<string, unknown> })) }
        : {}),
    }),
  ),
});

describe("openai-agents request mapping", () => {
  it("shows each message, call and result as a message, and leaves out items with no twin", () => {
    const { request } = toRequest(conversation, "gpt-4.1", false);
    expect(request.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "My card is 4111 1111 1111 1111" },
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "charge", input: { card: "4111 1111 1111 1111" } }] },
      { role: "tool", content: "charged 4111 1111 1111 1111", toolCallId: "c1", toolName: "charge" },
      { role: "assistant", content: "Done." },
    ]);
  });

  it("writes a rewrite made in place into each item, keeping ids, provider data and the reasoning item where it was", () => {
    const mapped = toRequest(conversation, "gpt-4.1", false);
    const out = fromRequest(conversation, mapped, redacted(mapped.request), []);
    expect(out.systemInstructions).toBe("Be brief.");
    expect(out.input).toEqual([
      { type: "message", role: "user", id: "u1", content: "My card is [card]" },
      reasoning,
      { type: "function_call", id: "fc_1", callId: "c1", name: "charge", arguments: '{"card":"[card]"}', status: "completed" },
      { type: "function_call_result", callId: "c1", name: "charge", status: "completed", output: { type: "text", text: "charged [card]" } },
      { type: "message", role: "assistant", id: "a1", status: "completed", content: [{ type: "output_text", text: "Done." }] },
    ]);
    expect((out.input as unknown[])[1]).toBe(reasoning);
    expect((out.input as unknown[])[4]).toBe((conversation.input as unknown[])[4]);
    expect(JSON.stringify(conversation.input)).toContain("4111 1111 1111 1111");
  });

  it("keeps items with no twin in order when a hook drops a message, and adds new messages as new items", () => {
    const mapped = toRequest(conversation, "gpt-4.1", false);
    const [system, user, , , answer] = mapped.request.messages as Message[];
    const out = fromRequest(
      conversation,
      mapped,
      { ...mapped.request, messages: [system as Message, user as Message, answer as Message, { role: "user", content: "And now?" }] },
      [],
    );
    expect(out.input).toEqual([
      (conversation.input as unknown[])[0],
      reasoning,
      (conversation.input as unknown[])[4],
      { type: "message", role: "user", content: "And now?" },
    ]);
  });

  it("makes a new leading system message part of the instructions, and a hook's context follows them", () => {
    const mapped = toRequest(conversation, "gpt-4.1", false);
    const messages = [{ role: "system" as const, content: "Never share card numbers." }, ...mapped.request.messages];
    const out = fromRequest(conversation, mapped, { ...mapped.request, messages }, ["Answer in French."]);
    expect(out.systemInstructions).toBe("Never share card numbers.\n\nBe brief.\n\nAnswer in French.");
    expect(out.input).toEqual(conversation.input);
  });

  it("gives back the SDK's own request when nothing changed, and leaves the SDK's request untouched when something did", () => {
    const mapped = toRequest(conversation, "gpt-4.1", false);
    expect(fromRequest(conversation, mapped, mapped.request, [])).toBe(conversation);
    const before = JSON.stringify(conversation);
    fromRequest(conversation, mapped, { ...redacted(mapped.request), temperature: 0 }, ["x"]);
    expect(JSON.stringify(conversation)).toBe(before);
  });

  it("keeps a text input text when a hook only rewrote it", () => {
    const sdk: SdkRequest = { ...base, input: "call me at 555-0100" };
    const mapped = toRequest(sdk, "m", false);
    const out = fromRequest(
      sdk,
      mapped,
      { ...mapped.request, messages: mapped.request.messages.map((m) => ({ ...m, content: "call me at [phone]" })) },
      [],
    );
    expect(out.input).toBe("call me at [phone]");
  });

  it("offers only the tools and handoffs hooks kept, with the description a hook gave", () => {
    const sdk: SdkRequest = {
      ...base,
      input: "hi",
      tools: [
        {
          type: "function",
          name: "search",
          description: "Search",
          parameters: { type: "object", properties: {}, required: [], additionalProperties: false },
          strict: true,
        },
        {
          type: "function",
          name: "wipe",
          description: "Wipe",
          parameters: { type: "object", properties: {}, required: [], additionalProperties: false },
          strict: true,
        },
      ],
      handoffs: [
        {
          toolName: "transfer_to_billing",
          toolDescription: "Billing",
          inputJsonSchema: { type: "object", properties: {}, required: [], additionalProperties: false },
          strictJsonSchema: true,
        },
      ],
    };
    const mapped = toRequest(sdk, "m", false);
    expect(mapped.request.tools?.map((t) => t.name)).toEqual(["search", "wipe", "transfer_to_billing"]);
    const out = fromRequest(
      sdk,
      mapped,
      { ...mapped.request, tools: [{ name: "search", description: "Search the docs only" }, { name: "invented" }] },
      [],
    );
    expect(out.tools).toMatchObject([{ name: "search", description: "Search the docs only" }]);
    expect(out.handoffs).toEqual([]);
  });
});
