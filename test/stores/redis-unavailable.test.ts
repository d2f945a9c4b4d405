import { Redis } from "ioredis";
import { createServer } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RedisStore, StoreUnavailableError } from "../../src/stores/redis.ts";
import { describeRedisProcess, startRedis, type RedisServer } from "../support/redis.ts";
import { settlesWithin } from "../support/timers.ts";

/** A port nothing listens on: bound, then closed. */
const closedPort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 1));
    });
  });

/**
 * What `operation` rejects with, and whether it did before a timer of `ms` started with it: the
 * store's own timeouts are shorter timers, which fire first however busy the machine.
 */
const rejectsWithin = async (ms: number, operation: () => Promise<unknown>): Promise<{ error: unknown; inTime: boolean }> => {
  const settled = operation().then(
    () => undefined,
    (e: unknown) => e,
  );
  const inTime = await settlesWithin(ms, settled);
  return { error: await settled, inTime };
};

/** How long `whileStalled` keeps the server from answering, in ms: far longer than the timeouts under test. */
const stallMs = 2_000;

/**
 * The first answer of `operation` once the store has connected: on a loaded machine even a local
 * connection can take longer than a short `timeoutMs`, which is not what these tests are about.
 */
const connected = (operation: () => Promise<unknown>): Promise<unknown> =>
  expect
    .poll(
      () =>
        operation().then(
          () => "connected",
          () => "not yet",
        ),
      { timeout: 10_000, interval: 50 },
    )
    .toBe("connected");

describeRedisProcess("RedisStore fails closed", () => {
  let server: RedisServer;

  /**
   * Run `work` while the server answers no client: CLIENT PAUSE answers once the pause is in
   * effect, so the server is slow before `work` starts, however the machine schedules it.
   */
  const whileStalled = async <T>(work: () => Promise<T>): Promise<T> => {
    const admin = new Redis(server.port, "127.0.0.1");
    try {
      await admin.call("CLIENT", "PAUSE", String(stallMs), "ALL");
      return await work();
    } finally {
      // The pause holds back UNPAUSE too: this returns when the pause has ended.
      await admin.call("CLIENT", "UNPAUSE").catch(() => undefined);
      admin.disconnect();
    }
  };
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("rejects with StoreUnavailableError in under 2 s when nothing listens on the port", async () => {
    const store = new RedisStore({ connection: { host: "127.0.0.1", port: await closedPort() } });
    for (const operation of [() => store.get("k"), () => store.reserve("b", "r", 1, 10, 1_000), () => store.used("b")]) {
      const { error, inTime } = await rejectsWithin(2_000, operation);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(inTime).toBe(true);
    }
    await store.close();
  });

  it("rejects with StoreUnavailableError in under 2 s when the server stops mid-test, and works again once it is back", async () => {
    const store = new RedisStore({ connection: server.url });
    expect(await store.reserve("b", "r1", 5, 10, 60_000)).toMatchObject({ ok: true, used: 5 });
    await server.pause();
    for (const operation of [() => store.settle("b", "r1", 5), () => store.incr("n"), () => store.set("k", 1)]) {
      const { error, inTime } = await rejectsWithin(2_000, operation);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(inTime).toBe(true);
    }
    await server.resume();
    await expect.poll(() => store.incr("n").catch(() => "down"), { timeout: 10_000, interval: 100 }).toBe(1);
    await store.close();
  });

  it("rejects with StoreUnavailableError after timeoutMs when the server is slow", async () => {
    const store = new RedisStore({ connection: server.url, timeoutMs: 200 });
    await connected(() => store.set("k", 1));
    const { error, inTime } = await whileStalled(() => rejectsWithin(stallMs / 2, () => store.reserve("b", "r", 1, 10, 1_000)));
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(inTime).toBe(true);
    await store.close();
  });

  it("bounds a passed-in client without commandTimeout by timeoutMs too", async () => {
    const client = new Redis({ port: server.port, host: "127.0.0.1", enableOfflineQueue: false });
    const store = new RedisStore({ client, timeoutMs: 200 });
    await connected(() => store.set("k", 1));
    const { error, inTime } = await whileStalled(() => rejectsWithin(stallMs / 2, () => store.get("k")));
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(inTime).toBe(true);
    client.disconnect();
  });
});

describeRedisProcess("RedisStore's errors say what went wrong", () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedis();
    const admin = new Redis(server.port, "127.0.0.1");
    await admin.config("SET", "requirepass", "s3cret");
    admin.disconnect();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("names the authentication failure on every operation, not only the first, while the client reconnects", async () => {
    for (const connection of [server.url, `redis://:wrong@127.0.0.1:${server.port}`]) {
      const store = new RedisStore({ connection, timeoutMs: 500 });
      for (let i = 0; i < 3; i++) {
        const error: unknown = await store.incr("n").catch((e: unknown) => e);
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect(String((error as Error).message)).toMatch(/NOAUTH|WRONGPASS/);
        expect((error as Error).cause).toBeInstanceOf(Error);
        await new Promise((r) => setTimeout(r, 100));
      }
      await store.close();
    }
  });

  it("says the store is closed to operations that were waiting for a connection when it closed", async () => {
    // A server that accepts connections and never answers (operations wait for the ready check), and nothing at all.
    const silent = createServer((socket) => socket.on("error", () => {}));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const address = silent.address();
    for (const port of [typeof address === "object" && address !== null ? address.port : 1, await closedPort()]) {
      const store = new RedisStore({ connection: { host: "127.0.0.1", port }, timeoutMs: 300 });
      const waiting = Promise.all([store.incr("a"), store.get("b")].map((p) => p.catch((e: unknown) => e)));
      await store.close();
      for (const error of await waiting) {
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect((error as Error).message).toBe("the RedisStore is closed");
      }
    }
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });
});
