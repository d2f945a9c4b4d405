import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { Continue, createStack, gate, RunAbortedError } from "../../src/core/index.ts";

const point = { tool: gate<string, string>({ name: "tool" }) };
const tick = (ms = 0): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Counts every AbortController made while `made` is installed (the engine reads the global when it makes one). */
const Real = globalThis.AbortController;
let made = 0;
const countControllers = (): void => {
  made = 0;
  globalThis.AbortController = class extends Real {
    constructor() {
      super();
      made++;
    }
  };
};
afterEach(() => {
  globalThis.AbortController = Real;
});

describe("the signal of a run with a caller signal or a deadline", () => {
  it("is not made when no hook and not the operation read it", async () => {
    const caller = new AbortController();
    const stack = createStack(point).use("tool", { name: "pass", before: () => Continue, around: (_ctx, next) => next() });
    countControllers();
    await stack.run("tool", "x", (x) => x, { signal: caller.signal });
    await stack.run("tool", "x", (x) => x, { timeoutMs: 1000 });
    expect(made).toBe(0);
  });

  it("is made once per run, however many hooks read it, and once for the operation call that reads its own", async () => {
    const caller = new AbortController();
    const hooks = new Set<AbortSignal>();
    let operation: AbortSignal | undefined;
    const stack = createStack(point)
      .use("tool", { name: "a", before: (_x, ctx) => void hooks.add(ctx.signal) })
      .use("tool", { name: "b", around: (ctx, next) => (hooks.add(ctx.signal), next()) });
    countControllers();
    await stack.run("tool", "x", (x, ctx) => ((operation = ctx.signal), x), { signal: caller.signal });
    expect(made).toBe(2);
    expect(hooks.size).toBe(1);
    expect([...hooks][0]).not.toBe(caller.signal);
    // Each call of the operation has its own, so that one a retry left behind can be told apart (R7).
    expect(operation).not.toBe([...hooks][0]);
  });

  it("read while the run goes on, aborts with the caller's reason when the caller aborts", async () => {
    const caller = new AbortController();
    let heard: unknown;
    const stack = createStack(point);
    const outcome = stack.run(
      "tool",
      "x",
      async (x, ctx) => {
        await new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve((heard = ctx.signal.reason))));
        return x;
      },
      { signal: caller.signal },
    );
    await tick();
    caller.abort("user left");
    expect(heard).toBe("user left");
    expect((await outcome)._tag).toBe("Failed");
  });

  it("read first after the caller aborted, is already aborted with the caller's reason", async () => {
    const caller = new AbortController();
    let late: AbortSignal | undefined;
    const stack = createStack(point);
    let release: () => void = () => {};
    const gate_ = new Promise<void>((r) => (release = r));
    const outcome = stack.run(
      "tool",
      "x",
      async (x, ctx) => {
        await gate_;
        late = ctx.signal;
        return x;
      },
      { signal: caller.signal },
    );
    caller.abort("gone");
    const settledWith = await outcome;
    release();
    await tick();
    expect(settledWith._tag).toBe("Failed");
    expect(late?.aborted).toBe(true);
    expect(late?.reason).toBe("gone");
  });

  it("read first after the deadline, is already aborted with the run's RunAbortedError", async () => {
    let late: AbortSignal | undefined;
    let release: () => void = () => {};
    const gate_ = new Promise<void>((r) => (release = r));
    const stack = createStack(point);
    const outcome = await stack.run(
      "tool",
      "x",
      async (x, ctx) => {
        await gate_;
        late = ctx.signal;
        return x;
      },
      { timeoutMs: 10 },
    );
    release();
    await tick();
    expect(outcome._tag === "Failed" && outcome.error instanceof RunAbortedError && outcome.error.timedOut).toBe(true);
    expect(late?.reason).toBeInstanceOf(RunAbortedError);
    expect((late?.reason as RunAbortedError).timedOut).toBe(true);
  });

  it("is not made for a caller's signal that was already aborted: the run settles without calling anything", async () => {
    let called = false;
    const stack = createStack(point).use("tool", { name: "pass", before: () => ((called = true), Continue) });
    countControllers();
    const outcome = await stack.run("tool", "x", (x) => ((called = true), x), { signal: AbortSignal.abort("before") });
    expect(outcome._tag === "Failed" && outcome.error instanceof RunAbortedError && outcome.error.cause).toBe("before");
    expect(called).toBe(false);
    expect(made).toBe(0);
  });

  it("leaves nothing listening on the caller's signal, even what the operation forgot to remove from its own", async () => {
    const caller = new AbortController();
    const stack = createStack(point).use("tool", { name: "pass", around: (_ctx, next) => next() });
    for (let i = 0; i < 20; i++)
      await stack.run(
        "tool",
        "x",
        (x, ctx) => {
          ctx.signal.addEventListener("abort", () => {});
          return x;
        },
        { signal: caller.signal },
      );
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
  });

  it("tells every run under one caller's signal when it aborts, and leaves nothing listening", async () => {
    const caller = new AbortController();
    const stack = createStack(point).use("tool", { name: "pass", before: () => Continue });
    const runs = Array.from({ length: 6 }, (_, i) =>
      stack.run("tool", String(i), (x) => (i < 3 ? x : new Promise<string>(() => {})), { signal: caller.signal }),
    );
    await Promise.all(runs.slice(0, 3));
    caller.abort("turn cancelled");
    const outcomes = await Promise.all(runs);
    expect(outcomes.map((o) => o._tag)).toEqual([...Array(3).fill("Completed"), ...Array(3).fill("Failed")]);
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
  });

  it("does not abort for a caller's abort that comes after the run settled", async () => {
    const caller = new AbortController();
    let signal: AbortSignal | undefined;
    const stack = createStack(point);
    await stack.run("tool", "x", (x, ctx) => ((signal = ctx.signal), x), { signal: caller.signal });
    caller.abort("later");
    expect(signal?.aborted).toBe(false);
  });
});

describe("the signal of a hook with its own timeoutMs", () => {
  it("is not made when the hook does not read it, sync or async, with or without a caller signal", async () => {
    const caller = new AbortController();
    const stack = createStack(point)
      .use("tool", { name: "sync", timeoutMs: 1000, before: () => Continue })
      .use("tool", { name: "async", timeoutMs: 1000, before: async () => Continue })
      .use("tool", { name: "wrap", timeoutMs: 1000, around: async (_ctx, next) => await next() });
    countControllers();
    await stack.run("tool", "x", (x) => x);
    await stack.run("tool", "x", (x) => x, { signal: caller.signal });
    expect(made).toBe(0);
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
  });

  it("read after the hook's own timeout, is aborted with the HookTimeoutError the failure carries", async () => {
    let late: AbortSignal | undefined;
    let release: () => void = () => {};
    const gate_ = new Promise<void>((r) => (release = r));
    const failures: unknown[] = [];
    const stack = createStack(point, { onFailure: (error) => void failures.push(error.cause) }).use("tool", {
      name: "slow",
      timeoutMs: 10,
      before: async (_x, ctx) => {
        await gate_;
        late = ctx.signal;
        return Continue;
      },
    });
    await stack.run("tool", "x", (x) => x);
    release();
    await tick();
    expect(late?.aborted).toBe(true);
    expect(late?.reason).toBe(failures[0]);
  });

  it("aborts with the caller's reason when the caller aborts while the hook waits, and ends the wait", async () => {
    const caller = new AbortController();
    let heard: unknown;
    const stack = createStack(point).use("tool", {
      name: "slow",
      timeoutMs: 10_000,
      before: (_x, ctx) =>
        new Promise<undefined>((resolve) => ctx.signal.addEventListener("abort", () => resolve(((heard = ctx.signal.reason), undefined)))),
    });
    const outcome = stack.run("tool", "x", (x) => x, { signal: caller.signal });
    await tick();
    caller.abort("user left");
    expect((await outcome)._tag).toBe("Failed");
    expect(heard).toBe("user left");
  });

  it("stops following the run once the hook settled", async () => {
    const caller = new AbortController();
    let signal: AbortSignal | undefined;
    const stack = createStack(point).use("tool", {
      name: "quick",
      timeoutMs: 10_000,
      before: async (_x, ctx) => ((signal = ctx.signal), Continue),
    });
    const outcome = stack.run("tool", "x", async (x) => (await tick(5), x), { signal: caller.signal });
    await tick();
    caller.abort("after the hook");
    expect((await outcome)._tag).toBe("Failed");
    expect(signal?.aborted).toBe(false);
  });
});

describe("a caller's lookalike signal (a polyfill)", () => {
  /** Enough of an AbortSignal for `isAbortSignal`, with no `reason`, as some polyfills are. */
  const lookalike = () => {
    const listeners = new Set<() => void>();
    const signal = {
      aborted: false,
      addEventListener: (_type: string, listener: () => void) => void listeners.add(listener),
      removeEventListener: (_type: string, listener: () => void) => void listeners.delete(listener),
    };
    const abort = (): void => {
      signal.aborted = true;
      for (const listener of [...listeners]) listener();
    };
    return { signal: signal as unknown as AbortSignal, abort, listeners };
  };

  it("aborts the run with an AbortError, the very reason its own signal carries", async () => {
    const caller = lookalike();
    let seen: AbortSignal | undefined;
    const outcome = createStack(point).run(
      "tool",
      "x",
      (_x, ctx) => {
        seen = ctx.signal;
        return new Promise<string>(() => {});
      },
      { signal: caller.signal },
    );
    await tick();
    caller.abort();
    const settled = await outcome;
    const cause = settled._tag === "Failed" ? (settled.error as RunAbortedError).cause : undefined;
    expect((cause as DOMException).name).toBe("AbortError");
    expect(seen?.reason).toBe(cause);
    expect(caller.listeners.size).toBe(0);
  });

  it("lets the run settle when its removeEventListener throws", async () => {
    const caller = lookalike();
    const signal = {
      ...caller.signal,
      removeEventListener: () => {
        throw new Error("remove boom");
      },
    } as unknown as AbortSignal;
    const outcome = await createStack(point).run("tool", "x", async (x) => (await tick(), x), { signal });
    expect(outcome).toEqual({ _tag: "Completed", value: "x" });
  });

  it("does not abort a settled run's signal when its listener, which removeEventListener would not let go of, fires later", async () => {
    const caller = lookalike();
    const signal = {
      ...caller.signal,
      removeEventListener: () => {
        throw new Error("remove boom");
      },
    } as unknown as AbortSignal;
    let seen: AbortSignal | undefined;
    const outcome = await createStack(point).run("tool", "x", async (x, ctx) => ((seen = ctx.signal), x), { signal });
    caller.abort();
    expect(outcome._tag).toBe("Completed");
    expect(seen?.aborted).toBe(false);
  });

  it("settles the run as aborted, with what its reason getter threw, when it aborts while the run goes on", async () => {
    const caller = lookalike();
    const boom = new Error("reason boom");
    Object.defineProperty(caller.signal, "reason", {
      get: () => {
        throw boom;
      },
    });
    const outcome = createStack(point).run("tool", "x", () => new Promise<string>(() => {}), { signal: caller.signal });
    await tick();
    caller.abort();
    const settled = await outcome;
    expect(settled._tag === "Failed" && (settled.error as RunAbortedError).cause).toBe(boom);
  });

  it("refuses the run with an AbortError when it had already aborted", async () => {
    const caller = lookalike();
    caller.abort();
    const outcome = await createStack(point).run("tool", "x", (x) => x, { signal: caller.signal });
    expect(outcome._tag === "Failed" && ((outcome.error as RunAbortedError).cause as DOMException).name).toBe("AbortError");
  });
});
