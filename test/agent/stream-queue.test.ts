import { describe, expect, it } from "vitest";
import { PartQueue } from "../../src/agent/stream/queue.ts";

describe("PartQueue", () => {
  it("answers next() calls made before any part in the order they were made, as an async generator does", async () => {
    const queue = new PartQueue<string>(() => {});
    const reader = queue[Symbol.asyncIterator]();
    const first = reader.next();
    const second = reader.next();
    const third = reader.next();
    queue.push("a");
    queue.push("b");
    queue.close();
    expect(await Promise.all([first, second, third])).toEqual([
      { value: "a", done: false },
      { value: "b", done: false },
      { value: undefined, done: true },
    ]);
  });

  it("rejects the first waiting next() with the failure and ends the others", async () => {
    const queue = new PartQueue<string>(() => {});
    const reader = queue[Symbol.asyncIterator]();
    const first = reader.next();
    const second = reader.next();
    queue.fail(new Error("upstream broke"));
    await expect(first).rejects.toThrow("upstream broke");
    expect(await second).toEqual({ value: undefined, done: true });
  });

  it("ends a waiting next() and cancels the producer when the consumer returns", async () => {
    const reasons: unknown[] = [];
    const queue = new PartQueue<string>((reason) => reasons.push(reason));
    const reader = queue[Symbol.asyncIterator]();
    const waiting = reader.next();
    await reader.return?.();
    expect(await waiting).toEqual({ value: undefined, done: true });
    expect(reasons).toHaveLength(1);
    expect(queue.cancelled).toBe(true);
  });

  it("has one consumer", () => {
    const queue = new PartQueue<string>(() => {});
    queue[Symbol.asyncIterator]();
    expect(() => queue[Symbol.asyncIterator]()).toThrow(/already been read/);
  });
});
