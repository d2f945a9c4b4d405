import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { wrapMcpClient } from "../../src/adapters/mcp.ts";
import type { McpStreamMessage } from "../../src/adapters/mcp-stream.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { Reject, Replace, Transform } from "../../src/core/index.ts";
import type { ToolResult } from "../../src/agent/types.ts";

const forecast = { type: "object", properties: { city: { type: "string" }, celsius: { type: "number" } }, required: ["city", "celsius"] };

/**
 * A real MCP server (the SDK's low-level `Server`, which, unlike `McpServer`, sends whatever its
 * handler returns) with two tools declaring the `forecast` output schema: `weather` answers as it
 * declares, `broken` answers what `answers` holds (to see what the SDK's client does with it).
 * And `echo`, with no output schema.
 */
const connect = async (answers: { broken?: object } = {}) => {
  const server = new Server({ name: "typed-server", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      { name: "weather", inputSchema: { type: "object" }, outputSchema: forecast },
      { name: "broken", inputSchema: { type: "object" }, outputSchema: forecast },
      { name: "echo", inputSchema: { type: "object" } },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    if (params.name === "broken") return answers.broken ?? {};
    if (params.name === "echo") return { content: [{ type: "text", text: JSON.stringify(params.arguments) }] };
    return { content: [{ type: "text", text: "Oslo: 21 °C" }], structuredContent: { city: "Oslo", celsius: 21 } };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "test-client", version: "1.0.0" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  open.push(client, server);
  return client;
};

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** What a caller can tell of an error: its class, code and message. */
const seen = (error: unknown) => ({
  mcp: error instanceof McpError,
  code: (error as { code?: unknown }).code,
  message: (error as Error).message,
});

const afterHook = (rewrite: (result: ToolResult) => ToolResult) =>
  createAgentStack().use("toolCall", { name: "rewrite", after: (r) => Transform(rewrite(r as ToolResult)) });

const warm = (r: ToolResult) => ({ ...r, structuredContent: { city: "Oslo", celsius: "warm" } });

describe("wrapMcpClient, results hooks settled on, against the tool's outputSchema", () => {
  it("fails callTool on a result an after hook made that breaks the schema, exactly as the SDK fails a server's result that does", async () => {
    const client = await connect({ broken: { content: [], structuredContent: { city: "Oslo", celsius: "warm" } } });
    await client.listTools();
    const direct = await client.callTool({ name: "broken" }).catch((e: unknown) => e);
    const wrapped = await wrapMcpClient(afterHook(warm), client)
      .callTool({ name: "weather" })
      .catch((e: unknown) => e);
    expect(seen(wrapped)).toEqual({
      mcp: true,
      code: ErrorCode.InvalidParams,
      message: "MCP error -32602: Structured content does not match the tool's output schema: data/celsius must be number",
    });
    expect(seen(wrapped)).toEqual(seen(direct));
  });

  it("fails a Replace without structured content (a cache's text) as the SDK fails a server that gives none", async () => {
    const client = await connect({ broken: { content: [{ type: "text", text: "21 °C" }] } });
    await client.listTools();
    const direct = await client.callTool({ name: "broken" }).catch((e: unknown) => e);
    const cache = createAgentStack().use("toolCall", { name: "cache", before: () => Replace({ content: "21 °C" }) });
    const wrapped = await wrapMcpClient(cache, client)
      .callTool({ name: "broken" })
      .catch((e: unknown) => e);
    expect(seen(wrapped)).toEqual(seen(direct));
    expect(seen(wrapped)).toEqual({
      mcp: true,
      code: ErrorCode.InvalidRequest,
      message: "MCP error -32600: Tool broken has an output schema but did not return structured content",
    });
  });

  it("passes a rewrite that keeps the schema, such as a redaction of the text", async () => {
    const client = await connect();
    await client.listTools();
    const redacted = afterHook((r) => ({
      ...r,
      content: [{ type: "text", text: "[city]: 21 °C" }],
      structuredContent: { city: "[city]", celsius: 21 },
    }));
    const result = await wrapMcpClient(redacted, client).callTool({ name: "weather" });
    expect(result.structuredContent).toEqual({ city: "[city]", celsius: 21 });
  });

  it("passes a rejection, which is an error result, and checks a custom rejected result as any other", async () => {
    const client = await connect();
    await client.listTools();
    const deny = createAgentStack().use("toolCall", { name: "deny", before: () => Reject("not today") });
    expect((await wrapMcpClient(deny, client).callTool({ name: "weather" })).isError).toBe(true);
    const custom = wrapMcpClient(deny, client, { rejected: (reason) => ({ content: [{ type: "text", text: reason }] }) });
    expect(seen(await custom.callTool({ name: "weather" }).catch((e: unknown) => e))).toMatchObject({
      mcp: true,
      code: ErrorCode.InvalidRequest,
    });
  });

  it("checks what the caller's tool declares when a hook sent the call to another tool", async () => {
    const client = await connect();
    await client.listTools();
    const reroute = createAgentStack().use("toolCall", { name: "reroute", before: (c) => Transform({ ...c, name: "echo" }) });
    const error = await wrapMcpClient(reroute, client)
      .callTool({ name: "weather" })
      .catch((e: unknown) => e);
    expect(seen(error)).toEqual({
      mcp: true,
      code: ErrorCode.InvalidRequest,
      message: "MCP error -32600: Tool weather has an output schema but did not return structured content",
    });
  });

  it("checks nothing before the client listed its tools, as the SDK", async () => {
    const client = await connect({ broken: { content: [], structuredContent: { celsius: "warm" } } });
    expect((await client.callTool({ name: "broken" })).structuredContent).toEqual({ celsius: "warm" });
    expect((await wrapMcpClient(afterHook(warm), client).callTool({ name: "weather" })).structuredContent).toEqual({
      city: "Oslo",
      celsius: "warm",
    });
  });

  it("checks nothing on request(), which the SDK does not check either", async () => {
    const client = await connect({ broken: { content: [], structuredContent: { celsius: "warm" } } });
    await client.listTools();
    const request = (name: string) => ({ method: "tools/call" as const, params: { name, arguments: {} } });
    expect((await client.request(request("broken"), CallToolResultSchema)).structuredContent).toEqual({ celsius: "warm" });
    const wrapped = await wrapMcpClient(afterHook(warm), client).request(request("weather"), CallToolResultSchema);
    expect(wrapped.structuredContent).toEqual({ city: "Oslo", celsius: "warm" });
  });

  it("ends experimental.tasks.callToolStream with the SDK's error message for a result that breaks the schema", async () => {
    const client = await connect({ broken: { content: [], structuredContent: { city: "Oslo", celsius: "warm" } } });
    await client.listTools();
    const read = async (stream: AsyncIterable<unknown>) => {
      const messages: McpStreamMessage[] = [];
      for await (const m of stream) messages.push(m as McpStreamMessage);
      return messages.map((m) => (m.type === "error" ? { type: "error", ...seen(m.error) } : m.type));
    };
    const direct = await read(client.experimental.tasks.callToolStream({ name: "broken" }));
    const wrapped = await read(wrapMcpClient(afterHook(warm), client).experimental.tasks.callToolStream({ name: "weather" }));
    expect(wrapped).toEqual(direct);
    expect(wrapped).toEqual([
      { type: "error", mcp: true, code: ErrorCode.InvalidParams, message: expect.stringContaining("data/celsius must be number") },
    ]);
  });
});
