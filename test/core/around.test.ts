import { describe, expect, it } from "vitest";
import { NextMisuseError, Outcome, Replace, Transform } from "../../src/core/index.ts";
import { call, newStack, sleep } from "./helpers.ts";

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
    expect(await stack.run("tool", call(), () => { ran = true; return { content: "miss" }; })).toEqual(Outcome.completed({ content: "hit" }));
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
    const outcome = await stack.run("tool", call(), async () => { runs++; await sleep(1); return { content: "once" }; });
    expect(second).toBeInstanceOf(NextMisuseError);
    expect(runs).toBe(1);
    expect(outcome).toEqual(Outcome.completed({ content: "once" }));
  });

  it("fails closed when next() is misused on a gate", async () => {
    const stack = newStack().use("tool", {
      name: "twice",
      around: async (_c, next) => { void next(); return next(); },
    });
    const outcome = await stack.run("tool", call(), async () => { await sleep(1); return { content: "x" }; });
    expect(outcome._tag).toBe("Rejected");
    if (outcome._tag === "Rejected") expect(outcome.cause?.kind).toBe("next-misuse");
  });

  it("rejects next() after the hook settled without running the operation again", async () => {
    let runs = 0;
    let saved: (() => Promise<Outcome<unknown>>) | undefined;
    const stack = newStack().use("tool", { name: "leak", around: async (_c, next) => { saved = next; return next(); } });
    await stack.run("tool", call(), () => { runs++; return { content: "" }; });
    await expect(saved?.()).rejects.toBeInstanceOf(NextMisuseError);
    expect(runs).toBe(1);
  });

  it("turns a synchronous throw in an around into a hook failure, never a thrown run", async () => {
    const stack = newStack().use("tool", { name: "boom", around: () => { throw new Error("sync boom"); } });
    const outcome = await stack.run("tool", call(), () => ({ content: "" }));
    expect(outcome._tag).toBe("Rejected");
    if (outcome._tag === "Rejected") expect(outcome.reason).toContain('hook "boom" failed in around on tool: threw: sync boom');
  });

  it("passes through on Continue without next(), and a Transform becomes the output", async () => {
    const stack = newStack()
      .use("tool", { name: "t", priority: 1, around: async (_c, next) => { const o = await next(); return o._tag === "Completed" ? Transform({ content: o.value.content + "!" }) : o; } })
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
      .use("tool", { name: "outer", priority: 1, around: async (ctx, next) => { const o = await next(); seen = ctx.input.name; return o; } })
      .use("tool", { name: "inner", priority: 2, before: (c) => Transform({ ...c, name: "Changed" }) });
    await stack.run("tool", call("Original"), () => ({ content: "" }));
    expect(seen).toBe("Original");
  });
});
