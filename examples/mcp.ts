/**
 * Wrapping an MCP client: every `callTool` runs through `toolCall`, so the same guardrails and
 * audit hooks apply to MCP tools as to local ones. A real MCP server runs in process, linked
 * by the SDK's in-memory transport: no network.
 *
 * Run: node --import tsx examples/mcp.ts
 * @expect read_file: # agent-onion
 * @expect delete_repo: isError=true Tool call delete_repo was rejected by protect-repos: Repositories are never deleted by agents
 * @expect audit: read_file Completed, delete_repo Rejected
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { wrapMcpClient } from "agent-onion/mcp";
import { Priority, Reject, createAgentStack } from "agent-onion";

// The server: two tools, one harmless and one that must never run.
const server = new McpServer({ name: "repo-tools", version: "1.0.0" });
server.registerTool("read_file", { inputSchema: { path: z.string() } }, async ({ path }) => ({
  content: [{ type: "text", text: path === "README.md" ? "# agent-onion" : "" }],
}));
server.registerTool("delete_repo", { inputSchema: { repo: z.string() } }, async ({ repo }) => ({
  content: [{ type: "text", text: `deleted ${repo}` }],
}));

const audit: string[] = [];
const stack = createAgentStack()
  .use("toolCall", {
    name: "protect-repos",
    priority: Priority.guard,
    match: "delete_repo",
    before: () => Reject("Repositories are never deleted by agents"),
  })
  .use("toolCall", { name: "audit", observe: (event) => void audit.push(`${event.subject} ${event.outcome._tag}`) });

const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
const client = wrapMcpClient(stack, new Client({ name: "example", version: "1.0.0" }));
await Promise.all([server.connect(serverSide), client.connect(clientSide)]);

const read = await client.callTool({ name: "read_file", arguments: { path: "README.md" } });
console.log(`read_file: ${(read.content as { text: string }[])[0]?.text}`);

const deleted = await client.callTool({ name: "delete_repo", arguments: { repo: "prod" } });
console.log(`delete_repo: isError=${deleted.isError} ${(deleted.content as { text: string }[])[0]?.text}`);

await stack.flush();
console.log(`audit: ${audit.join(", ")}`);
await client.close();
