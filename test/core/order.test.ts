import { describe, expect, it } from "vitest";
import { Continue, Priority, Transform } from "../../src/core/index.ts";
import { call, newStack, sleep } from "./helpers.ts";

describe("R1 order", () => {
  it("runs the classic koa onion 1 to 6 with around hooks", async () => {
    const seen: number[] = [];
    const stack = newStack()
      .use("tool", {
        name: "a",
        around: async (_ctx, next) => {
          seen.push(1);
          await sleep(1);
          const o = await next();
          await sleep(1);
          seen.push(6);
          return o;
        },
      })
      .use("tool", {
        name: "b",
        around: async (_ctx, next) => {
          seen.push(2);
          await sleep(1);
          const o = await next();
          await sleep(1);
          seen.push(5);
          return o;
        },
      })
      .use("tool", {
        name: "c",
        around: async (_ctx, next) => {
          seen.push(3);
          await sleep(1);
          const o = await next();
          await sleep(1);
          seen.push(4);
          return o;
        },
      });
    const outcome = await stack.run("tool", call(), () => ({ content: "x" }));
    expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
    expect(outcome).toEqual({ _tag: "Completed", value: { content: "x" } });
  });

  it("runs before hooks in ascending priority and after hooks in descending priority", async () => {
    const seen: string[] = [];
    const hook = (name: string, priority: number) => ({
      name,
      priority,
      before: () => void seen.push(`before ${name}`),
      after: () => void seen.push(`after ${name}`),
    });
    const stack = newStack()
      .use("tool", hook("late", Priority.last))
      .use("tool", hook("guard", Priority.guard))
      .use("tool", hook("mid", 100));
    await stack.run("tool", call(), () => {
      seen.push("op");
      return { content: "" };
    });
    expect(seen).toEqual(["before guard", "before mid", "before late", "op", "after late", "after mid", "after guard"]);
  });

  it("keeps registration order on the way in and reverses it on the way out for equal priorities", async () => {
    const seen: string[] = [];
    let stack = newStack();
    for (const name of ["x", "y", "z"])
      stack = stack.use("tool", { name, before: () => void seen.push(name), after: () => void seen.push(name.toUpperCase()) });
    await stack.run("tool", call(), () => ({ content: "" }));
    expect(seen).toEqual(["x", "y", "z", "Z", "Y", "X"]);
  });

  it("nests a hook's own around inside its before and after", async () => {
    const seen: string[] = [];
    const stack = newStack().use("tool", {
      name: "all",
      before: () => void seen.push("before"),
      around: async (_c, next) => {
        seen.push("around in");
        const o = await next();
        seen.push("around out");
        return o;
      },
      after: () => void seen.push("after"),
    });
    await stack.run("tool", call(), () => {
      seen.push("op");
      return { content: "" };
    });
    expect(seen).toEqual(["before", "around in", "op", "around out", "after"]);
  });

  it("mixes synchronous and asynchronous hooks in one order", async () => {
    const seen: string[] = [];
    const stack = newStack()
      .use("tool", { name: "sync", priority: 1, before: () => void seen.push("sync") })
      .use("tool", {
        name: "async",
        priority: 2,
        before: async () => {
          await sleep(2);
          seen.push("async");
          return Continue;
        },
      })
      .use("tool", {
        name: "sync2",
        priority: 3,
        before: (c) => {
          seen.push("sync2");
          return Transform({ ...c, name: "Edit" });
        },
      });
    const outcome = await stack.run("tool", call(), (c) => ({ content: c.name }));
    expect(seen).toEqual(["sync", "async", "sync2"]);
    expect(outcome).toEqual({ _tag: "Completed", value: { content: "Edit" } });
  });

  it("handles ten thousand hooks in one chain without a stack overflow", async () => {
    let stack = newStack();
    for (let i = 0; i < 10_000; i++) stack = stack.use("tool", { name: `h${i}`, before: () => Continue, after: () => Continue });
    const outcome = await stack.run("tool", call(), () => ({ content: "deep" }));
    expect(outcome._tag).toBe("Completed");
  });
});
