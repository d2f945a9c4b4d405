import { describe, expect, it } from "vitest";
import { createAgentStack } from "../../src/agent/index.ts";
import { Continue, Outcome, Reject } from "../../src/core/index.ts";
import { combineMiddleware, defineMiddleware, middlewareHookNames, withMiddleware, type Middleware } from "../../src/middleware/apply.ts";
import { toolCall } from "./harness.ts";

const blocker = (name: string, tool: string): Middleware => ({
  name,
  hooks: { toolCall: { name, before: (call) => (call.name === tool ? Reject(`${tool} blocked by ${name}`) : Continue) } },
});

describe("withMiddleware", () => {
  it("registers every hook of every middleware, and leaves the original stack unchanged", async () => {
    const base = createAgentStack();
    const stack = withMiddleware(base, blocker("no-bash", "Bash"), blocker("no-rm", "rm"));
    expect(stack.explain("toolCall", toolCall("Bash")).map((e) => e.hook)).toEqual(["no-bash", "no-rm"]);
    expect(base.has("toolCall")).toBe(false);
    expect(await stack.run("toolCall", toolCall("Bash"), () => ({ content: "ran" }))).toMatchObject({ _tag: "Rejected", by: "no-bash" });
  });

  it("flattens lists and skips false, null and undefined, so middleware can be switched on by a condition", () => {
    const dev = false;
    const stack = withMiddleware(createAgentStack(), [blocker("a", "A"), [blocker("b", "B")]], dev && blocker("c", "C"), null, undefined);
    expect(middlewareHookNames(combineMiddleware("x", blocker("a", "A"), blocker("b", "B")))).toEqual(["a", "b"]);
    expect(stack.explain("toolCall", toolCall("A")).map((e) => e.hook)).toEqual(["a", "b"]);
  });

  it("accepts one hook or a list of hooks per point", async () => {
    const mw = defineMiddleware({
      name: "two",
      hooks: {
        toolCall: [
          { name: "two:first", priority: 1, before: () => Continue },
          { name: "two:second", before: () => Reject("no") },
        ],
        run: { name: "two", before: () => Continue },
      },
    });
    const stack = withMiddleware(createAgentStack(), mw);
    expect(middlewareHookNames(mw)).toEqual(["two:first", "two:second", "two"]);
    expect(await stack.run("toolCall", toolCall("X"), () => ({ content: "ran" }))).toEqual(Outcome.rejected("no", "two:second"));
  });

  it("combines middlewares into one bundle that keeps each hook's own name", () => {
    const bundle = combineMiddleware("bundle", blocker("a", "A"), blocker("b", "B"));
    expect(bundle.name).toBe("bundle");
    const stack = withMiddleware(createAgentStack(), bundle).disable("a");
    expect(stack.explain("toolCall", toolCall("A")).map((e) => [e.hook, e.disabled])).toEqual([
      ["a", true],
      ["b", false],
    ]);
  });

  it("refuses a malformed middleware with a TypeError that says what is wrong", () => {
    expect(() => withMiddleware(createAgentStack(), {} as Middleware)).toThrow(/middleware name must be a non-empty string/);
    expect(() => withMiddleware(createAgentStack(), { name: "x" } as Middleware)).toThrow(/middleware "x": hooks must be an object/);
    expect(() =>
      withMiddleware(createAgentStack(), { name: "x", hooks: { nope: { name: "x", before: () => Continue } } } as unknown as Middleware),
    ).toThrow(/"nope" is not a point of this stack/);
  });
});
