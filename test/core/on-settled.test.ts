import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Continue, Outcome, Reject, Replace, Transform, type Hook, type HookError } from "../../src/core/index.ts";
import { call, newStack, sleep, type Call, type Result } from "./helpers.ts";

/** A hook that logs entering (`before`) and each end of its layer, with the outcome's tag. */
const watched = (
  name: string,
  priority: number,
  log: string[],
  extra: Partial<Hook<Call, Result, "gate">> = {},
): Hook<Call, Result, "gate"> => ({
  name,
  priority,
  before: (c) => void log.push(`${name} in ${c.name}`),
  onSettled: (o, c) => void log.push(`${name} settled ${o._tag}${o._tag === "Failed" ? `(${(o.error as Error).name})` : ""} ${c.name}`),
  ...extra,
});

describe("onSettled", () => {
  it("is called once per entered layer, innermost first, after its after, with the outcome and the input its layer received", async () => {
    const log: string[] = [];
    const stack = newStack()
      .use("tool", watched("outer", 1, log, { after: (r) => (log.push("outer after"), Transform({ content: `${r.content}!` })) }))
      .use("tool", watched("inner", 2, log, { before: (c) => (log.push("inner in"), Transform({ ...c, name: "Edit" })) }));
    const outcome = await stack.run("tool", call("Read"), (c) => (log.push(`op ${c.name}`), { content: "x" }));
    expect(outcome).toEqual(Outcome.completed({ content: "x!" }));
    expect(log).toEqual([
      "outer in Read",
      "inner in",
      "op Edit",
      "inner settled Completed Read",
      "outer after",
      "outer settled Completed Read",
    ]);
  });

  it("gets a frozen copy of the outcome, which it cannot change for the caller", async () => {
    let frozen = false;
    const stack = newStack().use("tool", {
      name: "w",
      onSettled: (o) => {
        frozen = Object.isFrozen(o);
        try {
          (o as { _tag: string })._tag = "Failed";
        } catch {
          /* frozen */
        }
      },
    });
    expect(await stack.run("tool", call(), () => ({ content: "ok" }))).toEqual(Outcome.completed({ content: "ok" }));
    expect(frozen).toBe(true);
  });

  it("ends layers outside an inner Reject with the rejection, the rejecting layer included, and enters none inside it", async () => {
    const log: string[] = [];
    const stack = newStack()
      .use("tool", watched("outer", 1, log))
      .use("tool", watched("guard", 2, log, { before: () => (log.push("guard in"), Reject("no")) }))
      .use("tool", watched("inside", 3, log));
    await stack.run("tool", call(), () => ({ content: "" }));
    expect(log).toEqual(["outer in Read", "guard in", "guard settled Rejected Read", "outer settled Rejected Read"]);
  });

  it("ends every layer with the recovered value outside a recover, and the failure inside it", async () => {
    const log: string[] = [];
    const stack = newStack()
      .use("tool", watched("outer", 1, log))
      .use("tool", watched("fallback", 2, log, { recover: () => Replace({ content: "spare" }) }))
      .use("tool", watched("inside", 3, log));
    const outcome = await stack.run("tool", call(), () => {
      throw new Error("op");
    });
    expect(outcome).toEqual(Outcome.completed({ content: "spare" }));
    expect(log).toEqual([
      "outer in Read",
      "fallback in Read",
      "inside in Read",
      "inside settled Failed(Error) Read",
      "fallback settled Completed Read",
      "outer settled Completed Read",
    ]);
  });

  it("ends layers when a hook inside fails closed or times out", async () => {
    for (const failing of [
      {
        before: () => {
          throw new Error("crash");
        },
      },
      { timeoutMs: 10, before: () => new Promise(() => {}) },
    ]) {
      const log: string[] = [];
      const stack = newStack()
        .use("tool", watched("outer", 1, log))
        .use("tool", { name: "failing", priority: 2, ...failing } as Hook<Call, Result, "gate">);
      const outcome = await stack.run("tool", call(), () => ({ content: "" }));
      expect(outcome._tag).toBe("Rejected");
      expect(log).toEqual(["outer in Read", "outer settled Rejected Read"]);
    }
  });

  it("ends every entered layer with the run's Failed(RunAbortedError) when the caller aborts or the deadline passes, once, before the caller resumes", async () => {
    for (const how of ["abort", "deadline"] as const) {
      const log: string[] = [];
      const controller = new AbortController();
      const stack = newStack()
        .use("tool", watched("outer", 1, log))
        .use("tool", watched("inner", 2, log))
        .use("tool", watched("never", 3, log, { match: () => false }));
      const untilAborted = (_c: Call, ctx: { readonly signal: AbortSignal }) =>
        new Promise<Result>((resolve) => ctx.signal.addEventListener("abort", () => resolve({ content: "late" })));
      const running = stack.run("tool", call(), untilAborted, how === "abort" ? { signal: controller.signal } : { timeoutMs: 10 });
      if (how === "abort") setTimeout(() => controller.abort(new Error("stop")), 5);
      const outcome = await running;
      log.push("caller resumed");
      await sleep(20);
      expect(outcome).toMatchObject({ _tag: "Failed", error: { name: "RunAbortedError" } });
      expect(log).toEqual([
        "outer in Read",
        "inner in Read",
        "inner settled Failed(RunAbortedError) Read",
        "outer settled Failed(RunAbortedError) Read",
        "caller resumed",
      ]);
    }
  });

  it("ends the layers inside an around hook that answered without waiting with Failed(OperationAbandonedError) when the run settles", async () => {
    const log: string[] = [];
    const stack = newStack()
      .use("tool", watched("outer", 1, log))
      .use("tool", { name: "impatient", priority: 2, around: (_c, next) => (void next(), Replace({ content: "did not wait" })) })
      .use("tool", watched("inner", 3, log));
    const outcome = await stack.run("tool", call(), () => sleep(20).then(() => ({ content: "late" })));
    expect(outcome).toEqual(Outcome.completed({ content: "did not wait" }));
    expect(log).toEqual([
      "outer in Read",
      "inner in Read",
      "outer settled Completed Read",
      "inner settled Failed(OperationAbandonedError) Read",
    ]);
    await sleep(30);
    expect(log).toHaveLength(4);
  });

  it("ends a layer once per attempt when an around hook outside retries", async () => {
    const log: string[] = [];
    let n = 0;
    const stack = newStack()
      .use("tool", {
        name: "retry",
        priority: 1,
        around: async (_c, next) => {
          const o = await next();
          return o._tag === "Failed" ? next() : o;
        },
      })
      .use("tool", watched("inner", 2, log));
    await stack.run("tool", call(), () => {
      if (n++ === 0) throw new Error("flaky");
      return { content: "ok" };
    });
    expect(log).toEqual(["inner in Read", "inner settled Failed(Error) Read", "inner in Read", "inner settled Completed Read"]);
  });

  it("counts and reports a failure as an observer's, and leaves the outcome alone, sync or async", async () => {
    const errors: HookError[] = [];
    const stack = newStack({ onFailure: (e) => void errors.push(e) })
      .use("tool", {
        name: "sync",
        onSettled: () => {
          throw new Error("sync boom");
        },
      })
      .use("tool", {
        name: "async",
        onSettled: async () => {
          await sleep(1);
          throw new Error("async boom");
        },
      });
    const outcome = await stack.run("tool", call(), () => ({ content: "ok" }));
    await stack.flush();
    expect(outcome).toEqual(Outcome.completed({ content: "ok" }));
    expect(errors.map((e) => [e.hook, e.phase, e.kind])).toEqual([
      ["sync", "onSettled", "threw"],
      ["async", "onSettled", "threw"],
    ]);
    expect(stack.stats).toMatchObject({ observerErrors: 2, hookFailures: 0, failOpen: 0 });
  });

  it("is waited for by flush() when it returns a promise", async () => {
    let done = false;
    const stack = newStack().use("tool", { name: "slow", onSettled: () => sleep(20).then(() => void (done = true)) });
    await stack.run("tool", call(), () => ({ content: "" }));
    expect(done).toBe(false);
    await stack.flush();
    expect(done).toBe(true);
  });

  it("ends each entered layer exactly once, whatever the hooks and the caller do", async () => {
    const behaviour = fc.constantFrom("continue", "reject", "throw", "async", "slow", "abort");
    await fc.assert(
      fc.asyncProperty(fc.array(behaviour, { minLength: 1, maxLength: 6 }), fc.constantFrom("ok", "throw", "slow"), async (hooks, op) => {
        const entered = new Map<string, number>();
        const ended = new Map<string, number>();
        const controller = new AbortController();
        let stack = newStack();
        hooks.forEach((b, i) => {
          const name = `h${i}`;
          stack = stack.use("tool", {
            name,
            priority: i,
            before: async () => {
              entered.set(name, (entered.get(name) ?? 0) + 1);
              if (b === "reject") return Reject("no");
              if (b === "throw") throw new Error("boom");
              if (b === "async") await sleep(0);
              if (b === "slow") await sleep(3);
              if (b === "abort") controller.abort(new Error("stop"));
              return Continue;
            },
            onSettled: () => void ended.set(name, (ended.get(name) ?? 0) + 1),
          });
        });
        const outcome = await stack.run(
          "tool",
          call(),
          async () => {
            if (op === "throw") throw new Error("op");
            if (op === "slow") await sleep(3);
            return { content: "" };
          },
          { signal: controller.signal, timeoutMs: 50 },
        );
        await sleep(10);
        expect(["Completed", "Rejected", "Failed"]).toContain(outcome._tag);
        expect(Object.fromEntries(ended)).toEqual(Object.fromEntries(entered));
      }),
      { numRuns: 60 },
    );
  });
});
