/**
 * Checklist A (composition core): what the other suites leave out. A1/A2 as a matrix of
 * phase × sync/async × fail mode × position × thrown value; A5 and A6 with an
 * unhandled-rejection trap; A7 as a table of malformed actions; A11 long chains (their cost per
 * hook is measured in benchmarks/); A14 re-entrancy.
 */
import { describe, expect, it } from "vitest";
import { Continue, HookError, NextMisuseError, Outcome, Replace, RunAbortedError, Transform } from "../../src/core/index.ts";
import type { Hook } from "../../src/core/index.ts";
import { call, newStack, sleep, type Call, type Result } from "./helpers.ts";
import { expectNoUnhandledRejections } from "./no-unhandled.ts";

expectNoUnhandledRejections();

type Phase = "before" | "after" | "around" | "recover";
const thrownValues: [string, unknown][] = [
  ["an Error", new Error("boom")],
  ["undefined", undefined],
  ["null", null],
  ["a string", "just text"],
  ["an object", { code: 42 }],
  ["a Symbol", Symbol("sym")],
  ["a number", 0],
  ["a BigInt", 10n],
];

/** A hook that throws `value` in `phase`, synchronously or from a promise. */
const thrower = (phase: Phase, isAsync: boolean, value: unknown, failMode: "open" | "closed"): Hook<Call, Result, "gate"> => {
  const fail = isAsync
    ? () => Promise.reject(value)
    : () => {
        throw value;
      };
  if (phase === "around") return { name: "faulty", failMode, around: fail as never };
  return { name: "faulty", failMode, [phase]: fail } as Hook<Call, Result, "gate">;
};

/** Plain hooks around and inside the faulty one, so it sits at `position` 0 (outer), 1 or 2 (inner). */
const chainWith = (faulty: Hook<Call, Result, "gate">, position: number, seen: string[]) => {
  let stack = newStack();
  for (let i = 0; i < 3; i++) {
    if (i === position) stack = stack.use("tool", { ...faulty, priority: i * 10 });
    else
      stack = stack.use("tool", {
        name: `plain${i}`,
        priority: i * 10,
        before: () => void seen.push(`in${i}`),
        after: () => void seen.push(`out${i}`),
      });
  }
  return stack;
};

describe("A1/A2: a hook that throws, in any phase, position and fail mode", () => {
  const cases: [Phase, boolean, "open" | "closed", number, string, unknown][] = [];
  for (const phase of ["before", "after", "around", "recover"] as const)
    for (const isAsync of [false, true])
      for (const failMode of ["closed", "open"] as const)
        for (const position of [0, 1, 2])
          for (const [label, value] of thrownValues) cases.push([phase, isAsync, failMode, position, label, value]);

  it.each(cases)("%s, async=%s, fail %s, position %i, throwing %s", async (phase, isAsync, failMode, position, _label, value) => {
    const seen: string[] = [];
    let stack = chainWith(thrower(phase, isAsync, value, failMode), position, seen);
    // With an observer the run records its decisions (the slow path); without, it takes the plain loops.
    if (position === 2) stack = stack.use("tool", { name: "spy", priority: 1000, observe: () => undefined });
    const opError = new Error("operation failed");
    const op =
      phase === "recover"
        ? () => {
            throw opError;
          }
        : (c: Call) => ({ content: `ran ${c.name}` });
    const outcome = await stack.run("tool", call(), op as never);
    // The plain hooks outside the faulty one always entered.
    for (let i = 0; i < position; i++) expect(seen).toContain(`in${i}`);

    if (failMode === "closed") {
      // Gate, fail closed: a Rejected outcome naming the hook, whose cause is a typed HookError keeping the original value.
      expect(outcome._tag).toBe("Rejected");
      if (outcome._tag !== "Rejected") return;
      expect(outcome.by).toBe("faulty");
      expect(outcome.reason).toMatch(/^hook "faulty" failed in \w+ on tool: threw: /);
      expect(outcome.cause).toBeInstanceOf(HookError);
      expect(outcome.cause?.phase).toBe(phase);
      expect(outcome.cause?.kind).toBe("threw");
      expect(Object.is(outcome.cause?.cause, value)).toBe(true);
      expect(stack.stats.failOpen).toBe(0);
    } else {
      // Fail open: as if the hook said Continue; what was computed is kept.
      expect(outcome).toEqual(phase === "recover" ? Outcome.failed(opError) : Outcome.completed({ content: "ran Read" }));
      expect(stack.stats.failOpen).toBe(1);
    }
    expect(stack.stats.hookFailures).toBe(1);
  });
});

describe("A2: the reason of a failure is never empty or 'undefined' alone", () => {
  it.each(thrownValues)("for %s", async (_label, value) => {
    const outcome = await newStack()
      .use("tool", {
        name: "h",
        before: () => {
          throw value;
        },
      })
      .run("tool", call(), () => ({ content: "" }));
    expect(outcome._tag).toBe("Rejected");
    const reason = (outcome as { reason: string }).reason;
    expect(reason.length).toBeGreaterThan('hook "h" failed in before on tool: threw: '.length);
    expect((outcome as { cause: HookError }).cause).toBeInstanceOf(Error);
  });
});

describe("A5: next() called but not awaited (dangling)", () => {
  it("awaits the downstream anyway when the around returns Continue at once, with no unhandled rejection", async () => {
    let ran = 0;
    const stack = newStack().use("tool", {
      name: "dangling",
      around: (_ctx, next) => {
        void next();
        return Continue;
      },
    });
    const outcome = await stack.run("tool", call(), async (c) => {
      await sleep(5);
      ran++;
      return { content: `late ${c.name}` };
    });
    expect(outcome).toEqual(Outcome.completed({ content: "late Read" }));
    expect(ran).toBe(1);
  });

  it("keeps a second dangling next() from running the operation again or leaking its rejection", async () => {
    let ran = 0;
    const stack = newStack().use("tool", {
      name: "twice",
      around: (_ctx, next) => {
        void next();
        void next(); // rejects with NextMisuseError; nobody listens
        return undefined;
      },
    });
    // An asynchronous operation, so the first next() is still pending when the second comes
    // (with a synchronous one the two calls are in sequence, which R4 allows: a retry).
    const outcome = await stack.run("tool", call(), async () => ({ content: String(++ran) }));
    await sleep(5);
    expect(ran).toBe(1);
    expect(outcome._tag).toBe("Rejected");
    expect((outcome as { cause: HookError }).cause.kind).toBe("next-misuse");
  });

  it("lets an around answer with Replace while its dangling downstream still finishes quietly", async () => {
    const stack = newStack().use("tool", {
      name: "eager",
      around: (_ctx, next) => {
        void next();
        return Replace({ content: "cached" });
      },
    });
    const outcome = await stack.run("tool", call(), async () => {
      await sleep(2);
      throw new Error("downstream failure nobody awaits");
    });
    expect(outcome).toEqual(Outcome.completed({ content: "cached" }));
    await sleep(10);
  });
});

describe("A6: next() called after the chain settled", () => {
  it("resolves a hook's first next() after the run deadline to the run's outcome, never reaching the operation nor counting a misuse", async () => {
    let ran = 0;
    let late: unknown;
    const failures: unknown[] = [];
    const stack = newStack({ onFailure: (error) => void failures.push(error) }).use("tool", {
      name: "slow-around",
      around: async (_ctx, next) => {
        await sleep(40);
        late = await next();
        return late as Outcome<Result>;
      },
    });
    const outcome = await stack.run("tool", call(), () => ({ content: String(++ran) }), { timeoutMs: 10 });
    expect(outcome._tag === "Failed" && outcome.error instanceof RunAbortedError && outcome.error.timedOut).toBe(true);
    await sleep(60);
    expect(late).toEqual(outcome);
    expect(late).not.toBe(outcome); // a copy: the hook cannot edit the outcome the caller holds
    expect(ran).toBe(0);
    expect(failures).toEqual([]);
    expect(stack.stats).toMatchObject({ hookFailures: 0, failOpen: 0 });
  });

  it("rejects a next() kept by a hook and called after its run completed", async () => {
    let kept: ((input?: Call) => Promise<Outcome<Result>>) | undefined;
    let ran = 0;
    const stack = newStack().use("tool", {
      name: "keeper",
      around: (_ctx, next) => {
        kept = next;
        return next();
      },
    });
    expect((await stack.run("tool", call(), () => ({ content: String(++ran) })))._tag).toBe("Completed");
    await expect(kept!()).rejects.toBeInstanceOf(NextMisuseError);
    expect(ran).toBe(1);
  });
});

describe("A7: malformed action objects", () => {
  const malformed: [string, unknown][] = [
    ["a misspelt action field", { action: "alow" }],
    ["an unknown tag", { _tag: "Alow" }],
    ["Reject without a reason", { _tag: "Reject" }],
    ["Reject with a number reason", { _tag: "Reject", reason: 5 }],
    ["Transform without a value", { _tag: "Transform" }],
    ["Replace without a value", { _tag: "Replace" }],
    ["a nested tag", { _tag: { _tag: "Continue" } }],
    ["the string Continue", "Continue"],
    ["a number", 42],
    ["an array", [{ _tag: "Continue" }]],
    ["true", true],
  ];

  it.each(malformed)("fails a gate hook closed, naming it, for %s", async (_label, value) => {
    const failures: HookError[] = [];
    const stack = newStack({ onFailure: (e) => failures.push(e) }).use("tool", { name: "sloppy", before: () => value as never });
    let ran = false;
    const outcome = await stack.run("tool", call(), () => ((ran = true), { content: "" }));
    expect(ran).toBe(false);
    expect(outcome).toMatchObject({ _tag: "Rejected", by: "sloppy" });
    expect((outcome as { cause: HookError }).cause.kind).toBe("invalid-action");
    expect(failures.map((f) => [f.hook, f.kind])).toEqual([["sloppy", "invalid-action"]]);
  });

  it.each(malformed)("ignores it on an observation point, records and reports it, for %s", async (_label, value) => {
    const failures: HookError[] = [];
    const stack = newStack({ onFailure: (e) => failures.push(e) }).use("watch", { name: "sloppy", after: () => value as never });
    const outcome = await stack.run("watch", call("Read"), () => ({ content: "kept" }));
    expect(outcome).toEqual(Outcome.completed({ content: "kept" }));
    expect(failures.map((f) => [f.hook, f.kind, f.phase])).toEqual([["sloppy", "invalid-action", "after"]]);
    expect(stack.stats.failOpen).toBe(1);
  });
});

describe("A11: a long chain of asynchronous hooks", () => {
  const build = (n: number) => {
    let stack = newStack();
    for (let i = 0; i < n; i++) {
      stack = stack.use("tool", {
        name: `h${i}`,
        before: i % 2 === 0 ? async () => Continue : () => Continue,
        after: i % 3 === 0 ? async (o) => (i % 100 === 0 ? Transform({ content: `${o.content}.` }) : Continue) : undefined,
      } as Hook<Call, Result, "gate">);
    }
    return stack;
  };
  it("runs 10 000 mixed sync and async hooks without a stack overflow", async () => {
    const outcome = await build(10_000).run("tool", call(), () => ({ content: "x" }));
    expect(outcome).toEqual(Outcome.completed({ content: `x${".".repeat(Math.ceil(10_000 / 300))}` }));
  });
});

describe("A14: re-entrancy", () => {
  // The stack refuses runs whose `path` is deeper than `maxDepth` (default 32). The test bounds
  // the recursion itself (at 64 levels, through real asynchronous turns) and expects the stack
  // to have refused long before that.
  it("refuses a run that re-enters the same point past a depth limit", async () => {
    let depth = 0;
    let refused: Outcome<Result> | undefined;
    let stack = newStack();
    stack = stack.use("tool", {
      name: "reenter",
      before: async (input, ctx) => {
        depth++;
        if (depth >= 64) return Continue;
        await new Promise((r) => setImmediate(r));
        const inner = await stack.run("tool", input as Call, () => ({ content: "inner" }), { path: [...ctx.path, "reenter"] });
        if (inner._tag !== "Completed") refused ??= inner;
        return Continue;
      },
    });
    await stack.run("tool", call(), () => ({ content: "outer" }));
    expect(depth).toBeLessThan(64);
    expect(refused?._tag).not.toBe("Completed");
  });
});
