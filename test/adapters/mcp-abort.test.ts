import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolResultSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { wrapMcpClient } from "../../src/adapters/mcp.ts";
import type { McpStreamMessage } from "../../src/adapters/mcp-stream.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { RunAbortedError } from "../../src/core/errors.ts";

/**
 * A real MCP server with a tool that hangs until cancelled (recording that it was) and a task
 * tool, `delay`, that answers after `ms` milliseconds, polled every 5 ms.
 */
const connect = async () => {
  const taskStore = new InMemoryTaskStore();
  const server = new McpServer(
    { name: "abort-server", version: "1.0.0" },
    { capabilities: { tasks: { requests: { tools: { call: {} } } } }, taskStore },
  );
  const cancelled: string[] = [];
  const called: string[] = [];
  server.registerTool(
    "hang",
    { inputSchema: {} },
    (_args, extra) =>
      new Promise((_resolve, reject) => {
        called.push("hang");
        extra.signal.addEventListener("abort", () => (cancelled.push("hang"), reject(new Error("cancelled"))));
      }),
  );
  server.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text }] }));
  server.experimental.tasks.registerToolTask(
    "delay",
    { inputSchema: { ms: z.number() }, execution: { taskSupport: "required" } },
    {
      async createTask({ ms }, extra) {
        called.push("delay");
        const task = await extra.taskStore.createTask({ ttl: 60_000, pollInterval: 5 });
        const timer = setTimeout(
          () =>
            void extra.taskStore
              .storeTaskResult(task.taskId, "completed", { content: [{ type: "text", text: `waited ${ms}` }] })
              .catch(() => {}),
          ms,
        );
        open.push({ close: () => clearTimeout(timer) });
        return { task };
      },
      getTask: async (_args, extra) => await extra.taskStore.getTask(extra.taskId),
      getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as never,
    },
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "test-client", version: "1.0.0" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  await client.listTools(); // the SDK learns which tools are tasks
  open.push(client, server, { close: () => taskStore.cleanup() });
  return { client, cancelled, called };
};

const open: { close(): Promise<void> | void }[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

/** Wait until `check` holds; the test's own timeout bounds the wait, however slow the machine. */
const waitFor = async (check: () => boolean) => {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
};

/** What a caller can tell of an error: its class, name, code and message. */
const seen = (error: unknown) => ({
  mcp: error instanceof McpError,
  name: (error as Error).name,
  code: (error as { code?: unknown }).code,
  message: (error as Error).message,
});

/** Settles once `signal` aborts: a hook still deciding when the caller gives up, however slow the machine. */
const untilAborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));

/** A stack whose before hook calls `entered` and decides only once the run is aborted: the abort lands while hooks still run. */
const slowGuard = (entered: () => void) =>
  createAgentStack().use("toolCall", { name: "slow-guard", before: (_call, ctx) => (entered(), untilAborted(ctx.signal)) });

/** A stack whose after hook calls `entered` and ends only once the run is aborted: the abort lands after the server answered. */
const slowCheck = (entered: () => void) =>
  createAgentStack().use("toolCall", { name: "slow-check", after: (_result, _call, ctx) => (entered(), untilAborted(ctx.signal)) });

describe("wrapMcpClient, when the caller aborts", () => {
  it("rejects callTool with the signal's reason when the signal was aborted before the call, as the SDK does", async () => {
    const { client, called } = await connect();
    for (const reason of [new Error("stop"), undefined]) {
      const controller = new AbortController();
      controller.abort(reason);
      const direct = await client
        .callTool({ name: "hang", arguments: {} }, undefined, { signal: controller.signal })
        .catch((e: unknown) => e);
      const wrapped = await wrapMcpClient(createAgentStack(), client)
        .callTool({ name: "hang", arguments: {} }, undefined, { signal: controller.signal })
        .catch((e: unknown) => e);
      expect(seen(wrapped)).toEqual(seen(direct));
      if (reason !== undefined) expect(wrapped).toBe(reason);
    }
    expect(called).toEqual([]);
  });

  it("rejects callTool with the SDK's own McpError when the request is in flight, and the server is told to cancel", async () => {
    const { client, cancelled, called } = await connect();
    /** Abort once the server is running the call: the request is in flight then. */
    const abortAfter = async (call: (signal: AbortSignal) => Promise<unknown>) => {
      const controller = new AbortController();
      const before = called.length;
      const settled = call(controller.signal).catch((e: unknown) => e);
      await waitFor(() => called.length > before);
      controller.abort(new Error("user pressed stop"));
      return settled;
    };
    const direct = await abortAfter((signal) => client.callTool({ name: "hang", arguments: {} }, undefined, { signal }));
    const wrapped = await abortAfter((signal) =>
      wrapMcpClient(createAgentStack(), client).callTool({ name: "hang", arguments: {} }, undefined, { signal }),
    );
    expect(seen(wrapped)).toEqual({
      mcp: true,
      name: "McpError",
      code: ErrorCode.RequestTimeout,
      message: "MCP error -32001: Error: user pressed stop",
    });
    expect(seen(wrapped)).toEqual(seen(direct));
    await waitFor(() => cancelled.length === 2);
    expect(cancelled).toEqual(["hang", "hang"]);
  });

  it("rejects request() for tools/call the same way as the SDK's own request() when it is in flight", async () => {
    const { client, called } = await connect();
    /** Abort once the server is running the call: the request is in flight then. */
    const abortAfter = async (call: (signal: AbortSignal) => Promise<unknown>) => {
      const controller = new AbortController();
      const before = called.length;
      const settled = call(controller.signal).catch((e: unknown) => e);
      await waitFor(() => called.length > before);
      controller.abort(new Error("user pressed stop"));
      return settled;
    };
    const request = { method: "tools/call" as const, params: { name: "hang", arguments: {} } };
    const direct = await abortAfter((signal) => client.request(request, CallToolResultSchema, { signal }));
    const wrapped = await abortAfter((signal) =>
      wrapMcpClient(createAgentStack(), client).request(request, CallToolResultSchema, { signal }),
    );
    expect(seen(wrapped)).toEqual(seen(direct));
    expect(wrapped).toBeInstanceOf(McpError);
  });

  it("rejects with the signal's reason when it aborts while hooks still decide, and the server is never called", async () => {
    const { client, called } = await connect();
    const controller = new AbortController();
    const reason = new Error("user pressed stop");
    const error = await wrapMcpClient(
      slowGuard(() => controller.abort(reason)),
      client,
    )
      .callTool({ name: "hang", arguments: {} }, undefined, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).toBe(reason);
    expect(called).toEqual([]);
  });

  it("rejects with the SDK's cancellation error when it aborts after the server answered, while after hooks run", async () => {
    const { client } = await connect();
    const controller = new AbortController();
    const error = await wrapMcpClient(
      slowCheck(() => controller.abort(new Error("user pressed stop"))),
      client,
    )
      .callTool({ name: "echo", arguments: { text: "hi" } }, undefined, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(seen(error)).toEqual({
      mcp: true,
      name: "McpError",
      code: ErrorCode.RequestTimeout,
      message: "MCP error -32001: Error: user pressed stop",
    });
  });

  it("keeps agent-onion's RunAbortedError for a run deadline, which is not the caller's abort", async () => {
    const { client } = await connect();
    const error = await wrapMcpClient(createAgentStack(), client, { run: { timeoutMs: 20 } })
      .callTool({ name: "hang", arguments: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunAbortedError);
  });

  describe("a streamed task call", () => {
    /** The messages of a stream whose caller aborts as the task is created. */
    const abortedAtCreation = async (open: (signal: AbortSignal) => AsyncIterable<unknown>) => {
      const controller = new AbortController();
      const messages: McpStreamMessage[] = [];
      for await (const message of open(controller.signal)) {
        messages.push(message as McpStreamMessage);
        if ((message as McpStreamMessage).type === "taskCreated") controller.abort(new Error("user pressed stop"));
      }
      return messages;
    };
    const errorOf = (messages: readonly McpStreamMessage[]) => {
      const last = messages.at(-1);
      return last?.type === "error" ? seen(last.error) : last;
    };

    it("ends with the SDK's own error message, as the SDK's stream does when its caller aborts mid-task", async () => {
      const { client } = await connect();
      const params = { name: "delay", arguments: { ms: 60_000 } }; // completes only if the abort were lost
      const direct = await abortedAtCreation((signal) => client.experimental.tasks.callToolStream(params, undefined, { signal }));
      const wrapped = await abortedAtCreation((signal) =>
        wrapMcpClient(createAgentStack(), client).experimental.tasks.callToolStream(params, undefined, { signal }),
      );
      expect(wrapped.map((m) => m.type)).toEqual(direct.map((m) => m.type));
      expect(errorOf(wrapped)).toEqual(errorOf(direct));
      expect(errorOf(wrapped)).toMatchObject({
        mcp: true,
        code: ErrorCode.InternalError,
        message: "MCP error -32603: Error: user pressed stop",
      });
    });

    it("ends with the error the SDK's stream gives for a signal already aborted, when it aborts while hooks still decide", async () => {
      const { client, called } = await connect();
      const params = { name: "delay", arguments: { ms: 1 } };
      const reason = new Error("user pressed stop");
      const aborted = new AbortController();
      aborted.abort(reason);
      const direct: McpStreamMessage[] = [];
      for await (const m of client.experimental.tasks.callToolStream(params, undefined, { signal: aborted.signal }))
        direct.push(m as McpStreamMessage);
      const controller = new AbortController();
      const wrapped: McpStreamMessage[] = [];
      for await (const m of wrapMcpClient(
        slowGuard(() => controller.abort(reason)),
        client,
      ).experimental.tasks.callToolStream(params, undefined, {
        signal: controller.signal,
      }))
        wrapped.push(m as McpStreamMessage);
      expect(wrapped.map((m) => m.type)).toEqual(["error"]);
      expect(errorOf(wrapped)).toEqual(errorOf(direct));
      expect(called).toEqual([]);
    });

    it("ends with an internal error naming the reason when it aborts after the task's result came, while after hooks run", async () => {
      const { client } = await connect();
      const controller = new AbortController();
      const messages: McpStreamMessage[] = [];
      for await (const m of wrapMcpClient(
        slowCheck(() => controller.abort(new Error("user pressed stop"))),
        client,
      ).experimental.tasks.callToolStream({ name: "delay", arguments: { ms: 1 } }, undefined, { signal: controller.signal }))
        messages.push(m as McpStreamMessage);
      expect(errorOf(messages)).toEqual({
        mcp: true,
        name: "McpError",
        code: ErrorCode.InternalError,
        message: "MCP error -32603: Error: user pressed stop",
      });
    });
  });
});
