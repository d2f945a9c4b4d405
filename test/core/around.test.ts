import { describe, expect, it } from "vitest";
import { NextMisuseError, Outcome, Replace, Trace, Transform, type Hook, type HookError } from "../../src/core/index.ts";
import { call, newStack, sleep, type Call, type Result } from "./helpers.ts";

describe("R4 around", () => {
  it("may call next() several times in sequence to retry", async () => {
    let attempts = 0;
    const stack = newStack().use("tool", {
      name: "retry",
      around: async (_c, next) => {
        let o = await next();
        while (o._tag === "Failed" && attempts < 3) o = await next();
        return o;
      },
    });
    const outcome = await stack.run("tool", call(), () => {
      attempts++;
      if (attempts < 3) throw new Error("flaky");
      return { content: "third time" };
    });
    expect(outcome).toEqual(Outcome.completed({ content: "third time" }));
    expect(attempts).toBe(3);
  });

  it("may short-circuit by never calling next()", async () => {
    let ran = false;
    const stack = newStack().use("tool", { name: "cache", around: () => Replace({ content: "hit" }) });
    expect(
      await stack.run("tool", call(), () => {
        ran = true;
        return { content: "miss" };
      }),
    ).toEqual(Outcome.completed({ content: "hit" }));
    expect(ran).toBe(false);
  });

  it("may call next() with a new input", async () => {
    const stack = newStack().use("tool", { name: "rewrite", around: (c, next) => next({ ...c.input, name: "Edit" }) });
    expect(await stack.run("tool", call(), (c) => ({ content: c.name }))).toEqual(Outcome.completed({ content: "Edit" }));
  });

  it("rejects a second concurrent next() and runs the operation once", async () => {
    let runs = 0;
    let second: unknown;
    const stack = newStack().use("tool", {
      name: "twice",
      failMode: "open",
      around: async (_c, next) => {
        const first = next();
        second = await next().catch((e) => e);
        return first;
      },
    });
    const outcome = await stack.run("tool", call(), async () => {
      runs++;
      await sleep(1);
      return { content: "once" };
    });
    expect(second).toBeInstanceOf(NextMisuseError);
    expect(runs).toBe(1);
    expect(outcome).toEqual(Outcome.completed({ content: "once" }));
  });

  it("fails closed when next() is misused on a gate", async () => {
    const stack = newStack().use("tool", {
      name: "twice",
      around: async (_c, next) => {
        void next();
        return next();
      },
    });
    const outcome = await stack.run("tool", call(), async () => {
      await sleep(1);
      return { content: "x" };
    });
    expect(outcome._tag).toBe("Rejected");
    if (outcome._tag === "Rejected") expect(outcome.cause?.kind).toBe("next-misuse");
  });

  it("rejects next() after the hook settled without running the operation again", async () => {
    let runs = 0;
    let saved: (() => Promise<Outcome<unknown>>) | undefined;
    const stack = newStack().use("tool", {
      name: "leak",
      around: async (_c, next) => {
        saved = next;
        return next();
      },
    });
    await stack.run("tool", call(), () => {
      runs++;
      return { content: "" };
    });
    await expect(saved?.()).rejects.toBeInstanceOf(NextMisuseError);
    expect(runs).toBe(1);
  });

  it("turns a synchronous throw in an around into a hook failure, never a thrown run", async () => {
    const stack = newStack().use("tool", {
      name: "boom",
      around: () => {
        throw new Error("sync boom");
      },
    });
    const outcome = await stack.run("tool", call(), () => ({ content: "" }));
    expect(outcome._tag).toBe("Rejected");
    if (outcome._tag === "Rejected") expect(outcome.reason).toContain('hook "boom" failed in around on tool: threw: sync boom');
  });

  it("passes through on Continue without next(), and a Transform becomes the output", async () => {
    const stack = newStack()
      .use("tool", {
        name: "t",
        priority: 1,
        around: async (_c, next) => {
          const o = await next();
          return o._tag === "Completed" ? Transform({ content: o.value.content + "!" }) : o;
        },
      })
      .use("tool", { name: "c", priority: 2, around: () => ({ _tag: "Continue" }) as const });
    expect(await stack.run("tool", call(), () => ({ content: "op" }))).toEqual(Outcome.completed({ content: "op!" }));
  });

  it("treats an around that returns nothing and never called next() as a failure with no decision", async () => {
    const stack = newStack().use("tool", { name: "silent", around: () => undefined });
    const outcome = await stack.run("tool", call(), () => ({ content: "" }));
    expect(outcome._tag).toBe("Rejected");
    if (outcome._tag === "Rejected") expect(outcome.reason).toContain("no decision");
  });

  it("sees its own layer's input in ctx.input even after inner transforms", async () => {
    let seen: unknown;
    const stack = newStack()
      .use("tool", {
        name: "outer",
        priority: 1,
        around: async (ctx, next) => {
          const o = await next();
          seen = ctx.input.name;
          return o;
        },
      })
      .use("tool", { name: "inner", priority: 2, before: (c) => Transform({ ...c, name: "Changed" }) });
    await stack.run("tool", call("Original"), () => ({ content: "" }));
    expect(seen).toBe("Original");
  });

  it("freezes an outcome it built itself in strict mode, so no hook further out can change what it keeps", async () => {
    const kept = { content: "cached" };
    const stack = newStack({ strict: true })
      .use("tool", {
        name: "outer",
        priority: 1,
        after: (out) => {
          try {
            (out as { content: string }).content = "changed";
          } catch {
            /* frozen */
          }
        },
      })
      .use("tool", { name: "cache", priority: 2, around: () => Outcome.completed(kept) });
    const outcome = await stack.run("tool", call(), () => ({ content: "real" }));
    expect(outcome).toEqual(Outcome.completed({ content: "cached" }));
    expect(kept.content).toBe("cached");
    expect(Object.isFrozen((outcome as { value: object }).value)).toBe(true);
  });

  it("sees a context that names its own hook, shares the run's ids and signal, and is credited with its addContext", async () => {
    const seen: Record<string, unknown>[] = [];
    const texts: [string, string][] = [];
    const controller = new AbortController();
    const look = (ctx: Parameters<NonNullable<Hook<Call, Result>["around"]>>[0]) =>
      seen.push({
        hook: ctx.hook.name,
        input: ctx.input.name,
        point: ctx.point,
        kind: ctx.kind,
        subject: ctx.subject,
        runId: ctx.runId,
        sessionId: ctx.sessionId,
        signal: ctx.signal,
      });
    const stack = newStack()
      .use("tool", {
        name: "outer",
        priority: 1,
        around: async (ctx, next) => {
          look(ctx);
          ctx.addContext("from outer");
          const o = await next({ ...ctx.input, name: "Inner" });
          look(ctx);
          return o;
        },
      })
      .use("tool", {
        name: "inner",
        priority: 2,
        around: (ctx, next) => {
          look(ctx);
          ctx.addContext("from inner");
          return next();
        },
      });
    await stack.run("tool", call("Outer"), () => ({ content: "" }), {
      signal: controller.signal,
      sessionId: "s1",
      runId: "r1",
      onContext: (text, by) => texts.push([text, by]),
    });
    const common = { point: "tool", kind: "gate", subject: "Outer", runId: "r1", sessionId: "s1" };
    expect(seen).toMatchObject([
      { hook: "outer", input: "Outer", ...common },
      { hook: "inner", input: "Inner", ...common },
      { hook: "outer", input: "Outer", ...common },
    ]);
    // One signal for the run: the caller's, linked, the same object in every layer.
    expect(new Set(seen.map((s) => s.signal)).size).toBe(1);
    expect(seen[0]?.signal).toBeInstanceOf(AbortSignal);
    expect(texts).toEqual([
      ["from outer", "outer"],
      ["from inner", "inner"],
    ]);
  });

  it("sees its own signal in its context when it has its own timeout", async () => {
    let aborted: unknown;
    const stack = newStack().use("tool", {
      name: "slow",
      timeoutMs: 20,
      around: (ctx) =>
        new Promise((resolve) =>
          ctx.signal.addEventListener("abort", () => {
            aborted = ctx.signal.reason;
            resolve(undefined);
          }),
        ),
    });
    const outcome = await stack.run("tool", call(), () => ({ content: "" }));
    expect(outcome._tag).toBe("Rejected");
    expect(String(aborted)).toMatch(/timed out|timeout/i);
  });
});

describe("R4 around hooks that answer with next()'s own promise", () => {
  const passOn = (name: string, priority: number): Hook<Call, Result, "gate"> => ({ name, priority, around: (_c, next) => next() });

  it("give the inner outcome to whoever else listens to that promise, while outer hooks still change the result", async () => {
    let seen: Outcome<unknown> | undefined;
    const stack = newStack()
      .use("tool", { name: "outer-after", priority: 1, after: (r) => Transform({ content: `${r.content}+outer` }) })
      .use("tool", {
        name: "tap",
        priority: 2,
        around: (_c, next) => {
          const p = next();
          void p.then((o) => (seen = o));
          return p;
        },
      })
      .use("tool", { name: "inner-after", priority: 3, after: (r) => Transform({ content: `${r.content}+inner` }) });
    const outcome = await stack.run("tool", call(), async () => ({ content: "op" }));
    expect(seen).toEqual(Outcome.completed({ content: "op+inner" }));
    expect(outcome).toEqual(Outcome.completed({ content: "op+inner+outer" }));
  });

  it("run every layer's after hooks inside out through twenty pass-through layers, with a sync or an async operation", async () => {
    for (const op of [(c: Call): Result => ({ content: c.name }), async (c: Call): Promise<Result> => ({ content: c.name })]) {
      let stack = newStack();
      for (let i = 0; i < 20; i++) stack = stack.use("tool", passOn(`layer-${i}`, i * 10));
      stack = stack
        .use("tool", { name: "mark-5", priority: 55, after: (r) => Transform({ content: `${r.content}>55` }) })
        .use("tool", { name: "mark-15", priority: 155, after: (r) => Transform({ content: `${r.content}>155` }) });
      expect(await stack.run("tool", call("x"), op)).toEqual(Outcome.completed({ content: "x>155>55" }));
    }
  });

  it("record each layer's decision in the trace, innermost first", async () => {
    const trace = new Trace();
    const stack = newStack().use("tool", passOn("a", 1)).use("tool", passOn("b", 2)).use("tool", passOn("c", 3));
    expect((await stack.run("tool", call(), async () => ({ content: "" }), { trace }))._tag).toBe("Completed");
    expect(trace.entries.map((e) => `${e.hook}:${e.phase}:${e.action}`)).toEqual([
      "c:around:Outcome",
      "b:around:Outcome",
      "a:around:Outcome",
    ]);
  });

  it("pass on an outcome an inner hook made final, which no outer after may change", async () => {
    const stack = newStack()
      .use("tool", passOn("outer", 1))
      .use("tool", { name: "deny-late", priority: 2, after: () => Replace({ content: "replaced" }) })
      .use("tool", passOn("inner", 3));
    expect(await stack.run("tool", call(), async () => ({ content: "op" }))).toEqual(Outcome.completed({ content: "replaced" }));
  });

  describe.each([
    ["nothing outside waits (the promise is handed on)", false],
    ["an outer after hook waits (the outcome is passed on when the inside ends)", true],
  ])("have answered when they return, whether %s", (_what, outerAfter) => {
    const leaky = (keep: (next: () => Promise<Outcome<unknown>>, p: Promise<Outcome<unknown>>) => void) => {
      const errors: HookError[] = [];
      let stack = newStack({ onFailure: (e) => void errors.push(e) });
      if (outerAfter) stack = stack.use("tool", { name: "outer-after", priority: 1, after: () => undefined });
      stack = stack.use("tool", {
        name: "leaky",
        priority: 2,
        around: (_c, next) => {
          const p = next();
          keep(next, p);
          return p;
        },
      });
      return { stack, errors };
    };

    it("so a next() kept and called while the inside runs is a call after it settled: reported, and the outcome stands", async () => {
      let runs = 0;
      let late: Promise<unknown> | undefined;
      const { stack, errors } = leaky((next) => void setTimeout(() => (late = next().catch((e) => e)), 2));
      const outcome = await stack.run("tool", call(), async () => {
        runs++;
        await sleep(20);
        return { content: "once" };
      });
      expect(outcome).toEqual(Outcome.completed({ content: "once" }));
      expect(await late).toBeInstanceOf(NextMisuseError);
      expect(runs).toBe(1);
      expect(errors.map((e) => [e.hook, e.kind])).toEqual([["leaky", "next-misuse"]]);
    });

    it("so a next() called from its own callback on that promise never reruns the operation", async () => {
      let runs = 0;
      let late: Promise<unknown> | undefined;
      const { stack, errors } = leaky((next, p) => void p.then(() => (late = next().catch((e) => e))));
      const outcome = await stack.run("tool", call(), async () => {
        runs++;
        await sleep(2);
        return { content: "once" };
      });
      expect(outcome).toEqual(Outcome.completed({ content: "once" }));
      expect(await late).toBeInstanceOf(NextMisuseError);
      expect(runs).toBe(1);
      expect(errors.map((e) => [e.hook, e.kind])).toEqual([["leaky", "next-misuse"]]);
    });
  });

  it("hand a Failed outcome outward to a recover hook further out, which may replace it", async () => {
    const stack = newStack()
      .use("tool", { name: "fallback", priority: 1, recover: (e) => Replace({ content: `recovered ${(e as Error).message}` }) })
      .use("tool", passOn("middle", 2))
      .use("tool", passOn("inner", 3));
    const outcome = await stack.run("tool", call(), async () => {
      throw new Error("boom");
    });
    expect(outcome).toEqual(Outcome.completed({ content: "recovered boom" }));
  });

  it("pass each attempt's outcome to a retrying around further out, which restarts them", async () => {
    let attempts = 0;
    const stack = newStack()
      .use("tool", {
        name: "retry",
        priority: 1,
        around: async (_c, next) => {
          let o = await next();
          while (o._tag === "Failed") o = await next();
          return o;
        },
      })
      .use("tool", passOn("middle", 2))
      .use("tool", passOn("inner", 3));
    const outcome = await stack.run("tool", call(), async () => {
      if (++attempts < 3) throw new Error("flaky");
      return { content: `attempt ${attempts}` };
    });
    expect(outcome).toEqual(Outcome.completed({ content: "attempt 3" }));
    expect(attempts).toBe(3);
  });

  it("settle once when the run is aborted while the inside still runs, and nothing after runs", async () => {
    let afterRan = false;
    const controller = new AbortController();
    const stack = newStack()
      .use("tool", passOn("outer", 1))
      .use("tool", {
        name: "late-after",
        priority: 2,
        after: () => {
          afterRan = true;
          return undefined;
        },
      })
      .use("tool", passOn("inner", 3));
    const running = stack.run(
      "tool",
      call(),
      async () => {
        await sleep(20);
        return { content: "late" };
      },
      { signal: controller.signal },
    );
    controller.abort(new Error("user cancelled"));
    expect((await running)._tag).toBe("Failed");
    await sleep(40);
    expect(afterRan).toBe(false);
  });
});
