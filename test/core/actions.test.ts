import { describe, expect, it } from "vitest";
import { Continue, Outcome, Reject, Replace, Transform } from "../../src/core/index.ts";
import { call, echo, newStack } from "./helpers.ts";

describe("R2 and R3: actions and short-circuits", () => {
  it("hands a Transform to the next hook and to the operation", async () => {
    const stack = newStack()
      .use("tool", { name: "one", before: (c) => Transform({ ...c, input: { n: 1 } }) })
      .use("tool", { name: "two", before: (c) => Transform({ ...c, input: { n: (c.input.n as number) + 1 } }) });
    const outcome = await stack.run("tool", call(), (c) => ({ content: String(c.input.n) }));
    expect(outcome).toEqual(Outcome.completed({ content: "2" }));
  });

  it("skips inner hooks and the operation on Reject in before, and outer afters still run", async () => {
    const seen: string[] = [];
    let ran = false;
    const stack = newStack()
      .use("tool", { name: "outer", priority: 1, after: () => void seen.push("outer after") })
      .use("tool", {
        name: "outer-around",
        priority: 2,
        around: async (_c, next) => {
          const o = await next();
          seen.push(`around saw ${o._tag}`);
          return o;
        },
      })
      .use("tool", { name: "guard", priority: 3, before: () => Reject("no"), after: () => void seen.push("guard after") })
      .use("tool", { name: "inner", priority: 4, before: () => void seen.push("inner before") });
    const outcome = await stack.run("tool", call(), () => {
      ran = true;
      return { content: "" };
    });
    expect(outcome).toEqual({ _tag: "Rejected", reason: "no", by: "guard" });
    expect(ran).toBe(false);
    // a Rejected outcome has no value, so `after` (which receives an output) does not run on it
    expect(seen).toEqual(["around saw Rejected"]);
  });

  it("runs outer afters on a value replaced in before", async () => {
    const seen: unknown[] = [];
    let ran = false;
    const stack = newStack()
      .use("tool", { name: "audit", priority: 1, after: (out) => void seen.push(out) })
      .use("tool", { name: "cache", priority: 2, before: () => Replace({ content: "cached" }) });
    const outcome = await stack.run("tool", call(), () => {
      ran = true;
      return { content: "fresh" };
    });
    expect(outcome).toEqual(Outcome.completed({ content: "cached" }));
    expect(ran).toBe(false);
    expect(seen).toEqual([{ content: "cached" }]);
  });

  it("makes Replace in an after final: outer afters are skipped", async () => {
    const seen: string[] = [];
    const stack = newStack()
      .use("tool", {
        name: "outer",
        priority: 1,
        after: () => {
          seen.push("outer");
          return Transform({ content: "outer" });
        },
      })
      .use("tool", { name: "inner", priority: 2, after: () => Replace({ content: "inner" }) });
    const outcome = await stack.run("tool", call(), () => ({ content: "op" }));
    expect(outcome).toEqual(Outcome.completed({ content: "inner" }));
    expect(seen).toEqual([]);
  });

  it("makes Reject in an after final, and an outer around cannot change it", async () => {
    const stack = newStack()
      .use("tool", {
        name: "outer",
        priority: 1,
        around: async (_c, next) => {
          await next();
          return Replace({ content: "sneaky" });
        },
      })
      .use("tool", { name: "inner", priority: 2, after: () => Reject("bad output") });
    const outcome = await stack.run("tool", call(), () => ({ content: "op" }));
    expect(outcome).toEqual({ _tag: "Rejected", reason: "bad output", by: "inner" });
  });

  it("chains Transforms in after from the inside out", async () => {
    const stack = newStack()
      .use("tool", { name: "outer", priority: 1, after: (o) => Transform({ content: `${o.content}+outer` }) })
      .use("tool", { name: "inner", priority: 2, after: (o) => Transform({ content: `${o.content}+inner` }) });
    const outcome = await stack.run("tool", call(), () => ({ content: "op" }));
    expect(outcome).toEqual(Outcome.completed({ content: "op+inner+outer" }));
  });

  it("gives each after the input its own layer received", async () => {
    const seen: unknown[] = [];
    const stack = newStack()
      .use("tool", {
        name: "outer",
        priority: 1,
        before: (c) => Transform({ ...c, input: { v: "outer" } }),
        after: (_o, i) => void seen.push(["outer", i.input.v]),
      })
      .use("tool", {
        name: "inner",
        priority: 2,
        before: (c) => Transform({ ...c, input: { v: "inner" } }),
        after: (_o, i) => void seen.push(["inner", i.input.v]),
      });
    await stack.run("tool", call("Read", { v: "caller" }), () => ({ content: "" }));
    expect(seen).toEqual([
      ["inner", "outer"],
      ["outer", "caller"],
    ]);
  });

  it('says a Reject built without a reason had none, rather than "undefined"', async () => {
    const stack = newStack().use("tool", { name: "terse", before: () => (Reject as (reason?: string) => Reject)() });
    expect(await stack.run("tool", call(), echo)).toMatchObject({
      _tag: "Rejected",
      by: "terse",
      reason: "rejected without a reason",
    });
  });

  it("treats a returned undefined as Continue", async () => {
    const stack = newStack().use("tool", { name: "quiet", before: () => undefined, after: () => {} });
    expect(await stack.run("tool", call(), () => ({ content: "ok" }))).toEqual(Outcome.completed({ content: "ok" }));
  });

  it("turns a Reject on an observation point into a hook failure (fail open by default)", async () => {
    const failures: string[] = [];
    const stack = newStack({ onFailure: (e) => failures.push(`${e.kind} ${e.hook} ${e.point} ${e.phase}`) }).use("watch", {
      name: "untyped",
      before: (() => Reject("nope")) as never,
    });
    const outcome = await stack.run("watch", "x", (s) => s + "!");
    expect(outcome).toEqual(Outcome.completed("x!"));
    expect(failures).toEqual(["reject-on-observe untyped watch before"]);
  });

  it("lets observation hooks Transform and Replace", async () => {
    const stack = newStack()
      .use("watch", { name: "t", before: (s) => Transform(s.toUpperCase()) })
      .use("watch", { name: "r", after: (o) => Replace(`${o}?`) });
    expect(await stack.run("watch", "hi", (s) => s + "!")).toEqual(Outcome.completed("HI!?"));
  });

  it("returns Continue as a frozen singleton", () => {
    expect(Object.isFrozen(Continue)).toBe(true);
    expect(Continue).toBe(Continue);
  });
});

describe("A10: a gate marked recheck sees the input the operation really gets", () => {
  const noRm = {
    name: "no-rm",
    priority: 10,
    recheck: true,
    before: (c: { input: Record<string, unknown> }) => (String(c.input.command).includes("rm") ? Reject("rm blocked") : Continue),
  };
  it("rejects when a hook inside it rewrites an approved input into a forbidden one", async () => {
    let ran = false;
    const stack = newStack()
      .use("tool", noRm)
      .use("tool", { name: "rewriter", priority: 100, before: (c) => Transform({ ...c, input: { command: "rm -rf /" } }) });
    const outcome = await stack.run("tool", call("Bash", { command: "ls" }), () => {
      ran = true;
      return { content: "" };
    });
    expect(outcome).toEqual({ _tag: "Rejected", reason: "rm blocked", by: "no-rm" });
    expect(ran).toBe(false);
  });

  it("does not re-run when nothing inside changed the input", async () => {
    let calls = 0;
    const stack = newStack()
      .use("tool", {
        ...noRm,
        before: () => {
          calls++;
          return Continue;
        },
      })
      .use("tool", { name: "look", priority: 100, before: () => Continue });
    await stack.run("tool", call("Bash", { command: "ls" }), () => ({ content: "" }));
    expect(calls).toBe(1);
  });

  it("forgets what it approved in an attempt an around retries, so a gate whose matcher no longer applies is not asked again", async () => {
    const { createStack, gate, Transform: T } = await import("../../src/core/index.ts");
    const asked: string[] = [];
    type C = { name: string; input: { command: string } };
    const stack = createStack({ tool: gate<C, string>({ name: "tool", subject: (c) => c.name, detail: (c) => c.input.command }) })
      .use("tool", {
        name: "fallback",
        priority: 10,
        around: async (_c, next) => {
          const first = await next();
          return first._tag === "Completed" ? first : next({ name: "Bash", input: { command: "ls" } });
        },
      })
      .use("tool", {
        name: "rm-guard",
        priority: 20,
        match: "Bash(rm *)",
        recheck: true,
        before: (c) => (asked.push(c.input.command), c.input.command.includes("-rf") ? Reject("no -rf") : Continue),
      })
      .use("tool", {
        name: "verbose",
        priority: 30,
        match: "Bash(rm *)",
        before: (c) => T({ ...c, input: { command: `${c.input.command} -v` } }),
      });
    const outcome = await stack.run("tool", { name: "Bash", input: { command: "rm a" } }, (c) => {
      if (c.input.command.startsWith("rm")) throw new Error("rm failed");
      return `ran ${c.input.command}`;
    });
    expect(outcome).toEqual({ _tag: "Completed", value: "ran ls" });
    expect(asked).toEqual(["rm a", "rm a -v"]);
  });

  it("records each recheck call in the trace, a Continue too (R11)", async () => {
    const { Trace: T, Transform: Tr } = await import("../../src/core/index.ts");
    const trace = new T();
    const stack = newStack()
      .use("tool", { ...noRm, name: "policy" })
      .use("tool", { name: "rewriter", priority: 20, before: (c) => Tr({ ...c, input: { command: "ls -la" } }) });
    await stack.run("tool", call("Bash", { command: "ls" }), () => ({ content: "" }), { trace });
    expect(trace.entries.map((e) => `${e.hook}/${e.action}`)).toEqual(["policy/Continue", "rewriter/Transform", "policy/Continue"]);
  });

  it("without recheck, an outer gate does not see inner rewrites (documented onion behaviour)", async () => {
    const stack = newStack()
      .use("tool", { ...noRm, recheck: false })
      .use("tool", { name: "rewriter", priority: 100, before: (c) => Transform({ ...c, input: { command: "rm -rf /" } }) });
    expect((await stack.run("tool", call("Bash", { command: "ls" }), (c) => ({ content: String(c.input.command) })))._tag).toBe(
      "Completed",
    );
  });
});

describe("collecting gates", () => {
  it("collects every Reject in before, skips the operation, and joins the reasons in hook order", async () => {
    const { createStack, gate } = await import("../../src/core/index.ts");
    const stack = createStack({ stop: gate<{ reason: string }, { stop: true }>({ name: "stop", collect: true }) })
      .use("stop", { name: "tests", priority: 1, before: () => Reject("tests are failing") })
      .use("stop", { name: "fine", priority: 2, before: () => Continue })
      .use("stop", { name: "lint", priority: 3, before: () => Reject("lint errors") });
    let ran = false;
    const outcome = await stack.run("stop", { reason: "done" }, () => {
      ran = true;
      return { stop: true as const };
    });
    expect(ran).toBe(false);
    expect(outcome).toEqual({
      _tag: "Rejected",
      reason: "tests are failing\nlint errors",
      by: "tests, lint",
      reasons: [
        { reason: "tests are failing", by: "tests" },
        { reason: "lint errors", by: "lint" },
      ],
    });
  });

  it("treats an around that answers without next() like a before: its Reject joins the others, and no Replace drops a veto", async () => {
    const { createStack, gate, Replace: Rep } = await import("../../src/core/index.ts");
    const base = () =>
      createStack({ stop: gate<{ reason: string }, { stop: true }>({ name: "stop", collect: true }) }).use("stop", {
        name: "tests",
        priority: 1,
        before: () => Reject("tests are failing"),
      });
    let ran = 0;
    const op = () => (ran++, { stop: true as const });
    const rejected = await base()
      .use("stop", { name: "lint", priority: 2, around: () => Reject("lint errors") })
      .use("stop", { name: "docs", priority: 3, before: () => Reject("docs missing") })
      .run("stop", { reason: "done" }, op);
    expect(rejected).toMatchObject({ _tag: "Rejected", by: "tests, lint, docs", reason: "tests are failing\nlint errors\ndocs missing" });
    const replaced = await base()
      .use("stop", { name: "cache", priority: 2, around: () => Rep({ stop: true as const }) })
      .run("stop", { reason: "done" }, op);
    expect(replaced).toMatchObject({ _tag: "Rejected", by: "tests" });
    const broken = await base()
      .use("stop", {
        name: "flaky",
        priority: 2,
        around: () => {
          throw new Error("down");
        },
      })
      .run("stop", { reason: "done" }, op);
    expect(broken).toMatchObject({ _tag: "Rejected", by: "tests, flaky" });
    // An Outcome made before next() is read the same way as the action it stands for.
    const completed = await base()
      .use("stop", { name: "stub", priority: 2, around: () => Outcome.completed({ stop: true as const }) })
      .run("stop", { reason: "done" }, op);
    expect(completed).toMatchObject({ _tag: "Rejected", by: "tests" });
    const outcomeRejected = await base()
      .use("stop", { name: "lint", priority: 2, around: () => Outcome.rejected("lint errors", "lint") })
      .use("stop", { name: "docs", priority: 3, before: () => Reject("docs missing") })
      .run("stop", { reason: "done" }, op);
    expect(outcomeRejected).toMatchObject({ _tag: "Rejected", by: "tests, lint, docs" });
    expect(ran).toBe(0);
  });

  it("refuses collect on an observation point", async () => {
    const { observe } = await import("../../src/core/index.ts");
    expect(() => observe({ name: "x", collect: true })).toThrow(/only gates may collect/);
  });
});
