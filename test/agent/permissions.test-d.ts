import { describe, expectTypeOf, it } from "vitest";
import type { AgentOptions, AgentPermissions, PermissionMode, PermissionUpdate } from "../../src/agent/index.ts";
import type { HookContext } from "../../src/core/index.ts";
import { permissionGrant, toolDurationMs } from "../../src/agent/index.ts";

declare const ctx: HookContext;

describe("permission types", () => {
  it("createAgent takes a mode Claude Code's way and rules as strings", () => {
    expectTypeOf<{ mode: "acceptEdits"; allow: string[] }>().toMatchTypeOf<AgentPermissions>();
    expectTypeOf<{ mode: "manual" }>().toMatchTypeOf<AgentPermissions>();
    expectTypeOf<AgentOptions["permissions"]>().toEqualTypeOf<AgentPermissions | undefined>();
    // @ts-expect-error: plan is not a mode the agent has
    const plan: AgentPermissions = { mode: "plan" };
    // @ts-expect-error: rules are strings
    const fn: AgentPermissions = { allow: [() => true] };
    void plan;
    void fn;
    expectTypeOf<PermissionMode>().toEqualTypeOf<"default" | "acceptEdits" | "dontAsk" | "bypassPermissions">();
  });

  it("permission updates have Claude Code's shape", () => {
    expectTypeOf<{ type: "setMode"; mode: "acceptEdits"; destination: "session" }>().toMatchTypeOf<PermissionUpdate>();
    expectTypeOf<{
      type: "addRules";
      rules: [{ toolName: "Bash"; ruleContent: "npm test" }];
      behavior: "allow";
      destination: "localSettings";
    }>().toMatchTypeOf<PermissionUpdate>();
    // @ts-expect-error: a rule needs its tool's name
    const noName: PermissionUpdate = { type: "addRules", rules: [{ ruleContent: "x" }], behavior: "allow", destination: "session" };
    void noName;
  });

  it("the run slots are typed", () => {
    expectTypeOf(ctx.local(toolDurationMs)).toEqualTypeOf<number | undefined>();
    expectTypeOf(ctx.local(permissionGrant)).toEqualTypeOf<"allowed" | "approved" | undefined>();
  });
});
