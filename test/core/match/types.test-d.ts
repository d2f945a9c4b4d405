import { describe, expectTypeOf, it } from "vitest";
import { createAgentStack } from "../../../src/agent/index.ts";
import { compileMatcher, type Matcher, type MatchSpec, type PathOptions } from "../../../src/core/index.ts";
import { toolPolicy } from "../../../src/middleware/tool-policy.ts";

describe("match and path option types", () => {
  it("accept a compiled matcher, with path options, as a hook's match", () => {
    const m = compileMatcher("Edit(src/**)", "lint", { paths: { projectDir: "/repo", symlinks: true, caseInsensitive: false } });
    expectTypeOf(m).toEqualTypeOf<Matcher>();
    expectTypeOf<Matcher>().toMatchTypeOf<MatchSpec>();
    createAgentStack().use("toolCall", { name: "lint", match: m, before: () => undefined });
  });

  it("type path options in compileMatcher and toolPolicy", () => {
    toolPolicy({ deny: ["Read(**/.env)"], paths: { cwd: "/repo", projectDir: "/repo", home: "/home/u", searchContents: true } });
    // @ts-expect-error symlinks is a boolean
    toolPolicy({ deny: ["Read(x)"], paths: { symlinks: "yes" } });
    // @ts-expect-error no such path option
    compileMatcher("Read(x)", "h", { paths: { root: "/" } });
    expectTypeOf<PathOptions["projectDir"]>().toEqualTypeOf<string | undefined>();
  });

  it("still refuse a number as a match", () => {
    // @ts-expect-error a match is a string, a function or a compiled matcher
    createAgentStack().use("toolCall", { name: "bad", match: 42, before: () => undefined });
  });
});
