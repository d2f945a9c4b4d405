import { describe, expect, it } from "vitest";
import { createAgentStack } from "../../src/agent/index.ts";
import { Continue, Outcome, Reject } from "../../src/core/index.ts";
import { combineMiddleware, defineMiddleware, middlewareHookNames, withMiddleware, type Middleware } from "../../src/middleware/apply.ts";
import { toolCall } from "./harness.ts";
import { retry } from "../../src/middleware/retry.ts";

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

  it("says a factory was passed uncalled, naming it", () => {
    expect(() => withMiddleware(createAgentStack(), retry as unknown as Middleware)).toThrow(
      new TypeError("middleware must be an object { name, hooks }, got a function: call it (retry(...))"),
    );
  });

  it("refuses a hook that is not a hook object, naming the middleware, the point and the place in the list", () => {
    const bare = { name: "m", hooks: { toolCall: () => Continue } } as unknown as Middleware;
    expect(() => defineMiddleware(bare)).toThrow(
      new TypeError(
        'middleware "m": hooks.toolCall must be a hook { name, before?, after?, around?, ... }, got a function (a phase goes in a hook: { name: "m", before: fn })',
      ),
    );
    expect(() => withMiddleware(createAgentStack(), bare)).toThrow(/middleware "m": hooks\.toolCall must be a hook/);
    const listed = { name: "m", hooks: { toolCall: [{ name: "a", before: () => Continue }, "b"] } } as unknown as Middleware;
    expect(() => withMiddleware(createAgentStack(), listed)).toThrow(/middleware "m": hooks\.toolCall\[1\] must be a hook .*, got string$/);
  });
});
