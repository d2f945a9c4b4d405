/**
 * A turn of the reference agent paused in this process is finished by another OS process
 * sharing a real redis-server: the state travels as JSON, the worker resumes the turn with the
 * person's decision and completes it; a second resume, from either process, is refused.
 */
import { fork, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { TurnResult } from "../../src/agent/index.ts";
import { RedisStore } from "../../src/stores/redis.ts";
import { guardedAgent } from "../fixtures/approvals/guarded-agent.ts";
import { tempDir } from "../executors/helpers.ts";
import { describeRedisProcess, startRedis, type RedisServer } from "../support/redis.ts";
import { scaled } from "../support/scale.ts";

const worker = fileURLToPath(new URL("../fixtures/approvals/agent-resume-worker.ts", import.meta.url));
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

interface Resumed {
  readonly turn?: TurnResult;
  readonly error?: string;
}

describeRedisProcess("an agent turn resumed in another process", () => {
  let server: RedisServer;
  let child: ChildProcess | undefined;
  const others: ChildProcess[] = [];
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    for (const c of [child, ...others]) if (c !== undefined && c.exitCode === null) c.kill("SIGKILL");
    await server?.stop();
  });

  it(
    "pauses here, is finished by a forked worker, and cannot be resumed twice",
    async () => {
      const file = join(tempDir(), "runs.log");
      writeFileSync(file, "");
      const store = new RedisStore({ connection: server.url });
      const here = guardedAgent(store, file);
      child = fork(worker, [server.url, file], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
      const { pid } = await next<{ pid: number }>(child, "ready");

      const paused = await here.agent.run("git status && git push origin main && git push origin release");
      expect(paused.status).toBe("interrupted");
      expect(paused.approvals).toHaveLength(2);
      const [main, release] = paused.approvals!;
      const decisions = {
        [main!.id]: { decision: "approve", by: "alice" },
        [release!.id]: {
          decision: "edit",
          by: "alice",
          input: { ...(release!.input as object), input: { command: "git push --dry-run origin release" } },
        },
      };

      // Only JSON crosses: what a web app would keep in its database between two requests.
      child.send({ type: "resume", state: JSON.parse(JSON.stringify(paused.state)), decisions });
      const { turn } = await next<Resumed>(child, "resumed");
      expect(turn).toMatchObject({
        status: "completed",
        runId: paused.runId,
        steps: 2,
        text: "done (Bash: ran git status; Bash: ran git push origin main; Bash: ran git push --dry-run origin release)",
      });
      const runs = readFileSync(file, "utf8").split("\n").filter(Boolean);
      expect(runs).toEqual([`${process.pid} git status`, `${pid} git push origin main`, `${pid} git push --dry-run origin release`]);

      // A second resume is refused, in the worker and here.
      child.send({ type: "resume", state: paused.state, decisions });
      expect(await next<Resumed>(child, "resumed")).toEqual({ type: "resumed", error: "ApprovalReplayedError" });
      await expect(here.agent.resume(paused.state!, decisions, { approvals: here.approvals })).rejects.toMatchObject({
        name: "ApprovalReplayedError",
      });
      expect(readFileSync(file, "utf8").split("\n").filter(Boolean)).toHaveLength(3);

      child.send({ type: "exit" });
      await store.close();
    },
    scaled(60_000),
  );

  it(
    "two processes racing to resume the same paused turns: each turn is finished by exactly one",
    async () => {
      const file = join(tempDir(), "runs.log");
      writeFileSync(file, "");
      const store = new RedisStore({ connection: server.url });
      const here = guardedAgent(store, file);
      const workers = [0, 1].map(() =>
        fork(worker, [server.url, file], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] }),
      );
      others.push(...workers);
      await Promise.all(workers.map((w) => next(w, "ready")));
      for (let round = 0; round < 5; round++) {
        const paused = await here.agent.run(`git push origin topic-${round}`);
        const decisions = { [paused.approvals![0]!.id]: { decision: "approve" } };
        const startAt = Date.now() + 300;
        const results = workers.map((w) => next<Resumed>(w, "resumed"));
        for (const w of workers) w.send({ type: "resume", state: paused.state, decisions, startAt });
        const both = await Promise.all(results);
        expect(both.map((r) => r.turn?.status ?? r.error).sort()).toEqual(["ApprovalReplayedError", "completed"]);
      }
      const runs = readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split(" ").slice(1).join(" "));
      expect(runs).toEqual([0, 1, 2, 3, 4].map((i) => `git push origin topic-${i}`));
      for (const w of workers) w.send({ type: "exit" });
      await store.close();
    },
    scaled(60_000),
  );
});
