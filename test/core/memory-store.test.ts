import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../src/core/memory-store.ts";
import { stateStoreContract } from "../stores/contract.ts";

stateStoreContract("MemoryStore", () => new MemoryStore());

/** A clock the test moves by hand. */
const manualClock = () => {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
};

describe("MemoryStore on an injected clock", () => {
  it("keeps a value until exactly its TTL has passed", async () => {
    const clock = manualClock();
    const store = new MemoryStore({ now: clock.now });
    await store.set("k", "v", { ttlMs: 100 });
    clock.advance(99);
    expect(await store.get("k")).toBe("v");
    clock.advance(1);
    expect(await store.get("k")).toBeUndefined();
  });

  it("counts a reservation until exactly its ttlMs has passed", async () => {
    const clock = manualClock();
    const store = new MemoryStore({ now: clock.now });
    await store.reserve("b", "r1", 10, 100, 500);
    clock.advance(499);
    expect(await store.used("b")).toBe(10);
    clock.advance(1);
    expect(await store.used("b")).toBe(0);
  });

  it("sweeps expired keys and reservations out of memory on a write, at most once per interval", async () => {
    const clock = manualClock();
    const store = new MemoryStore({ now: clock.now, sweepIntervalMs: 1_000 });
    for (let i = 0; i < 100; i++) await store.set(`old${i}`, i, { ttlMs: 10 });
    await store.reserve("b", "r", 1, 10, 10);
    clock.advance(500);
    await store.set("early", 1);
    expect(store.size).toBe(102);
    clock.advance(500);
    await store.set("late", 1);
    expect(store.size).toBe(2);
  });
});

describe("MemoryStore", () => {
  it("refuses a clock that is not a function when it is made, naming the field", () => {
    expect(() => new MemoryStore({ now: 5 as never })).toThrow(new TypeError("MemoryStore: now must be a function, got 5"));
    expect(() => new MemoryStore({ now: "Date.now" as never })).toThrow(
      new TypeError('MemoryStore: now must be a function, got "Date.now"'),
    );
  });

  it("refuses a sweep interval that would sweep on every write or never", () => {
    for (const bad of [Number.NaN, -1, Infinity])
      expect(() => new MemoryStore({ sweepIntervalMs: bad })).toThrow(
        /MemoryStore: sweepIntervalMs must be a finite number of ms, 0 or more/,
      );
    expect(() => new MemoryStore({ sweepIntervalMs: 0 })).not.toThrow();
  });

  it("refuses a key holding a lone surrogate, which Redis would store as U+FFFD and so merge with others", async () => {
    const store = new MemoryStore();
    await expect(store.set("cache:\uD83D", 1)).rejects.toThrow(/state key must be well-formed UTF-16.*lone surrogate/);
    expect(() => store.scope("tenant-\uDE00")).toThrow(/well-formed/);
    await store.set("cache:\uD83D\uDE00", 1); // a whole emoji is fine
    expect(await store.get("cache:😀")).toBe(1);
  });

  it("keeps no timer or other handle alive", async () => {
    const before = process.getActiveResourcesInfo().length;
    const store = new MemoryStore({ sweepIntervalMs: 1 });
    await store.set("k", 1, { ttlMs: 10 });
    await store.reserve("b", "r", 1, 10, 10_000);
    expect(process.getActiveResourcesInfo().length).toBe(before);
  });

  it("shares its memory with its scopes", async () => {
    const store = new MemoryStore();
    await store.scope("session-1").incr("calls");
    expect(await store.get("session-1:calls")).toBe(1);
  });
});
