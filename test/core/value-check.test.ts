import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  Continue,
  HookError,
  Outcome,
  Reject,
  Replace,
  Trace,
  Transform,
  createStack,
  type Hook,
  gate,
  observe,
  type ValueCheck,
} from "../../src/core/index.ts";
import { problemOf, refusal } from "../../src/core/value-check.ts";

interface Call {
  readonly name: string;
  readonly input: Record<string, unknown>;
}
interface Result {
  readonly content: string;
}

const checked: string[] = [];
const callCheck: ValueCheck = (v) => {
  checked.push("input");
  const c = v as Partial<Call> | null;
  return typeof c === "object" && c !== null && typeof c.name === "string" && typeof c.input === "object" && c.input !== null
    ? typeof c.input.path === "string"
      ? undefined
      : `a call whose input has a path, got ${JSON.stringify(c)}`
    : `a call { name, input }, got ${JSON.stringify(v)}`;
};
const resultCheck: ValueCheck = (v) => {
  checked.push("output");
  return typeof v === "object" && v !== null && typeof (v as Result).content === "string"
    ? undefined
    : `a result { content: string }, got ${JSON.stringify(v)}`;
};

const points = {
  tool: gate<Call, Result>({ name: "tool", subject: (c) => c.name, input: callCheck, output: resultCheck }),
  watch: observe<Call, Result>({ name: "watch", input: callCheck, output: resultCheck }),
};

const call: Call = { name: "Read", input: { path: "a.txt" } };
const read = (c: Call) => ({ content: `read ${String(c.input.path)}` });

/** The HookError a refused answer leaves as the rejection's cause. */
const causeOf = (outcome: Outcome): HookError => {
  expect(outcome._tag).toBe("Rejected");
  const cause = (outcome as { cause?: unknown }).cause;
  expect(cause).toBeInstanceOf(HookError);
  return cause as HookError;
};

describe("a point's output check refuses a hook's Replace", () => {
  it("in before: the hook fails closed with an invalid-action HookError naming it, the point and what the point takes", async () => {
    const ran: string[] = [];
    const stack = createStack(points).use("tool", { name: "cache", before: () => Replace("text" as never) });

    const outcome = await stack.run("tool", call, (c) => (ran.push(c.name), read(c)));

    const error = causeOf(outcome);
    expect(error).toMatchObject({ hook: "cache", point: "tool", phase: "before", kind: "invalid-action" });
    expect(error.cause).toBeInstanceOf(TypeError);
    expect(outcome).toMatchObject({
      by: "cache",
      reason:
        'hook "cache" failed in before on tool: returned an invalid action: Replace gave tool an output it does not take: a result { content: string }, got "text"',
    });
    expect(ran).toEqual([]);
    expect(stack.stats).toMatchObject({ hookFailures: 1, failOpen: 0 });
  });

  it("in before, failing open: the answer is skipped and the operation runs", async () => {
    const failures: HookError[] = [];
    const stack = createStack(points, { onFailure: (e) => failures.push(e) }).use("tool", {
      name: "cache",
      failMode: "open",
      before: () => Replace({ content: 1 } as never),
    });

    expect(await stack.run("tool", call, read)).toEqual(Outcome.completed({ content: "read a.txt" }));
    expect(failures.map((e) => [e.hook, e.kind])).toEqual([["cache", "invalid-action"]]);
    expect(stack.stats.failOpen).toBe(1);
  });

  it("in after: closed rejects, open keeps the operation's value", async () => {
    const closed = createStack(points).use("tool", { name: "rewrite", after: () => Replace([] as never) });
    const open = createStack(points).use("tool", { name: "rewrite", failMode: "open", after: () => Transform(null as never) });

    expect(causeOf(await closed.run("tool", call, read))).toMatchObject({ hook: "rewrite", phase: "after", kind: "invalid-action" });
    expect(await open.run("tool", call, read)).toEqual(Outcome.completed({ content: "read a.txt" }));
  });

  it("in recover: closed rejects, open keeps the failure", async () => {
    const boom = new Error("boom");
    const fail = () => {
      throw boom;
    };
    const closed = createStack(points).use("tool", { name: "fallback", recover: () => Replace("fallback" as never) });
    const open = createStack(points).use("tool", { name: "fallback", failMode: "open", recover: () => Replace("fallback" as never) });

    expect(causeOf(await closed.run("tool", call, fail))).toMatchObject({ hook: "fallback", phase: "recover" });
    expect(await open.run("tool", call, fail)).toEqual(Outcome.failed(boom));
  });

  it("in around, as a Transform, a Replace or an outcome of its own: closed rejects, open passes the inside's outcome on", async () => {
    const answers = [() => Transform(42 as never), () => Replace(42 as never), async () => Outcome.completed(42 as never)] as const;
    for (const answer of answers) {
      const closed = createStack(points).use("tool", {
        name: "wrap",
        around: async (_ctx, next) => (await next(), answer()),
      });
      const open = createStack(points).use("tool", {
        name: "wrap",
        failMode: "open",
        around: async (_ctx, next) => (await next(), answer()),
      });
      const error = causeOf(await closed.run("tool", call, read));
      expect(error).toMatchObject({ hook: "wrap", phase: "around", kind: "invalid-action" });
      expect(error.message).toMatch(/gave tool an output it does not take: a result \{ content: string \}, got 42$/);
      expect(await open.run("tool", call, read)).toEqual(Outcome.completed({ content: "read a.txt" }));
    }
  });

  it("on an observe point, fails open by default: the hook's answer is skipped", async () => {
    const stack = createStack(points).use("watch", { name: "cache", before: () => Replace("text" as never) });

    expect(await stack.run("watch", call, read)).toEqual(Outcome.completed({ content: "read a.txt" }));
    expect(stack.stats.failOpen).toBe(1);
  });

  it("records the refusal as the hook's failure in the trace, not as its action", async () => {
    const trace = new Trace();
    const stack = createStack(points).use("tool", { name: "cache", before: () => Replace("text" as never) });

    await stack.run("tool", call, read, { trace });

    expect(trace.entries.map((e) => [e.hook, e.phase, e.action])).toEqual([["cache", "before", "Failed"]]);
  });
});

describe("a point's input check refuses a hook's new input", () => {
  it("from a before's Transform: closed rejects before the operation runs", async () => {
    const ran: string[] = [];
    const stack = createStack(points).use("tool", { name: "strip", before: (c) => Transform({ ...c, input: {} }) });

    const error = causeOf(await stack.run("tool", call, (c) => (ran.push(c.name), read(c))));

    expect(error.message).toBe(
      'hook "strip" failed in before on tool: returned an invalid action: Transform gave tool an input it does not take: a call whose input has a path, got {"name":"Read","input":{}}',
    );
    expect(ran).toEqual([]);
  });

  it("from a before's Transform, failing open: the operation gets the input the hook received", async () => {
    const stack = createStack(points).use("tool", { name: "strip", failMode: "open", before: () => Transform("Read" as never) });

    expect(await stack.run("tool", call, read)).toEqual(Outcome.completed({ content: "read a.txt" }));
  });

  it("from next(input) in an around: closed, next() rejects with the HookError and the hook fails with it", async () => {
    let seen: unknown;
    const stack = createStack(points).use("tool", {
      name: "wrap",
      around: async (ctx, next) => {
        try {
          return await next({ ...ctx.input, input: {} });
        } catch (error) {
          seen = error;
          return Replace({ content: "caught" });
        }
      },
    });

    const error = causeOf(await stack.run("tool", call, read));

    expect(seen).toBe(error);
    expect(error).toMatchObject({ hook: "wrap", phase: "around", kind: "invalid-action" });
    expect(error.message).toMatch(/next\(\) gave tool an input it does not take: a call whose input has a path/);
    expect(stack.stats).toMatchObject({ hookFailures: 1, failOpen: 0 });
  });

  it("from next(input) in an around, failing open: the inside runs on the input the hook received", async () => {
    const stack = createStack(points).use("tool", {
      name: "wrap",
      failMode: "open",
      around: (ctx, next) => next({ ...ctx.input, input: {} }),
    });

    expect(await stack.run("tool", call, read)).toEqual(Outcome.completed({ content: "read a.txt" }));
    expect(stack.stats.failOpen).toBe(1);
  });

  it("from an approver's edit: the edit is refused, as one of another shape is", async () => {
    const stack = createStack(points, { approval: () => ({ decision: "edit", input: { name: "Read", input: { file: "a.txt" } } }) }).use(
      "tool",
      {
        name: "ask",
        before: async (_c, ctx) => {
          const d = await ctx.approve({ hook: "ask" });
          return d.decision === "deny" ? Reject(d.reason ?? "denied") : Continue;
        },
      },
    );

    const outcome = await stack.run("tool", call, read);

    expect(outcome).toMatchObject({
      _tag: "Rejected",
      by: "ask",
      reason: 'the approver\'s edit was refused: a call whose input has a path, got {"name":"Read","input":{"file":"a.txt"}}',
    });
  });
});

describe("what a point's checks never see", () => {
  it("Continue, Reject and the operation's own value are not checked; values that fit go through", async () => {
    checked.length = 0;
    const stack = createStack(points)
      .use("tool", { name: "look", before: () => Continue, after: () => undefined })
      .use("tool", { name: "no", match: "Write", before: () => Reject("no writes") });

    expect(await stack.run("tool", call, () => "not a result" as never)).toEqual(Outcome.completed("not a result"));
    expect((await stack.run("tool", { ...call, name: "Write" }, read))._tag).toBe("Rejected");
    expect(checked).toEqual([]);

    const fits = createStack(points).use("tool", { name: "cache", before: () => Replace({ content: "cached" }) });
    expect(await fits.run("tool", call, read)).toEqual(Outcome.completed({ content: "cached" }));
    expect(checked).toEqual(["output"]);
  });

  it("a check that throws refuses the value, saying what it threw", async () => {
    const point = gate<Call, Result>({
      name: "tool",
      output: () => {
        throw new Error("broken check");
      },
    });
    const stack = createStack({ tool: point }).use("tool", { name: "cache", before: () => Replace({ content: "x" }) });

    expect(causeOf(await stack.run("tool", call, read)).message).toMatch(/an output it does not take: its check threw: broken check$/);
  });
});

describe("declaring a point's checks", () => {
  it("refuses a check that is not a function, at gate and at observe, naming the point and the field", () => {
    expect(() => gate({ name: "tool", input: "object" as never })).toThrow(new TypeError('point "tool": input must be a function'));
    expect(() => observe({ name: "watch", output: { type: "object" } as never })).toThrow(
      new TypeError('point "watch": output must be a function'),
    );
  });

  it("problemOf and refusal say what a check refuses", () => {
    const text: ValueCheck = (v) => (typeof v === "string" ? undefined : `a string, got ${typeof v}`);
    expect(problemOf(text, "x")).toBeUndefined();
    expect(problemOf(undefined, 1)).toBeUndefined();
    expect(problemOf(text, 1)).toBe("a string, got number");
    expect(refusal({ name: "p", output: text }, "output", "Replace", 1)?.message).toBe(
      "Replace gave p an output it does not take: a string, got number",
    );
  });
});

describe("whatever hooks answer", () => {
  /** A value a hook may give: one that fits, or one of another shape. */
  const value = (fitting: unknown) => fc.constantFrom<unknown>(fitting, "text", 42, null, [], {});
  const answer = (fitting: unknown) =>
    fc.oneof(
      fc.constant<unknown>(undefined),
      value(fitting).map((v) => Transform(v as never)),
      value(fitting).map((v) => Replace(v as never)),
      value({ content: "r" }).map((v) => Outcome.completed(v)),
    );
  const hook = fc.record({
    phase: fc.constantFrom("before", "after", "recover", "around", "next"),
    failMode: fc.constantFrom("open", "closed"),
    input: value({ name: "Read", input: { path: "b.txt" } }),
    output: answer({ content: "r" }),
  });

  const toHook = (h: { phase: string; failMode: string; input: unknown; output: unknown }, i: number): Hook<any, any> => {
    const base = { name: `h${i}`, failMode: h.failMode as "open" | "closed" };
    const output = (): never => (Outcome.is(h.output) ? Replace((h.output as unknown as { value: never }).value) : h.output) as never;
    if (h.phase === "before") return { ...base, before: () => (h.output === undefined ? Transform(h.input as never) : output()) };
    if (h.phase === "after") return { ...base, after: output };
    if (h.phase === "recover")
      return { ...base, recover: () => Replace((h.output as { value?: never } | undefined)?.value ?? ("x" as never)) };
    if (h.phase === "next") return { ...base, around: (_ctx, next) => next(h.input as never) };
    return { ...base, around: async (_ctx, next) => (await next(), (h.output ?? Continue) as never) };
  };

  it("the operation only gets inputs the point takes, and a completed outcome is always an output it takes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(hook, { maxLength: 6 }), fc.boolean(), async (hooks, fails) => {
        let stack = createStack(points);
        hooks.forEach((h, i) => {
          stack = stack.use("tool", toHook(h, i));
        });
        const seen: unknown[] = [];
        const outcome = await stack.run("tool", call, (c) => {
          seen.push(c);
          if (fails) throw new Error("down");
          return read(c);
        });
        for (const input of seen) expect(callCheck(input)).toBeUndefined();
        if (outcome._tag === "Completed") expect(resultCheck(outcome.value)).toBeUndefined();
        if (outcome._tag === "Rejected" && outcome.cause !== undefined) expect(outcome.cause).toBeInstanceOf(HookError);
      }),
      { numRuns: 300 },
    );
  });
});
