/**
 * The StateStore contract, as sentences every store must make true. Each store's test file runs
 * it with a factory that returns a fresh, isolated store (for Redis: a scope with a random name).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StateStore } from "../../src/core/state.ts";
import { scaled } from "../support/scale.ts";

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/**
 * A TTL that the few store calls right after a write must beat before the test waits it out: on
 * a busy machine a Redis round trip can take far longer than the tens of ms the expiry tests use.
 */
const shortTtlMs = scaled(400);

/**
 * Amounts no store may accept: NaN, infinities, negatives, fractions, unsafe integers.
 *
 * @example
 * fc.assert(fc.asyncProperty(invalidAmount, (bad) => expect(store.settle("b", "r", bad)).rejects.toThrow(RangeError)));
 */
export const invalidAmount = fc.oneof(
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -1, 0.5, Number.MAX_SAFE_INTEGER + 1),
  fc.integer({ max: -1 }),
  fc.double({ noNaN: true }).filter((n) => !Number.isInteger(n)),
);

/**
 * Increments no store may accept (negative integers are fine for `incr`).
 *
 * @example
 * fc.assert(fc.asyncProperty(invalidDelta, (bad) => expect(store.incr("n", bad)).rejects.toThrow(RangeError)));
 */
export const invalidDelta = fc.oneof(
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0.5, -(2 ** 60)),
  fc.double({ noNaN: true }).filter((n) => !Number.isInteger(n)),
);

/**
 * Run the contract against a store factory; each call of `make` must give an isolated store.
 *
 * @example
 * stateStoreContract("MemoryStore", () => new MemoryStore());
 */
export const stateStoreContract = (name: string, make: () => StateStore): void => {
  describe(`${name} keeps the StateStore contract`, () => {
    describe("values", () => {
      it("get returns undefined for a key never set", async () => {
        expect(await make().get("missing")).toBeUndefined();
      });

      it("set then get returns an equal value, never the same object", async () => {
        const store = make();
        const value = { a: [1, 2, { b: "c" }], d: null };
        await store.set("k", value);
        const read = await store.get("k");
        expect(read).toEqual(value);
        expect(read).not.toBe(value);
      });

      it("mutating a value after set or after get does not change what is stored", async () => {
        const store = make();
        const value = { n: 1, list: [1] };
        await store.set("k", value);
        value.n = 2;
        value.list.push(2);
        const read = (await store.get<{ n: number; list: number[] }>("k"))!;
        read.list.push(3);
        expect(await store.get("k")).toEqual({ n: 1, list: [1] });
      });

      it("a value with a __proto__ key reads back as an own key and pollutes nothing", async () => {
        const store = make();
        await store.set("k", JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}'));
        const read = (await store.get<Record<string, unknown>>("k"))!;
        expect(Object.keys(read)).toEqual(["__proto__", "constructor"]);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
      });

      it("a Date reads back as its ISO string, as JSON encodes it", async () => {
        const store = make();
        await store.set("k", { at: new Date(0) });
        expect(await store.get("k")).toEqual({ at: "1970-01-01T00:00:00.000Z" });
      });

      it("set refuses values that JSON cannot encode with a TypeError", async () => {
        const store = make();
        const cycle: Record<string, unknown> = {};
        cycle.self = cycle;
        for (const bad of [undefined, () => 1, 1n, cycle]) await expect(store.set("k", bad)).rejects.toThrow(TypeError);
        expect(await store.get("k")).toBeUndefined();
      });

      it("a value set with ttlMs disappears after it, and a later set without ttlMs keeps it", async () => {
        const store = make();
        await store.set("short", 1, { ttlMs: shortTtlMs });
        await store.set("kept", 1, { ttlMs: shortTtlMs });
        await store.set("kept", 2);
        expect(await store.get("short")).toBe(1);
        await sleep(shortTtlMs + 80);
        expect(await store.get("short")).toBeUndefined();
        expect(await store.get("kept")).toBe(2);
      });

      it("delete removes the value and every reservation under the key", async () => {
        const store = make();
        await store.set("k", 5);
        await store.reserve("k", "r1", 10, 100, 60_000);
        await store.delete("k");
        expect(await store.get("k")).toBeUndefined();
        expect(await store.used("k")).toBe(0);
      });

      it("empty keys and ids are refused with a TypeError", async () => {
        const store = make();
        await expect(store.get("")).rejects.toThrow(TypeError);
        await expect(store.reserve("k", "", 1, 10, 1000)).rejects.toThrow(TypeError);
        expect(() => store.scope("")).toThrow(TypeError);
      });
    });

    describe("counters", () => {
      it("incr starts from 0 and adds 1 by default", async () => {
        const store = make();
        expect(await store.incr("n")).toBe(1);
        expect(await store.incr("n")).toBe(2);
        expect(await store.get("n")).toBe(2);
      });

      it("incr adds any safe integer, negative ones included", async () => {
        const store = make();
        expect(await store.incr("n", 10)).toBe(10);
        expect(await store.incr("n", -25)).toBe(-15);
      });

      it("incr applies its TTL only when it creates the key", async () => {
        const store = make();
        await store.incr("n", 1, { ttlMs: shortTtlMs });
        await store.incr("n", 1, { ttlMs: 60_000 });
        await store.set("plain", 1);
        await store.incr("plain", 1, { ttlMs: 40 });
        await sleep(shortTtlMs + 90);
        expect(await store.get("n")).toBeUndefined();
        expect(await store.get("plain")).toBe(2);
      });

      it("incr on a key that holds no integer rejects with a TypeError and changes nothing", async () => {
        const store = make();
        await store.set("text", "abc");
        await store.set("float", 1.5);
        await expect(store.incr("text")).rejects.toThrow(TypeError);
        await expect(store.incr("float")).rejects.toThrow(TypeError);
        expect(await store.get("text")).toBe("abc");
      });

      it("incr refuses to leave the safe integer range with a RangeError", async () => {
        const store = make();
        await store.incr("n", Number.MAX_SAFE_INTEGER);
        await expect(store.incr("n", 1)).rejects.toThrow(RangeError);
        expect(await store.get("n")).toBe(Number.MAX_SAFE_INTEGER);
      });

      it("concurrent incr calls lose no update", async () => {
        const store = make();
        await Promise.all(Array.from({ length: 200 }, () => store.incr("n")));
        expect(await store.get("n")).toBe(200);
      });

      it("incrWithin admits until the limit and refuses the next one without changing the value", async () => {
        const store = make();
        expect(await store.incrWithin("n", 4, 10)).toEqual({ ok: true, used: 4, settled: 4, reserved: 0 });
        expect(await store.incrWithin("n", 6, 10)).toEqual({ ok: true, used: 10, settled: 10, reserved: 0 });
        expect(await store.incrWithin("n", 1, 10)).toEqual({ ok: false, used: 10, settled: 10, reserved: 0 });
        expect(await store.get("n")).toBe(10);
      });

      it("incrWithin counts live reservations against the limit", async () => {
        const store = make();
        await store.reserve("n", "r1", 8, 10, 60_000);
        expect(await store.incrWithin("n", 3, 10)).toEqual({ ok: false, used: 8, settled: 0, reserved: 8 });
        expect(await store.incrWithin("n", 2, 10)).toEqual({ ok: true, used: 10, settled: 2, reserved: 8 });
      });

      it("incrWithin applies its TTL only when it creates the key", async () => {
        const store = make();
        await store.incrWithin("n", 1, 10, { ttlMs: 50 });
        await sleep(150);
        expect(await store.get("n")).toBeUndefined();
      });

      it("concurrent incrWithin calls never pass the limit", async () => {
        const store = make();
        const answers = await Promise.all(Array.from({ length: 50 }, () => store.incrWithin("n", 3, 100)));
        expect(answers.filter((a) => a.ok)).toHaveLength(33);
        expect(await store.get("n")).toBe(99);
      });
    });

    describe("reservations", () => {
      it("reserve admits amounts until the limit and refuses the next one", async () => {
        const store = make();
        expect(await store.reserve("b", "r1", 60, 100, 60_000)).toEqual({ ok: true, used: 60, settled: 0, reserved: 60 });
        expect(await store.reserve("b", "r2", 40, 100, 60_000)).toEqual({ ok: true, used: 100, settled: 0, reserved: 100 });
        expect(await store.reserve("b", "r3", 1, 100, 60_000)).toEqual({ ok: false, used: 100, settled: 0, reserved: 100 });
      });

      it("used is settled spend plus live reservations", async () => {
        const store = make();
        await store.reserve("b", "r1", 30, 100, 60_000);
        await store.reserve("b", "r2", 20, 100, 60_000);
        await store.settle("b", "r1", 25);
        expect(await store.used("b")).toBe(45);
        expect(await store.get("b")).toBe(25);
      });

      it("settle turns a reservation into spend of the actual amount and returns settled spend", async () => {
        const store = make();
        await store.reserve("b", "r1", 50, 100, 60_000);
        expect(await store.settle("b", "r1", 10)).toBe(10);
        expect(await store.used("b")).toBe(10);
        expect(await store.reserve("b", "r2", 90, 100, 60_000)).toEqual({ ok: true, used: 100, settled: 10, reserved: 90 });
      });

      it("settle of an unknown or expired reservation still records the actual spend", async () => {
        const store = make();
        expect(await store.settle("b", "never-reserved", 7)).toBe(7);
        await store.reserve("b", "r1", 50, 100, 30);
        await sleep(100);
        expect(await store.used("b")).toBe(7);
        expect(await store.settle("b", "r1", 40)).toBe(47);
      });

      it("settling the same id again counts once, so a settle whose answer was lost can be retried", async () => {
        const store = make();
        await store.reserve("b", "r1", 50, 100, 60_000);
        expect(await store.settle("b", "r1", 30)).toBe(30);
        expect(await store.settle("b", "r1", 30)).toBe(30);
        expect(await store.settle("b", "never-reserved", 5)).toBe(35);
        expect(await store.settle("b", "never-reserved", 5)).toBe(35);
        expect(await store.used("b")).toBe(35);
      });

      it("release after settle, and a second release, change nothing", async () => {
        const store = make();
        await store.reserve("b", "r1", 50, 100, 60_000);
        await store.settle("b", "r1", 20);
        await store.release("b", "r1");
        await store.release("b", "r1");
        expect(await store.used("b")).toBe(20);
        expect(await store.settle("b", "r1", 20)).toBe(20);
      });

      it("renew keeps a live reservation past its first ttlMs, and says false for one settled, released or unknown", async () => {
        const store = make();
        await store.reserve("b", "r1", 40, 100, shortTtlMs);
        await sleep(100);
        expect(await store.renew("b", "r1", 3 * shortTtlMs)).toBe(true);
        await sleep(shortTtlMs);
        expect(await store.used("b")).toBe(40);
        await store.reserve("b", "r2", 10, 100, 60_000);
        await store.settle("b", "r2", 10);
        await store.reserve("b", "r3", 10, 100, 60_000);
        await store.release("b", "r3");
        expect([await store.renew("b", "r2", 1_000), await store.renew("b", "r3", 1_000), await store.renew("b", "r4", 1_000)]).toEqual([
          false,
          false,
          false,
        ]);
        expect(await store.used("b")).toBe(50);
      });

      it("renew can shorten a reservation, which then expires at its new time", async () => {
        const store = make();
        await store.reserve("b", "r1", 40, 100, 60_000);
        expect(await store.renew("b", "r1", 40)).toBe(true);
        await sleep(120);
        expect(await store.used("b")).toBe(0);
        expect(await store.renew("b", "r1", 1_000)).toBe(false);
      });

      it("keeps used exact through thousands of reservations expiring, renewed, released and settled", async () => {
        const store = make();
        const holds: Promise<unknown>[] = [];
        // Short enough to expire within the test, long enough that none expires while 1,800 reserves
        // are still being sent on a loaded machine.
        for (let i = 0; i < 1_500; i++) holds.push(store.reserve("b", `short-${i}`, 1, 1_000_000, 3_000 + (i % 50)));
        for (let i = 0; i < 300; i++) holds.push(store.reserve("b", `long-${i}`, 2, 1_000_000, 60_000));
        await Promise.all(holds);
        expect(await store.used("b")).toBe(1_500 + 600);
        await Promise.all(Array.from({ length: 100 }, (_, i) => store.renew("b", `short-${i}`, 60_000)));
        await Promise.all(Array.from({ length: 100 }, (_, i) => store.release("b", `long-${i}`)));
        await Promise.all(Array.from({ length: 100 }, (_, i) => store.settle("b", `long-${100 + i}`, 5)));
        // Once the short holds expire: 100 renewed short holds, 100 long ones left live, 100 settled at 5 each.
        await expect.poll(() => store.used("b"), { timeout: 15_000, interval: 100 }).toBe(100 + 100 * 2 + 500);
        expect(await store.reserve("b", "last", 10, 810, 60_000)).toEqual({ ok: true, used: 810, settled: 500, reserved: 310 });
      });

      it("settle applies its TTL only when it creates the counter, as incr does", async () => {
        const store = make();
        await store.reserve("late", "r1", 10, 100, 60_000);
        expect(await store.settle("late", "r1", 10, { ttlMs: 60 })).toBe(10);
        await store.incr("kept", 5);
        await store.settle("kept", "r2", 5, { ttlMs: 40 });
        await sleep(150);
        expect(await store.used("late")).toBe(0);
        expect(await store.used("kept")).toBe(10);
      });

      it("settle may pass the limit when the actual spend exceeds the reservation, and then nothing more is admitted", async () => {
        const store = make();
        await store.reserve("b", "r1", 90, 100, 60_000);
        expect(await store.settle("b", "r1", 120)).toBe(120);
        expect(await store.reserve("b", "r2", 0, 100, 60_000)).toEqual({ ok: false, used: 120, settled: 120, reserved: 0 });
      });

      it("release drops a reservation without spending, and releasing an unknown id does nothing", async () => {
        const store = make();
        await store.reserve("b", "r1", 70, 100, 60_000);
        await store.release("b", "r1");
        await store.release("b", "unknown");
        expect(await store.used("b")).toBe(0);
        expect(await store.get("b")).toBeUndefined();
      });

      it("reserving again under a live id replaces the hold instead of adding to it", async () => {
        const store = make();
        await store.reserve("b", "r1", 70, 100, 60_000);
        expect(await store.reserve("b", "r1", 80, 100, 60_000)).toEqual({ ok: true, used: 80, settled: 0, reserved: 80 });
        expect(await store.reserve("b", "r1", 120, 100, 60_000)).toEqual({ ok: false, used: 80, settled: 0, reserved: 80 });
        expect(await store.used("b")).toBe(80);
      });

      it("a reservation expires after its ttlMs and stops counting", async () => {
        const store = make();
        await store.reserve("b", "r1", 100, 100, 500);
        expect(await store.reserve("b", "r2", 1, 100, 60_000)).toEqual({ ok: false, used: 100, settled: 0, reserved: 100 });
        await expect.poll(() => store.used("b"), { timeout: 5_000, interval: 20 }).toBe(0);
        expect(await store.reserve("b", "r2", 100, 100, 60_000)).toEqual({ ok: true, used: 100, settled: 0, reserved: 100 });
      });

      it("concurrent reserves never admit more than the limit", async () => {
        const store = make();
        const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => store.reserve("b", `r${i}`, 10, 205, 60_000)));
        expect(answers.filter((a) => a.ok)).toHaveLength(20);
        expect(await store.used("b")).toBe(200);
      });
    });

    describe("scopes", () => {
      it("scope prefixes keys so that scopes never see each other's state", async () => {
        const store = make();
        await store.scope("s1").set("k", 1);
        await store.scope("s1").reserve("b", "r", 5, 10, 60_000);
        expect(await store.scope("s2").get("k")).toBeUndefined();
        expect(await store.scope("s2").used("b")).toBe(0);
        expect(await store.get("s1:k")).toBe(1);
      });

      it("nested scopes join their prefixes with a colon", async () => {
        const store = make();
        await store.scope("a").scope("b").set("k", 1);
        expect(await store.scope("a").get("b:k")).toBe(1);
      });
    });

    describe("validation", () => {
      it("invalid amounts are refused with a RangeError by every bounded operation", async () => {
        const store = make();
        await fc.assert(
          fc.asyncProperty(invalidAmount, async (bad) => {
            await expect(store.reserve("b", "r", bad, 100, 1000)).rejects.toThrow(RangeError);
            await expect(store.reserve("b", "r", 1, bad, 1000)).rejects.toThrow(RangeError);
            await expect(store.settle("b", "r", bad)).rejects.toThrow(RangeError);
            await expect(store.incrWithin("b", bad, 100)).rejects.toThrow(RangeError);
            await expect(store.incrWithin("b", 1, bad)).rejects.toThrow(RangeError);
          }),
          { numRuns: 50 },
        );
        expect(await store.used("b")).toBe(0);
      });

      it("invalid increments and TTLs are refused with a RangeError", async () => {
        const store = make();
        await fc.assert(
          fc.asyncProperty(invalidDelta, async (bad) => {
            await expect(store.incr("n", bad)).rejects.toThrow(RangeError);
          }),
          { numRuns: 50 },
        );
        for (const ttlMs of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
          await expect(store.set("k", 1, { ttlMs })).rejects.toThrow(RangeError);
          await expect(store.reserve("b", "r", 1, 10, ttlMs)).rejects.toThrow(RangeError);
          await expect(store.renew("b", "r", ttlMs)).rejects.toThrow(RangeError);
        }
        expect(await store.get("n")).toBeUndefined();
      });
    });
  });
};
