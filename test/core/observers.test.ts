import { describe, expect, it } from "vitest";
import { Continue, Reject, Replace, Trace, Transform, createStack, gate, type RunEvent, type TraceEntry } from "../../src/core/index.ts";
import { gc } from "../support/gc.ts";
import { call, newStack, sleep } from "./helpers.ts";

/** What a decision says, timing aside. */
const said = (d: TraceEntry) =>
  `${d.hook}:${d.phase}:${d.action}${d.reason === undefined ? "" : `(${d.reason})`}${d.shadow ? ":shadow" : ""}`;

describe("observers", () => {
  it("read the same decisions from the compact log as a trace records, for every kind of chain", async () => {
    const chains = [
      newStack()
        .use("tool", { name: "a", before: () => Continue, after: () => Continue })
        .use("tool", { name: "t", before: (c) => Transform({ ...c, name: "Edit" }), after: (o) => Transform({ content: `${o.content}!` }) })
        .use("tool", { name: "skip", match: "Bash(rm *)", before: () => Reject("no") })
        .use("tool", { name: "b", before: async () => Continue, after: () => undefined })
        .use("tool", { name: "w", around: async (_c, next) => await next() })
        .use("tool", { name: "sh", shadow: true, before: () => Reject("would block") })
        .use("tool", { name: "c", before: () => Continue, after: () => Continue }),
      newStack()
        .use("tool", { name: "outer", after: () => Continue, recover: () => Replace({ content: "spare" }) })
        .use("tool", { name: "inner", before: () => Continue }),
      newStack()
        .use("tool", { name: "outer", after: () => Continue })
        .use("tool", { name: "deny", before: () => Reject("no") })
        .use("tool", { name: "never", before: () => Continue }),
      newStack()
        .use("tool", { name: "last", after: () => Continue })
        .use("tool", { name: "final", after: () => Replace({ content: "final" }) })
        .use("tool", { name: "first", after: () => Continue }),
      newStack()
        .use("tool", {
          name: "open",
          failMode: "open",
          before: () => {
            throw new Error("down");
          },
        })
        .use("tool", { name: "x", before: () => Continue }),
    ];
    for (const [i, base] of chains.entries()) {
      const events: RunEvent<any, any>[] = [];
      const stack = base.use("tool", { name: "obs", observe: (e) => void events.push(e) });
      const trace = new Trace();
      const op =
        i === 1
          ? () => {
              throw new Error("op");
            }
          : () => ({ content: "op" });
      await stack.run("tool", call("Bash", { command: "ls" }), op, { trace });
      await stack.run("tool", call("Bash", { command: "ls" }), op);
      await stack.flush();
      expect(events[1]?.decisions.map(said)).toEqual(trace.entries.map(said));
      expect(events[0]?.decisions.map(said)).toEqual(trace.entries.map(said));
    }
  });

  it("read the same decisions from the compact log as a trace records, for chains of up to a hundred hooks", async () => {
    for (const size of [1, 2, 63, 64, 65, 100])
      for (const stop of [undefined, 0, Math.floor(size / 2), size - 1])
        for (const skips of [false, true]) {
          let base = newStack();
          for (let i = 0; i < size; i++)
            base = base.use("tool", {
              name: `h${i}`,
              // A condition that needs the input and says no splits a stretch of Continue answers in two.
              ...(skips && i % 7 === 3 ? { match: "Bash(ls *)" } : {}),
              before: () => (i === stop ? Reject("no") : Continue),
              ...(i % 5 === 4 ? {} : { after: () => Continue }),
            });
          const events: RunEvent<any, any>[] = [];
          const stack = base.use("tool", { name: "obs", observe: (e) => void events.push(e) });
          const trace = new Trace();
          await stack.run("tool", call("Bash", { command: "rm -rf /" }), () => ({ content: "op" }), { trace });
          await stack.run("tool", call("Bash", { command: "rm -rf /" }), () => ({ content: "op" }));
          await stack.flush();
          expect(events[1]?.decisions.map(said), `${size} hooks, stop at ${stop}, skips ${skips}`).toEqual(trace.entries.map(said));
        }
  });

  it("place untimed decisions at the nearest reading of the clock, and time those that took a promise", async () => {
    const events: RunEvent<any, any>[] = [];
    const stack = newStack()
      .use("tool", { name: "sync", before: () => Continue, after: () => Continue })
      .use("tool", { name: "slow", before: async () => (await sleep(20), Continue) })
      .use("tool", { name: "obs", observe: (e) => void events.push(e) });
    await stack.run("tool", call(), async () => (await sleep(20), { content: "" }));
    await stack.flush();
    const [event] = events;
    const at = Object.fromEntries(event!.decisions.map((d) => [`${d.hook}:${d.phase}`, d]));
    expect(at["sync:before"]).toMatchObject({ ms: 0, at: 0 });
    expect(at["slow:before"]!.ms).toBeGreaterThanOrEqual(15);
    // An after on the way out is placed at the next reading: here, the end of the run.
    expect(at["sync:after"]!.at).toBeCloseTo(event!.durationMs, 5);
    expect(event!.durationMs).toBeGreaterThanOrEqual(35);
  });

  it("end a run at the first clock reading after it settled: the next run's start", async () => {
    const events: RunEvent<any, any>[] = [];
    const stack = newStack()
      .use("tool", { name: "sync", before: () => Continue })
      .use("tool", { name: "obs", observe: (e) => void events.push(e) });
    await stack.run("tool", call(), async () => (await sleep(20), { content: "" }));
    const settled = performance.now();
    await stack.run("tool", call(), async () => ({ content: "" }));
    await stack.flush();
    const [first, second] = events;
    expect(first!.durationMs).toBeGreaterThanOrEqual(15);
    // Its end is no later than the next run's start, and not before it settled.
    expect(first!.startedAt + first!.durationMs).toBeLessThanOrEqual(second!.startedAt);
    expect(first!.startedAt + first!.durationMs).toBeGreaterThanOrEqual(settled - 0.001);
    expect(second!.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("end a run as it settles with timeHooks, whatever runs after it", async () => {
    const busy = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    const events: RunEvent<any, any>[] = [];
    const stack = createStack({ tool: gate<string, string>({ name: "tool" }) }, { timeHooks: true }).use("tool", {
      name: "obs",
      observe: (e) => void events.push(e),
    });
    await stack.run("tool", "x", (x) => x);
    const settled = performance.now();
    busy(30);
    await stack.flush();
    // Its end was read before the run settled, not at the next reading after the busy work: an
    // order of clock readings, which a busy machine cannot change.
    expect(events[0]!.startedAt + events[0]!.durationMs).toBeLessThanOrEqual(settled + 0.001);
  });

  it("time every hook call with timeHooks", async () => {
    const busy = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    const events: RunEvent<any, any>[] = [];
    const stack = createStack({ tool: gate<string, string>({ name: "tool" }) }, { timeHooks: true })
      .use("tool", { name: "busy", before: () => void busy(5) })
      .use("tool", { name: "obs", observe: (e) => void events.push(e) });
    await stack.run("tool", "x", (x) => x);
    await stack.flush();
    expect(events[0]!.decisions[0]!.ms).toBeGreaterThanOrEqual(4);
  });

  it("each get a view of their own: what one defines on its event, the next does not see", async () => {
    const seen: unknown[] = [];
    const stack = newStack()
      .use("tool", {
        name: "vandal",
        observe: (e) => {
          Object.defineProperty(e, "outcome", { value: { _tag: "Completed", value: "fake" } });
          (e as { extra?: number }).extra = 1;
        },
      })
      .use("tool", { name: "reader", observe: (e) => void seen.push(e.outcome._tag, (e as { extra?: number }).extra) });
    await stack.run("tool", call(), () => {
      throw new Error("op");
    });
    await stack.flush();
    expect(seen).toEqual(["Failed", undefined]);
  });

  it("give an event that JSON and console show as plain data, decisions included", async () => {
    let json: Record<string, unknown> = {};
    const stack = newStack()
      .use("tool", { name: "deny", before: () => Reject("no") })
      .use("tool", { name: "obs", observe: (e) => void (json = JSON.parse(JSON.stringify(e))) });
    await stack.run("tool", call(), () => ({ content: "" }), { sessionId: "s1" });
    await stack.flush();
    expect(json).toMatchObject({
      point: "tool",
      sessionId: "s1",
      outcome: { _tag: "Rejected", reason: "no", by: "deny" },
      decisions: [{ hook: "deny", action: "Reject" }],
      failures: [],
    });
  });

  it("drop and count events past the queue's limit, and deliver the rest", async () => {
    const seen: number[] = [];
    let release: () => void = () => {};
    const gateOpen = new Promise<void>((r) => (release = r));
    const stack = createStack({ tool: gate<number, number>({ name: "tool" }) }, { observerQueue: { limit: 5 } }).use("tool", {
      name: "stuck",
      observe: (e) => gateOpen.then(() => void seen.push(e.input as number)),
    });
    for (let i = 0; i < 20; i++) await stack.run("tool", i, (x) => x);
    await sleep(5);
    for (let i = 20; i < 25; i++) await stack.run("tool", i, (x) => x);
    release();
    await stack.flush();
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    expect(stack.stats.observerDrops).toBe(20);
    // The counter is there to read, but not among the others a caller may compare as a whole.
    expect(stack.stats).toEqual({ hookFailures: 0, failOpen: 0, observerErrors: 0 });
  });

  it("refuse a queue limit that is not a positive integer", () => {
    for (const limit of [0, -1, 1.5, Number.NaN])
      expect(() => createStack({ tool: gate({ name: "tool" }) }, { observerQueue: { limit } })).toThrow(
        /observerQueue\.limit must be a positive integer/,
      );
  });

  it("keep memory bounded through a tight loop of 200 000 awaited runs, and see every run", async () => {
    let seen = 0;
    const stack = createStack({ tool: gate<number, number>({ name: "tool" }) })
      .use("tool", { name: "h", before: () => Continue })
      .use("tool", { name: "count", observe: () => void seen++ });
    const op = async (x: number) => x;
    for (let i = 0; i < 20_000; i++) await stack.run("tool", i, op);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 200_000; i++) await stack.run("tool", i, op);
    gc();
    const after = process.memoryUsage().heapUsed;
    await stack.flush();
    expect(seen).toBe(220_000);
    expect(after - before).toBeLessThan(8 * 1024 * 1024);
  }, 60_000);
});
