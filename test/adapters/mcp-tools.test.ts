import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema, CallToolResultSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type McpCallToolParams, wrapMcpClient, type WrapMcpClientOptions } from "../../src/adapters/mcp.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { Transform } from "../../src/core/index.ts";
import { toolPolicy, withMiddleware } from "../../src/middleware/index.ts";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const linked = async (server: Server | McpServer) => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "app", version: "1.0.0" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  open.push(client, server);
  return client;
};

/**
 * A server (the SDK's low-level one) that lists `delete_repo` and `search` but finds a tool by a
 * looser name than it lists: case and Unicode compatibility forms folded, as some servers do.
 */
const looseServer = async () => {
  const server = new Server({ name: "loose", version: "1.0.0" }, { capabilities: { tools: {} } });
  const ran: string[] = [];
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: ["delete_repo", "search"].map((name) => ({ name, inputSchema: { type: "object" as const } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const name = request.params.name.normalize("NFKC").toLowerCase();
    ran.push(name);
    return { content: [{ type: "text", text: `ran ${name}` }] };
  });
  return { client: await linked(server), ran };
};

const noDelete = () => withMiddleware(createAgentStack(), toolPolicy({ deny: ["delete_repo"] }));

const wrap = (client: Client, options?: WrapMcpClientOptions) => wrapMcpClient(noDelete(), client, options);

describe("wrapMcpClient and the tools the server listed", () => {
  it("refuses a call whose name differs from a listed tool only by case, which a loose server would run", async () => {
    const { client, ran } = await looseServer();
    const wrapped = wrap(client);
    await wrapped.listTools();
    const result = await wrapped.callTool({ name: "Delete_Repo", arguments: {} });
    expect(result).toEqual({ isError: true, content: [{ type: "text", text: "MCP error -32602: Tool Delete_Repo not found" }] });
    expect(ran).toEqual([]);
  });

  it("refuses a Unicode look-alike of a listed name without the caller listing the tools first", async () => {
    const { client, ran } = await looseServer();
    const wrapped = wrap(client);
    // A fullwidth "ｄ", which NFKC folds to "d".
    expect((await wrapped.callTool({ name: "ｄelete_repo", arguments: {} })).isError).toBe(true);
    expect((await wrapped.callTool({ name: "search", arguments: {} })).content).toEqual([{ type: "text", text: "ran search" }]);
    expect(ran).toEqual(["search"]);
  });

  it("refuses the look-alike on every way to a tools/call: request and the streamed request", async () => {
    const { client, ran } = await looseServer();
    const wrapped = wrap(client);
    const viaRequest = await wrapped.request(
      { method: "tools/call", params: { name: "DELETE_REPO", arguments: {} } },
      CallToolResultSchema,
    );
    expect(viaRequest.isError).toBe(true);
    const streaming = wrapped as unknown as { requestStream: (r: unknown, s: unknown) => AsyncIterable<unknown> };
    const messages = [];
    for await (const m of streaming.requestStream(
      { method: "tools/call", params: { name: "DELETE_REPO", arguments: {} } },
      CallToolResultSchema,
    ))
      messages.push(m);
    expect(messages).toEqual([{ type: "result", result: expect.objectContaining({ isError: true }) }]);
    expect(ran).toEqual([]);
  });

  it("refuses the name a hook renamed the call to when the server did not list it", async () => {
    const { client, ran } = await looseServer();
    const stack = createAgentStack().use("toolCall", { name: "rename", before: (c) => Transform({ ...c, name: "Delete_Repo" }) });
    expect((await wrapMcpClient(stack, client).callTool({ name: "search", arguments: {} })).isError).toBe(true);
    expect(ran).toEqual([]);
  });

  it("answers an unlisted name as the SDK's own server answers a tool it does not have", async () => {
    const server = new McpServer({ name: "repos", version: "1.0.0" });
    server.registerTool("delete_repo", { inputSchema: { repo: z.string() } }, () => ({ content: [{ type: "text", text: "deleted" }] }));
    const client = await linked(server);
    const own = await client.callTool({ name: "nope", arguments: {} });
    expect(await wrap(client).callTool({ name: "nope", arguments: {} })).toEqual(own);
  });

  it("calls a tool the server added after the client listed its tools", async () => {
    const server = new McpServer({ name: "repos", version: "1.0.0" });
    server.registerTool("search", { inputSchema: {} }, () => ({ content: [{ type: "text", text: "found" }] }));
    const client = await linked(server);
    const wrapped = wrap(client);
    await wrapped.listTools();
    server.registerTool("archive", { inputSchema: {} }, () => ({ content: [{ type: "text", text: "archived" }] }));
    expect((await wrapped.callTool({ name: "archive", arguments: {} })).content).toEqual([{ type: "text", text: "archived" }]);
  });

  it("sends a name the server did not list when told to", async () => {
    const { client, ran } = await looseServer();
    const result = await wrap(client, { unlistedTools: "send" }).callTool({ name: "Delete_Repo", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: "ran delete_repo" }]);
    expect(ran).toEqual(["delete_repo"]);
  });

  it("lists a client's tools once for every wrapper of it, as an app that wraps the client per request does", async () => {
    const { client } = await looseServer();
    const lists: unknown[] = [];
    const request = client.request.bind(client) as (...args: unknown[]) => unknown;
    client.request = ((...args: unknown[]) => {
      if ((args[0] as { method?: unknown }).method === "tools/list") lists.push(args[0]);
      return request(...args);
    }) as typeof client.request;
    for (let i = 0; i < 3; i++) await wrap(client).callTool({ name: "search", arguments: {} });
    expect(lists).toHaveLength(1);
  });

  it("refuses an unlistedTools it does not know when wrapping, naming the option", async () => {
    const { client } = await looseServer();
    expect(() => wrap(client, { unlistedTools: "allow" as never })).toThrow(
      'wrapMcpClient: unlistedTools must be "refuse" or "send" when given, got "allow"',
    );
  });

  it("lets a caller's abort end its own call while the tools are being listed, not another call waiting for the listing", async () => {
    const server = new Server({ name: "slow-list", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { tools: [{ name: "search", inputSchema: { type: "object" as const } }] };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request) => ({
      content: [{ type: "text", text: `ran ${request.params.name}` }],
    }));
    const wrapped = wrap(await linked(server));
    const controller = new AbortController();
    const first = wrapped.callTool({ name: "search", arguments: {} }, undefined, { signal: controller.signal });
    const second = wrapped.callTool({ name: "search", arguments: {} });
    setTimeout(() => controller.abort(new Error("user pressed stop")), 10);
    await expect(first).rejects.toThrow("user pressed stop");
    expect((await second).content).toEqual([{ type: "text", text: "ran search" }]);
  });

  it("sends every call of a client whose request answers no tool list, as it cannot tell the server's tools", async () => {
    const sent: string[] = [];
    const client = {
      callTool: async (params: McpCallToolParams) => (sent.push(params.name), { content: [{ type: "text", text: "ok" }] }),
      request: async () => ({}),
    };
    const result = await wrapMcpClient(noDelete(), client).callTool({ name: "search", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: "ok" }]);
    expect(sent).toEqual(["search"]);
  });
});
