import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StateStoreError } from "../../src/core/state.ts";
import { RedisStore, StoreUnavailableError } from "../../src/stores/redis.ts";
import { describeRedis, startRedis, type RedisServer } from "../support/redis.ts";
import { stateStoreContract } from "./contract.ts";

let server: RedisServer;
let store: RedisStore;
let raw: Redis;

describeRedis("RedisStore", () => {
  beforeAll(async () => {
    server = await startRedis();
    // The contract is not about timeouts: a loaded machine may take over a second to answer a
    // thousand commands sent at once (the timeout tests are in redis-unavailable.test.ts).
    store = new RedisStore({ connection: server.url, keyPrefix: "test:", timeoutMs: 10_000 });
    raw = new Redis(server.port, "127.0.0.1");
  });

  afterAll(async () => {
    await store?.close();
    raw?.disconnect();
    await server?.stop();
  });

  // Every contract test gets its own random scope on the one real server.
  stateStoreContract("RedisStore", () => store.scope(randomUUID()));

  describe("RedisStore on a real server", () => {
    it("refuses a timeoutMs or keyPrefix of the wrong type at construction, with a TypeError naming RedisStore and the field", () => {
      expect(() => new RedisStore({ timeoutMs: Number.NaN, connection: server.url })).toThrow(
        new TypeError("RedisStore: timeoutMs must be an integer >= 1, got NaN"),
      );
      expect(() => new RedisStore({ keyPrefix: 42 as never, connection: server.url })).toThrow(
        new TypeError("RedisStore: keyPrefix must be a string, got 42"),
      );
    });

    it("keeps a budget's value, holds and expiries under keyPrefix, with one hash tag", async () => {
      const s = new RedisStore({ connection: server.url, keyPrefix: "layout:" });
      await s.reserve("budget", "r1", 5, 10, 60_000);
      await s.settle("budget", "r2", 3);
      await s.reserve("budget", "r3", 1, 10, 60_000);
      expect((await raw.keys("layout:*")).sort()).toEqual(["layout:{budget}", "layout:{budget}:h", "layout:{budget}:x"]);
      expect(await raw.get("layout:{budget}")).toBe("3");
      await s.close();
    });

    it("gives the reservation keys a TTL, so a crashed holder leaves nothing behind", async () => {
      const s = new RedisStore({ connection: server.url, keyPrefix: "ttl:" });
      const reserving = performance.now();
      await s.reserve("b", "r1", 5, 10, 5_000);
      for (const key of ["ttl:{b}:h", "ttl:{b}:x"]) {
        const pttl = await raw.pttl(key);
        // Short of the 5 s by no more than the time since the reservation began, however long a
        // busy machine made that (Redis rounds to the ms).
        expect(pttl).toBeGreaterThanOrEqual(5_000 - Math.ceil(performance.now() - reserving) - 1);
        expect(pttl).toBeLessThanOrEqual(5_000);
      }
      await s.close();
    });

    it("reserves and reads a budget in time independent of how many reservations it holds, live or expired", async () => {
      const s = new RedisStore({ connection: server.url, keyPrefix: `o1-${randomUUID()}:` });
      /** Mean µs Redis spent per script call (its own accounting, free of network and client time) over `calls` reserve+used pairs. */
      const usecPerCall = async (key: string, calls: number): Promise<number> => {
        await raw.config("RESETSTAT");
        for (let i = 0; i < calls; i++) {
          await s.reserve(key, `probe-${i}`, 1, 10_000_000, 60_000);
          await s.used(key);
        }
        const stats = await raw.info("commandstats");
        const evalsha = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(stats)!;
        return Number(evalsha[2]) / Number(evalsha[1]);
      };
      const few = await usecPerCall("few", 200);
      // 20 000 live reservations, and 20 000 that expired and were purged by the first read.
      for (let i = 0; i < 20_000; i += 1_000) {
        await Promise.all(Array.from({ length: 1_000 }, (_, k) => s.reserve("many", `live-${i + k}`, 1, 10_000_000, 600_000)));
        await Promise.all(Array.from({ length: 1_000 }, (_, k) => s.reserve("many", `gone-${i + k}`, 1, 10_000_000, 1)));
      }
      await new Promise((r) => setTimeout(r, 20));
      expect(await s.used("many")).toBe(20_000);
      const many = await usecPerCall("many", 200);
      // Summing 20 000 holds per call costs milliseconds; a kept sum, microseconds either way.
      expect(many).toBeLessThan(Math.max(10 * few, 200));
      await s.close();
    });

    it("reads a value written as JSON by another client, and refuses one that is not JSON", async () => {
      await raw.set("test:{shared}", '{"from":"elsewhere"}');
      await raw.set("test:{garbage}", "not json");
      expect(await store.get("shared")).toEqual({ from: "elsewhere" });
      await expect(store.get("garbage")).rejects.toThrow(StateStoreError);
    });

    it("reports a key of the wrong Redis type as a StateStoreError, not as unavailability", async () => {
      await raw.lpush("test:{list}", "x");
      const error: unknown = await store.incr("list").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateStoreError);
      expect(error).not.toBeInstanceOf(StoreUnavailableError);
    });

    it("refuses every operation when the configured database does not exist, rather than using database 0", async () => {
      const s = new RedisStore({ connection: `${server.url}/99`, keyPrefix: "nodb:" });
      for (const operation of [() => s.set("secret", { apiKey: "x" }), () => s.get("secret")]) {
        const error: unknown = await operation().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(StateStoreError);
        expect(String((error as Error).message)).toMatch(/database 99: ERR DB index is out of range/);
      }
      expect(await raw.keys("nodb:*")).toEqual([]);
      await s.close();
    });

    it("keeps its data in the configured database when it exists", async () => {
      const s = new RedisStore({ connection: { host: "127.0.0.1", port: server.port, db: 3 }, keyPrefix: "db3:" });
      await s.set("k", 1);
      const db3 = new Redis({ port: server.port, host: "127.0.0.1", db: 3 });
      expect(await db3.get("db3:{k}")).toBe("1");
      expect(await raw.keys("db3:*")).toEqual([]);
      db3.disconnect();
      await s.close();
    });

    it("serves many operations issued before the connection is ready, adding no listener per operation", async () => {
      const warnings: Error[] = [];
      const onWarning = (w: Error): void => void warnings.push(w);
      process.on("warning", onWarning);
      const s = new RedisStore({ connection: server.url, keyPrefix: `early-${randomUUID()}:` });
      const values = await Promise.all(Array.from({ length: 50 }, () => s.incr("n")));
      expect(Math.max(...values)).toBe(50);
      await new Promise((r) => setImmediate(r));
      process.off("warning", onWarning);
      expect(warnings).toEqual([]);
      await s.close();
    });

    it("uses a client passed in and leaves it open on close", async () => {
      const client = new Redis({ port: server.port, host: "127.0.0.1", enableOfflineQueue: false, lazyConnect: true });
      const s = new RedisStore({ client, keyPrefix: "passed:" });
      await s.set("k", 1);
      await s.close();
      expect(await client.get("passed:{k}")).toBe("1");
      await expect(s.get("k")).rejects.toThrow(StoreUnavailableError);
      client.disconnect();
    });

    it("closes only the view when a view made by scope() is closed: the store and its other views go on until the store closes", async () => {
      const root = new RedisStore({ connection: server.url, keyPrefix: `views-${randomUUID()}:` });
      const [a, b] = [root.scope("tenant-a"), root.scope("tenant-b")];
      await a.set("k", 1);
      await a.close();
      await expect(a.get("k")).rejects.toThrow(new StoreUnavailableError("the RedisStore is closed"));
      await expect(a.scope("x").get("k")).rejects.toThrow(StoreUnavailableError);
      await root.set("k", 2);
      await b.set("k", 3);
      expect([await root.get("k"), await b.get("k"), await root.scope("tenant-a").get("k")]).toEqual([2, 3, 1]);
      await root.close();
      await expect(b.get("k")).rejects.toThrow(StoreUnavailableError);
    });

    it("rejects every operation with StoreUnavailableError once closed", async () => {
      const s = new RedisStore({ connection: server.url });
      await s.set("k", 1);
      await s.close();
      await expect(s.get("k")).rejects.toThrow(StoreUnavailableError);
      await expect(s.scope("x").reserve("b", "r", 1, 10, 1_000)).rejects.toThrow(StoreUnavailableError);
    });
  });
});
