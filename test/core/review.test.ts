import { describe, expect, it, vi } from "vitest";
import { Continue, Outcome, Reject, Replace, Trace, Transform, createStack, gate } from "../../src/core/index.ts";
import { call, echo, newStack, sleep } from "./helpers.ts";

describe("R7: nothing starts after a run settled", () => {
  it("does not run the operation when an around hook answers after the deadline", async () => {
    let ran = false;
    const stack = newStack().use("tool", {
      name: "slow-around",
      around: async () => {
        await sleep(60);
        return Continue;
      },
    });
    const outcome = await stack.run(
      "tool",
      call(),
      () => {
        ran = true;
        return echo(call());
      },
      { timeoutMs: 20 },
    );
    expect(outcome._tag).toBe("Failed");
    await sleep(100);
    expect(ran).toBe(false);
  });

  it("does not run the operation when a recheck answers after the deadline", async () => {
    let ran = false;
    let n = 0;
    const stack = newStack()
      .use("tool", {
        name: "guard",
        priority: 10,
        recheck: true,
        before: async () => {
          if (n++ > 0) await sleep(60);
          return Continue;
        },
      })
      .use("tool", { name: "tx", priority: 50, before: (c) => Transform({ ...c, input: { x: 1 } }) });
    expect(
      (
        await stack.run(
          "tool",
          call(),
          () => {
            ran = true;
            return echo(call());
          },
          { timeoutMs: 20 },
        )
      )._tag,
    ).toBe("Failed");
    await sleep(100);
    expect(ran).toBe(false);
  });

  it("leaves no hook timer behind when the caller aborts", async () => {
    vi.useFakeTimers();
    try {
      const controller = new AbortController();
      const stack = newStack().use("tool", { name: "slow", timeoutMs: 100_000, before: () => new Promise(() => {}) });
      const pending = stack.run("tool", call(), echo, { signal: controller.signal });
      controller.abort("user");
      expect((await pending)._tag).toBe("Failed");
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("collecting gates", () => {
  const collecting = () => createStack({ tool: gate<{ name: string }, string>({ name: "tool", collect: true }) });

  it("keep a veto already given when an inner hook replaces", async () => {
    const stack = collecting()
      .use("tool", { name: "guard", priority: 10, before: () => Reject("no") })
      .use("tool", { name: "cache", priority: 100, before: () => Replace("cached") });
    expect(await stack.run("tool", { name: "x" }, () => "op")).toMatchObject({ _tag: "Rejected", reason: "no", by: "guard" });
  });

  it("drop the vetoes of a first attempt when an around hook retries", async () => {
    let n = 0;
    const stack = collecting()
      .use("tool", {
        name: "retry",
        priority: 10,
        around: async (_c, next) => {
          const first = await next();
          return first._tag === "Completed" ? first : next();
        },
      })
      .use("tool", { name: "flaky", priority: 100, before: () => (n++ === 0 ? Reject("first try") : Continue) });
    expect(await stack.run("tool", { name: "x" }, () => "op")).toEqual(Outcome.completed("op"));
  });
});

describe("stack changes", () => {
  it("forgets that a removed hook was disabled: a new hook of that name runs", async () => {
    let ran = false;
    const stack = newStack()
      .use("tool", { name: "x", disabled: true, before: () => Continue })
      .without("x")
      .use("tool", {
        name: "x",
        before: () => {
          ran = true;
        },
      });
    await stack.run("tool", call(), echo);
    expect(ran).toBe(true);
  });
});

describe("R12: a shadow around hook changes nothing", () => {
  it("cannot change the input through next()", async () => {
    let seen = "";
    const stack = newStack().use("tool", { name: "sh", shadow: true, around: (ctx, next) => next({ ...ctx.input, name: "Evil" }) });
    await stack.run("tool", call("Read"), (c) => {
      seen = c.name;
      return echo(c);
    });
    expect(seen).toBe("Read");
  });

  it("cannot run the operation twice", async () => {
    let runs = 0;
    const stack = newStack().use("tool", {
      name: "sh",
      shadow: true,
      around: async (_c, next) => {
        await next();
        return next();
      },
    });
    await stack.run("tool", call("Read"), (c) => {
      runs++;
      return echo(c);
    });
    expect(runs).toBe(1);
  });
});

describe("failures are never silent", () => {
  it("puts a matcher that throws in the trace", async () => {
    const trace = new Trace();
    const stack = newStack().use("tool", {
      name: "m",
      failMode: "open",
      match: () => {
        throw new Error("bad matcher");
      },
      before: () => Continue,
    });
    await stack.run("tool", call(), echo, { trace });
    expect(trace.entries.some((e) => e.hook === "m" && e.phase === "match" && e.action === "Failed")).toBe(true);
  });

  it("counts an observer whose matcher throws", async () => {
    const stack = newStack().use("tool", {
      name: "obs",
      match: () => {
        throw new Error("bad");
      },
      observe: () => {},
    });
    await stack.run("tool", call(), echo);
    await stack.flush();
    expect(stack.stats.observerErrors).toBe(1);
  });

  it("settles, never rejects, when a strict run meets a value that refuses to be frozen", async () => {
    const stack = newStack({ strict: true }).use("tool", { name: "h", before: () => Continue });
    const evil = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("evil");
        },
      },
    );
    await expect(stack.run("tool", call(), async () => evil as never)).resolves.toMatchObject({ _tag: "Completed" });
  });
});

describe("R3 for around hooks", () => {
  it("treats a Replace without next() as a short-circuit: outer afters still see it", async () => {
    const log: string[] = [];
    const stack = newStack()
      .use("tool", { name: "outer", priority: 10, after: (o) => void log.push(`outer saw ${o.content}`) })
      .use("tool", { name: "cache", priority: 50, around: () => Replace({ content: "hit" }) });
    await stack.run("tool", call(), echo);
    expect(log).toEqual(["outer saw hit"]);
  });

  it("treats a Replace after next() as final, like an after", async () => {
    const log: string[] = [];
    const stack = newStack()
      .use("tool", { name: "outer", priority: 10, after: (o) => void log.push(`outer saw ${o.content}`) })
      .use("tool", {
        name: "swap",
        priority: 50,
        around: async (_c, next) => {
          await next();
          return Replace({ content: "swapped" });
        },
      });
    expect(await stack.run("tool", call(), echo)).toEqual(Outcome.completed({ content: "swapped" }));
    expect(log).toEqual([]);
  });
});

describe("collecting gates after a retry", () => {
  it("let a Replace through once the vetoes of an earlier attempt were dropped", async () => {
    let n = 0;
    const stack = createStack({ tool: gate<{ name: string }, string>({ name: "tool", collect: true }) })
      .use("tool", {
        name: "retry",
        priority: 10,
        around: async (_c, next) => {
          const first = await next();
          return first._tag === "Completed" ? first : next();
        },
      })
      .use("tool", { name: "flaky", priority: 50, before: () => (n++ === 0 ? Reject("first try") : Continue) })
      .use("tool", { name: "cache", priority: 100, before: () => (n > 1 ? Replace("cached") : Continue) });
    expect(await stack.run("tool", { name: "x" }, () => "op")).toEqual(Outcome.completed("cached"));
  });
});
