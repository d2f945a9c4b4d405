/**
 * Checklist D, E (command and HTTP hooks): the items the executor suites leave out. A gate whose
 * working directory vanished (D12), no retries of a failed HTTP hook (E9), and a fire-and-forget
 * endpoint that hangs while events arrive fast (E8): the chain is never blocked, the queue stays
 * bounded, drops are counted and the heap does not grow with the events.
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentStack } from "../../src/agent/index.ts";
import { commandHook } from "../../src/executors/command.ts";
import { httpHook } from "../../src/executors/http.ts";
import type { ExternalNotice } from "../../src/executors/protocol.ts";
import { BackgroundQueue } from "../../src/executors/queue.ts";
import { startHookServer, type HookServer } from "../fixtures/http/server.ts";
import { tempDir } from "../executors/helpers.ts";
import { gc } from "./helpers.ts";

let server: HookServer;
beforeAll(async () => {
  server = await startHookServer();
});
afterAll(() => server.close());

const bash = { id: "c", name: "Bash", input: { command: "ls" } };

describe("D12: the working directory was deleted", () => {
  it("fails the gate closed, naming the directory, and never runs the tool", async () => {
    const gone = tempDir("gone-");
    rmSync(gone, { recursive: true });
    const stack = createAgentStack().use(
      "toolCall",
      commandHook({ event: "PreToolUse", name: "guard", command: "true", cwd: gone, timeoutMs: 5000 }),
    );
    let ran = 0;
    const outcome = await stack.run("toolCall", bash, () => (ran++, { content: "ran" }));
    expect(outcome._tag).toBe("Rejected");
    expect((outcome as { reason: string }).reason).toContain(gone);
    expect(ran).toBe(0);
  });
});

describe("E9: retries", () => {
  it("asks a failing HTTP gate once per run: no retry, whatever the status", async () => {
    const stack = createAgentStack().use(
      "toolCall",
      httpHook({ event: "PreToolUse", url: server.url("/500"), allow: { loopback: true }, timeoutMs: 2000 }),
    );
    const before = server.requests.filter((r) => r.path === "/500").length;
    for (let i = 0; i < 3; i++) expect((await stack.run("toolCall", bash, () => ({ content: "ran" })))._tag).toBe("Rejected");
    expect(server.requests.filter((r) => r.path === "/500").length - before).toBe(3);
  });

  it("carries the tool call id in every event, so an endpoint can deduplicate", async () => {
    const stack = createAgentStack().use(
      "toolCall",
      httpHook({ event: "PreToolUse", url: server.url("/allow"), allow: { loopback: true }, timeoutMs: 2000 }),
    );
    await stack.run("toolCall", { id: "toolu_42", name: "Bash", input: { command: "ls" } }, () => ({ content: "ran" }));
    expect(JSON.parse(server.requests.at(-1)!.body)).toMatchObject({ tool_use_id: "toolu_42" });
  });
});

describe("E8: a fire-and-forget endpoint that hangs while events arrive fast", () => {
  it("never blocks 2 000 runs, keeps the queue at its limit, counts every drop, and frees the rest", async () => {
    const notices: ExternalNotice[] = [];
    const queue = new BackgroundQueue({ limit: 20, concurrency: 4 });
    const hook = httpHook({
      event: "PostToolUse",
      url: server.url("/hang"),
      allow: { loopback: true },
      async: true,
      queue,
      timeoutMs: 200,
      onNotice: (n) => notices.push(n),
    });
    const stack = createAgentStack().use("toolCall", hook);
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    let maxSize = 0;
    for (let burst = 0; burst < 20; burst++) {
      const outcomes = await Promise.all(
        Array.from({ length: 100 }, (_, i) => stack.run("toolCall", { ...bash, id: `c${burst}-${i}` }, () => ({ content: "ran" }))),
      );
      expect(outcomes.every((o) => o._tag === "Completed")).toBe(true);
      maxSize = Math.max(maxSize, queue.size);
    }
    // The runs of a burst settled while its hooks still waited on the endpoint: never waited for.
    // (Had each burst waited, the queue would be empty when its runs settle.)
    expect(maxSize).toBeGreaterThan(0);
    expect(maxSize).toBeLessThanOrEqual(20);
    await stack.flush();
    expect(queue.size).toBe(0);
    expect(queue.dropped + queue.completed).toBe(2000);
    expect(notices.filter((n) => n.kind === "dropped")).toHaveLength(queue.dropped);
    gc();
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(32 * 1024 * 1024);
  });
});
