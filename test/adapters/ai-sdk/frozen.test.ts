/**
 * With a stack that freezes what hooks see (the default), the AI SDK adapter builds each request
 * and response frozen as it maps them, so the stack's freeze has nothing left to do: every object
 * a hook can reach is frozen, whatever the message kinds, and what the SDK owns stays unfrozen.
 */
import { generateText, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { aiSdkMiddleware } from "../../../src/adapters/ai-sdk.ts";
import { toRequest } from "../../../src/adapters/ai-sdk/prompt.ts";
import { noToolCalls, toResponse } from "../../../src/adapters/ai-sdk/response.ts";
import type { SdkCallOptions, SdkGenerateResult, SdkMessage } from "../../../src/adapters/ai-sdk/spec.ts";
import { createAgentStack } from "../../../src/agent/stack.ts";
import type { ModelRequest, ModelResponse } from "../../../src/agent/types.ts";
import { generated, usage } from "../ai-sdk-fixtures.ts";

/** Every object reachable from `value` that is not frozen, by path. */
const unfrozen = (value: unknown, path = "$", seen = new Set<object>()): string[] => {
  if (typeof value !== "object" || value === null || seen.has(value)) return [];
  seen.add(value);
  const own = Object.isFrozen(value) ? [] : [path];
  return [...own, ...Object.entries(value).flatMap(([k, v]) => unfrozen(v, `${path}.${k}`, seen))];
};

const withFunction = { path: "a.txt", toJSON: () => "a" };
const params = {
  prompt: [
    { role: "system", content: "Be brief." },
    { role: "user", content: [{ type: "text", text: "Read a.txt" }] },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Reading." },
        { type: "tool-call", toolCallId: "c1", toolName: "Read", input: { path: "a.txt", options: { lines: [1, 2] } } },
        { type: "tool-call", toolCallId: "c2", toolName: "Read", input: withFunction },
        { type: "tool-call", toolCallId: "c3", toolName: "Echo", input: ["not", "a", "record"] },
      ],
    },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "Read", output: { type: "text", value: "hi" } }] },
    { role: "tool", content: [{ type: "tool-approval-response", approvalId: "p1", approved: false, reason: "no" }] },
    { role: "tool", content: [] },
  ] as SdkMessage[],
  tools: [{ type: "function", name: "Read", description: "Read a file", inputSchema: { type: "object", properties: {} } }],
} as SdkCallOptions;

describe("the AI SDK adapter's mapping for a stack that freezes", () => {
  it("builds every object of a request frozen, and leaves the SDK's own objects alone", () => {
    const { request } = toRequest(params, "gpt", false, "openai", { address: "api.openai.com", port: 443 }, true);
    expect(unfrozen(request)).toEqual([]);
    expect(request.messages).toHaveLength(6);
    expect(unfrozen(params)).toContain("$");
    expect(Object.isFrozen(withFunction)).toBe(false);
  });

  it("builds every object of a response frozen, tool call inputs included", () => {
    const result = {
      content: [
        { type: "text", text: "ok" },
        { type: "tool-call", toolCallId: "t1", toolName: "Read", input: '{"path":"b","deep":{"x":[1]}}' },
      ],
      finishReason: { unified: "tool-calls", raw: "tool_use" },
      usage: usage(3, 4),
      warnings: [],
    } as unknown as SdkGenerateResult;
    const response = toResponse(result, { model: "m", messages: [] }, true);
    expect(unfrozen(response)).toEqual([]);
    expect(response.toolCalls[0]?.input).toEqual({ path: "b", deep: { x: [1] } });
    const estimated = toResponse(
      { ...result, usage: { inputTokens: { total: undefined }, outputTokens: { total: undefined } } } as never,
      {
        model: "m",
        messages: [],
      },
      true,
    );
    expect(estimated.usageEstimated).toBe(true);
    expect(unfrozen(estimated)).toEqual([]);
  });

  it("gives hooks a request and a response they cannot change in place, and a freeze: false stack ones they can", async () => {
    const attempts: string[] = [];
    const model = new MockLanguageModelV3({ doGenerate: async () => generated("hello") as never });
    const tryChange = (target: object, key: string): void => {
      try {
        (target as Record<string, unknown>)[key] = "changed";
        attempts.push("changed");
      } catch {
        attempts.push("refused");
      }
    };
    for (const freeze of [true, false]) {
      const stack = createAgentStack({ freeze }).use("modelCall", {
        name: "meddler",
        before: (req: ModelRequest) => void tryChange(req.messages[0] as object, "content"),
        after: (res: ModelResponse) => void tryChange(res.usage as object, "inputTokens"),
      });
      await generateText({ model: wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }), prompt: "hi" });
    }
    expect(attempts).toEqual(["refused", "refused", "changed", "changed"]);
  });

  it("shares one frozen tool call list among responses without tool calls, and gives a freeze: false stack a list of its own", () => {
    const result = generated("ok") as unknown as SdkGenerateResult;
    const request = { model: "m", messages: [] };
    expect(toResponse(result, request, true).toolCalls).toBe(noToolCalls);
    expect(toResponse(result, request, true).toolCalls).toBe(toResponse(result, request, true).toolCalls);
    const own = toResponse(result, request, false).toolCalls;
    expect(own).not.toBe(noToolCalls);
    expect(Object.isFrozen(own)).toBe(false);
  });

  it("shows every request of a model the same frozen server, copied once from the provider's configuration", async () => {
    const servers: unknown[] = [];
    const model = new MockLanguageModelV3({ doGenerate: async () => generated("hello") as never });
    const config = { url: ({ path }: { path: string }) => `https://api.example.com:8443/v1${path}` };
    Object.assign(model, { config });
    const stack = createAgentStack().use("modelCall", { name: "reader", before: (req: ModelRequest) => void servers.push(req.server) });
    const wrapped = wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) });
    await generateText({ model: wrapped, prompt: "one" });
    await generateText({ model: wrapped, prompt: "two" });
    expect(servers).toEqual([
      { address: "api.example.com", port: 8443 },
      { address: "api.example.com", port: 8443 },
    ]);
    expect(servers[0]).toBe(servers[1]);
    expect(Object.isFrozen(servers[0])).toBe(true);
    const open = createAgentStack({ freeze: false }).use("modelCall", {
      name: "reader",
      before: (req: ModelRequest) => void servers.push(req.server),
    });
    await generateText({ model: wrapLanguageModel({ model, middleware: aiSdkMiddleware(open) }), prompt: "three" });
    expect(servers[2]).toEqual({ address: "api.example.com", port: 8443 });
    expect(Object.isFrozen(servers[2])).toBe(false);
  });
});
