import { describe, expect, it } from "vitest";
import { Continue, Outcome, Replace, Transform, contextKey, type HookContext } from "../../src/core/index.ts";
import { call, newStack, sleep } from "./helpers.ts";

/** What a hook could do to its context that once reached the engine: write to it, freeze it. */
const vandalise = (ctx: HookContext<any>): void => {
  try {
    (ctx as { point: string }).point = "other";
  } catch {
    /* a getter: refused */
  }
  try {
    (ctx as unknown as { settled: boolean }).settled = true;
  } catch {
    /* frozen on a second call */
  }
  Object.freeze(ctx);
};

describe("the context hooks receive", () => {
  it("is not the engine's state: freezing it in any phase or in the operation leaves the run settling as usual", async () => {
    const stack = newStack()
      .use("tool", {
        name: "outer",
        priority: 1,
        before: (_c, ctx) => void vandalise(ctx),
        after: (_o, _i, ctx) => void vandalise(ctx),
        onSettled: (_o, _i, ctx) => vandalise(ctx),
      })
      .use("tool", { name: "wrap", priority: 2, around: async (ctx, next) => (vandalise(ctx), next()) })
      .use("tool", { name: "inner", priority: 3, recover: (_e, _i, ctx) => (vandalise(ctx), Replace({ content: "recovered" })) });
    const completed = await stack.run("tool", call(), (_c, ctx) => (vandalise(ctx), { content: "ran" }));
    const recovered = await stack.run("tool", call(), (_c, ctx) => {
      vandalise(ctx);
      throw new Error("op");
    });
    expect(completed).toEqual(Outcome.completed({ content: "ran" }));
    expect(recovered).toEqual(Outcome.completed({ content: "recovered" }));
  });

  it("still names each hook and its input after a hook froze or wrote to it", async () => {
    const seen: string[] = [];
    const stack = newStack()
      .use("tool", { name: "first", priority: 1, before: (c, ctx) => (vandalise(ctx), Transform({ ...c, name: "Edit" })) })
      .use("tool", {
        name: "second",
        priority: 2,
        before: (_c, ctx) => void seen.push(`${ctx.hook.name} ${ctx.point} ${(ctx.input as { name: string }).name}`),
      });
    await stack.run("tool", call("Read"), () => ({ content: "" }));
    expect(seen).toEqual(["second tool Edit"]);
  });

  it("has no fields of its own to copy: the engine's state is out of a hook's reach", async () => {
    let keys: string[] = [];
    await newStack()
      .use("tool", { name: "look", before: (_c, ctx) => void (keys = Reflect.ownKeys(ctx).map(String)) })
      .run("tool", call(), () => ({ content: "" }));
    expect(keys).toEqual([]);
  });
});

describe("ctx.local", () => {
  const started = contextKey<number>("test.started");
  const label = contextKey<string>("test.label");

  it("is a typed slot every hook of one run shares, from before to onSettled", async () => {
    const seen: unknown[] = [];
    const stack = newStack()
      .use("tool", {
        name: "opens",
        priority: 1,
        before: (_c, ctx) => void ctx.local(started, 42),
        onSettled: (_o, _i, ctx) => void seen.push(["onSettled", ctx.local(started)]),
      })
      .use("tool", {
        name: "reads",
        priority: 2,
        around: async (ctx, next) => (seen.push(["around", ctx.local(started)]), next()),
        after: (_o, _i, ctx) => void seen.push(["after", ctx.local(started), ctx.local(label)]),
      });
    await stack.run("tool", call(), (_c, ctx) => (seen.push(["operation", ctx.local(started)]), { content: "" }));
    expect(seen).toEqual([
      ["around", 42],
      ["operation", 42],
      ["after", 42, undefined],
      ["onSettled", 42],
    ]);
  });

  it("keeps concurrent runs, and a run nested in a hook, apart", async () => {
    const stack = newStack().use("tool", {
      name: "tags",
      before: async (c, ctx) => {
        ctx.local(label, c.name);
        await sleep(Math.random() * 5);
        if (c.name === "outer") await stack.run("tool", call("nested"), () => ({ content: "" }));
        return ctx.local(label) === c.name ? Continue : Transform({ ...c, name: `mixed up: ${String(ctx.local(label))}` });
      },
    });
    const names = ["a", "b", "outer", "c", "d"];
    const outcomes = await Promise.all(names.map((n) => stack.run("tool", call(n), (c) => ({ content: c.name }))));
    expect(outcomes.map((o) => (o as { value: { content: string } }).value.content)).toEqual(names);
  });

  it("is gone when the run settles: a later read finds nothing and a later write is not kept", async () => {
    let kept: HookContext<any> | undefined;
    await newStack()
      .use("tool", { name: "keeps", before: (_c, ctx) => ((kept = ctx), void ctx.local(label, "during")) })
      .run("tool", call(), () => ({ content: "" }));
    expect(kept?.local(label)).toBeUndefined();
    expect(kept?.local(label, "after")).toBe("after");
    expect(kept?.local(label)).toBeUndefined();
  });

  it("is cleared by setting undefined, and returns what it set", async () => {
    const seen: unknown[] = [];
    await newStack()
      .use("tool", {
        name: "sets",
        before: (_c, ctx) =>
          void seen.push(ctx.local(label, "x"), ctx.local(label), ctx.local(label, undefined as never), ctx.local(label)),
      })
      .run("tool", call(), () => ({ content: "" }));
    expect(seen).toEqual(["x", "x", undefined, undefined]);
  });

  it("tells keys apart by identity, not by name", async () => {
    const a = contextKey<string>("same");
    const b = contextKey<string>("same");
    let seen: unknown;
    await newStack()
      .use("tool", { name: "two", before: (_c, ctx) => void (ctx.local(a, "a"), (seen = ctx.local(b))) })
      .run("tool", call(), () => ({ content: "" }));
    expect(seen).toBeUndefined();
  });

  it("refuses a key without a name", () => {
    expect(() => contextKey("")).toThrow(/contextKey: name must be a non-empty string/);
  });
});
