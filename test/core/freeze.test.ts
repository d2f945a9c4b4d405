import { describe, expect, it } from "vitest";
import { createStack, deepFreeze, gate, Transform } from "../../src/core/index.ts";
import { markFrozenDeep } from "../../src/core/readonly.ts";

const points = { tool: gate<Record<string, unknown>, Record<string, unknown>>({ name: "tool" }) };

/** What a hook managed to change in place, in its input and in the output. */
const tryToEdit = async (options: Parameters<typeof createStack>[1]) => {
  const edited: string[] = [];
  const stack = createStack(points, options).use("tool", {
    name: "editor",
    before: (input) => {
      try {
        (input.nested as Record<string, unknown>).x = 2;
        edited.push("input");
      } catch {
        /* frozen */
      }
    },
    after: (output) => {
      try {
        (output as Record<string, unknown>).y = 2;
        edited.push("output");
      } catch {
        /* frozen */
      }
    },
  });
  await stack.run("tool", { nested: { x: 1 } }, () => ({ y: 1 }));
  return edited;
};

describe("freezing what hooks receive", () => {
  it("is on by default, whatever NODE_ENV says", async () => {
    const saved = { node: process.env.NODE_ENV, strict: process.env.AGENT_ONION_STRICT };
    process.env.NODE_ENV = "production";
    delete process.env.AGENT_ONION_STRICT;
    try {
      expect(await tryToEdit({})).toEqual([]);
    } finally {
      for (const [key, value] of [
        ["NODE_ENV", saved.node],
        ["AGENT_ONION_STRICT", saved.strict],
      ] as const)
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
    }
  });

  it("is off with freeze: false, and with strict: false, its former name", async () => {
    expect(await tryToEdit({ freeze: false })).toEqual(["input", "output"]);
    expect(await tryToEdit({ strict: false })).toEqual(["input", "output"]);
  });

  it("refuses freeze and strict that disagree, and values that are not booleans", () => {
    expect(() => createStack(points, { freeze: true, strict: false })).toThrow(
      /freeze \(true\) and strict, its former name \(false\), disagree/,
    );
    expect(() => createStack(points, { freeze: "yes" as never })).toThrow(/freeze must be a boolean/);
  });

  it("freezes the children of a value someone else froze only at its top", async () => {
    const input = Object.freeze({ nested: { x: 1 } });
    let frozen = false;
    await createStack(points)
      .use("tool", { name: "look", before: (i) => void (frozen = Object.isFrozen(i.nested)) })
      .run("tool", input, (x) => x);
    expect(frozen).toBe(true);
  });

  it("freezes Transform values and what an around hook passes to next()", async () => {
    const seen: boolean[] = [];
    await createStack(points)
      .use("tool", { name: "t", priority: 1, before: () => Transform({ made: { by: "t" } }) })
      .use("tool", { name: "w", priority: 2, around: (_c, next) => next({ made: { by: "w" } }) })
      .use("tool", { name: "look", priority: 3, before: (i) => void seen.push(Object.isFrozen(i.made)) })
      .run("tool", {}, (x) => x);
    expect(seen).toEqual([true]);
  });
});

describe("deepFreeze", () => {
  /** A plain object whose own keys are counted each time someone lists them (as freezing does). */
  const counted = () => {
    const listed = { n: 0 };
    const value = new Proxy({ a: { b: [1, { c: 2 }] } }, { ownKeys: (t) => (listed.n++, Reflect.ownKeys(t)) });
    return { value, listed };
  };

  it("does not walk a value it froze before", () => {
    const { value, listed } = counted();
    deepFreeze(value);
    const first = listed.n;
    deepFreeze(value);
    deepFreeze(value);
    expect(first).toBeGreaterThan(0);
    expect(listed.n).toBe(first);
    expect(Object.isFrozen((value.a.b as unknown[])[1])).toBe(true);
  });

  it("freezes a cycle and a value reachable twice, and ends", () => {
    const shared = { s: 1 };
    const cyclic: Record<string, unknown> = { shared, again: shared };
    cyclic.self = cyclic;
    deepFreeze(cyclic);
    expect(Object.isFrozen(cyclic) && Object.isFrozen(shared)).toBe(true);
    // Frozen by someone else, in a cycle: still walked once, and ends.
    const other: Record<string, unknown> = { inner: { deep: {} } };
    other.loop = other;
    Object.freeze(other);
    deepFreeze(other);
    expect(Object.isFrozen((other.inner as { deep: object }).deep)).toBe(true);
  });

  it("freezes what an array's named property and a null-prototype object hold", () => {
    const list = Object.assign([{ at: 0 }], { extra: { named: true } });
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { inner: { x: 1 } });
    deepFreeze({ list, bare });
    expect([list, list[0], list.extra, bare, bare.inner].map((v) => Object.isFrozen(v))).toEqual([true, true, true, true, true]);
  });

  it("leaves class instances alone", () => {
    const date = new Date();
    const value = deepFreeze({ date, map: new Map() });
    expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(date) || Object.isFrozen(value.map)).toBe(false);
  });
});

describe("markFrozenDeep", () => {
  it("makes deepFreeze return a tree its builder froze without walking it again", () => {
    let reads = 0;
    const leaf = Object.freeze({
      get value() {
        reads++;
        return { fresh: true };
      },
    });
    const tree = Object.freeze({ list: Object.freeze([leaf]) });
    deepFreeze(tree);
    expect(reads).toBe(1);
    const built = markFrozenDeep(Object.freeze({ list: Object.freeze([leaf]) }));
    expect(deepFreeze(built)).toBe(built);
    expect(reads).toBe(1);
  });
});

describe("what a hook saw, no later hook or caller sees changed", () => {
  const tool = gate<{ name: string }, { content: string }>({ name: "tool" });
  const stackOf = () => createStack({ tool }, { onFailure: () => {} });

  it("makes an around hook that edits the outcome next() gave in place fail, closed by default, naming it", async () => {
    const seen: string[] = [];
    const stack = stackOf()
      .use("tool", {
        name: "outer",
        priority: 1,
        around: async (_ctx, next) => {
          const outcome = await next();
          seen.push(outcome._tag);
          return outcome;
        },
      })
      .use("tool", {
        name: "sloppy",
        priority: 2,
        around: async (_ctx, next) => {
          const outcome = (await next()) as { _tag: string; value?: unknown; reason?: string; by?: string };
          outcome.value = { content: "edited in place" };
          return outcome as never;
        },
      });
    const outcome = await stack.run("tool", { name: "Read" }, () => ({ content: "real" }));
    expect(outcome._tag === "Rejected" && outcome.by).toBe("sloppy");
    expect(outcome._tag === "Rejected" && outcome.cause?.kind).toBe("invalid-action");
    expect(seen).toEqual(["Rejected"]);
  });

  it("passes on the outcome as the inside made it when a fail-open hook edits it in place and answers Continue", async () => {
    const stack = stackOf().use("tool", {
      name: "sloppy",
      failMode: "open",
      around: async (_ctx, next) => {
        const outcome = (await next()) as { _tag: string; reason?: string; by?: string };
        outcome._tag = "Rejected";
        outcome.reason = "made up";
        outcome.by = "nobody";
        return undefined;
      },
    });
    const outcome = await stack.run("tool", { name: "Read" }, () => ({ content: "real" }));
    expect(outcome).toEqual({ _tag: "Completed", value: { content: "real" } });
    expect(stack.stats.failOpen).toBe(1);
  });

  it("freezes the run's metadata and path, so a hook cannot change them for later hooks, observers or the caller", async () => {
    const seen: unknown[] = [];
    const stack = stackOf()
      .use("tool", {
        name: "writer",
        priority: 1,
        before: (_input, ctx) => {
          try {
            (ctx.metadata as Record<string, unknown>).user = "mallory";
          } catch {
            seen.push("metadata frozen");
          }
          try {
            (ctx.path as string[]).push("forged");
          } catch {
            seen.push("path frozen");
          }
        },
      })
      .use("tool", { name: "reader", priority: 2, before: (_input, ctx) => void seen.push(ctx.metadata.user, ctx.path.join("/")) })
      .use("tool", {
        name: "o1",
        observe: (event) => {
          try {
            ((event.metadata as Record<string, unknown>).nested as Record<string, unknown>).role = "admin";
          } catch {
            seen.push("event metadata frozen");
          }
        },
      })
      .use("tool", { name: "o2", observe: (event) => void seen.push((event.metadata.nested as { role: string }).role) });
    const metadata = { user: "alice", nested: { role: "reader" } };
    await stack.run("tool", { name: "Read" }, () => ({ content: "" }), { metadata, path: ["agent"] });
    await stack.flush();
    expect(seen).toEqual(["metadata frozen", "path frozen", "alice", "agent", "event metadata frozen", "reader"]);
    expect(metadata).toEqual({ user: "alice", nested: { role: "reader" } });
  });

  it("leaves the metadata alone with freeze: false", async () => {
    const stack = createStack({ tool }, { freeze: false }).use("tool", { name: "reader", before: (_input, ctx) => void ctx.metadata });
    const metadata = { user: "alice" };
    await stack.run("tool", { name: "Read" }, () => ({ content: "" }), { metadata });
    expect(Object.isFrozen(metadata)).toBe(false);
  });
});
