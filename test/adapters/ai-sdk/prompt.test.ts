import { describe, expect, it } from "vitest";
import { fromRequest, toRequest } from "../../../src/adapters/ai-sdk/prompt.ts";
import type { SdkCallOptions, SdkMessage } from "../../../src/adapters/ai-sdk/spec.ts";
import type { Message, ModelRequest } from "../../../src/agent/types.ts";

const file = { type: "file", mediaType: "image/png", data: "AAAA" };
const call = { type: "tool-call", toolCallId: "c1", toolName: "Read", input: { path: "a.txt" } };
const other = { type: "tool-call", toolCallId: "c2", toolName: "Glob", input: { pattern: "*" } };
const result1 = { type: "tool-result", toolCallId: "c1", toolName: "Read", output: { type: "text", value: "contents" } };
const result2 = { type: "tool-result", toolCallId: "c2", toolName: "Glob", output: { type: "json", value: ["a.txt"] } };
const approval = { type: "tool-approval-response", approvalId: "p1", approved: false, reason: "no" };
const readTool = { type: "function", name: "Read", description: "Read a file", inputSchema: { type: "object" } };
const globTool = { type: "function", name: "Glob", inputSchema: { type: "object" } };

/** A conversation with every kind of message the mapping knows. */
const params: SdkCallOptions & { readonly providerOptions: object } = {
  prompt: [
    { role: "system", content: "Be brief." },
    { role: "user", content: [{ type: "text", text: "Read a.txt" }, file] },
    { role: "assistant", content: [{ type: "text", text: "Reading." }, call, other] },
    { role: "tool", content: [result1, result2] },
    { role: "tool", content: [approval] },
    { role: "tool", content: [] },
  ] as SdkMessage[],
  tools: [readTool, globTool],
  temperature: 0,
  providerOptions: { any: { thing: 1 } },
};

/** What a hook settles on: the request with `change` applied to a copy of its messages. */
const changed = (request: ModelRequest, change: (messages: Message[]) => void): ModelRequest => {
  const messages = [...request.messages];
  change(messages);
  return { ...request, messages };
};

describe("toRequest", () => {
  it("gives one message per SDK message, and one per tool result", () => {
    const { request } = toRequest(params, "gpt", false);
    expect(request.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Read a.txt" },
      {
        role: "assistant",
        content: "Reading.",
        toolCalls: [
          { id: "c1", name: "Read", input: { path: "a.txt" } },
          { id: "c2", name: "Glob", input: { pattern: "*" } },
        ],
      },
      { role: "tool", content: "contents", toolCallId: "c1", toolName: "Read" },
      { role: "tool", content: '["a.txt"]', toolCallId: "c2", toolName: "Glob" },
      { role: "tool", content: "[tool approval denied: no]" },
      { role: "tool", content: "" },
    ]);
    expect(request.tools).toEqual([
      { name: "Read", description: "Read a file", inputSchema: { type: "object" } },
      { name: "Glob", inputSchema: { type: "object" } },
    ]);
    expect(request.temperature).toBe(0);
  });
});

describe("fromRequest", () => {
  it("gives back the very same params when no hook changed anything", () => {
    const mapped = toRequest(params, "gpt", false);
    expect(fromRequest(params, mapped, mapped.request, [])).toBe(params);
  });

  it("gives back every SDK message a hook kept, untouched, when another was rewritten", () => {
    const mapped = toRequest(params, "gpt", false);
    const next = fromRequest(
      params,
      mapped,
      changed(mapped.request, (m) => (m[1] = { role: "user", content: "Read b.txt" })),
      [],
    );
    expect(next.prompt[0]).toBe(params.prompt[0]);
    expect(next.prompt[1]).toEqual({ role: "user", content: [{ type: "text", text: "Read b.txt" }, file] });
    for (const i of [2, 3, 4, 5]) expect(next.prompt[i]).toBe(params.prompt[i]);
    expect(next.tools).toBe(params.tools);
    expect((next as typeof params).providerOptions).toBe(params.providerOptions);
  });

  it("rebuilds a tool message one of whose results was rewritten, keeping the other result's own part", () => {
    const mapped = toRequest(params, "gpt", false);
    const next = fromRequest(
      params,
      mapped,
      changed(mapped.request, (m) => (m[4] = { ...(m[4] as Message), content: "[redacted]" })),
      [],
    );
    expect(next.prompt).toHaveLength(6);
    expect(next.prompt[3]).toEqual({
      role: "tool",
      content: [result1, { type: "tool-result", toolCallId: "c2", toolName: "Glob", output: { type: "text", value: "[redacted]" } }],
    });
    expect((next.prompt[3] as { content: readonly unknown[] }).content[0]).toBe(result1);
    expect(next.prompt[4]).toBe(params.prompt[4]);
  });

  it("keeps a tool call's own part when a hook rewrote only the text of its message", () => {
    const mapped = toRequest(params, "gpt", false);
    const next = fromRequest(
      params,
      mapped,
      changed(mapped.request, (m) => (m[2] = { ...(m[2] as Message), content: "On it." })),
      [],
    );
    const content = (next.prompt[2] as { content: readonly unknown[] }).content;
    expect(content).toEqual([{ type: "text", text: "On it." }, call, other]);
    expect(content[1]).toBe(call);
    expect(content[2]).toBe(other);
  });

  it("builds a tool call a hook changed from what the hook says", () => {
    const mapped = toRequest(params, "gpt", false);
    const next = fromRequest(
      params,
      mapped,
      changed(mapped.request, (m) => {
        const assistant = m[2] as Message;
        m[2] = { ...assistant, toolCalls: [{ id: "c1", name: "Read", input: { path: "b.txt" } }, ...(assistant.toolCalls ?? []).slice(1)] };
      }),
      [],
    );
    const content = (next.prompt[2] as { content: readonly unknown[] }).content;
    expect(content[1]).toEqual({ type: "tool-call", toolCallId: "c1", toolName: "Read", input: { path: "b.txt" } });
    expect(content[2]).toBe(other);
  });

  it("keeps the SDK's own tool for every spec a hook kept, and makes a function tool of a new one", () => {
    const mapped = toRequest(params, "gpt", false);
    const tools = [...(mapped.request.tools ?? [])].reverse().slice(0, 1);
    const next = fromRequest(params, mapped, { ...mapped.request, tools: [...tools, { name: "Write" }] }, []);
    expect(next.tools?.[0]).toBe(globTool);
    expect(next.tools?.[1]).toEqual({ type: "function", name: "Write", inputSchema: { type: "object", properties: {} } });
    expect(next.prompt).toBe(params.prompt);
  });

  it("pairs each kept message with where it came from as the request was made, even after a hook changed the arrays in place", () => {
    const mapped = toRequest(params, "gpt", false);
    const messages = mapped.request.messages as Message[];
    const second = messages[2] as Message;
    messages.splice(1, 2); // not allowed in strict mode, possible without it
    const next = fromRequest(params, mapped, { ...mapped.request, messages: [...messages.slice(0, 1), second] }, []);
    expect(next.prompt).toHaveLength(2);
    expect(next.prompt[0]).toBe(params.prompt[0]);
    expect(next.prompt[1]).toBe(params.prompt[2]); // the assistant's own message, not a rebuilt one or another's
  });

  it("sends the messages and tools a hook assigned to the request itself (strict mode off)", () => {
    const mapped = toRequest(params, "gpt", false);
    const request = mapped.request as { -readonly [K in keyof ModelRequest]: ModelRequest[K] };
    request.messages = request.messages.slice(0, 2);
    request.tools = [];
    const next = fromRequest(params, mapped, request, []);
    expect(next.prompt).toEqual(params.prompt.slice(0, 2));
    expect(next.tools).toEqual([]);
  });

  it("gives back the params when a hook's new request keeps the messages and tools and their settings", () => {
    const mapped = toRequest(params, "gpt", false);
    expect(fromRequest(params, mapped, { ...mapped.request }, [])).toBe(params);
    expect(fromRequest(params, mapped, { ...mapped.request, temperature: 1 }, []).temperature).toBe(1);
  });
});

describe("the copies hooks see of the SDK's objects", () => {
  it("are frozen copies of each tool-call input and tool schema, made once and shown by every request that has them", () => {
    const first = toRequest(params, "gpt", false).request;
    const again = toRequest({ ...params, prompt: [...params.prompt] }, "gpt", false).request;
    const inputs = (request: ModelRequest) => [
      ...request.messages.flatMap((m) => m.toolCalls ?? []).map((c) => c.input),
      ...(request.tools ?? []).map((t) => t.inputSchema),
    ];
    expect(inputs(first)).toEqual([call.input, other.input, readTool.inputSchema, globTool.inputSchema]);
    inputs(first).forEach((input, i) => {
      expect(input).toBe(inputs(again)[i]);
      expect(Object.isFrozen(input)).toBe(true);
    });
    expect(inputs(first)[0]).not.toBe(call.input);
    for (const own of [call.input, other.input, readTool.inputSchema, globTool.inputSchema]) expect(Object.isFrozen(own)).toBe(false);
  });

  it("show an input that is not an object as { value }, and one the structured clone cannot copy as it is", () => {
    const odd = { type: "tool-call", toolCallId: "c9", toolName: "Fn", input: { run: () => 1 } };
    const listed = { type: "tool-call", toolCallId: "c8", toolName: "List", input: ["a", "b"] };
    const { request } = toRequest({ prompt: [{ role: "assistant", content: [odd, listed] }] as SdkMessage[] }, "gpt", false);
    const [fn, list] = request.messages[0]?.toolCalls ?? [];
    expect(fn?.input).toBe(odd.input);
    expect(list?.input).toEqual({ value: ["a", "b"] });
    expect(list?.input.value).not.toBe(listed.input);
  });
});
