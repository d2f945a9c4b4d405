import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { aiSdkRun } from "../../src/adapters/ai-sdk-run.ts";
import { wrapMcpClient } from "../../src/adapters/mcp.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { callLimit } from "../../src/middleware/rate-limit.ts";
import { takeWarnings } from "../support/warnings.ts";

/** A real MCP server with one tool that echoes, connected in memory. */
const connect = async () => {
  const server = new McpServer({ name: "test-server", version: "1.0.0" });
  const served: string[] = [];
  server.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => {
    served.push(text);
    return { content: [{ type: "text", text: `echo: ${text}` }] };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "test-client", version: "1.0.0" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  open.push(client, server);
  return { client, served };
};

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const unscopedWarnings = () => takeWarnings().filter((w) => w.message.includes("outside aiSdkRun"));

describe("wrapMcpClient inside aiSdkRun", () => {
  it("counts the calls of one run together: callLimit({ max: 2 }) refuses the third", async () => {
    const { client, served } = await connect();
    const runIds: string[] = [];
    const stack = withMiddleware(createAgentStack(), callLimit({ match: "echo", max: 2 })).use("toolCall", {
      name: "watch",
      before: (_c, ctx) => void runIds.push(ctx.runId),
    });
    const mcp = wrapMcpClient(stack, client);
    const results = await aiSdkRun(stack, { runId: "r-mcp" }, async () => {
      const out = [];
      for (const text of ["a", "b", "c"]) out.push(await mcp.callTool({ name: "echo", arguments: { text } }));
      return out;
    });
    expect(served).toEqual(["a", "b"]);
    expect(results.map((r) => r.isError === true)).toEqual([false, false, true]);
    expect(String((results[2]?.content as { text: string }[])[0]?.text)).toContain("callLimit");
    // The third call stopped at callLimit, outside the watching hook.
    expect(runIds).toEqual(["r-mcp", "r-mcp"]);
    expect(unscopedWarnings()).toEqual([]);
  });

  it("starts each run's count afresh", async () => {
    const { client, served } = await connect();
    const stack = withMiddleware(createAgentStack(), callLimit({ match: "echo", max: 1 }));
    const mcp = wrapMcpClient(stack, client);
    for (const text of ["a", "b"]) await aiSdkRun(stack, {}, () => mcp.callTool({ name: "echo", arguments: { text } }));
    expect(served).toEqual(["a", "b"]);
  });
});

describe("wrapMcpClient outside any run", () => {
  it("warns once that a per-run limit counts one call", async () => {
    const { client, served } = await connect();
    const stack = withMiddleware(createAgentStack(), callLimit({ match: "echo", max: 1 }));
    const mcp = wrapMcpClient(stack, client);
    for (const text of ["a", "b", "c"]) await mcp.callTool({ name: "echo", arguments: { text } });
    expect(served).toEqual(["a", "b", "c"]);
    const warned = unscopedWarnings();
    expect(warned).toHaveLength(1);
    expect(warned[0]?.message).toMatch(/^wrapMcpClient: this stack has hooks on run \(callLimit\).*counts one call.*aiSdkRun/);
  });
});
