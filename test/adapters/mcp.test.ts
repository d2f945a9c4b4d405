import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolResultSchema, ErrorCode, ListToolsResultSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { wrapMcpClient, type McpToolClient } from "../../src/adapters/mcp.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { Reject, Replace, Transform } from "../../src/core/index.ts";

/** A real MCP server with four tools: one that answers, one that throws, one that reports an error, one that hangs. */
const connect = async () => {
  const server = new McpServer({ name: "test-server", version: "1.0.0" });
  const seen: { name: string; args: unknown }[] = [];
  const aborted: string[] = [];
  server.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => {
    seen.push({ name: "echo", args: { text } });
    return { content: [{ type: "text", text: `echo: ${text}` }] };
  });
  server.registerTool("boom", { inputSchema: {} }, async () => {
    seen.push({ name: "boom", args: {} });
    throw new Error("disk on fire");
  });
  server.registerTool("soft-fail", { inputSchema: {} }, async () => ({ content: [{ type: "text", text: "no such file" }], isError: true }));
  server.registerTool(
    "hang",
    { inputSchema: {} },
    (_args, extra) =>
      new Promise((_resolve, reject) => {
        extra.signal.addEventListener("abort", () => {
          aborted.push("hang");
          reject(new Error("cancelled"));
        });
      }),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "test-client", version: "1.0.0" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  open.push(client, server);
  return { client, seen, aborted };
};

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const waitFor = async (check: () => boolean) => {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
};

describe("wrapMcpClient", () => {
  it("leaves no abort listener behind on the run's signal, however many calls it wraps (R7)", async () => {
    const { client } = await connect();
    const signals = new Set<AbortSignal>();
    const stack = createAgentStack().use("toolCall", { name: "watch", before: (_call, ctx) => void signals.add(ctx.signal) });
    const wrapped = wrapMcpClient(stack, client);
    for (let i = 0; i < 30; i++) await wrapped.callTool({ name: "echo", arguments: { text: `${i}` } });
    for (const signal of signals) expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("runs a call through the toolCall point with the tool name as subject, and after hooks see the server's result", async () => {
    const { client, seen } = await connect();
    const subjects: unknown[] = [];
    const results: unknown[] = [];
    const stack = createAgentStack().use("toolCall", {
      name: "watch",
      before: (call, ctx) => void subjects.push(ctx.subject, call.input),
      after: (result) => void results.push(result),
    });
    const result = await wrapMcpClient(stack, client).callTool({ name: "echo", arguments: { text: "hi" } });
    expect(result.content).toEqual([{ type: "text", text: "echo: hi" }]);
    expect(subjects).toEqual(["echo", { text: "hi" }]);
    expect(results).toEqual([expect.objectContaining({ content: [{ type: "text", text: "echo: hi" }] })]);
    expect(seen).toEqual([{ name: "echo", args: { text: "hi" } }]);
  });

  it("turns a rejection into an isError result with the reason, and never reaches the server", async () => {
    const { client, seen } = await connect();
    const stack = createAgentStack().use("toolCall", { name: "no-echo", match: "echo", before: () => Reject("echo is disabled here") });
    const result = await wrapMcpClient(stack, client).callTool({ name: "echo", arguments: { text: "hi" } });
    expect(result).toEqual({
      isError: true,
      content: [{ type: "text", text: "Tool call echo was rejected by no-echo: echo is disabled here" }],
    });
    expect(seen).toEqual([]);
  });

  it("lets a custom rejection result replace the default", async () => {
    const { client } = await connect();
    const stack = createAgentStack().use("toolCall", { name: "deny", before: () => Reject("nope") });
    const wrapped = wrapMcpClient(stack, client, {
      rejected: (reason, by) => ({ isError: true, content: [{ type: "text", text: `${by}: ${reason}` }] }),
    });
    expect((await wrapped.callTool({ name: "echo", arguments: { text: "x" } })).content).toEqual([{ type: "text", text: "deny: nope" }]);
  });

  it("returns a tool that throws as the server reports it (isError), and after hooks see isError", async () => {
    const { client } = await connect();
    const flags: unknown[] = [];
    const stack = createAgentStack().use("toolCall", { name: "watch", after: (r) => void flags.push(r.isError) });
    const result = await wrapMcpClient(stack, client).callTool({ name: "boom", arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("disk on fire");
    expect(flags).toEqual([true]);
  });

  it("passes a tool's own isError result through unchanged", async () => {
    const { client } = await connect();
    const result = await wrapMcpClient(createAgentStack(), client).callTool({ name: "soft-fail", arguments: {} });
    expect(result).toEqual({ content: [{ type: "text", text: "no such file" }], isError: true });
  });

  it("sends the arguments a before hook rewrote", async () => {
    const { client, seen } = await connect();
    const stack = createAgentStack().use("toolCall", {
      name: "shout",
      before: (c) => Transform({ ...c, input: { text: String(c.input.text).toUpperCase() } }),
    });
    const result = await wrapMcpClient(stack, client).callTool({ name: "echo", arguments: { text: "hi" } });
    expect(result.content).toEqual([{ type: "text", text: "echo: HI" }]);
    expect(seen).toEqual([{ name: "echo", args: { text: "HI" } }]);
  });

  it("returns the result an after hook rewrote", async () => {
    const { client } = await connect();
    const stack = createAgentStack().use("toolCall", {
      name: "redact",
      after: (r) =>
        Transform({ ...r, content: (r.content as { text: string }[]).map((b) => ({ ...b, text: b.text.replace("hi", "[redacted]") })) }),
    });
    const result = await wrapMcpClient(stack, client).callTool({ name: "echo", arguments: { text: "hi" } });
    expect(result.content).toEqual([{ type: "text", text: "echo: [redacted]" }]);
  });

  it("answers from a Replace without calling the server, as a text block", async () => {
    const { client, seen } = await connect();
    const stack = createAgentStack().use("toolCall", { name: "cache", before: () => Replace({ content: "cached answer" }) });
    const result = await wrapMcpClient(stack, client).callTool({ name: "echo", arguments: { text: "hi" } });
    expect(result).toEqual({ content: [{ type: "text", text: "cached answer" }] });
    expect(seen).toEqual([]);
  });

  it("cancels a hanging tool on the server when the caller's signal aborts, and rejects as the SDK does", async () => {
    const { client, aborted } = await connect();
    const controller = new AbortController();
    const pending = wrapMcpClient(createAgentStack(), client).callTool({ name: "hang", arguments: {} }, undefined, {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("user pressed stop")), 20);
    await expect(pending).rejects.toThrow(new McpError(ErrorCode.RequestTimeout, "Error: user pressed stop"));
    await waitFor(() => aborted.length > 0);
    expect(aborted).toEqual(["hang"]);
  });

  it("cancels a hanging tool on the server when the run's deadline passes", async () => {
    const { client, aborted } = await connect();
    const wrapped = wrapMcpClient(createAgentStack(), client, { run: { timeoutMs: 30 } });
    await expect(wrapped.callTool({ name: "hang", arguments: {} })).rejects.toThrow(/exceeded its deadline/);
    await waitFor(() => aborted.length > 0);
    expect(aborted).toEqual(["hang"]);
  });

  it("passes the SDK's own timeout through, which fails the call with the SDK's error", async () => {
    const { client, aborted } = await connect();
    const wrapped = wrapMcpClient(createAgentStack(), client);
    await expect(wrapped.callTool({ name: "hang", arguments: {} }, undefined, { timeout: 30 })).rejects.toThrow(/timed out/i);
    await waitFor(() => aborted.length > 0);
    expect(aborted).toEqual(["hang"]);
  });

  it("keeps every other member of the client working", async () => {
    const { client } = await connect();
    const wrapped = wrapMcpClient(createAgentStack(), client);
    const { tools } = await wrapped.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["boom", "echo", "hang", "soft-fail"]);
    expect(wrapped.getServerVersion()).toEqual({ name: "test-server", version: "1.0.0" });
  });

  it("does not freeze the caller's arguments under strict mode", async () => {
    const { client } = await connect();
    const args = { text: "hi" };
    await wrapMcpClient(createAgentStack().use("toolCall", { name: "noop", before: () => undefined }), client).callTool({
      name: "echo",
      arguments: args,
    });
    expect(Object.isFrozen(args)).toBe(false);
  });

  it("runs a tools/call sent through the client's generic request() through the toolCall point too", async () => {
    const { client, seen } = await connect();
    const stack = createAgentStack()
      .use("toolCall", { name: "no-boom", match: "boom", before: () => Reject("boom is disabled here") })
      .use("toolCall", {
        name: "shout",
        match: "echo",
        before: (c) => Transform({ ...c, input: { text: String(c.input.text).toUpperCase() } }),
      });
    const wrapped = wrapMcpClient(stack, client);
    const denied = await wrapped.request({ method: "tools/call", params: { name: "boom", arguments: {} } }, CallToolResultSchema);
    expect(denied).toEqual({
      isError: true,
      content: [{ type: "text", text: "Tool call boom was rejected by no-boom: boom is disabled here" }],
    });
    const echoed = await wrapped.request(
      { method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } },
      CallToolResultSchema,
    );
    expect(echoed.content).toEqual([{ type: "text", text: "echo: HI" }]);
    expect(seen).toEqual([{ name: "echo", args: { text: "HI" } }]);
  });

  it("sends every other request as it is, and a tools/call through callTool runs the hooks once", async () => {
    const { client } = await connect();
    const runs: string[] = [];
    const wrapped = wrapMcpClient(createAgentStack().use("toolCall", { name: "count", before: (c) => void runs.push(c.name) }), client);
    const { tools } = await wrapped.request({ method: "tools/list" }, ListToolsResultSchema);
    expect(tools.map((t) => t.name)).toContain("echo");
    await wrapped.callTool({ name: "echo", arguments: { text: "once" } });
    expect(runs).toEqual(["echo"]);
  });

  it("reads the client's request at each call, so one replaced after wrapping (a spy) is the one used", async () => {
    const { client } = await connect();
    const wrapped = wrapMcpClient(createAgentStack(), client);
    const seen: string[] = [];
    const original = client.request.bind(client);
    client.request = ((req: { method: string }, ...rest: unknown[]) => (
      seen.push(req.method), (original as (...a: unknown[]) => unknown)(req, ...rest)
    )) as typeof client.request;
    await wrapped.request({ method: "tools/list" }, ListToolsResultSchema);
    await wrapped.request({ method: "tools/call", params: { name: "echo", arguments: { text: "x" } } }, CallToolResultSchema);
    expect(seen).toEqual(["tools/list", "tools/call"]);
  });

  it("returns a legacy toolResult answer as it is, without inventing a content block", async () => {
    // Servers on protocol 2024-10-07 answer `{ toolResult }`; the SDK's callTool still accepts it.
    const legacy: McpToolClient = { callTool: async () => ({ toolResult: { rows: 3 } }) };
    const result = await wrapMcpClient(createAgentStack().use("toolCall", { name: "noop", before: () => undefined }), legacy).callTool({
      name: "query",
    });
    expect(result).toEqual({ toolResult: { rows: 3 } });
  });
});

describe("wrapMcpClient at creation", () => {
  const callTool = async () => ({ content: [] });

  it("refuses a client without callTool, instead of failing every call", () => {
    expect(() => wrapMcpClient(createAgentStack(), {} as McpToolClient)).toThrow(
      new TypeError("wrapMcpClient: client.callTool must be a function, got undefined"),
    );
  });

  it("refuses a client that is not an object, saying what was given", () => {
    expect(() => wrapMcpClient(createAgentStack(), null as unknown as McpToolClient)).toThrow(
      new TypeError("wrapMcpClient: client must be an MCP client (an object with callTool), got null"),
    );
  });

  it("refuses a rejected option that is not a function, instead of failing on the first rejection", () => {
    expect(() => wrapMcpClient(createAgentStack(), { callTool }, { rejected: "blocked" as never })).toThrow(
      new TypeError('wrapMcpClient: rejected must be a function when given, got "blocked"'),
    );
  });

  it("refuses a stack it cannot run the toolCall point on", () => {
    expect(() => wrapMcpClient({} as never, { callTool })).toThrow(
      new TypeError("wrapMcpClient: stack must be a stack with run (createAgentStack()), got {}"),
    );
  });

  it("wraps a client with members of its own besides callTool", () => {
    const client = { callTool, ping: () => "pong", name: "extra" };
    const wrapped = wrapMcpClient(createAgentStack(), client);
    expect(wrapped.ping()).toBe("pong");
    expect(wrapped.name).toBe("extra");
  });
});
