import { describe, expectTypeOf, it } from "vitest";
import { Continue, Reject, Replace, Transform, contextKey, createStack, gate, observe, type Outcome } from "../../src/core/index.ts";

interface Call {
  name: string;
  input: Record<string, unknown>;
}
interface Result {
  content: string;
}
const stack = createStack({
  tool: gate<Call, Result>({ name: "tool", subject: (c) => c.name }),
  model: observe<{ model: string }, { text: string }>({ name: "model" }),
});

describe("types", () => {
  it("allows Reject on a gate point", () => {
    stack.use("tool", { name: "ok", before: () => Reject("no") });
    stack.use("tool", { name: "ok2", after: () => Reject("no") });
  });

  it("does not allow Reject on an observation point", () => {
    // @ts-expect-error Reject is not an action of observation points
    stack.use("model", { name: "bad", before: () => Reject("no") });
    // @ts-expect-error not in after either
    stack.use("model", { name: "bad2", after: () => Reject("no") });
    stack.use("model", { name: "fine", before: (r) => Transform({ model: r.model + "-mini" }), after: (o) => Replace({ text: o.text }) });
  });

  it("carries the input type in before's Transform and the output type in after's", () => {
    stack.use("tool", { name: "in", before: (c) => Transform({ ...c, name: "Edit" }) });
    stack.use("tool", { name: "out", after: (o) => Transform({ content: o.content.toUpperCase() }) });
    // @ts-expect-error a Transform in before must carry an input (Call), not an output
    stack.use("tool", { name: "wrong-in", before: () => Transform({ content: "x" }) });
    // @ts-expect-error a Transform in after must carry an output (Result)
    stack.use("tool", { name: "wrong-out", after: () => Transform({ name: "x", input: {} }) });
  });

  it("types hook arguments read-only", () => {
    stack.use("tool", {
      name: "ro",
      before: (c) => {
        expectTypeOf(c.name).toEqualTypeOf<string>();
        // @ts-expect-error inputs are read-only
        c.name = "x";
        return Continue;
      },
    });
  });

  it("resolves run() to an Outcome of the point's output", () => {
    expectTypeOf(stack.run("tool", { name: "x", input: {} }, () => ({ content: "" }))).toEqualTypeOf<Promise<Outcome<Result>>>();
  });

  it("refuses unknown points", () => {
    // @ts-expect-error no such point
    stack.use("nope", { name: "x", before: () => Continue });
  });

  it("takes names to order by in order.before/after, or as a list in before/after, and nothing else there", () => {
    stack.use("tool", { name: "a", order: { before: ["b"], after: ["c"] }, before: () => Continue, after: () => Continue });
    stack.use("tool", { name: "b", before: ["c"], after: ["d"], around: (_ctx, next) => next() });
    // @ts-expect-error names are strings
    stack.use("tool", { name: "c", before: [1], around: (_ctx, next) => next() });
    // @ts-expect-error order.before is a list, not one name
    stack.use("tool", { name: "d", order: { before: "a" }, before: () => Continue });
    // @ts-expect-error order has before, after and optional only
    stack.use("tool", { name: "e", order: { first: ["a"] }, before: () => Continue });
    stack.use("tool", { name: "f", order: { after: ["maybe-absent"], optional: true }, before: () => Continue });
    // @ts-expect-error optional is a boolean
    stack.use("tool", { name: "g", order: { after: ["a"], optional: "yes" }, before: () => Continue });
  });

  it("types onSettled with the point's outcome, input and context", () => {
    stack.use("tool", {
      name: "span",
      onSettled: (outcome, call, ctx) => {
        expectTypeOf(outcome).toEqualTypeOf<Outcome<{ readonly content: string }>>();
        expectTypeOf(call.name).toEqualTypeOf<string>();
        expectTypeOf(ctx.point).toEqualTypeOf<string>();
      },
    });
  });

  it("types ctx.local by its key", () => {
    const started = contextKey<number>("started");
    stack.use("tool", {
      name: "timer",
      before: (_call, ctx) => {
        expectTypeOf(ctx.local(started)).toEqualTypeOf<number | undefined>();
        expectTypeOf(ctx.local(started, 1)).toEqualTypeOf<number>();
        // @ts-expect-error the key holds numbers
        ctx.local(started, "soon");
      },
    });
  });
});
