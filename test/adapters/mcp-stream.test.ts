import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { wrapMcpClient, type McpToolClient } from "../../src/adapters/mcp.ts";
import type { McpStreamMessage } from "../../src/adapters/mcp-stream.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { Reject, Replace, Transform } from "../../src/core/index.ts";

/**
 * A real MCP server with task support and one task tool, `delay`, that answers `waited <ms>`
 * after `ms` milliseconds (polled every 5 ms), recording what it was asked to do.
 */
const connect = async () => {
  const taskStore = new InMemoryTaskStore();
  const server = new McpServer(
    { name: "task-server", version: "1.0.0" },
    { capabilities: { tasks: { requests: { tools: { call: {} } } } }, taskStore },
  );
  const created: number[] = [];
  const stored: number[] = [];
  server.experimental.tasks.registerToolTask(
    "delay",
    { inputSchema: { ms: z.number() }, execution: { taskSupport: "required" } },
    {
      async createTask({ ms }, extra) {
        created.push(ms);
        const task = await extra.taskStore.createTask({ ttl: 60_000, pollInterval: 5 });
        setTimeout(() => {
          stored.push(ms);
          void extra.taskStore.storeTaskResult(task.taskId, "completed", { content: [{ type: "text", text: `waited ${ms}` }] });
        }, ms);
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
  open.push(client, server, { close: async () => taskStore.cleanup() });
  return { client, created, stored };
};

const open: { close(): Promise<void> | void }[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

const collect = async (stream: AsyncIterable<unknown>): Promise<McpStreamMessage[]> => {
  const messages: McpStreamMessage[] = [];
  for await (const message of stream) messages.push(message as McpStreamMessage);
  return messages;
};

const texts = (message: McpStreamMessage | undefined): unknown =>
  message?.type === "result" ? (message.result.content as { text: string }[]).map((b) => b.text) : message;

describe("wrapMcpClient, streamed task calls", () => {
  it("run experimental.tasks.callToolStream through the toolCall point: a rejection is the stream's only message, and no task is made", async () => {
    const { client, created } = await connect();
    const stack = createAgentStack().use("toolCall", { name: "no-delay", match: "delay", before: () => Reject("no waiting today") });
    const messages = await collect(wrapMcpClient(stack, client).experimental.tasks.callToolStream({ name: "delay", arguments: { ms: 1 } }));
    expect(messages).toEqual([
      {
        type: "result",
        result: { isError: true, content: [{ type: "text", text: "Tool call delay was rejected by no-delay: no waiting today" }] },
      },
    ]);
    expect(created).toEqual([]);
  });

  it("pass the task's messages on as they arrive, and end with the result as the after hooks left it", async () => {
    const { client, created, stored } = await connect();
    const storedWhenCreatedArrived: number[][] = [];
    const stack = createAgentStack().use("toolCall", {
      name: "slower",
      before: (c) => Transform({ ...c, input: { ms: (c.input.ms as number) * 2 } }),
      after: (r) => Transform({ ...r, content: [{ type: "text", text: `${(r.content as { text: string }[])[0]?.text} (checked)` }] }),
    });
    const messages: McpStreamMessage[] = [];
    for await (const message of wrapMcpClient(stack, client).experimental.tasks.callToolStream({ name: "delay", arguments: { ms: 40 } })) {
      if (message.type === "taskCreated") storedWhenCreatedArrived.push([...stored]);
      messages.push(message as McpStreamMessage);
    }
    expect(created).toEqual([80]);
    expect(storedWhenCreatedArrived).toEqual([[]]); // streamed, not gathered until the end
    expect(messages[0]?.type).toBe("taskCreated");
    expect(messages.slice(1, -1).every((m) => m.type === "taskStatus")).toBe(true);
    expect(texts(messages.at(-1))).toEqual(["waited 80 (checked)"]);
  });

  it("guard the task API's requestStream and the client's own for tools/call the same way", async () => {
    const { client, created } = await connect();
    const stack = createAgentStack().use("toolCall", { name: "deny", before: () => Reject("no") });
    const wrapped = wrapMcpClient(stack, client) as unknown as {
      experimental: { tasks: { requestStream: (r: unknown, s: unknown, o?: unknown) => AsyncIterable<unknown> } };
      requestStream: (r: unknown, s: unknown, o?: unknown) => AsyncIterable<unknown>;
    };
    const request = { method: "tools/call", params: { name: "delay", arguments: { ms: 1 } } };
    const viaTasks = await collect(wrapped.experimental.tasks.requestStream(request, CallToolResultSchema, { task: {} }));
    const viaClient = await collect(wrapped.requestStream(request, CallToolResultSchema, { task: {} }));
    for (const messages of [viaTasks, viaClient])
      expect(messages).toEqual([{ type: "result", result: expect.objectContaining({ isError: true }) }]);
    expect(created).toEqual([]);
    expect(wrapped.experimental.tasks).toBe(wrapped.experimental.tasks);
  });

  it("leave no listener on the caller's signal once the run settled, even when the reader takes the result and never asks for more", async () => {
    const { client } = await connect();
    const controller = new AbortController();
    const wrapped = wrapMcpClient(createAgentStack(), client);
    for (let i = 0; i < 3; i++) {
      const stream = wrapped.experimental.tasks.callToolStream({ name: "delay", arguments: { ms: 1 } }, undefined, {
        signal: controller.signal,
      });
      for (let m = await stream.next(); !m.done && m.value.type !== "result"; m = await stream.next());
    }
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("give up on the run when the reader stops early, so the hooks and the call see their signal abort", async () => {
    const { client } = await connect();
    const signals: AbortSignal[] = [];
    const stack = createAgentStack().use("toolCall", { name: "watch", around: (ctx, next) => (signals.push(ctx.signal), next()) });
    for await (const message of wrapMcpClient(stack, client).experimental.tasks.callToolStream({ name: "delay", arguments: { ms: 200 } })) {
      expect(message.type).toBe("taskCreated");
      break;
    }
    expect(signals.map((s) => s.aborted)).toEqual([true]);
  });

  it("end with the caller's abort as an error message when the caller's signal aborts mid-stream", async () => {
    const { client } = await connect();
    const controller = new AbortController();
    const messages: McpStreamMessage[] = [];
    for await (const message of wrapMcpClient(createAgentStack(), client).experimental.tasks.callToolStream(
      { name: "delay", arguments: { ms: 500 } },
      undefined,
      { signal: controller.signal },
    )) {
      messages.push(message as McpStreamMessage);
      if (message.type === "taskCreated") controller.abort(new Error("user pressed stop"));
    }
    const last = messages.at(-1);
    expect(last?.type).toBe("error");
    expect(String((last as { error: unknown }).error)).toMatch(/user pressed stop|aborted/);
  });

  it("turn an error message of the stream into the operation's failure, which a recover hook may replace", async () => {
    const lost = new Error("connection lost");
    const stream = async function* () {
      yield { type: "taskCreated", task: { taskId: "t1" } };
      yield { type: "error", error: lost };
    };
    type TaskClient = McpToolClient & { experimental: { tasks: { callToolStream: (params: { name: string }) => AsyncIterable<unknown> } } };
    const client: TaskClient = { callTool: async () => ({ content: [] }), experimental: { tasks: { callToolStream: stream } } };
    const plain = await collect(wrapMcpClient(createAgentStack(), client).experimental.tasks.callToolStream({ name: "remote" }));
    expect(plain).toEqual([
      { type: "taskCreated", task: { taskId: "t1" } },
      { type: "error", error: lost },
    ]);
    const recovering = createAgentStack().use("toolCall", { name: "fallback", recover: () => Replace({ content: "from the cache" }) });
    const recovered = await collect(wrapMcpClient(recovering, client).experimental.tasks.callToolStream({ name: "remote" }));
    expect(texts(recovered.at(-1))).toEqual(["from the cache"]);
  });
});
