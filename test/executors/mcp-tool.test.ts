/**
 * `mcp_tool` handlers: a tool on a real MCP server (the MCP SDK's server and client, linked in
 * memory), called with arguments filled in from the event, its text read like a command hook's
 * stdout; a server that was not given, or a tool that answers an error, is a hook failure.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolCall } from "../../src/agent/types.ts";
import { fillArguments, mcpToolHook } from "../../src/executors/mcp-tool.ts";
import { fromClaudeSettings, type ClaudeSettingsOptions } from "../../src/executors/settings.ts";
import { takeWarnings } from "../support/warnings.ts";
import { echoTool, notices, tempDir } from "./helpers.ts";
import { agentStack } from "./stack-helpers.ts";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** A scanner server: `security_scan` blocks paths under .env, `broken` answers an error. */
const scanner = async () => {
  const server = new McpServer({ name: "scanner", version: "1.0.0" });
  const scanned: unknown[] = [];
  server.registerTool("security_scan", { inputSchema: { file_path: z.string(), tool: z.string() } }, async (args) => {
    scanned.push(args);
    const answer = args.file_path.endsWith(".env")
      ? {
          hookSpecificOutput: {
            hookEventName: "PreToolUse",
            permissionDecision: "deny",
            permissionDecisionReason: `${args.tool} of ${args.file_path} is not allowed`,
          },
        }
      : {};
    return { content: [{ type: "text", text: JSON.stringify(answer) }] };
  });
  server.registerTool("broken", { inputSchema: {} }, async () => ({
    content: [{ type: "text", text: "index unavailable" }],
    isError: true,
  }));
  server.registerTool("flood", { inputSchema: {} }, async () => ({
    content: [{ type: "text", text: `{"reason":"${"x".repeat(2 * 1024 * 1024)}"}` }],
  }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "agent", version: "1.0.0" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  open.push(client, server);
  return { client, scanned };
};

const read = (file_path: string): ToolCall => ({ id: "toolu_r", name: "Read", input: { file_path } });
const settings = (tool: string, server = "scanner") => ({
  hooks: {
    PreToolUse: [
      {
        matcher: "Read",
        hooks: [{ type: "mcp_tool", server, tool, input: { file_path: "${tool_input.file_path}", tool: "${tool_name}" } }],
      },
    ],
  },
});

describe("mcp_tool handlers from settings", () => {
  const load = (s: object, options: ClaudeSettingsOptions) => fromClaudeSettings(s, { cwd: tempDir(), ...options });

  it("call the tool with arguments filled in from the event, and read its text as the answer", async () => {
    const { client, scanned } = await scanner();
    const { stack } = load(settings("security_scan"), { mcpClients: { scanner: client } });
    expect(await stack.run("toolCall", read("/repo/.env"), echoTool)).toMatchObject({
      _tag: "Rejected",
      reason: "Read of /repo/.env is not allowed",
    });
    expect((await stack.run("toolCall", read("/repo/README.md"), echoTool))._tag).toBe("Completed");
    expect(scanned).toEqual([
      { file_path: "/repo/.env", tool: "Read" },
      { file_path: "/repo/README.md", tool: "Read" },
    ]);
  });

  it("fail (open by default, closed on request) when the tool answers an error", async () => {
    const { client } = await scanner();
    const n = notices();
    const open = load(settings("broken"), { mcpClients: { scanner: client }, onNotice: n.sink });
    expect((await open.stack.run("toolCall", read("/repo/a"), echoTool))._tag).toBe("Completed");
    expect(n.list).toMatchObject([{ kind: "hook-error", message: "broken answered an error: index unavailable (let through)" }]);
    const closed = load(settings("broken"), { mcpClients: { scanner: client }, failMode: "closed" });
    expect(await closed.stack.run("toolCall", read("/repo/a"), echoTool)).toMatchObject({
      _tag: "Rejected",
      reason: expect.stringMatching(/broken answered an error: index unavailable$/),
    });
  });

  it("fail like a disconnected server when its server was not given, and say so when loaded", async () => {
    takeWarnings();
    const { stack, warnings } = load(settings("security_scan", "absent"), { failMode: "closed" });
    expect(warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/the MCP server "absent" was not given in mcpClients; the hook fails closed/),
    ]);
    expect(takeWarnings()).toHaveLength(1);
    expect(await stack.run("toolCall", read("/repo/a"), echoTool)).toMatchObject({
      _tag: "Rejected",
      reason: expect.stringMatching(/the MCP server "absent" is not connected/),
    });
  });
});

describe("mcpToolHook used directly", () => {
  it("is a PreToolUse guard like any other", async () => {
    const { client } = await scanner();
    const hook = mcpToolHook({
      event: "PreToolUse",
      client,
      server: "scanner",
      tool: "security_scan",
      input: { file_path: "${tool_input.file_path}", tool: "${tool_name}" },
    });
    expect(await agentStack().use("toolCall", hook).run("toolCall", read("/x/.env"), echoTool)).toMatchObject({
      _tag: "Rejected",
      reason: "Read of /x/.env is not allowed",
    });
  });

  it("fills ${path} at any depth, with objects as JSON and missing fields as empty text", () => {
    const event = { tool_input: { file_path: "/a", edits: [{ n: 1 }] }, cwd: "/repo" };
    expect(
      fillArguments(
        { p: "${tool_input.file_path}", deep: ["${cwd}/x", { e: "${tool_input.edits}" }], gone: "${tool_input.nope}", n: 3 },
        event,
      ),
    ).toEqual({ p: "/a", deep: ["/repo/x", { e: '[{"n":1}]' }], gone: "", n: 3 });
  });
});

describe("an MCP tool hook whose tool answers too much", () => {
  it("fails past maxTextBytes (1 MiB by default), as a command hook does past maxStdoutBytes", async () => {
    const { client } = await scanner();
    const run = async (maxTextBytes?: number) =>
      agentStack()
        .use(
          "toolCall",
          mcpToolHook({ event: "PreToolUse", client, tool: "flood", timeoutMs: 10_000, ...(maxTextBytes ? { maxTextBytes } : {}) }),
        )
        .run("toolCall", read("/repo/a.ts"), echoTool);
    const outcome = await run();
    expect(outcome._tag).toBe("Rejected");
    expect((outcome as { reason: string }).reason).toMatch(/flood answered more than 1048576 bytes of text/);
    expect((await run(4 * 1024 * 1024))._tag).toBe("Completed");
  });

  it("refuses a maxTextBytes that is not a number of bytes", () => {
    expect(() => mcpToolHook({ event: "PreToolUse", client: { callTool: async () => ({}) }, tool: "t", maxTextBytes: Number.NaN })).toThrow(
      /mcpToolHook: maxTextBytes must be a finite number of bytes/,
    );
  });
});
