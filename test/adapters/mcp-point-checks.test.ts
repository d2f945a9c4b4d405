import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { wrapMcpClient } from "../../src/adapters/mcp.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { type HookError, Replace, Transform } from "../../src/core/index.ts";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** A real MCP server with an `echo` tool, and the calls it ran. */
const connect = async () => {
  const server = new McpServer({ name: "test-server", version: "1.0.0" });
  const ran: string[] = [];
  server.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => {
    ran.push(text);
    return { content: [{ type: "text", text: `echo: ${text}` }] };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "test-client", version: "1.0.0" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  open.push(client, server);
  return { client, ran };
};

describe("wrapMcpClient and a hook's answer the toolCall point refuses", () => {
  it('a Replace("text") is the hook\'s invalid-action failure: the client reads a rejection naming the hook, the server is not called', async () => {
    const { client, ran } = await connect();
    const failures: HookError[] = [];
    const stack = createAgentStack({ onFailure: (e) => failures.push(e) }).use("toolCall", {
      name: "cache",
      before: () => Replace("cached" as never),
    });

    const result = await wrapMcpClient(stack, client).callTool({ name: "echo", arguments: { text: "hi" } });

    expect(result).toEqual({
      isError: true,
      content: [
        {
          type: "text",
          text: 'Tool call echo was rejected by cache: hook "cache" failed in before on toolCall: returned an invalid action: Replace gave toolCall an output it does not take: a tool result is an object { content, isError? }, as Replace({ content: "cached" }) gives, got "cached"',
        },
      ],
    });
    expect(failures.map((e) => [e.hook, e.kind])).toEqual([["cache", "invalid-action"]]);
    expect(ran).toEqual([]);
  });

  it("failing open, the hook's answer is skipped and the server runs the tool", async () => {
    const { client, ran } = await connect();
    const stack = createAgentStack().use("toolCall", { name: "cache", failMode: "open", before: () => Replace("cached" as never) });

    const result = await wrapMcpClient(stack, client).callTool({ name: "echo", arguments: { text: "hi" } });

    expect(result.content).toEqual([{ type: "text", text: "echo: hi" }]);
    expect(ran).toEqual(["hi"]);
    expect(stack.stats.failOpen).toBe(1);
  });

  it("an input turned into a string is refused before the server sees it", async () => {
    const { client, ran } = await connect();
    const stack = createAgentStack().use("toolCall", { name: "rewrite", before: (c) => Transform({ ...c, input: "hi" as never }) });

    const result = await wrapMcpClient(stack, client).callTool({ name: "echo", arguments: { text: "hi" } });

    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/Transform gave toolCall an input it does not take: a tool call is an object/);
    expect(ran).toEqual([]);
  });
});
