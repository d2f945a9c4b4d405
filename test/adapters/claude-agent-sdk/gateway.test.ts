/**
 * `claudeModelGateway` over real HTTP: Anthropic's own TypeScript SDK as the client, the rig's mock
 * Messages API (or a server replaying a recorded stream) as the upstream.
 */
import Anthropic from "@anthropic-ai/sdk";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { claudeModelGateway, type ClaudeModelGateway } from "../../../src/adapters/claude-agent-sdk/index.ts";
import { createAgentStack, type AgentStack } from "../../../src/agent/stack.ts";
import { outputGate } from "../../../src/agent/stream/hooks.ts";
import type { ModelRequest, ModelResponse } from "../../../src/agent/types.ts";
import { Continue, Transform } from "../../../src/core/action.ts";
import { startMockAnthropic, type MockAnthropic, type MockTurn } from "../../support/claude-code/mock-anthropic.ts";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const mock = async (turns: readonly MockTurn[]): Promise<MockAnthropic> => {
  const api = await startMockAnthropic({ turns, isScripted: () => true }, 0);
  closers.push(() => api.close());
  return api;
};

const gateway = async (stack: AgentStack, upstream: string, holdBack?: { window: number }): Promise<ClaudeModelGateway> => {
  const gw = await claudeModelGateway(stack, { upstream, ...(holdBack ? { holdBack } : {}) });
  closers.push(() => gw.close());
  return gw;
};

const client = (gw: ClaudeModelGateway) => new Anthropic({ baseURL: gw.url, apiKey: "sk-ant-api03-test", maxRetries: 0 });

/** A stack that records what its modelCall hooks saw. */
const observing = () => {
  const requests: ModelRequest[] = [];
  const responses: ModelResponse[] = [];
  const stack = createAgentStack().use("modelCall", {
    name: "observe",
    before: (request) => void requests.push(request as ModelRequest),
    after: (response) => void responses.push(response as ModelResponse),
  });
  return { stack, requests, responses };
};

/** What Claude Code sends: cache breakpoints, thinking with its signature, an image, tool results. */
const claudeCodeBody = {
  model: "claude-opus-5-5",
  max_tokens: 32_000,
  system: [
    { type: "text", text: "x-anthropic-billing-header: cc" },
    { type: "text", text: "You are a Claude agent.", cache_control: { type: "ephemeral" } },
  ],
  messages: [
    {
      role: "user",
      content: [
        { type: "text", text: "<system-reminder>attribution</system-reminder>" },
        { type: "text", text: "Deploy with key sk-live-abc123" },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "I should run the deploy.", signature: "sig-1" },
        { type: "text", text: "Running it." },
        { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "deploy --key sk-live-abc123" } },
      ],
    },
    {
      role: "user",
      content: [
        { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
        {
          type: "tool_result",
          tool_use_id: "toolu_1",
          content: "deployed with sk-live-abc123",
          is_error: false,
          cache_control: { type: "ephemeral" },
        },
      ],
    },
  ],
  tools: [{ name: "Bash", description: "Run a command", input_schema: { type: "object", properties: { command: { type: "string" } } } }],
  metadata: { user_id: "u-1" },
  stream: false,
};

const post = (gw: ClaudeModelGateway, body: unknown, path = "/v1/messages") =>
  fetch(`${gw.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "sk-ant-api03-test", "anthropic-version": "2023-06-01" },
    body: JSON.stringify(body),
  });

describe("claudeModelGateway: requests", () => {
  it("shows hooks the conversation as messages and passes an unchanged request on as it came", async () => {
    const api = await mock(["ok"]);
    const { stack, requests } = observing();
    const gw = await gateway(stack, api.url!);
    expect((await post(gw, claudeCodeBody)).status).toBe(200);
    expect(api.requests[0]?.body).toEqual(claudeCodeBody);
    expect(requests[0]).toEqual({
      model: "claude-opus-5-5",
      maxOutputTokens: 32_000,
      // The API the gateway speaks, and its upstream.
      provider: "anthropic",
      server: { address: "127.0.0.1", port: Number(new URL(api.url!).port) },
      messages: [
        { role: "system", content: "x-anthropic-billing-header: cc\nYou are a Claude agent." },
        { role: "user", content: "<system-reminder>attribution</system-reminder>" },
        { role: "user", content: "Deploy with key sk-live-abc123" },
        {
          role: "assistant",
          content: "Running it.",
          toolCalls: [{ id: "toolu_1", name: "Bash", input: { command: "deploy --key sk-live-abc123" } }],
        },
        { role: "tool", content: "deployed with sk-live-abc123", toolCallId: "toolu_1", toolName: "Bash" },
      ],
      tools: [{ name: "Bash", description: "Run a command", inputSchema: { type: "object", properties: { command: { type: "string" } } } }],
    });
  });

  it("writes a rewrite into the blocks it changed, keeping thinking, images and cache breakpoints", async () => {
    const api = await mock(["ok"]);
    const redact = (s: string) => s.replaceAll("sk-live-abc123", "[redacted]");
    const stack = createAgentStack().use("modelCall", {
      name: "redact",
      before: (request) =>
        Transform({
          ...request,
          messages: request.messages.map((m) => ({
            ...m,
            content: redact(m.content),
            ...(m.toolCalls ? { toolCalls: m.toolCalls.map((c) => ({ ...c, input: { command: redact(String(c.input.command)) } })) } : {}),
          })),
        }),
    });
    const gw = await gateway(stack, api.url!);
    await post(gw, claudeCodeBody);
    const sent = api.requests[0]?.body as unknown as typeof claudeCodeBody;
    expect(JSON.stringify(sent)).not.toContain("sk-live-abc123");
    expect(sent.system).toEqual(claudeCodeBody.system);
    expect(sent.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "<system-reminder>attribution</system-reminder>" },
          { type: "text", text: "Deploy with key [redacted]" },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "I should run the deploy.", signature: "sig-1" },
          { type: "text", text: "Running it." },
          { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "deploy --key [redacted]" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
          { type: "tool_result", tool_use_id: "toolu_1", content: "deployed with [redacted]", cache_control: { type: "ephemeral" } },
        ],
      },
    ]);
    expect({ ...sent, messages: undefined }).toEqual({ ...claudeCodeBody, messages: undefined });
  });

  it("adds context hooks give at the end of the system prompt", async () => {
    const api = await mock(["ok"]);
    const stack = createAgentStack().use("modelCall", { name: "policy", before: (_r, ctx) => void ctx.addContext("Never print keys.") });
    const gw = await gateway(stack, api.url!);
    await post(gw, claudeCodeBody);
    expect(api.requests[0]?.body?.system).toEqual([...claudeCodeBody.system, { type: "text", text: "Never print keys." }]);
  });

  it("passes other paths, and every call of a stack without modelCall hooks, through untouched", async () => {
    const api = await mock(["ok"]);
    const gw = await gateway(createAgentStack().use("toolCall", { name: "t", before: () => Continue }), api.url!);
    const counted = await post(gw, { model: "m", messages: [] }, "/v1/messages/count_tokens");
    expect(await counted.json()).toEqual({ input_tokens: 100 });
    await post(gw, claudeCodeBody);
    expect(api.requests.map((r) => r.path)).toEqual(["/v1/messages/count_tokens", "/v1/messages"]);
    expect(api.requests[1]?.body).toEqual(claudeCodeBody);
  });
});

describe("claudeModelGateway: responses", () => {
  it("gives after hooks the text, tool calls and usage, and writes their rewrite into the API's response", async () => {
    const api = await mock([{ text: "Run it.", toolUses: [{ name: "Bash", input: { command: "rm -rf /tmp/x" }, id: "toolu_9" }] }]);
    const { stack: observed, responses } = observing();
    const stack = observed.use("modelCall", {
      name: "safer",
      after: (r) =>
        Transform({ ...r, text: "Run it safely.", toolCalls: r.toolCalls.map((c) => ({ ...c, input: { command: "ls /tmp/x" } })) }),
    });
    const gw = await gateway(stack, api.url!);
    const message = await client(gw).messages.create({
      model: "claude-opus-5-5",
      max_tokens: 100,
      messages: [{ role: "user", content: "go" }],
    });
    // The observer is outside the rewriting hook: it sees the rewrite, with the API's usage.
    expect(responses[0]).toMatchObject({ text: "Run it safely.", finishReason: "tool-calls", usage: { inputTokens: 12, outputTokens: 7 } });
    expect(message.content).toEqual([
      { type: "text", text: "Run it safely." },
      { type: "tool_use", id: "toolu_9", name: "Bash", input: { command: "ls /tmp/x" } },
    ]);
    expect(message).toMatchObject({ stop_reason: "tool_use", usage: { input_tokens: 12, output_tokens: 7 } });
  });

  it("streams a gated answer that Anthropic's SDK reads as it reads the API's own stream", async () => {
    const api = await mock([
      { text: "The deploy key is SECRET-42, keep it.", toolUses: [{ name: "Bash", input: { command: "echo done" }, id: "toolu_5" }] },
    ]);
    const { stack: observed, responses } = observing();
    const stack = observed.use(
      "modelCall",
      outputGate({
        name: "no-secret",
        holdBack: { window: 16 },
        check: (t) => (t.includes("SECRET-42") ? Transform(t.replaceAll("SECRET-42", "[withheld]")) : Continue),
      }),
    );
    const gw = await gateway(stack, api.url!);
    const stream = client(gw).messages.stream({ model: "claude-opus-5-5", max_tokens: 100, messages: [{ role: "user", content: "go" }] });
    let streamed = "";
    stream.on("text", (t) => (streamed += t));
    const message = await stream.finalMessage();
    expect(streamed).toBe("The deploy key is [withheld], keep it.");
    expect(message.content).toEqual([
      { type: "text", text: "The deploy key is [withheld], keep it." },
      { type: "tool_use", id: "toolu_5", name: "Bash", input: { command: "echo done" } },
    ]);
    expect(message).toMatchObject({ stop_reason: "tool_use", usage: { input_tokens: 12, output_tokens: 7 } });
    expect(responses[0]).toMatchObject({ text: "The deploy key is [withheld], keep it.", usage: { inputTokens: 12, outputTokens: 7 } });
  });

  it("relays the API's error status and body, and answers a hook's failure with a 400 that names it", async () => {
    const api = await mock([{ error: { status: 429, type: "rate_limit_error", message: "slow down" } }]);
    const gw = await gateway(observing().stack, api.url!);
    const limited = await post(gw, claudeCodeBody);
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ type: "error", error: { type: "rate_limit_error", message: "slow down" } });
    const broken = await gateway(
      createAgentStack().use("modelCall", {
        name: "broken",
        failMode: "closed",
        before: () => {
          throw new Error("policy store down");
        },
      }),
      api.url!,
    );
    const refused = await post(broken, claudeCodeBody);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
      'hook "broken" failed in before on modelCall: threw: policy store down',
    );
  });
});

/** A recorded stream with a thinking block, replayed by a real server. */
const thinkingStream = [
  {
    type: "message_start",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-opus-5-5",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 20, cache_read_input_tokens: 100, output_tokens: 1 },
    },
  },
  { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Check the logs first." } },
  { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig-abc" } },
  { type: "content_block_stop", index: 0 },
  { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Reading " } },
  { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "the logs." } },
  { type: "content_block_stop", index: 1 },
  { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 30 } },
  { type: "message_stop" },
];

describe("claudeModelGateway: blocks hooks cannot see", () => {
  it("sends a thinking block on with its signature, and counts cached input tokens", async () => {
    const server: Server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const e of thinkingStream) res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { stack, responses } = observing();
    const gw = await gateway(stack, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const message = await client(gw)
      .messages.stream({ model: "claude-opus-5-5", max_tokens: 100, messages: [{ role: "user", content: "go" }] })
      .finalMessage();
    expect(message.content).toEqual([
      { type: "thinking", thinking: "Check the logs first.", signature: "sig-abc" },
      { type: "text", text: "Reading the logs." },
    ]);
    expect(message.usage).toMatchObject({ input_tokens: 20, cache_read_input_tokens: 100, output_tokens: 30 });
    expect(responses[0]).toMatchObject({ text: "Reading the logs.", finishReason: "stop", usage: { inputTokens: 120, outputTokens: 30 } });
  });
});
