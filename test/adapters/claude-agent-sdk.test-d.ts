/**
 * The guard's and the gateway's types against the SDK's own: what they give is what `query` takes,
 * and what they take is checked.
 */
import * as sdk from "@anthropic-ai/claude-agent-sdk";
import type { CanUseTool, Options, Query } from "@anthropic-ai/claude-agent-sdk";
import { describe, expectTypeOf, it } from "vitest";
import {
  claudeAgentGuard,
  claudeAgentHooks,
  claudeCanUseTool,
  claudeModelGateway,
  type ClaudeModelGateway,
  type ClaudePausedApproval,
} from "../../src/adapters/claude-agent-sdk/index.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { MemoryStore } from "../../src/core/memory-store.ts";
import { durableApprovals } from "../../src/core/interrupt.ts";
import type { PendingApproval } from "../../src/core/approval-types.ts";

const stack = createAgentStack();

describe("claudeAgentGuard types", () => {
  it("gives the SDK's hooks, canUseTool and options", () => {
    const guard = claudeAgentGuard(stack);
    expectTypeOf(guard.hooks).toExtend<NonNullable<Options["hooks"]>>();
    expectTypeOf(guard.canUseTool).toEqualTypeOf<CanUseTool>();
    expectTypeOf(guard.options({ cwd: "/repo", model: "claude-sonnet-5" })).toEqualTypeOf<Options>();
    sdk.query({ prompt: "hi", options: guard.options() });
    sdk.query({ prompt: "hi", options: { hooks: claudeAgentHooks(stack), canUseTool: claudeCanUseTool(stack) } });
  });

  it("reads a paused approval from any SDK message, and resumes with the SDK module", () => {
    const guard = claudeAgentGuard(stack, { approvals: durableApprovals({ store: new MemoryStore(), key: "k".repeat(32) }) });
    // The deprecated form still compiles.
    claudeAgentGuard(stack, { pause: { store: new MemoryStore(), secret: "k".repeat(32) } });
    expectTypeOf(guard.paused).parameter(0).toEqualTypeOf<sdk.SDKMessage>();
    expectTypeOf(guard.paused).returns.toEqualTypeOf<ClaudePausedApproval | undefined>();
    expectTypeOf(guard.resume(sdk, {}, { decision: "approve" })).toEqualTypeOf<Promise<Query>>();
    expectTypeOf(guard.prompt("hi")).toEqualTypeOf<Promise<string>>();
  });

  it("gives a pending approval of the durable approvals, with the call Claude Code deferred", () => {
    expectTypeOf<ClaudePausedApproval>().toExtend<PendingApproval>();
    expectTypeOf<ClaudePausedApproval["toolUse"]["name"]>().toEqualTypeOf<string>();
    expectTypeOf<ClaudePausedApproval["token"]>().toEqualTypeOf<string>();
  });

  it("refuses what is not an agent stack or a pause without its store and key", () => {
    // @ts-expect-error not a stack
    claudeAgentGuard({});
    // @ts-expect-error a pause needs a store and a secret
    claudeAgentGuard(stack, { pause: { secret: "k".repeat(32) } });
    // @ts-expect-error approvals are durableApprovals(), not an in-process handler (that is the stack's approval option)
    claudeAgentGuard(stack, { approvals: () => ({ decision: "approve" }) });
    // @ts-expect-error seconds are a number
    claudeAgentGuard(stack, { timeoutSeconds: "600" });
    // @ts-expect-error the run's signal is the SDK's, not the caller's
    claudeAgentGuard(stack, { run: { signal: new AbortController().signal } });
  });
});

describe("claudeModelGateway types", () => {
  it("starts a gateway whose env is the SDK's env option", async () => {
    const gateway = await claudeModelGateway(stack, { holdBack: { window: 32 } });
    expectTypeOf(gateway).toEqualTypeOf<ClaudeModelGateway>();
    expectTypeOf(gateway.env()).toExtend<NonNullable<Options["env"]>>();
    // @ts-expect-error hold-back is "none", "all" or a window
    await claudeModelGateway(stack, { holdBack: 32 });
  });
});
