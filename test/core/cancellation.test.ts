import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { Continue, RunAbortedError } from "../../src/core/index.ts";
import { call, newStack, sleep } from "./helpers.ts";

const activeTimers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;

describe("R7 cancellation", () => {
  it("passes the run's signal to hooks and to the operation", async () => {
    const controller = new AbortController();
    const seen: boolean[] = [];
    const stack = newStack().use("tool", { name: "look", before: (_c, ctx) => { seen.push(ctx.signal.aborted); return Continue; } });
    await stack.run("tool", call(), (_c, ctx) => { seen.push(ctx.signal instanceof AbortSignal); return { content: "" }; }, { signal: controller.signal });
    expect(seen).toEqual([false, true]);
  });

  it("settles as Failed(RunAbortedError) when the caller aborts mid-chain, and starts no later hook", async () => {
    const controller = new AbortController();
    let laterStarted = false;
    let opSawAbort = false;
    const stack = newStack()
      .use("tool", { name: "slow", priority: 1, before: async (_c, ctx) => { controller.abort("user pressed ctrl-c"); await sleep(10); opSawAbort = ctx.signal.aborted; } })
      .use("tool", { name: "later", priority: 2, before: () => { laterStarted = true; } });
    const outcome = await stack.run("tool", call(), () => ({ content: "" }), { signal: controller.signal });
    expect(outcome._tag).toBe("Failed");
    if (outcome._tag === "Failed") expect(outcome.error).toBeInstanceOf(RunAbortedError);
    await sleep(20);
    expect(opSawAbort).toBe(true);
    expect(laterStarted).toBe(false);
  });

  it("does not start anything when the signal is already aborted", async () => {
    let ran = false;
    const stack = newStack().use("tool", { name: "x", before: () => { ran = true; } });
    const outcome = await stack.run("tool", call(), () => ({ content: "" }), { signal: AbortSignal.abort("early") });
    expect(outcome._tag).toBe("Failed");
    expect(ran).toBe(false);
  });

  it("settles at the run deadline and marks it as a timeout", async () => {
    const stack = newStack().use("tool", { name: "x", before: () => Continue });
    const outcome = await stack.run("tool", call(), (_c, ctx) => new Promise((r) => { const t = setTimeout(r, 1000); ctx.signal.addEventListener("abort", () => clearTimeout(t)); }), { timeoutMs: 10 });
    expect(outcome._tag === "Failed" && outcome.error instanceof RunAbortedError && outcome.error.timedOut).toBe(true);
  });

  it("leaves no timer or listener behind after runs with deadlines and hook timeouts", async () => {
    const before = activeTimers();
    const controller = new AbortController();
    const stack = newStack().use("tool", { name: "timed", timeoutMs: 1000, before: async () => Continue });
    for (let i = 0; i < 50; i++) await stack.run("tool", call(), async () => ({ content: "" }), { signal: controller.signal, timeoutMs: 5000 });
    expect(activeTimers()).toBe(before);
  });

  it("settles exactly once when a timeout races the result, whatever the interleaving", async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.boolean(), async (s, abortFirst) => {
        const controller = new AbortController();
        const stack = newStack().use("tool", { name: "h", before: () => s.schedule(Promise.resolve(Continue)) });
        let settled = 0;
        const op = () => s.schedule(Promise.resolve({ content: "done" }));
        const pending = stack.run("tool", call(), op, { signal: controller.signal }).then((o) => { settled++; return o; });
        s.schedule(Promise.resolve()).then(() => controller.abort("race"));
        if (abortFirst) controller.abort("first");
        await s.waitAll();
        const outcome = await pending;
        await sleep(0);
        expect(settled).toBe(1);
        expect(["Completed", "Failed"]).toContain(outcome._tag);
      }),
      { numRuns: 100 },
    );
  });
});
