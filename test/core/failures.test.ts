import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { HookError, Outcome, Replace, Trace, Transform } from "../../src/core/index.ts";
import { call, newStack, sleep } from "./helpers.ts";
import { settlesWithin } from "../support/timers.ts";

describe("R5 operation errors", () => {
  it("yields Failed when the operation throws, and afters do not run", async () => {
    let afterRan = false;
    const boom = new Error("tool broke");
    const stack = newStack().use("tool", {
      name: "a",
      after: () => {
        afterRan = true;
      },
    });
    expect(
      await stack.run("tool", call(), () => {
        throw boom;
      }),
    ).toEqual(Outcome.failed(boom));
    expect(afterRan).toBe(false);
  });

  it("lets recover replace a failure, and the recovered value flows through outer afters", async () => {
    const stack = newStack()
      .use("tool", { name: "outer", priority: 1, after: (o) => Transform({ content: `${o.content} (seen by outer)` }) })
      .use("tool", { name: "fallback", priority: 2, recover: (e) => Replace({ content: `recovered from ${(e as Error).message}` }) });
    const outcome = await stack.run("tool", call(), async () => {
      throw new Error("timeout");
    });
    expect(outcome).toEqual(Outcome.completed({ content: "recovered from timeout (seen by outer)" }));
  });

  it("lets a failure through when recover returns Continue", async () => {
    const stack = newStack().use("tool", { name: "look", recover: () => undefined });
    expect(
      (
        await stack.run("tool", call(), () => {
          throw new Error("x");
        })
      )._tag,
    ).toBe("Failed");
  });
});

describe("R6 hook failures", () => {
  const positions = ["before", "after"] as const;
  for (const phase of positions) {
    it(`rejects with a reason naming the hook when a gate hook throws in ${phase} (fail closed)`, async () => {
      const stack = newStack().use("tool", {
        name: "crashy",
        [phase]: () => {
          throw new Error("kaput");
        },
      });
      const outcome = await stack.run("tool", call(), () => ({ content: "ran" }));
      expect(outcome._tag).toBe("Rejected");
      if (outcome._tag !== "Rejected") return;
      expect(outcome.by).toBe("crashy");
      expect(outcome.reason).toBe(`hook "crashy" failed in ${phase} on tool: threw: kaput`);
      expect(outcome.cause).toBeInstanceOf(HookError);
      expect(outcome.cause).toMatchObject({ hook: "crashy", point: "tool", phase, kind: "threw" });
    });

    it(`goes on as if Continue when a fail-open hook throws in ${phase}, and counts it`, async () => {
      const stack = newStack().use("tool", {
        name: "crashy",
        failMode: "open",
        [phase]: async () => {
          throw new Error("kaput");
        },
      });
      const outcome = await stack.run("tool", call(), () => ({ content: "ran" }));
      expect(outcome).toEqual(Outcome.completed({ content: "ran" }));
      expect(stack.stats.failOpen).toBe(1);
    });
  }

  it("keeps what was computed downstream when a fail-open after fails", async () => {
    const stack = newStack()
      .use("tool", {
        name: "broken",
        priority: 1,
        failMode: "open",
        after: () => {
          throw new Error("x");
        },
      })
      .use("tool", { name: "inner", priority: 2, after: () => Transform({ content: "inner work" }) });
    expect(await stack.run("tool", call(), () => ({ content: "op" }))).toEqual(Outcome.completed({ content: "inner work" }));
  });

  it("fails a hook that returns something that is not an action", async () => {
    const stack = newStack().use("tool", { name: "typo", before: (() => ({ action: "alow" })) as never });
    const outcome = await stack.run("tool", call(), () => ({ content: "" }));
    expect(outcome._tag).toBe("Rejected");
    if (outcome._tag === "Rejected") expect(outcome.cause?.kind).toBe("invalid-action");
  });

  it("fails a hook that exceeds its timeoutMs and aborts its signal", async () => {
    let aborted = false;
    const stack = newStack().use("tool", {
      name: "slow",
      timeoutMs: 20,
      before: (_c, ctx) =>
        new Promise((r) => {
          ctx.signal.addEventListener("abort", () => {
            aborted = true;
          });
          setTimeout(() => r(undefined), 500).unref();
        }),
    });
    const running = stack.run("tool", call(), () => ({ content: "" }));
    expect(await settlesWithin(400, running)).toBe(true); // at its 20 ms deadline, not the hook's 500 ms answer
    const outcome = await running;
    expect(aborted).toBe(true);
    expect(outcome._tag === "Rejected" && outcome.cause?.kind).toBe("timeout");
  });

  it("normalises any thrown value into a HookError with a readable reason", async () => {
    await fc.assert(
      fc.asyncProperty(fc.anything(), fc.boolean(), async (thrown, async) => {
        const stack = newStack().use("tool", {
          name: "weird",
          before: async
            ? async () => {
                throw thrown;
              }
            : () => {
                throw thrown;
              },
        });
        const outcome = await stack.run("tool", call(), () => ({ content: "" }));
        expect(outcome._tag).toBe("Rejected");
        if (outcome._tag === "Rejected") {
          expect(typeof outcome.reason).toBe("string");
          expect(outcome.reason.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("never rejects the run's promise, whatever a hook or the operation do", async () => {
    await fc.assert(
      fc.asyncProperty(fc.anything(), fc.constantFrom("before", "after", "around", "recover", "op"), async (value, where) => {
        const thrower = () => {
          throw value;
        };
        const stack = newStack().use("tool", {
          name: "h",
          failMode: "open",
          [where === "op" ? "before" : where]: where === "op" ? () => undefined : thrower,
        });
        const outcome = await stack.run("tool", call(), where === "op" || where === "recover" ? thrower : () => ({ content: "" }));
        expect(["Completed", "Rejected", "Failed"]).toContain(outcome._tag);
      }),
      { numRuns: 200 },
    );
  });

  it("records a failure even when the hook runs in an async timeout race that loses", async () => {
    const failures: HookError[] = [];
    const stack = newStack({ onFailure: (e) => failures.push(e) }).use("watch", {
      name: "late",
      timeoutMs: 5,
      after: () => sleep(50) as never,
    });
    await stack.run("watch", "x", (s) => s);
    expect(failures.map((f) => f.kind)).toEqual(["timeout"]);
  });
});

describe("R3 for an around hook that fails closed", () => {
  // An outer hook that answers a rejection from inside with its own value, as a fallback does.
  const withFallback = () =>
    newStack().use("tool", {
      name: "fallback",
      priority: 1,
      around: async (_c, next) => {
        const inner = await next();
        return inner._tag === "Rejected" ? Replace({ content: `fallback for ${inner.by}` }) : inner;
      },
    });
  for (const [path, options] of [
    ["lean", {}],
    ["general", { trace: new Trace() }],
  ] as const) {
    it(`is a before's failure until it called next(): a hook outside may still answer (${path} path)`, async () => {
      const stack = withFallback().use("tool", {
        name: "crashy",
        priority: 2,
        around: () => {
          throw new Error("kaput");
        },
      });
      const outcome = await stack.run("tool", call(), () => ({ content: "ran" }), options);
      expect(outcome).toEqual(Outcome.completed({ content: "fallback for crashy" }));
    });

    it(`is an after's failure once it called next(): final, a hook outside cannot change it (${path} path)`, async () => {
      const stack = withFallback().use("tool", {
        name: "crashy",
        priority: 2,
        around: async (_c, next) => {
          await next();
          throw new Error("kaput");
        },
      });
      const outcome = await stack.run("tool", call(), () => ({ content: "ran" }), options);
      expect(outcome).toMatchObject({ _tag: "Rejected", by: "crashy" });
    });
  }
});
