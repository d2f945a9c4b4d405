/**
 * A `DeferredInput` is built only when something can see the input: at once for a chain with a
 * `before`, an exit, an input condition or an observer, and for a chain of `around` hooks only
 * when one reads `ctx.input` (then frozen, as any input); the operation gets it unbuilt otherwise.
 */
import { describe, expect, it } from "vitest";
import { Continue } from "../../src/core/action.ts";
import { DeferredInput } from "../../src/core/deferred.ts";
import { createStack } from "../../src/core/stack.ts";
import { observe } from "../../src/core/point.ts";

const points = { call: observe<{ name: string; args: number[] }, string>({ name: "call", subject: (i) => i.name }) };

class Counted extends DeferredInput<{ name: string; args: number[] }> {
  builds = 0;
  constructor() {
    super("sum");
  }
  protected make() {
    this.builds++;
    return { name: "sum", args: [1, 2] };
  }
}

const operation = (input: unknown) => (input instanceof DeferredInput ? "deferred" : "built");

describe("DeferredInput", () => {
  it("stays unbuilt through around hooks that only call next(), and the operation gets it as it is", async () => {
    const stack = createStack(points).use("call", { name: "pass", around: (_ctx, next) => next() });
    const input = new Counted();
    const outcome = await stack.run("call", input as never, operation);
    expect(outcome).toEqual({ _tag: "Completed", value: "deferred" });
    expect(input.builds).toBe(0);
  });

  it("is built, once and frozen, when an around hook reads ctx.input, and the hook sees the subject", async () => {
    const seen: unknown[] = [];
    const stack = createStack(points).use("call", {
      name: "reader",
      around: (ctx, next) => {
        seen.push(ctx.input, ctx.input, ctx.subject);
        return next();
      },
    });
    const input = new Counted();
    await stack.run("call", input as never, operation);
    expect(input.builds).toBe(1);
    expect(seen[0]).toEqual({ name: "sum", args: [1, 2] });
    expect(seen[1]).toBe(seen[0]);
    expect(seen[2]).toBe("sum");
  });

  it.each([
    ["a before", { before: () => Continue }],
    ["an after", { after: () => Continue }],
    ["an input condition", { match: (i: { args: number[] }) => i.args.length > 0, around: (_c: unknown, next: () => unknown) => next() }],
    ["an observer", { observe: () => {} }],
  ])("is built before the run when the chain has %s, and frozen", async (_, hook) => {
    const stack = createStack(points).use("call", { name: "h", ...(hook as object) } as never);
    const input = new Counted();
    let given: unknown;
    await stack.run("call", input as never, (i) => ((given = i), "ok"));
    expect(input.builds).toBe(1);
    expect(given).toEqual({ name: "sum", args: [1, 2] });
    expect(Object.isFrozen(given)).toBe(true);
    expect(Object.isFrozen((given as { args: number[] }).args)).toBe(true);
  });

  it("picks the chain of its subject without building it, and is built where a hook of that chain sees it", async () => {
    const stack = createStack(points)
      .use("call", { name: "sum-only", match: "sum", around: (_ctx, next) => next() })
      .use("call", { name: "max-only", match: "max", before: () => Continue });
    const input = new Counted();
    let given: unknown;
    await stack.run("call", input as never, (i) => ((given = i), "ok"));
    expect(given).toBe(input);
    expect(input.builds).toBe(0);
    const other = new (class extends Counted {
      override readonly subject = "max";
    })();
    await stack.run("call", other as never, (i) => ((given = i), "ok"));
    expect(other.builds).toBe(1);
    expect(given).toEqual({ name: "sum", args: [1, 2] });
  });
});
