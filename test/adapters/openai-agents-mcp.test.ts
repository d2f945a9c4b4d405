/**
 * guardAgent and an agent's MCP servers (`mcpServers`), with the Agents SDK's own stdio MCP client
 * and a real MCP server in a child process: the tools the SDK gets from them at run time go
 * through the stack like the agent's own tools.
 */
import { fileURLToPath } from "node:url";
import { Agent, MCPServerStdio, run, setTracingDisabled, tool, Usage } from "@openai/agents";
import { assistantMessage, functionCall, modelResponse, ScriptedModel } from "@openai/agents/testing";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Priority } from "../../src/core/priority.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { redaction } from "../../src/middleware/redaction.ts";
import { toolPolicy } from "../../src/middleware/tool-policy.ts";
import { guardAgent } from "../../src/adapters/openai-agents/index.ts";

setTracingDisabled(true);

const serverFile = fileURLToPath(new URL("./openai-agents-mcp-server.ts", import.meta.url));

const open: MCPServerStdio[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const repos = async (cacheToolsList = false) => {
  const server = new MCPServerStdio({ name: "repos", command: process.execPath, args: ["--import", "tsx", serverFile], cacheToolsList });
  open.push(server);
  await server.connect();
  return server;
};

const usage = new Usage({ requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 });

describe("guardAgent with an agent's MCP servers", () => {
  it.each([false, true])("runs the MCP server's tools through toolPolicy and redaction (cacheToolsList: %s)", async (cacheToolsList) => {
    const server = await repos(cacheToolsList);
    const stack = withMiddleware(createAgentStack(), toolPolicy({ deny: ["delete_repo"] }), redaction());
    const seen: string[] = [];
    const model = new ScriptedModel([
      modelResponse({
        usage,
        output: [functionCall("delete_repo", { repo: "prod" }, { callId: "d1" }), functionCall("read_config", {}, { callId: "r1" })],
      }),
      modelResponse({ usage, output: [assistantMessage("done")] }),
    ]);
    const agent = guardAgent(
      stack.use("toolCall", { name: "watch", priority: Priority.first, before: (c) => void seen.push(c.name) }),
      new Agent({ name: "ops", instructions: "Run ops.", mcpServers: [server], model }),
    );
    const result = await run(agent, "Delete prod and show the config.");
    const items = result.newItems.filter((i) => i.type === "tool_call_output_item").map((i) => String((i as { output: unknown }).output));
    expect(seen.sort()).toEqual(["delete_repo", "read_config"]);
    expect(items.join(" ")).not.toContain("deleted prod");
    expect(items.join(" ")).toContain('deny rule "delete_repo"');
    expect(items.join(" ")).not.toContain("AKIAIOSFODNN7EXAMPLE");
    // What the model read back on its second call.
    expect(JSON.stringify(model.lastCall?.request.input)).not.toContain("AKIAIOSFODNN7EXAMPLE");
  });

  it("runs a tool pushed onto a guarded agent's clone after it was guarded through the stack", async () => {
    const stack = withMiddleware(createAgentStack(), toolPolicy({ deny: ["wipe"] }));
    const wiped: string[] = [];
    const model = new ScriptedModel([
      modelResponse({ usage, output: [functionCall("wipe", { disk: "sda" }, { callId: "w1" })] }),
      modelResponse({ usage, output: [assistantMessage("done")] }),
    ]);
    // A clone of the guarded agent, with a tool of its own pushed after.
    const agent = guardAgent(stack, new Agent({ name: "ops", instructions: "Run ops.", model })).clone({ tools: [] });
    agent.tools.push(
      tool({
        name: "wipe",
        description: "Wipe a disk",
        parameters: z.object({ disk: z.string() }),
        execute: ({ disk }) => (wiped.push(disk), "wiped"),
      }),
    );
    const result = await run(agent, "Wipe sda.");
    expect(wiped).toEqual([]);
    expect(JSON.stringify(result.newItems)).toContain('deny rule \\"wipe\\"');
  });
});
