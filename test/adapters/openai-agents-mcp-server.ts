/**
 * An MCP server on stdio (the MCP SDK's own), for the Agents SDK's `MCPServerStdio`: `delete_repo`
 * says which repo it deleted, `read_config` answers with a secret.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "repos", version: "1.0.0" });
server.registerTool("delete_repo", { inputSchema: { repo: z.string() } }, ({ repo }) => ({
  content: [{ type: "text", text: `deleted ${repo}` }],
}));
server.registerTool("read_config", { inputSchema: {} }, () => ({
  content: [{ type: "text", text: "token=AKIAIOSFODNN7EXAMPLE" }],
}));
await server.connect(new StdioServerTransport());
