/**
 * Durable approvals across OS processes on a real redis-server: a run paused in this process is
 * resumed in another; two processes racing to resume the same tokens each win some, and every
 * token is resumed exactly once (the tool ran once per token, whoever won).
 */
import { fork, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ToolCall } from "../../src/agent/types.ts";
import { Outcome } from "../../src/core/outcome.ts";
import { guardedStack } from "../fixtures/approvals/guarded-stack.ts";
import { tempDir } from "../executors/helpers.ts";
import { describeRedisProcess, startRedis, type RedisServer } from "../support/redis.ts";
import { scaled } from "../support/scale.ts";

const worker = fileURLToPath(new URL("../fixtures/approvals/resume-worker.ts", import.meta.url));
const spawnWorker = (args: string[]): ChildProcess =>
  fork(worker, args, { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
const next = <T>(child: ChildProcess, type: string): Promise<T> =>
  new Promise((resolve, reject) => {
    const onMessage = (m: { type?: string }) => {
      if (m.type !== type) return;
      child.off("message", onMessage);
      resolve(m as T);
    };
    child.on("message", onMessage);
    child.once("exit", (code) => reject(new Error(`worker exited with ${String(code)} before ${type}`)));
  });

interface Done {
  readonly results: readonly { token: string; won: boolean; outcome?: string; error?: string }[];
}

describeRedisProcess("durable approvals across OS processes", () => {
  let server: RedisServer;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await server?.stop();
  });

  it(
    "two processes resuming the same 25 paused calls from either end resume each exactly once",
    async () => {
      const file = join(tempDir(), "runs.log");
      writeFileSync(file, "");
      const here = guardedStack(server.url, file);
      const tokens: string[] = [];
      for (let i = 0; i < 25; i++) {
        const call: ToolCall = { id: `c${i}`, name: "Bash", input: { command: `git push origin topic-${i}` } };
        const outcome = await here.stack.run("toolCall", call, here.run, { sessionId: `s${i}` });
        if (!Outcome.isInterrupted(outcome)) throw new Error(`call ${i} did not pause: ${JSON.stringify(outcome)}`);
        tokens.push(outcome.approval.token);
      }
      expect(readFileSync(file, "utf8")).toBe("");
      const workers = [spawnWorker([server.url, file, "forward"]), spawnWorker([server.url, file, "backward"])];
      children.push(...workers);
      await Promise.all(workers.map((w) => next(w, "ready")));
      const done = workers.map((w) => next<Done>(w, "done"));
      const startAt = Date.now() + 500;
      for (const w of workers) w.send({ tokens, startAt });
      const [a, b] = await Promise.all(done);
      for (const [i, token] of tokens.entries()) {
        const mine = [a!.results[i]!, b!.results[i]!];
        expect(mine.map((r) => r.token)).toEqual([token, token]);
        expect(mine.filter((r) => r.won).map((r) => r.outcome)).toEqual(["Completed"]);
        expect(mine.filter((r) => !r.won).map((r) => r.error)).toEqual(["ApprovalReplayedError"]);
      }
      const runs = readFileSync(file, "utf8").split("\n").filter(Boolean);
      expect(runs).toHaveLength(25);
      expect(new Set(runs.map((line) => line.split(" ").slice(1).join(" "))).size).toBe(25);
      // Both processes won some: they worked from either end and met on the same tokens.
      expect(new Set(runs.map((line) => line.split(" ")[0])).size).toBe(2);
      // A third resume, from here, is refused too.
      await expect(here.approvals.resume(here.stack, tokens[0]!, { decision: "approve" }, here.run)).rejects.toMatchObject({
        name: "ApprovalReplayedError",
      });
      await here.store.close();
    },
    scaled(60_000),
  );
});
