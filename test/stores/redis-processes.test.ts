import { fork, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RedisStore } from "../../src/stores/redis.ts";
import { describeRedisProcess, startRedis, type RedisServer } from "../support/redis.ts";

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const spawnWorker = (name: string, args: (string | number)[]): ChildProcess =>
  fork(fixture(name), args.map(String), { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
const nextMessage = <T>(child: ChildProcess): Promise<T> =>
  new Promise((resolve, reject) => {
    child.once("message", (message) => resolve(message as T));
    child.once("exit", (code) => reject(new Error(`worker exited with ${String(code)} before answering`)));
  });
const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once("exit", () => r()));

interface Report {
  readonly type: "done";
  readonly calls: number;
  readonly spent: number;
  readonly maxSettled: number;
}

describeRedisProcess("RedisStore across OS processes", () => {
  let server: RedisServer;
  let store: RedisStore;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    server = await startRedis();
    store = new RedisStore({ connection: server.url });
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await store?.close();
    await server?.stop();
  });

  /** Four workers spend against one key at once; returns their reports. */
  const race = async (key: string, amount: number, limit: number, mode: "exact" | "less"): Promise<Report[]> => {
    const workers = Array.from({ length: 4 }, () => spawnWorker("budget-worker.ts", [server.url, key, amount, limit, mode]));
    children.push(...workers);
    const reports = workers.map((w) => nextMessage<unknown>(w).then(() => nextMessage<Report>(w)));
    // Wait until every worker is connected, then start them together.
    await Promise.all(workers.map((w) => new Promise<void>((r) => w.once("message", () => r()))));
    for (const w of workers) w.send("go");
    const done = await Promise.all(reports);
    await Promise.all(workers.map(exited));
    return done;
  };

  it("four processes reserving before each call settle exactly the limit, never more, and lose no spend", async () => {
    const key = `budget-${randomUUID()}`;
    const reports = await race(key, 7, 7 * 300, "exact");
    const total = reports.reduce((sum, r) => sum + r.spent, 0);
    expect(reports.every((r) => r.calls > 0)).toBe(true);
    expect(reports.every((r) => r.maxSettled <= 7 * 300)).toBe(true);
    expect(total).toBe(7 * 300);
    expect(await store.get(key)).toBe(total);
    expect(await store.used(key)).toBe(total);
  });

  it("four processes settling less than they reserved never pass the limit and lose no spend", async () => {
    const key = `budget-${randomUUID()}`;
    const reports = await race(key, 10, 1_000, "less");
    const total = reports.reduce((sum, r) => sum + r.spent, 0);
    expect(reports.every((r) => r.maxSettled <= 1_000)).toBe(true);
    // The last worker is refused when every other one has stopped, so less than one reservation is left.
    expect(total).toBeGreaterThan(1_000 - 10);
    expect(total).toBeLessThanOrEqual(1_000);
    expect(await store.get(key)).toBe(total);
  });

  it("a SIGKILLed worker's reservation keeps counting until its TTL, then expires and used drops", async () => {
    const key = `budget-${randomUUID()}`;
    const worker = spawnWorker("hold-worker.ts", [server.url, key, 80, 100, 1_500]);
    children.push(worker);
    const { hold } = await nextMessage<{ hold: { ok: boolean; used: number } }>(worker);
    expect(hold).toEqual({ ok: true, used: 80, settled: 0, reserved: 80 });
    worker.kill("SIGKILL");
    await exited(worker);
    expect(await store.used(key)).toBe(80);
    expect(await store.reserve(key, "after-crash", 30, 100, 60_000)).toEqual({ ok: false, used: 80, settled: 0, reserved: 80 });
    await expect.poll(() => store.used(key), { timeout: 5_000, interval: 100 }).toBe(0);
    expect(await store.reserve(key, "after-expiry", 100, 100, 60_000)).toEqual({ ok: true, used: 100, settled: 0, reserved: 100 });
  });
});
