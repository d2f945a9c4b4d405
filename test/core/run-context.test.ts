import { describe, expect, it } from "vitest";
import { Reject, Replace, Trace, type HookContext, type HookInfo } from "../../src/core/index.ts";
import { call, newStack } from "./helpers.ts";

/** The lean path runs a chain of plain around hooks nobody records; a trace sends the same chain down the general one. */
const paths = [
  ["lean", {}],
  ["general", { trace: new Trace() }],
] as const;

/** What a hook sees as `ctx.hook`: the keys it has and whether it is frozen. */
const shape = (info: HookInfo) => ({ keys: Object.keys(info).sort(), frozen: Object.isFrozen(info) });
const publicShape = { keys: ["name", "shadow", "source"], frozen: true };

/** A write to `ctx.hook`'s shadow flag, as a hook that wants out of enforcement would try. */
const tryToShadow = (ctx: Pick<HookContext, "hook">): void => {
  try {
    (ctx.hook as { shadow: boolean }).shadow = true;
  } catch {
    // A frozen view refuses the write; that is the point.
  }
};

describe("ctx.hook", () => {
  it("is a frozen view of name, shadow and source in every phase and on the timed path", async () => {
    const seen: Record<string, unknown> = {};
    const stack = newStack()
      .use("tool", { name: "b", source: "settings.json", before: (_i, ctx) => void (seen.before = shape(ctx.hook)) })
      .use("tool", { name: "t", timeoutMs: 1000, before: (_i, ctx) => void (seen.timed = shape(ctx.hook)) })
      .use("tool", { name: "a", after: (_o, _i, ctx) => void (seen.after = shape(ctx.hook)) })
      .use("tool", { name: "r", recover: (_e, _i, ctx) => ((seen.recover = shape(ctx.hook)), Replace({ content: "recovered" })) })
      .use("tool", { name: "w", around: (ctx, next) => ((seen.around = shape(ctx.hook)), next()) });

    await stack.run("tool", call(), () => ({ content: "ok" }));
    await stack.run("tool", call(), () => {
      throw new Error("op");
    });

    expect(seen).toEqual({ before: publicShape, timed: publicShape, after: publicShape, recover: publicShape, around: publicShape });
  });

  for (const [path, options] of paths)
    it(`is the same frozen view in an around hook (${path} path)`, async () => {
      let seen: unknown;
      const stack = newStack().use("tool", {
        name: "w",
        source: "mod",
        around: (ctx, next) => ((seen = { ...shape(ctx.hook), info: { ...ctx.hook } }), next()),
      });

      await stack.run("tool", call(), () => ({ content: "ok" }), options);

      expect(seen).toEqual({ ...publicShape, info: { name: "w", shadow: false, source: "mod" } });
    });

  it("is one object per hook, made at registration, not per run", async () => {
    const infos: HookInfo[] = [];
    const stack = newStack().use("tool", { name: "g", before: (_i, ctx) => void infos.push(ctx.hook) });

    await stack.run("tool", call(), () => ({ content: "ok" }));
    await stack.run("tool", call(), () => ({ content: "ok" }));

    expect(infos[0]).toBe(infos[1]);
  });

  it("names no hook in the operation's context", async () => {
    let seen: unknown;
    const stack = newStack().use("tool", { name: "w", timeoutMs: 1000, around: (_c, next) => next() });

    await stack.run("tool", call(), (_c, ctx) => ((seen = { ...shape(ctx.hook), name: ctx.hook.name }), { content: "ok" }), {
      signal: new AbortController().signal,
    });

    expect(seen).toEqual({ ...publicShape, name: "?" });
  });

  it("cannot switch a guard into shadow mode: its Reject is enforced in that run, later runs, a derived stack, and explain", async () => {
    const base = newStack().use("tool", { name: "guard", before: (_i, ctx) => (tryToShadow(ctx), Reject("blocked")) });
    const derived = base.use("tool", { name: "other", before: () => undefined });

    const first = await base.run("tool", call(), () => ({ content: "ran" }));
    const second = await base.run("tool", call(), () => ({ content: "ran" }));
    const third = await derived.run("tool", call(), () => ({ content: "ran" }));

    for (const outcome of [first, second, third]) expect(outcome).toMatchObject({ _tag: "Rejected", reason: "blocked", by: "guard" });
    expect(base.explain("tool", call()).map((e) => [e.hook, e.shadow])).toEqual([["guard", false]]);
  });

  for (const [path, options] of paths)
    it(`cannot switch an around hook into shadow mode (${path} path)`, async () => {
      const stack = newStack().use("tool", { name: "guard", around: (ctx) => (tryToShadow(ctx), Reject("blocked")) });

      const first = await stack.run("tool", call(), () => ({ content: "ran" }), options);
      const second = await stack.run("tool", call(), () => ({ content: "ran" }), options);

      expect([first, second]).toMatchObject([
        { _tag: "Rejected", by: "guard" },
        { _tag: "Rejected", by: "guard" },
      ]);
      expect(stack.explain("tool", call()).map((e) => e.shadow)).toEqual([false]);
    });
});
