/**
 * What a durable approval costs: pausing a tool call (the approval middleware asks, the request is
 * signed and stored) and resuming it (verify, read, claim, run again with the decision), on a
 * MemoryStore and on a real redis-server over 127.0.0.1; and a whole agent turn paused and
 * resumed (a scripted model, two steps, a session opened and closed by each of run and resume).
 *
 *   npx tsx benchmarks/approvals.bench.ts
 *
 * Not part of `npm run bench`: a check of one path, printed, not written anywhere. Each figure is
 * the median of 200 sequential calls; the script runs 3 rounds and prints min / median / max of the
 * rounds' medians.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { createAgentStack, type ToolCall } from "../src/agent/index.ts";
import { MemoryStore, Outcome, durableApprovals, type StateStore } from "../src/core/index.ts";
import { withMiddleware } from "../src/middleware/apply.ts";
import { approval } from "../src/middleware/approval.ts";
import { RedisStore } from "../src/stores/redis.ts";
import { guardedAgent } from "../test/fixtures/approvals/guarded-agent.ts";
import { startRedis } from "../test/support/redis.ts";
import { fmt, textTable } from "./util.ts";

const key = "a-benchmark-key-of-at-least-32-bytes";
const call: ToolCall = { id: "c1", name: "Bash", input: { command: "git push origin main" } };
const op = () => ({ content: "pushed" });

const timeEach = async (n: number, fn: () => Promise<unknown>): Promise<number> => {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - start) / 1e3);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
};

const coreCase = async (store: StateStore) => {
  const approvals = durableApprovals({ store, key });
  const stack = withMiddleware(createAgentStack({ approval: approvals }), approval({ match: "Bash(git push*)" }));
  const tokens: string[] = [];
  const pause = await timeEach(200, async () => {
    const outcome = await stack.run("toolCall", call, op);
    if (!Outcome.isInterrupted(outcome)) throw new Error("did not pause");
    tokens.push(outcome.approval.token);
  });
  let i = 0;
  const resume = await timeEach(200, () => approvals.resume(stack, tokens[i++]!, { decision: "approve" }, op));
  return { pause, resume };
};

const turnCase = async (store: StateStore) => {
  const file = join(tmpdir(), `approvals-bench-${process.pid}.log`);
  writeFileSync(file, "");
  const { agent, approvals } = guardedAgent(store, file);
  const durable = await timeEach(200, async () => {
    const paused = await agent.run("git push origin main");
    await agent.resume(paused.state!, { [paused.approvals![0]!.id]: { decision: "approve" } }, { approvals });
  });
  return { durable };
};

const server = await startRedis();
const rows: string[][] = [];
const rounds: Record<string, number[]> = {};
const add = (label: string, us: number) => (rounds[label] ??= []).push(us);
try {
  for (let round = 0; round < 3; round++) {
    const memory = await coreCase(new MemoryStore());
    add("toolCall pause, MemoryStore", memory.pause);
    add("toolCall resume, MemoryStore", memory.resume);
    const redis = new RedisStore({ connection: server.url });
    const overRedis = await coreCase(redis);
    add("toolCall pause, Redis", overRedis.pause);
    add("toolCall resume, Redis", overRedis.resume);
    add("agent turn paused + resumed, MemoryStore", (await turnCase(new MemoryStore())).durable);
    add("agent turn paused + resumed, Redis", (await turnCase(redis)).durable);
    await redis.close();
  }
} finally {
  await server.stop();
}
for (const [label, values] of Object.entries(rounds)) {
  const sorted = [...values].sort((a, b) => a - b);
  rows.push([label, fmt(sorted[0]!), fmt(sorted[1]!), fmt(sorted[2]!)]);
}
console.log(`Node ${process.version}; µs per call (median of 200), over 3 rounds`);
console.log(textTable(["case", "min", "median", "max"], rows));
