/**
 * `claudeModelGateway` and the thinking of an answer, over real HTTP: Anthropic's own TypeScript
 * SDK as the client, a server answering as the Messages API does (JSON, or a recorded stream).
 */
import Anthropic from "@anthropic-ai/sdk";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { claudeModelGateway } from "../../../src/adapters/claude-agent-sdk/index.ts";
import { createAgentStack } from "../../../src/agent/stack.ts";
import type { ModelResponse } from "../../../src/agent/types.ts";
import { redaction, withMiddleware } from "../../../src/middleware/index.ts";

const KEY = "AKIAIOSFODNN7EXAMPLE";
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** An upstream that answers every call with `json`, or with `events` as a stream. */
const upstream = async (
  answer: { json?: object; events?: readonly Record<string, unknown>[] },
  bodies: unknown[] = [],
): Promise<string> => {
  const server = createServer(async (req, res) => {
    let text = "";
    for await (const chunk of req) text += String(chunk);
    bodies.push(JSON.parse(text));
    if (answer.json !== undefined) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(answer.json));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (const e of answer.events ?? []) res.write(`event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const redactingClient = async (url: string, seen: ModelResponse[] = []) => {
  const stack = withMiddleware(createAgentStack(), redaction()).use("modelCall", {
    name: "watch",
    after: (r) => void seen.push(r as ModelResponse),
  });
  const gw = await claudeModelGateway(stack, { upstream: url });
  closers.push(() => gw.close());
  return new Anthropic({ baseURL: gw.url, apiKey: "sk-ant-api03-test", maxRetries: 0 });
};

const message = (thinking: string) => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-opus-5-5",
  content: [
    { type: "thinking", thinking, signature: "sig-abc" },
    { type: "text", text: "Reading the logs." },
  ],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 20, output_tokens: 30 },
});

const events = (thinking: readonly string[]) => [
  { type: "message_start", message: { ...message(""), content: [], stop_reason: null, usage: { input_tokens: 20, output_tokens: 1 } } },
  { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
  ...thinking.map((t) => ({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: t } })),
  { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig-abc" } },
  { type: "content_block_stop", index: 0 },
  { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Reading the logs." } },
  { type: "content_block_stop", index: 1 },
  { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 30 } },
  { type: "message_stop" },
];

const ask = { model: "claude-opus-5-5", max_tokens: 100, messages: [{ role: "user" as const, content: "go" }] };

describe("claudeModelGateway and thinking", () => {
  it("redacts a secret in a thinking block, shows hooks it as reasoning, and drops the signature that would not match", async () => {
    const seen: ModelResponse[] = [];
    const client = await redactingClient(await upstream({ json: message(`the key is ${KEY}`) }), seen);
    const answer = await client.messages.create(ask);
    expect(seen[0]?.parts).toEqual([{ type: "reasoning", text: "the key is [REDACTED:api_key]" }]);
    expect(answer.content).toEqual([
      { type: "thinking", thinking: "the key is [REDACTED:api_key]" },
      { type: "text", text: "Reading the logs." },
    ]);
  });

  it("redacts a secret split across streamed thinking deltas, and drops its signature", async () => {
    const client = await redactingClient(await upstream({ events: events(["the key is AKIAIOSF", "ODNN7EXAMPLE, fine"]) }));
    const stream = client.messages.stream(ask);
    const raw: unknown[] = [];
    stream.on("streamEvent", (e) => void raw.push(e));
    const answer = await stream.finalMessage();
    expect(JSON.stringify(raw)).not.toContain("AKIAIOSF");
    expect(answer.content[0]).toEqual({ type: "thinking", thinking: "the key is [REDACTED:api_key], fine" });
  });

  it("streams clean thinking as the API sent it, signature and all", async () => {
    const client = await redactingClient(await upstream({ events: events(["Check the ", "logs first."]) }));
    const answer = await client.messages.stream(ask).finalMessage();
    expect(answer.content[0]).toEqual({ type: "thinking", thinking: "Check the logs first.", signature: "sig-abc" });
  });

  it("leaves out of the request a thinking block Claude Code sends back without its signature, which the API refuses", async () => {
    const bodies: unknown[] = [];
    const client = await redactingClient(await upstream({ json: message("plain") }, bodies));
    await client.messages.create({
      ...ask,
      messages: [
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "the key is [REDACTED:api_key]" } as never,
            { type: "thinking", thinking: "then read the logs", signature: "sig-2" },
            { type: "text", text: "Reading." },
          ],
        },
        { role: "user", content: "and?" },
      ],
    });
    expect((bodies[0] as { messages: { content: unknown }[] }).messages[1]?.content).toEqual([
      { type: "thinking", thinking: "then read the logs", signature: "sig-2" },
      { type: "text", text: "Reading." },
    ]);
  });
});
