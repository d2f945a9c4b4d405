/**
 * runBridge in process: a Claude Code event through our stack, answered in the protocol. The
 * CLI tests run the same through a child process (test/cli).
 */
import { describe, expect, it } from "vitest";
import { createAgentStack } from "../../src/agent/stack.ts";
import type { ToolCall } from "../../src/agent/types.ts";
import { Continue, Reject, Transform } from "../../src/core/action.ts";
import { Outcome } from "../../src/core/outcome.ts";
import { RejectOnObserveError } from "../../src/core/errors.ts";
import { fromClaudeEvent } from "../../src/executors/bridge-event.ts";
import { runBridge } from "../../src/executors/bridge.ts";
import { commandHook } from "../../src/executors/command.ts";
import { node } from "./helpers.ts";
import { retry } from "../../src/middleware/retry.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";

const preToolUse = (command: string) =>
  fromClaudeEvent({
    hook_event_name: "PreToolUse",
    session_id: "s1",
    cwd: "/tmp",
    tool_name: "Bash",
    tool_input: { command },
    tool_use_id: "t1",
  });

describe("runBridge on PreToolUse", () => {
  it("ends the run where the call reaches the tool, so a retry around it never runs the guards again", async () => {
    let guardRuns = 0;
    const stack = withMiddleware(createAgentStack(), retry({ point: "toolCall", attempts: 3, baseMs: 0 })).use("toolCall", {
      name: "guard",
      before: () => (guardRuns++, Continue),
    });
    const reply = await runBridge(stack, preToolUse("ls"));
    expect([reply.exitCode, reply.decision]).toEqual([0, "none"]);
    expect(guardRuns).toBe(1);
  });

  it("never runs a kept hook's recover on the stand-in, and still reports a rewritten input", async () => {
    const recovered: unknown[] = [];
    const stack = createAgentStack().use("toolCall", {
      name: "dry-run",
      before: (call: ToolCall) => Transform({ ...call, input: { command: `echo ${String(call.input.command)}` } }),
      recover: (error: unknown) => (recovered.push(error), Continue),
    });
    const reply = await runBridge(stack, preToolUse("make"));
    expect(reply.json).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { command: "echo make" } } });
    expect(recovered).toEqual([]);
  });

  it("lets an around hook's code after next() and its finally run when the call reaches the tool", async () => {
    const seen: string[] = [];
    const stack = createAgentStack().use("toolCall", {
      name: "timer",
      around: async (_c, next) => {
        try {
          const o = await next();
          seen.push(`saw ${o._tag}`);
          return o;
        } finally {
          seen.push("finally");
        }
      },
    });
    const reply = await runBridge(stack, preToolUse("ls"));
    expect(reply.decision).toBe("none");
    await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual(["saw Failed", "finally"]);
  });

  it("still answers a caller's abort as a failure that blocks", async () => {
    const controller = new AbortController();
    controller.abort(new Error("shutting down"));
    const reply = await runBridge(createAgentStack().use("toolCall", { name: "guard", before: () => Continue }), preToolUse("ls"), {
      signal: controller.signal,
    });
    expect([reply.exitCode, reply.decision]).toEqual([2, "block"]);
  });
});

describe("runBridge on PreCompact", () => {
  const preCompact = fromClaudeEvent({
    hook_event_name: "PreCompact",
    session_id: "s1",
    cwd: "/tmp",
    trigger: "manual",
    custom_instructions: "",
  });
  const answering = (code: string, stdout: string, stderr = "") =>
    commandHook({ event: "PreCompact", name: "keep", ...node("respond.mjs", code, stdout, stderr), timeoutMs: 5000 });

  it("answers a hook's block (exit 2, decision: block, or Reject) as a block, since Claude Code lets PreCompact block compaction", async () => {
    for (const hook of [
      answering("2", "", "keep full context"),
      answering("0", '{"decision":"block","reason":"keep full context"}'),
      { name: "keep", before: () => Reject("keep full context") },
    ]) {
      const reply = await runBridge(createAgentStack().use("compaction", hook as never), preCompact);
      expect(reply).toMatchObject({
        exitCode: 0,
        decision: "block",
        reason: "keep full context",
        json: { decision: "block", reason: "keep full context" },
      });
      expect(reply.json).not.toHaveProperty("systemMessage");
    }
  });

  it("blocks with the reason of an around hook that answers a Rejected outcome", async () => {
    const hook = { name: "keeper", around: () => Outcome.rejected("keep full context", "keeper") };
    const reply = await runBridge(createAgentStack().use("compaction", hook as never), preCompact);
    expect(reply).toMatchObject({ decision: "block", reason: "keep full context" });
  });

  it("lets compaction go ahead when a hook throws a RejectOnObserveError of its own", async () => {
    const hook = {
      name: "noisy",
      before: () => {
        throw new RejectOnObserveError("from elsewhere", "compaction");
      },
    };
    const reply = await runBridge(createAgentStack().use("compaction", hook as never), preCompact);
    expect(reply).toMatchObject({ decision: "none" });
  });

  it("lets compaction go ahead when a hook throws an error whose text reads like a refusal", async () => {
    const hook = {
      name: "noisy",
      before: () => {
        throw new Error('returned Reject on an observation point: Reject("x") is not allowed on observation point compaction');
      },
    };
    const reply = await runBridge(createAgentStack().use("compaction", hook as never), preCompact);
    expect(reply).toMatchObject({ decision: "none", json: { systemMessage: expect.stringMatching(/noisy failed \(let through\)/) } });
  });

  it("lets compaction go ahead when a hook fails without blocking, and says so", async () => {
    const reply = await runBridge(createAgentStack().use("compaction", answering("1", "", "cache down")), preCompact);
    expect(reply).toMatchObject({
      exitCode: 0,
      decision: "none",
      json: { systemMessage: expect.stringMatching(/keep failed \(let through\)/) },
    });
  });
});
