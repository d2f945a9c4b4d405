import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { Continue, createStack, gate, Reject, Replace, RunAbortedError, Transform } from "../../src/core/index.ts";
import { call, newStack, sleep } from "./helpers.ts";
import { timersLeftBy } from "../support/timers.ts";

/** Sleep `ms`, or less when `signal` aborts: an attempt the run gave up on leaves no timer for later tests to count. */
const sleepUnlessAborted = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

describe("R7 cancellation", () => {
  it("starts nothing more once the run answered, with or without a signal, when an around left next() running", async () => {
    for (const options of [undefined, { signal: new AbortController().signal }]) {
      const events: string[] = [];
      const stack = newStack()
        .use("tool", {
          name: "fast-cache",
          priority: 10,
          around: async (_c, next) => {
            void next();
            await sleep(1);
            return Replace({ content: "cached" });
          },
        })
        .use("tool", {
          name: "slow-check",
          priority: 20,
          before: async () => {
            await sleep(20);
            events.push("slow-check done");
            return Continue;
          },
        })
        .use("tool", { name: "audit", priority: 30, after: () => void events.push("audit.after") });
      const outcome = await stack.run("tool", call(), () => (events.push("operation"), { content: "real" }), options);
      expect(outcome).toMatchObject({ _tag: "Completed", value: { content: "cached" } });
      await sleep(50);
      expect(events).toEqual(["slow-check done"]);
    }
  });

  /** An operation that waits `ms` for its signal and says how it ended. */
  const waitsForSignal = (ms: number, ended: string[]) => (_c: unknown, ctx: { readonly signal: AbortSignal }) =>
    new Promise<{ content: string }>((resolve) => {
      const signal = ctx.signal;
      const timer = setTimeout(() => (ended.push("finished"), resolve({ content: "done" })), ms);
      signal.addEventListener("abort", () => {
        clearTimeout(timer);
        ended.push(`aborted: ${(signal.reason as Error).name}`);
        resolve({ content: "aborted" });
      });
    });

  it("aborts the operation's signal when an around hook's timeout settles the run while the operation still runs", async () => {
    const ended: string[] = [];
    const stack = newStack().use("tool", { name: "deadline", timeoutMs: 20, around: (_c, next) => next() });
    const outcome = await stack.run("tool", call(), waitsForSignal(2_000, ended));
    expect(outcome).toMatchObject({ _tag: "Rejected", by: "deadline" });
    expect(ended).toEqual(["aborted: OperationAbandonedError"]);
  });

  it("aborts the operation's signal when a plain around hook answers without waiting for next(), in a run with a signal", async () => {
    const ended: string[] = [];
    const stack = newStack().use("tool", {
      name: "cache",
      around: (_c, next) => {
        void next();
        return Replace({ content: "cached" });
      },
    });
    const outcome = await stack.run("tool", call(), waitsForSignal(2_000, ended), { signal: new AbortController().signal });
    expect(outcome).toEqual({ _tag: "Completed", value: { content: "cached" } });
    expect(ended).toEqual(["aborted: OperationAbandonedError"]);
  });

  it("does not tell an operation a plain around hook left running in a run with no signal (no signal is made for it)", async () => {
    const ended: string[] = [];
    const stack = newStack().use("tool", {
      name: "cache",
      around: (_c, next) => {
        void next();
        return Replace({ content: "cached" });
      },
    });
    const outcome = await stack.run("tool", call(), waitsForSignal(30, ended));
    expect(outcome).toEqual({ _tag: "Completed", value: { content: "cached" } });
    await sleep(60);
    expect(ended).toEqual(["finished"]);
  });

  it("lets the operation go on when a timed around hook fails open, and answers with its result", async () => {
    const ended: string[] = [];
    const stack = newStack().use("tool", { name: "deadline", timeoutMs: 20, failMode: "open", around: (_c, next) => next() });
    const outcome = await stack.run("tool", call(), waitsForSignal(60, ended));
    expect(outcome).toEqual({ _tag: "Completed", value: { content: "done" } });
    expect(ended).toEqual(["finished"]);
  });

  it("never aborts the signal of an operation that finished before its run settled", async () => {
    let signal: AbortSignal | undefined;
    const stack = newStack().use("tool", {
      name: "reject-after",
      around: async (_c, next) => {
        await next();
        return Reject("no");
      },
    });
    const outcome = await stack.run("tool", call(), async (_c, ctx) => {
      signal = ctx.signal;
      await sleep(1);
      return { content: "done" };
    });
    expect(outcome).toMatchObject({ _tag: "Rejected" });
    await sleep(5);
    expect(signal?.aborted).toBe(false);
  });

  it("keeps the signal of a retried attempt whose result the caller got, and aborts only the attempt left behind", async () => {
    // Once a timed around (the general chain), once a plain around racing its own deadline in a run with a signal (the lean path).
    const slowAttempt = {
      name: "attempt-timeout",
      priority: 20,
      timeoutMs: 30,
      around: (_c: unknown, next: () => Promise<unknown>) => next(),
    };
    const racing = {
      name: "race-deadline",
      priority: 20,
      around: (_c: unknown, next: () => Promise<unknown>) => Promise.race([next(), sleep(30).then(() => Reject("attempt too slow"))]),
    };
    for (const [inner, options] of [
      [slowAttempt, undefined],
      [racing, { signal: new AbortController().signal }],
    ] as const) {
      const signals: AbortSignal[] = [];
      const stack = newStack()
        .use("tool", {
          name: "retry-once",
          priority: 10,
          around: async (_c, next) => {
            const o = await next();
            return o._tag === "Completed" ? o : next();
          },
        })
        .use("tool", inner as never);
      const outcome = await stack.run(
        "tool",
        call(),
        async (_c, ctx) => {
          signals.push(ctx.signal);
          await sleepUnlessAborted(signals.length === 1 ? 300 : 1, ctx.signal);
          return { content: `attempt ${signals.length}` };
        },
        options,
      );
      expect(outcome).toEqual({ _tag: "Completed", value: { content: "attempt 2" } });
      await sleep(5);
      expect(signals.map((s) => s.aborted)).toEqual([true, false]);
      expect((signals[0]!.reason as Error).name).toBe("OperationAbandonedError");
    }
  });

  it("tells an attempt its timed around hook gave up on at that hook's timeout, before a retry starts the next (R7)", async () => {
    const seen: string[] = [];
    const signals: AbortSignal[] = [];
    const stack = newStack()
      .use("tool", {
        name: "retry-once",
        priority: 10,
        around: async (_c, next) => {
          const o = await next();
          return o._tag === "Completed" ? o : next();
        },
      })
      .use("tool", { name: "attempt-timeout", priority: 20, timeoutMs: 20, around: (_c, next) => next() });
    const outcome = await stack.run("tool", call(), async (_c, ctx) => {
      signals.push(ctx.signal);
      seen.push(
        `attempt ${signals.length} starts; earlier attempts aborted: ${signals
          .slice(0, -1)
          .map((s) => (s.reason as Error | undefined)?.name ?? "no")
          .join(", ")}`,
      );
      await sleepUnlessAborted(signals.length === 1 ? 200 : 1, ctx.signal);
      return { content: `attempt ${signals.length}` };
    });
    expect(outcome).toEqual({ _tag: "Completed", value: { content: "attempt 2" } });
    expect(seen).toEqual([
      "attempt 1 starts; earlier attempts aborted: ",
      "attempt 2 starts; earlier attempts aborted: OperationAbandonedError",
    ]);
    // It says which hook gave up, not that the run settled (it had not).
    expect((signals[0]!.reason as Error).message).toMatch(/^hook "attempt-timeout" on tool timed out and gave up on this operation call/);
    expect(signals[1]!.aborted).toBe(false);
  });

  it("does not tell the operation at a timed around hook's timeout when the hook fails open or only watches (shadow)", async () => {
    for (const lenient of [{ failMode: "open" as const }, { shadow: true }]) {
      const ended: string[] = [];
      const stack = newStack().use("tool", { name: "deadline", timeoutMs: 20, ...lenient, around: (_c, next) => next() });
      const outcome = await stack.run("tool", call(), waitsForSignal(60, ended));
      expect(outcome).toEqual({ _tag: "Completed", value: { content: "done" } });
      expect(ended).toEqual(["finished"]);
    }
  });

  it("tells a timed hook left running in a frame its run left behind, and clears its timer, when the run settles", async () => {
    const told: string[] = [];
    const stack = newStack()
      .use("tool", {
        name: "cache",
        priority: 10,
        around: (_c, next) => {
          void next();
          return Replace({ content: "cached" });
        },
      })
      .use("tool", {
        name: "ask-human",
        priority: 20,
        timeoutMs: 60_000,
        before: (_c, ctx) =>
          new Promise((resolve) =>
            ctx.signal.addEventListener("abort", () => {
              told.push((ctx.signal.reason as Error).name);
              resolve(Continue);
            }),
          ),
      });
    const left = await timersLeftBy(async () => {
      const outcome = await stack.run("tool", call(), () => ({ content: "ran" }), { signal: new AbortController().signal });
      expect(outcome).toEqual({ _tag: "Completed", value: { content: "cached" } });
      await sleep(5);
    });
    expect(told).toEqual(["OperationAbandonedError"]);
    expect(left).toBe(0);
  });

  it("fails a synchronous hook that blocked past its timeoutMs, as an asynchronous one", async () => {
    const busy = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    const stack = newStack().use("tool", {
      name: "slow-sync",
      timeoutMs: 10,
      before: () => {
        busy(30);
        return Continue;
      },
    });
    const outcome = await stack.run("tool", call(), () => ({ content: "ran" }));
    expect(outcome).toMatchObject({ _tag: "Rejected", by: "slow-sync" });
    expect((outcome as { reason: string }).reason).toMatch(/timed out after 10 ms/);
  });

  it("runs no after hook on an operation result that arrives after the run was aborted", async () => {
    const controller = new AbortController();
    const afters: unknown[] = [];
    const stack = newStack().use("tool", { name: "audit", after: (out) => void afters.push(out) });
    const pending = stack.run("tool", call(), () => sleep(30).then(() => ({ content: "late" })), { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("stop")), 5);
    expect((await pending)._tag).toBe("Failed");
    await sleep(50);
    expect(afters).toEqual([]);
  });

  it("passes the run's signal to hooks and to the operation", async () => {
    const controller = new AbortController();
    const seen: boolean[] = [];
    const stack = newStack().use("tool", {
      name: "look",
      before: (_c, ctx) => {
        seen.push(ctx.signal.aborted);
        return Continue;
      },
    });
    await stack.run(
      "tool",
      call(),
      (_c, ctx) => {
        seen.push(ctx.signal instanceof AbortSignal);
        return { content: "" };
      },
      { signal: controller.signal },
    );
    expect(seen).toEqual([false, true]);
  });

  it("settles as Failed(RunAbortedError) when the caller aborts mid-chain, and starts no later hook", async () => {
    const controller = new AbortController();
    let laterStarted = false;
    let opSawAbort = false;
    const stack = newStack()
      .use("tool", {
        name: "slow",
        priority: 1,
        before: async (_c, ctx) => {
          controller.abort("user pressed ctrl-c");
          await sleep(10);
          opSawAbort = ctx.signal.aborted;
        },
      })
      .use("tool", {
        name: "later",
        priority: 2,
        before: () => {
          laterStarted = true;
        },
      });
    const outcome = await stack.run("tool", call(), () => ({ content: "" }), { signal: controller.signal });
    expect(outcome._tag).toBe("Failed");
    if (outcome._tag === "Failed") expect(outcome.error).toBeInstanceOf(RunAbortedError);
    await sleep(20);
    expect(opSawAbort).toBe(true);
    expect(laterStarted).toBe(false);
  });

  it("starts no later sync hook, before or after, once a sync hook aborted the caller's signal", async () => {
    for (const phase of ["before", "after"] as const) {
      const controller = new AbortController();
      const ran: string[] = [];
      const hook = (name: string, abort: boolean) => () => {
        ran.push(name);
        if (abort) controller.abort("stop");
        return Continue;
      };
      // Befores run in priority order, afters in reverse: the aborting hook comes first either way.
      const [first, second] = phase === "before" ? [1, 2] : [2, 1];
      const stack = newStack()
        .use("tool", { name: "aborts", priority: first, [phase]: hook("aborts", true) })
        .use("tool", { name: "later", priority: second, [phase]: hook("later", false) });
      const outcome = await stack.run("tool", call(), () => (ran.push("operation"), { content: "" }), { signal: controller.signal });
      expect(outcome._tag === "Failed" && outcome.error instanceof RunAbortedError).toBe(true);
      expect(ran).toEqual(phase === "before" ? ["aborts"] : ["operation", "aborts"]);
    }
  });

  it("tests no later hook's condition once a sync hook aborted the caller's signal", async () => {
    const controller = new AbortController();
    const ran: string[] = [];
    const failures: string[] = [];
    const stack = createStack({ tool: gate<string, string>({ name: "tool" }) }, { onFailure: (e) => void failures.push(e.hook) })
      .use("tool", {
        name: "aborts",
        priority: 1,
        before: () => {
          ran.push("aborts");
          controller.abort("stop");
          return Continue;
        },
      })
      .use("tool", {
        name: "later",
        priority: 2,
        match: () => {
          ran.push("condition");
          throw new Error("condition threw");
        },
        before: () => void ran.push("later"),
      });
    const outcome = await stack.run("tool", "x", (x) => x, { signal: controller.signal });
    expect(outcome._tag).toBe("Failed");
    expect(ran).toEqual(["aborts"]);
    expect(failures).toEqual([]);
  });

  it("runs no recheck gate again once a hook inside it aborted the caller's signal", async () => {
    const controller = new AbortController();
    const ran: string[] = [];
    const stack = createStack({ tool: gate<string, string>({ name: "tool" }) })
      .use("tool", { name: "gate", priority: 1, recheck: true, before: (x) => void ran.push(`gate ${x}`) })
      .use("tool", {
        name: "rewrite",
        priority: 2,
        before: (x) => {
          ran.push("rewrite");
          controller.abort("stop");
          return Transform(`${x}!`);
        },
      });
    const outcome = await stack.run("tool", "x", (x) => (ran.push("operation"), x), { signal: controller.signal });
    expect(outcome._tag).toBe("Failed");
    expect(ran).toEqual(["gate x", "rewrite"]);
  });

  it("leaves no timer behind when a timed hook aborts the caller's signal and then answers with a promise", async () => {
    const controller = new AbortController();
    const stack = newStack().use("tool", {
      name: "aborts",
      timeoutMs: 10_000,
      before: () => {
        controller.abort("stop");
        return new Promise(() => {});
      },
    });
    let outcome: unknown;
    const left = await timersLeftBy(async () => {
      outcome = await stack.run("tool", call(), () => ({ content: "" }), { signal: controller.signal });
    });
    expect(outcome).toMatchObject({ _tag: "Failed" });
    expect(left).toBe(0);
  });

  it("does not start anything when the signal is already aborted", async () => {
    let ran = false;
    const stack = newStack().use("tool", {
      name: "x",
      before: () => {
        ran = true;
      },
    });
    const outcome = await stack.run("tool", call(), () => ({ content: "" }), { signal: AbortSignal.abort("early") });
    expect(outcome._tag).toBe("Failed");
    expect(ran).toBe(false);
  });

  it("settles at the run deadline and marks it as a timeout", async () => {
    const stack = newStack().use("tool", { name: "x", before: () => Continue });
    const outcome = await stack.run(
      "tool",
      call(),
      (_c, ctx) =>
        new Promise((r) => {
          const t = setTimeout(r, 1000);
          ctx.signal.addEventListener("abort", () => clearTimeout(t));
        }),
      { timeoutMs: 10 },
    );
    expect(outcome._tag === "Failed" && outcome.error instanceof RunAbortedError && outcome.error.timedOut).toBe(true);
  });

  it("leaves no timer or listener behind after runs with deadlines and hook timeouts", async () => {
    const controller = new AbortController();
    const stack = newStack().use("tool", { name: "timed", timeoutMs: 1000, before: async () => Continue });
    const left = await timersLeftBy(async () => {
      for (let i = 0; i < 50; i++)
        await stack.run("tool", call(), async () => ({ content: "" }), { signal: controller.signal, timeoutMs: 5000 });
    });
    expect(left).toBe(0);
  });

  it("settles exactly once when a timeout races the result, whatever the interleaving", async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.boolean(), async (s, abortFirst) => {
        const controller = new AbortController();
        const stack = newStack().use("tool", { name: "h", before: () => s.schedule(Promise.resolve(Continue)) });
        let settled = 0;
        const op = () => s.schedule(Promise.resolve({ content: "done" }));
        const pending = stack.run("tool", call(), op, { signal: controller.signal }).then((o) => {
          settled++;
          return o;
        });
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
