/**
 * wrapAiSdkTools with `approval: "ai-sdk"` and durable approvals across real OS processes on a real
 * redis-server: the test process asks (the SDK ends the step with its approval request, the run
 * stops `Interrupted`); forked workers are handed the conversation with the person's answer, as a
 * web app's next request would be, and resume the paused run there, exactly once.
 */
import { fork, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import type { ModelMessage } from "ai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RedisStore } from "../../src/stores/redis.ts";
import { describeRedisProcess, startRedis, type RedisServer } from "../support/redis.ts";
import { deployment } from "./ai-sdk-approval-fixture.ts";
import type { Order } from "./ai-sdk-approval-worker.ts";
import { scaled } from "../support/scale.ts";

interface Report {
  readonly id: number;
  readonly pid: number;
  readonly text: string;
  readonly ran: string[];
  readonly lines: Record<string, unknown>[];
  readonly trace: { hook: string; phase: string; action: string; reason?: string }[];
  readonly error?: string;
}

const workerFile = fileURLToPath(new URL("./ai-sdk-approval-worker.ts", import.meta.url));

/** A worker process: `send` hands it an order and resolves with its report. */
const startWorker = (url: string, prefix: string, children: ChildProcess[]) =>
  new Promise<{ send: (order: Omit<Order, "id">) => Promise<Report>; pid: number }>((resolve, reject) => {
    const child = fork(workerFile, [url, prefix], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    children.push(child);
    const waiting = new Map<number, (r: Report) => void>();
    let next = 0;
    child.once("exit", (code) => reject(new Error(`worker exited with ${String(code)} before it was ready`)));
    child.on("message", (m: Report | { ready: true }) => {
      if ("ready" in m) {
        resolve({
          pid: child.pid as number,
          send: (order) =>
            new Promise<Report>((done) => {
              const id = next++;
              waiting.set(id, done);
              child.send({ ...order, id });
            }),
        });
        return;
      }
      waiting.get(m.id)?.(m);
      waiting.delete(m.id);
    });
  });

const runLines = (lines: readonly Record<string, unknown>[]) => lines.filter((l) => l.type === "run" && l.point === "toolCall");

describeRedisProcess("AI SDK tool approvals with durable approvals, answered in another OS process", () => {
  let server: RedisServer;
  let store: RedisStore;
  const prefix = `ai-sdk-approval-${randomUUID()}:`;
  const children: ChildProcess[] = [];
  let workers: Awaited<ReturnType<typeof startWorker>>[];
  beforeAll(async () => {
    server = await startRedis();
    store = new RedisStore({ connection: server.url, keyPrefix: prefix });
    workers = await Promise.all([startWorker(server.url, prefix, children), startWorker(server.url, prefix, children)]);
  }, scaled(60_000));
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.send({ exit: true });
    await new Promise((r) => setTimeout(r, 200));
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await store?.close();
    await server?.stop();
  });

  /** Ask here (process 1): the first turn, paused; its messages and approval id, and the paused run's approval id. */
  const ask = async (command: string, toolCallId: string, ownApproval = false) => {
    const app = deployment(store, { ownApproval });
    const asked = await app.ask(command, toolCallId);
    await app.stack.flush();
    expect(app.recorded.ran).toEqual([]);
    const [line] = runLines(app.recorded.lines());
    expect(line).toMatchObject({
      outcome: "Rejected",
      by: ownApproval ? "ai-sdk tool approval" : "approval",
      approval: expect.any(String),
    });
    return { messages: asked.messages as ModelMessage[], approvalId: asked.approvalId as string, paused: line?.approval as string };
  };

  it("runs a call asked here and approved in another process there, once; its trace and audit log say who approved", async () => {
    const { messages, approvalId, paused } = await ask("git push origin main", `call-${randomUUID()}`);
    const [second] = workers;
    const report = await second!.send({ messages, approvalId, approved: true, reason: "go" });
    expect(report.error).toBeUndefined();
    expect(report.pid).not.toBe(process.pid);
    expect(report.text).toBe('done: {"type":"text","value":"ran git push origin main"}');
    expect(report.ran).toEqual(["git push origin main"]);
    expect(runLines(report.lines)).toEqual([expect.objectContaining({ outcome: "Completed", sessionId: "s1" })]);
    expect(report.trace.filter((e) => e.phase === "approval")).toEqual([
      {
        hook: "approval",
        phase: "approval",
        action: "Continue",
        reason: `approved by ai-sdk tool approval (resumed approval ${paused}): go`,
      },
    ]);
    // Handed back again, to either process: the call does not run again, and no run is recorded.
    for (const w of workers) {
      const again = await w.send({ messages, approvalId, approved: true, reason: "go" });
      expect(again.ran).toEqual([]);
      expect(runLines(again.lines)).toEqual([]);
      expect(again.text).toMatch(/was already answered/);
    }
  });

  it("never runs a call asked here and denied in another process; the trace and audit log show the rejection with the person's reason", async () => {
    const { messages, approvalId, paused } = await ask("git push --force", `call-${randomUUID()}`);
    const report = await workers[0]!.send({ messages, approvalId, approved: false, reason: "frozen" });
    expect(report.error).toBeUndefined();
    expect(report.text).toBe('done: {"type":"execution-denied","reason":"frozen"}');
    expect(report.ran).toEqual([]);
    expect(runLines(report.lines)).toEqual([
      expect.objectContaining({ outcome: "Rejected", by: "approval", reason: "bash was not approved: frozen" }),
    ]);
    expect(report.trace.filter((e) => e.hook === "approval")).toEqual([
      {
        hook: "approval",
        phase: "approval",
        action: "Reject",
        reason: `denied by ai-sdk tool approval (resumed approval ${paused}): frozen`,
      },
      { hook: "approval", phase: "before", action: "Reject", reason: "bash was not approved: frozen" },
    ]);
    // A replayed denial resumes nothing: no second rejection in the audit log, and nothing thrown to the SDK.
    const again = await workers[1]!.send({ messages, approvalId, approved: false, reason: "frozen" });
    expect(again.error).toBeUndefined();
    expect(again.text).toBe('done: {"type":"execution-denied","reason":"frozen"}');
    expect(runLines(again.lines)).toEqual([]);
  });

  it("records the denial of a tool's own needsApproval in the process it comes back to, as the call's rejection by ai-sdk tool approval", async () => {
    const denied = await ask("deploy prod", `call-${randomUUID()}`, true);
    const report = await workers[1]!.send({ ...denied, approved: false, reason: "not today", ownApproval: true });
    expect(report.error).toBeUndefined();
    expect(report.ran).toEqual([]);
    expect(runLines(report.lines)).toEqual([
      expect.objectContaining({ outcome: "Rejected", by: "ai-sdk tool approval", reason: "not today" }),
    ]);
    const approved = await ask("deploy staging", `call-${randomUUID()}`, true);
    const ran = await workers[0]!.send({ ...approved, approved: true, reason: "ok", ownApproval: true });
    expect(ran.ran).toEqual(["deploy staging"]);
    expect(runLines(ran.lines).map((l) => l.outcome)).toEqual(["Completed"]);
  });

  it("acts on an answer handed to two processes at the same moment once: one resumes, the other is silent", async () => {
    for (let round = 0; round < 3; round++) {
      const approved = await ask("git push origin release", `call-${randomUUID()}`);
      const denied = await ask("git push origin hotfix", `call-${randomUUID()}`);
      const reports = await Promise.all(
        workers.flatMap((w) => [
          w.send({ messages: approved.messages, approvalId: approved.approvalId, approved: true, reason: "go" }),
          w.send({ messages: denied.messages, approvalId: denied.approvalId, approved: false, reason: "frozen" }),
        ]),
      );
      expect(reports.map((r) => r.error)).toEqual([undefined, undefined, undefined, undefined]);
      expect(reports.flatMap((r) => r.ran)).toEqual(["git push origin release"]);
      expect(reports.flatMap((r) => runLines(r.lines)).map((l) => [l.outcome, l.reason ?? null])).toEqual(
        expect.arrayContaining([
          ["Completed", null],
          ["Rejected", "bash was not approved: frozen"],
        ]),
      );
      expect(reports.flatMap((r) => runLines(r.lines))).toHaveLength(2);
    }
  });
});
