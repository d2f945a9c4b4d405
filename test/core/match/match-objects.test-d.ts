import { describe, expectTypeOf, it } from "vitest";
import { createAgentStack, type ToolCall } from "../../../src/agent/index.ts";
import type { MatchContext, MatchFunction, MatchObject, MatchSpec } from "../../../src/core/index.ts";

const noop = () => undefined;

describe("match object types", () => {
  it("accept every object form, nested, with the other forms inside", () => {
    const stack = createAgentStack();
    stack.use("toolCall", { name: "a", match: { metadata: { env: "prod", tier: 1, beta: true, team: null } }, before: noop });
    stack.use("toolCall", { name: "b", match: { metadata: { env: ["prod", "staging"], oncall: { exists: true } } }, before: noop });
    stack.use("toolCall", {
      name: "c",
      match: { all: ["Bash(git push*)", { metadata: { env: "prod" } }, { not: { any: ["Read", "^mcp__"] } }] },
      before: noop,
    });
    stack.use("step", { name: "d", match: { stepType: "tool" }, after: noop });
    stack.use("step", { name: "e", match: { any: [{ stepType: ["final", "error"] }, { metadata: { debug: true } }] }, observe: noop });
    const m: MatchObject = { not: { all: [{ stepType: "tool" }] } };
    expectTypeOf(m).toMatchTypeOf<MatchSpec>();
  });

  it("type a function matcher's input by the point and give it the run's context as a third argument", () => {
    const stack = createAgentStack();
    stack.use("toolCall", {
      name: "f",
      match: (_s, call, { metadata, detail }) => call.name === "Bash" && metadata.env === "prod" && detail !== undefined,
      before: noop,
    });
    stack.use("toolCall", {
      name: "g",
      match: { all: ["Bash", (_s, call) => (expectTypeOf(call).toEqualTypeOf<ToolCall>(), call.input.command !== undefined)] },
      before: noop,
    });
    expectTypeOf<Parameters<MatchFunction<ToolCall>>[2]>().toEqualTypeOf<MatchContext>();
    expectTypeOf<MatchContext["metadata"]>().toEqualTypeOf<Readonly<Record<string, unknown>>>();
  });

  it("keep the one- and two-argument function forms compiling", () => {
    const stack = createAgentStack();
    stack.use("toolCall", { name: "one", match: (subject) => subject === "Bash", before: noop });
    stack.use("toolCall", { name: "two", match: (_subject, call) => call.id !== "", before: noop });
    const old: (subject: string | undefined, input: unknown) => boolean = () => true;
    expectTypeOf(old).toMatchTypeOf<MatchSpec>();
  });

  it("refuse a misspelled form, a second form in one object, and values of the wrong type", () => {
    const stack = createAgentStack();
    // @ts-expect-error metdata is not a match form
    stack.use("toolCall", { name: "x1", match: { metdata: { env: "prod" } }, before: noop });
    // @ts-expect-error one form per object: combine them with all
    stack.use("toolCall", { name: "x2", match: { stepType: "tool", metadata: { env: "prod" } }, before: noop });
    // @ts-expect-error a metadata value is a primitive, a list of them or { exists }
    stack.use("toolCall", { name: "x3", match: { metadata: { env: { eq: "prod" } } }, before: noop });
    // @ts-expect-error exists is a boolean
    stack.use("toolCall", { name: "x4", match: { metadata: { env: { exists: "yes" } } }, before: noop });
    // @ts-expect-error a step type is a string or a list of strings
    stack.use("step", { name: "x5", match: { stepType: 1 }, after: noop });
    // @ts-expect-error all takes a list
    stack.use("toolCall", { name: "x6", match: { all: "Bash" }, before: noop });
    // @ts-expect-error not takes one match, not a list
    stack.use("toolCall", { name: "x7", match: { not: [1] }, before: noop });
    // @ts-expect-error a part of any must itself be a match
    stack.use("toolCall", { name: "x8", match: { any: ["Bash", 42] }, before: noop });
    // @ts-expect-error a metadata list holds primitives only
    stack.use("toolCall", { name: "x9", match: { metadata: { env: ["prod", { x: 1 }] } }, before: noop });
    // @ts-expect-error a function matcher answers a boolean
    stack.use("toolCall", { name: "x10", match: () => "yes", before: noop });
  });
});
