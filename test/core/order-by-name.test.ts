import { describe, expect, it } from "vitest";
import { Priority, RegistrationError, type Hook } from "../../src/core/index.ts";
import { call, newStack, type Call, type Result } from "./helpers.ts";

/** The order of the `before` phases of a stack's hooks on one run. */
const orderOf = async (stack: ReturnType<typeof newStack>): Promise<string[]> => {
  const seen: string[] = [];
  const traced = stack.explain("tool", call()).map((e) => e.hook);
  await stack.run("tool", call(), () => ({ content: "" }), { onContext: (text) => void seen.push(text) });
  expect(traced).toEqual(seen); // explain lists them in the order they run
  return seen;
};

/** A hook that says its name through addContext, placed by priority and names. */
const hook = (name: string, extra: Omit<Partial<Hook<Call, Result, "gate">>, "name"> = {}): Hook<Call, Result, "gate"> =>
  ({
    name,
    onSettled: () => undefined,
    ...extra,
    ...(typeof extra.before === "function" || Array.isArray(extra.before)
      ? {}
      : { before: (_c: Call, ctx: { addContext(t: string): void }) => void ctx.addContext(name) }),
  }) as Hook<Call, Result, "gate">;

describe("order by name", () => {
  it("places a hook outside the hooks it names in order.before and inside those in order.after, whatever their priorities", async () => {
    const stack = newStack()
      .use("tool", hook("redaction", { priority: Priority.last }))
      .use("tool", hook("toolPolicy", { priority: Priority.first }))
      .use("tool", hook("audit", { priority: Priority.guard, order: { before: ["redaction"], after: ["toolPolicy"] } }))
      .use("tool", hook("first-by-name", { priority: Priority.last, order: { before: ["toolPolicy"] } }));
    expect(await orderOf(stack)).toEqual(["first-by-name", "toolPolicy", "audit", "redaction"]);
  });

  it("takes a list of names in before or after as the same order, for a hook without that phase", async () => {
    const seen: string[] = [];
    const stack = newStack()
      .use("tool", { name: "inner", priority: 1, before: () => void seen.push("inner") })
      .use("tool", { name: "outer", priority: 100, before: ["inner"], after: () => void seen.push("outer after") })
      .use("tool", { name: "innermost", priority: 0, after: ["inner"], around: (_c, next) => (seen.push("innermost"), next()) });
    await stack.run("tool", call(), () => ({ content: "" }));
    expect(stack.explain("tool", call()).map((e) => e.hook)).toEqual(["outer", "inner", "innermost"]);
    expect(seen).toEqual(["inner", "innermost", "outer after"]);
  });

  it("orders what names leave free by priority, then registration: Kahn's order taking the lowest first", async () => {
    // c must run after a; b and d are free. Lowest priority first among those free: d(5), then a(10)... c(1) waits for a.
    const stack = newStack()
      .use("tool", hook("a", { priority: 10 }))
      .use("tool", hook("b", { priority: 20 }))
      .use("tool", hook("c", { priority: 1, order: { after: ["a"] } }))
      .use("tool", hook("d", { priority: 5 }))
      .use("tool", hook("e", { priority: 20 }));
    expect(await orderOf(stack)).toEqual(["d", "a", "c", "b", "e"]);
  });

  it("keeps plain R1 order when no hook names another", async () => {
    const stack = newStack()
      .use("tool", hook("late", { priority: Priority.last }))
      .use("tool", hook("x"))
      .use("tool", hook("y"))
      .use("tool", hook("guard", { priority: Priority.guard }));
    expect(await orderOf(stack)).toEqual(["guard", "x", "y", "late"]);
  });

  it("refuses a name that is not registered on the point yet, naming the hook and the field", () => {
    const stack = newStack().use("tool", hook("a"));
    expect(() => stack.use("tool", hook("b", { order: { after: ["typo"] } }))).toThrow(RegistrationError);
    expect(() => stack.use("tool", hook("b", { order: { after: ["typo"] } }))).toThrow(
      /hook "b": order\.after names "typo", which is not registered on point "tool"/,
    );
    expect(() => stack.use("tool", hook("b", { before: ["typo"] }))).toThrow(/hook "b": order\.before names "typo"/);
    // A hook of that name on another point does not count.
    expect(() => stack.use("watch", { name: "w", order: { after: ["a"] }, observe: () => undefined })).toThrow(
      /order\.after names "a", which is not registered on point "watch"/,
    );
  });

  it("refuses a cycle of names, and a hook that names itself", () => {
    const stack = newStack()
      .use("tool", hook("a"))
      .use("tool", hook("b", { order: { after: ["a"] } }))
      .use("tool", hook("c", { order: { after: ["b"] } }));
    expect(() => stack.use("tool", hook("d", { order: { after: ["c"], before: ["a"] } }))).toThrow(
      /hook "d": order\.before makes a cycle of names: d → a → b → c → d/,
    );
    expect(() => newStack().use("tool", hook("self", { order: { before: ["self"] } }))).toThrow(
      /hook "self": order\.before names the hook itself/,
    );
  });

  it("finds a cycle closed by older names that point at a removed and re-registered hook", () => {
    const stack = newStack()
      .use("tool", hook("x"))
      .use("tool", hook("y", { order: { before: ["x"] } }))
      .without("x");
    // y still names x; a new x that names y closes the cycle x → y → x.
    expect(() => stack.use("tool", hook("x", { order: { before: ["y"] } }))).toThrow(
      /hook "x": order\.before makes a cycle of names: x → y → x/,
    );
  });

  it("drops a constraint on a hook removed with without()", async () => {
    const stack = newStack()
      .use("tool", hook("a", { priority: 50 }))
      .use("tool", hook("b", { priority: 10, order: { after: ["a"] } }))
      .without("a");
    expect(await orderOf(stack.use("tool", hook("c", { priority: 20 })))).toEqual(["b", "c"]);
  });

  it("lets an optional order name hooks that are not registered, and applies it once they are, in either order", async () => {
    // "inner" names "outer" before "outer" exists: no error, and once "outer" registers it is outside.
    const early = newStack()
      .use("tool", hook("inner", { priority: 1, order: { after: ["outer"], optional: true } }))
      .use("tool", hook("other", { priority: 50 }));
    expect(await orderOf(early)).toEqual(["inner", "other"]);
    // Names first, priority for the rest: "inner" now waits for "outer", and "other" (50) goes before "outer" (100).
    expect(await orderOf(early.use("tool", hook("outer", { priority: 100 })))).toEqual(["other", "outer", "inner"]);
    // The same relation when the named hook came first.
    const late = newStack()
      .use("tool", hook("outer", { priority: 100 }))
      .use("tool", hook("inner", { priority: 1, order: { after: ["outer"], optional: true } }));
    expect(await orderOf(late)).toEqual(["outer", "inner"]);
    // The shorthand lists are optional too when the order says so.
    const solo = newStack().use("tool", { name: "solo", before: ["absent"], order: { optional: true }, after: () => undefined });
    expect(solo.explain("tool", call()).map((e) => e.hook)).toEqual(["solo"]);
  });

  it("still refuses a cycle an optional order closes when the named hook registers later", () => {
    const stack = newStack().use("tool", hook("a", { order: { after: ["b"], optional: true } }));
    expect(() => stack.use("tool", hook("b", { order: { after: ["a"] } }))).toThrow(
      /hook "b": order\.after makes a cycle of names: b → a → b/,
    );
  });

  it("refuses an optional flag that is not a boolean", () => {
    expect(() => newStack().use("tool", { name: "h", order: { after: ["a"], optional: "yes" } as never, before: () => undefined })).toThrow(
      /hook "h": order\.optional must be a boolean/,
    );
  });

  it("refuses an order that is not lists of names", () => {
    expect(() => newStack().use("tool", { name: "h", order: { before: "a" } as never, before: () => undefined })).toThrow(
      /hook "h": order\.before must be a list of hook names/,
    );
    expect(() => newStack().use("tool", { name: "h", order: { later: ["a"] } as never, before: () => undefined })).toThrow(
      /hook "h": order\.later is not an order field/,
    );
    expect(() => newStack().use("tool", { name: "h", before: [""] as never })).toThrow(/hook "h": before must list hook names/);
    expect(() => newStack().use("tool", { name: "h", order: ["a"] as never, before: () => undefined })).toThrow(
      /hook "h": order must be an object/,
    );
  });
});

describe("priority bands", () => {
  it("put a hook outside (outermost) or inside (innermost) every numeric priority, with registration breaking ties", async () => {
    const stack = newStack()
      .use("tool", hook("in-1", { priority: Priority.innermost }))
      .use("tool", hook("far", { priority: Number.MAX_SAFE_INTEGER }))
      .use("tool", hook("out-1", { priority: Priority.outermost }))
      .use("tool", hook("near", { priority: -Number.MAX_SAFE_INTEGER }))
      .use("tool", hook("out-2", { priority: Priority.outermost }))
      .use("tool", hook("in-2", { priority: Priority.innermost }));
    expect(await orderOf(stack)).toEqual(["out-1", "out-2", "near", "far", "in-1", "in-2"]);
  });
});
