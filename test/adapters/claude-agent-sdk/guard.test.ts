/**
 * The guard's callbacks called as the SDK calls them, with the events Claude Code 2.1.332 sent
 * (test/fixtures/claude-code/events, recorded by scripts/claude-code/record-events.ts): the paths
 * the real-client tests cannot steer Claude Code into on purpose.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { HookInput, HookJSONOutput } from "@anthropic-ai/claude-agent-sdk";
import { describe, expect, it } from "vitest";
import {
  claudeAgentGuard,
  ClaudeSessionNotWaitingError,
  ClaudeToolNotRunError,
  ClaudeToolRerunError,
  type ClaudeAgentGuard,
} from "../../../src/adapters/claude-agent-sdk/index.ts";
import { createAgentStack } from "../../../src/agent/stack.ts";
import { Continue, Reject, Transform } from "../../../src/core/action.ts";
import type { RunEvent } from "../../../src/core/context.ts";
import { MemoryStore } from "../../../src/core/memory-store.ts";
import { ApprovalReplayedError, durableApprovals } from "../../../src/core/interrupt.ts";
import { approval } from "../../../src/middleware/approval.ts";
import { retry } from "../../../src/middleware/retry.ts";
import { withMiddleware } from "../../../src/middleware/apply.ts";

const events = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..", "fixtures", "claude-code", "events");
const recorded = (name: string, changes: Record<string, unknown> = {}): HookInput =>
  ({ ...JSON.parse(readFileSync(join(events, `${name}.json`), "utf8")), ...changes }) as HookInput;

const call = (guard: ClaudeAgentGuard, input: HookInput): Promise<HookJSONOutput> => {
  const matcher = guard.hooks[input.hook_event_name]?.[0];
  if (matcher === undefined) throw new Error(`the guard registered no callback for ${input.hook_event_name}`);
  return matcher.hooks[0]!(input, "tool_use_id" in input ? String(input.tool_use_id) : undefined, { signal: new AbortController().signal });
};

const settled = () => {
  const runs: RunEvent[] = [];
  return { runs, hook: { name: "settled", observe: (e: RunEvent<any, any>) => void runs.push(e) } };
};

describe("claudeAgentGuard: registration", () => {
  it("registers a callback only for the events its stack has hooks for", () => {
    const tools = claudeAgentGuard(createAgentStack().use("toolCall", { name: "t", before: () => Continue }));
    expect(Object.keys(tools.hooks).sort()).toEqual([
      "PostToolUse",
      "PostToolUseFailure",
      "PreToolUse",
      "SessionEnd",
      "Stop",
      "StopFailure",
      "SubagentStop",
    ]);
    const prompts = claudeAgentGuard(createAgentStack().use("sessionStart", { name: "s", before: () => Continue }));
    expect(Object.keys(prompts.hooks).sort()).toEqual(["SessionStart", "UserPromptSubmit"]);
    expect(claudeAgentGuard(createAgentStack()).hooks).toEqual({});
  });

  it("sets canUseTool only when the stack can answer a permission request", () => {
    expect(claudeAgentGuard(createAgentStack()).options({ cwd: "/p" })).toEqual({ cwd: "/p", hooks: {} });
    const withHandler = claudeAgentGuard(createAgentStack({ approval: () => ({ decision: "approve" }) }));
    expect(withHandler.options().canUseTool).toBe(withHandler.canUseTool);
  });

  it("keeps the application's own hooks beside its own, once, however often options are made", () => {
    const guard = claudeAgentGuard(createAgentStack().use("toolCall", { name: "t", before: () => Continue }));
    const mine = { hooks: [async () => ({})] };
    const once = guard.options({ hooks: { PreToolUse: [mine] } });
    expect(guard.options(once).hooks?.PreToolUse).toEqual([mine, guard.hooks.PreToolUse![0]]);
  });

  it.each([
    [() => claudeAgentGuard({} as never), "claudeAgentGuard: stack must be a stack with run (createAgentStack()), got {}"],
    [
      () => claudeAgentGuard(createAgentStack(), { timeoutSeconds: 0 }),
      "claudeAgentGuard: timeoutSeconds must be a number of seconds above 0, got 0",
    ],
    [
      () => claudeAgentGuard(createAgentStack(), { run: 5 as never }),
      "claudeAgentGuard: run must be run options or a function of the hook event, got 5",
    ],
    [
      () => claudeAgentGuard(createAgentStack(), { pause: { store: {} as never, secret: "k".repeat(32) } }),
      "claudeAgentGuard: pause.store must be a StateStore (MemoryStore, RedisStore), got {}",
    ],
    [
      () => claudeAgentGuard(createAgentStack(), { pause: { store: new MemoryStore(), secret: "short" } }),
      "claudeAgentGuard: pause.secret must be at least 32 bytes",
    ],
    [
      () => claudeAgentGuard(createAgentStack(), { pause: { store: new MemoryStore(), secret: "k".repeat(32), ttlMs: -1 } }),
      "claudeAgentGuard: pause.ttlMs must be a positive integer of ms, got -1",
    ],
    [
      () => claudeAgentGuard(createAgentStack(), { approvals: (() => ({ decision: "approve" })) as never }),
      "claudeAgentGuard: approvals must be durableApprovals({ store, key })",
    ],
    [
      () =>
        claudeAgentGuard(createAgentStack(), {
          approvals: durableApprovals({ store: new MemoryStore(), key: "k".repeat(32) }),
          pause: { store: new MemoryStore(), secret: "k".repeat(32) },
        }),
      "claudeAgentGuard: give approvals or the deprecated pause, not both",
    ],
    [
      () =>
        claudeAgentGuard(createAgentStack({ approval: () => ({ decision: "approve" }) })).options({
          canUseTool: async () => ({ behavior: "allow" }),
        }),
      "claudeAgentGuard.options: base.canUseTool is set",
    ],
  ])("refuses a mistake when it is made: %#", (make, message) => {
    expect(make).toThrow(message);
  });
});

describe("claudeAgentGuard: tool calls", () => {
  it("settles a call Claude Code refused after the hooks let it through, at the end of its batch", async () => {
    const { runs, hook } = settled();
    const stack = createAgentStack()
      .use("toolCall", hook)
      .use("toolBatch", { name: "b", before: () => Continue });
    const guard = claudeAgentGuard(stack);
    expect(await call(guard, recorded("PreToolUse"))).toEqual({});
    expect(await call(guard, recorded("PostToolBatch"))).toEqual({});
    await stack.flush();
    expect(runs.map((r) => r.outcome._tag)).toEqual(["Failed"]);
    expect((runs[0]!.outcome as { error: unknown }).error).toBeInstanceOf(ClaudeToolNotRunError);
  });

  it("settles only the ending session's open calls when one guard serves two queries at once", async () => {
    const { runs, hook } = settled();
    const asked: unknown[] = [];
    const stack = createAgentStack({ approval: () => ({ decision: "approve" }) })
      .use("toolCall", hook)
      .use("permissionRequest", { name: "who", before: (_request, ctx) => void asked.push(ctx.sessionId) });
    const guard = claudeAgentGuard(stack);
    const a = { session_id: "session-a", tool_use_id: "toolu_a" };
    const b = { session_id: "session-b", tool_use_id: "toolu_b" };
    await call(guard, recorded("PreToolUse", a));
    await call(guard, recorded("PreToolUse", b));
    // Session A's permission prompt comes after B's last event: it is still run in A's session.
    expect(
      await guard.canUseTool("Bash", { command: "touch ran-1" }, { signal: new AbortController().signal, toolUseID: "toolu_a" } as never),
    ).toMatchObject({ behavior: "allow" });
    expect(asked).toEqual(["session-a"]);
    await call(guard, recorded("Stop", { session_id: "session-a" }));
    await call(guard, recorded("PostToolUse", b));
    await stack.flush();
    expect(runs.map((r) => [r.sessionId, r.outcome._tag])).toEqual([
      ["session-a", "Failed"],
      ["session-b", "Completed"],
    ]);
  });

  it("ends the turn when an output must not reach the model and no replacement in its shape is known", async () => {
    const guard = claudeAgentGuard(createAgentStack().use("toolCall", { name: "gate", after: () => Reject("holds a customer's address") }));
    const write = {
      tool_name: "Write",
      tool_input: { file_path: "/p/x", content: "x" },
      tool_response: { type: "create", filePath: "/p/x", content: "x", structuredPatch: [] },
    };
    await call(guard, recorded("PreToolUse", write));
    expect(await call(guard, recorded("PostToolUse", write))).toEqual({
      continue: false,
      decision: "block",
      stopReason:
        "agent-onion: Tool result of Write withheld by gate: holds a customer's address; the turn ends so that the model does not read the output of Write",
      reason:
        "agent-onion: Tool result of Write withheld by gate: holds a customer's address; the turn ends so that the model does not read the output of Write",
    });
  });

  it("refuses to run a call a second time for a retry hook: Claude Code runs each call once", async () => {
    const { runs, hook } = settled();
    const stack = withMiddleware(createAgentStack(), retry({ point: "toolCall", attempts: 2, baseMs: 1 })).use("toolCall", hook);
    const guard = claudeAgentGuard(stack);
    await call(guard, recorded("PreToolUse"));
    expect(await call(guard, recorded("PostToolUseFailure", { error: "Exit code 1" }))).toEqual({});
    await stack.flush();
    expect((runs[0]!.outcome as { error: unknown }).error).toBeInstanceOf(ClaudeToolRerunError);
  });

  it("runs every phase for a call whose PreToolUse it did not see", async () => {
    const stack = createAgentStack().use("toolCall", {
      name: "redact",
      before: () => Continue,
      after: (r) => Transform({ ...r, content: { ...(r.content as object), stdout: "[redacted]" } }),
    });
    expect(await call(claudeAgentGuard(stack), recorded("PostToolUse"))).toEqual({
      hookSpecificOutput: {
        hookEventName: "PostToolUse",
        updatedToolOutput: { stdout: "[redacted]", stderr: "", interrupted: false, isImage: false, noOutputExpected: true },
      },
    });
  });
});

describe("claudeAgentGuard: durable approvals", () => {
  const key = "a-test-key-that-is-long-enough-for-hmac-sha256";
  const deferred = (id: string, input: unknown) =>
    ({
      type: "result",
      subtype: "success",
      stop_reason: "tool_deferred",
      session_id: "s",
      deferred_tool_use: { id, name: "Bash", input },
    }) as never;

  it("answers PreToolUse with defer when the call's run stops for a person, and gives the pending approval for the result", async () => {
    const { runs, hook } = settled();
    const approvals = durableApprovals({ store: new MemoryStore(), key });
    const stack = withMiddleware(createAgentStack({ approval: approvals }), approval({ match: "Bash" })).use("toolCall", hook);
    const guard = claudeAgentGuard(stack);
    const event = recorded("PreToolUse") as HookInput & { tool_use_id: string; tool_input: Record<string, unknown> };
    expect(await call(guard, event)).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "defer" } });
    await stack.flush();
    expect(runs.map((r) => r.outcome._tag)).toEqual(["Rejected"]);
    const paused = guard.paused(deferred(event.tool_use_id, event.tool_input));
    expect(paused).toMatchObject({
      point: "toolCall",
      hook: "approval",
      subject: "Bash",
      sessionId: event.session_id,
      input: { id: event.tool_use_id, name: "Bash", input: event.tool_input },
      toolUse: { id: event.tool_use_id, name: "Bash", input: event.tool_input },
    });
    expect((runs[0]!.outcome as { approval?: { id: string } }).approval?.id).toBe(paused!.id);
    expect(await approvals.inspect(paused!.token)).toMatchObject({ id: paused!.id });
    // Given once: another result for the same call is not this guard's pause any more.
    expect(guard.paused(deferred(event.tool_use_id, event.tool_input))).toBeUndefined();
  });

  it("takes the guard's approvals over an in-process handler of the stack", async () => {
    const approvals = durableApprovals({ store: new MemoryStore(), key });
    const stack = withMiddleware(createAgentStack({ approval: () => ({ decision: "approve" }) }), approval({ match: "Bash" }));
    const guard = claudeAgentGuard(stack, { approvals });
    expect(await call(guard, recorded("PreToolUse"))).toEqual({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "defer" },
    });
  });

  it("does not set canUseTool for durable approvals alone: Claude Code's permission prompt cannot pause", async () => {
    const approvals = durableApprovals({ store: new MemoryStore(), key });
    expect(claudeAgentGuard(createAgentStack({ approval: approvals })).options().canUseTool).toBeUndefined();
    const guard = claudeAgentGuard(
      createAgentStack({ approval: approvals }).use("permissionRequest", { name: "look", before: () => Continue }),
    );
    const answer = await guard.canUseTool("Bash", { command: "ls" }, {
      signal: new AbortController().signal,
      toolUseID: "toolu_x",
    } as never);
    expect(answer).toMatchObject({ behavior: "deny", message: expect.stringContaining("cannot pause for durable approvals") });
  });

  it("refuses to resume a session whose transcript already has the call's result, claiming nothing", async () => {
    const approvals = durableApprovals({ store: new MemoryStore(), key });
    const guard = claudeAgentGuard(withMiddleware(createAgentStack({ approval: approvals }), approval({ match: "Bash" })));
    const event = recorded("PreToolUse") as HookInput & { tool_use_id: string; tool_input: Record<string, unknown> };
    await call(guard, event);
    const paused = guard.paused(deferred(event.tool_use_id, event.tool_input))!;
    // The session's messages as the SDK's getSessionMessages reads them: the call, then its result.
    const answered = [
      { type: "assistant", message: { content: [{ type: "tool_use", id: event.tool_use_id, name: "Bash", input: event.tool_input }] } },
      { type: "user", message: { content: [{ type: "tool_result", tool_use_id: event.tool_use_id, content: "done" }] } },
    ];
    const sdk = {
      getSessionMessages: async () => answered,
      query: () => {
        throw new Error("must not start Claude Code");
      },
    };
    const refused = await guard.resume(sdk, paused, { decision: "approve" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ClaudeSessionNotWaitingError);
    expect(refused).toBeInstanceOf(ApprovalReplayedError);
    expect(refused).toMatchObject({ kind: "replayed", sessionId: event.session_id, toolUseId: event.tool_use_id, approvalId: paused.id });
    expect(await approvals.inspect(paused.token)).toMatchObject({ id: paused.id });
  });

  it("answers the re-fired PreToolUse with the claimed approval only for the input asked about; an edited call is asked about anew", async () => {
    const approvals = durableApprovals({ store: new MemoryStore(), key });
    const guard = claudeAgentGuard(withMiddleware(createAgentStack({ approval: approvals }), approval({ match: "Bash" })));
    const event = recorded("PreToolUse") as HookInput & { tool_use_id: string; tool_input: Record<string, unknown> };
    await call(guard, event);
    const paused = guard.paused(deferred(event.tool_use_id, event.tool_input))!;
    const waiting = [
      { type: "assistant", message: { content: [{ type: "tool_use", id: event.tool_use_id, name: "Bash", input: event.tool_input }] } },
    ];
    const query = async function* () {};
    const sdk = { getSessionMessages: async () => waiting, query: () => query() as never };
    await guard.resume(sdk, paused, { decision: "approve", by: "alice" });
    // Claude Code's session was changed between the pause and the resume: the call it re-fires is another one.
    const edited = { ...event, tool_input: { ...event.tool_input, command: "rm -rf ~" } };
    expect(await call(guard, edited)).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "defer" } });
    // The token is spent: resuming it again is refused.
    await expect(guard.resume(sdk, paused, { decision: "approve" })).rejects.toBeInstanceOf(ApprovalReplayedError);
    // The same pause, resumed with the call as it was asked about, runs.
    await call(guard, event);
    const again = guard.paused(deferred(event.tool_use_id, event.tool_input))!;
    await guard.resume(sdk, again, { decision: "approve", by: "alice" });
    expect(await call(guard, event)).not.toMatchObject({ hookSpecificOutput: { permissionDecision: "defer" } });
  });

  it("refuses to resume without durable approvals, or with something that is not the SDK", async () => {
    await expect(claudeAgentGuard(createAgentStack()).resume({} as never, "ao1.x.y", { decision: "approve" })).rejects.toThrow(
      "claudeAgentGuard.resume: this guard has no durable approvals",
    );
    const guard = claudeAgentGuard(createAgentStack({ approval: durableApprovals({ store: new MemoryStore(), key }) }));
    await expect(guard.resume({} as never, "ao1.x.y", { decision: "approve" })).rejects.toThrow("sdk must be the Claude Agent SDK module");
  });
});

describe("claudeAgentGuard: other events", () => {
  it("reads PreCompact's custom_instructions: null as Claude Code sends it", async () => {
    // compaction observes: in TypeScript a Reject there is refused; a hook loaded from settings can still answer one, which Claude Code takes as a block.
    const guard = claudeAgentGuard(
      createAgentStack().use("compaction", { name: "keep", before: (() => Reject("a review is in progress")) as never }),
    );
    expect(await call(guard, recorded("PreCompact"))).toEqual({ decision: "block", reason: "a review is in progress" });
  });
});
