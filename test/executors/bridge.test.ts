/**
 * runBridge in process: a Claude Code event through our stack, answered in the protocol. The
 * CLI tests run the same through a child process (test/cli).
 */
import { describe, expect, it } from "vitest";
import { createAgentStack } from "../../src/agent/stack.ts";
import type { ToolCall } from "../../src/agent/types.ts";
import { Continue, Transform } from "../../src/core/action.ts";
import { fromClaudeEvent } from "../../src/executors/bridge-event.ts";
import { runBridge } from "../../src/executors/bridge.ts";
import { retry } from "../../src/middleware/retry.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";

const preToolUse = (command: string) =>
  fromClaudeEvent({ hook_event_name: "PreToolUse", session_id: "s1", cwd: "/tmp", tool_name: "Bash", tool_input: { command }, tool_use_id: "t1" });

describe("runBridge on PreToolUse", () => {
  it("ends the run where the call reaches the tool, so a retry around it never runs the guards again", async () => {
    let guardRuns = 0;
    const stack = withMiddleware(createAgentStack(), retry({ point: "toolCall", attempts: 3, baseMs: 0 }))
      .use("toolCall", { name: "guard", before: () => ((guardRuns++), Continue) });
    const reply = await runBridge(stack, preToolUse("ls"));
    expect([reply.exitCode, reply.decision]).toEqual([0, "none"]);
    expect(guardRuns).toBe(1);
  });

  it("never runs a kept hook's recover on the stand-in, and still reports a rewritten input", async () => {
    const recovered: unknown[] = [];
    const stack = createAgentStack().use("toolCall", {
      name: "dry-run",
      before: (call: ToolCall) => Transform({ ...call, input: { command: `echo ${String(call.input.command)}` } }),
      recover: (error: unknown) => ((recovered.push(error)), Continue),
    });
    const reply = await runBridge(stack, preToolUse("make"));
    expect(reply.json).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { command: "echo make" } } });
    expect(recovered).toEqual([]);
  });

  it("lets an around hook's code after next() and its finally run when the call reaches the tool", async () => {
    const seen: string[] = [];
    const stack = createAgentStack().use("toolCall", { name: "timer", around: async (_c, next) => { try { const o = await next(); seen.push(`saw ${o._tag}`); return o; } finally { seen.push("finally"); } } });
    const reply = await runBridge(stack, preToolUse("ls"));
    expect(reply.decision).toBe("none");
    await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual(["saw Failed", "finally"]);
  });

  it("still answers a caller's abort as a failure that blocks", async () => {
    const controller = new AbortController();
    controller.abort(new Error("shutting down"));
    const reply = await runBridge(createAgentStack().use("toolCall", { name: "guard", before: () => Continue }), preToolUse("ls"), { signal: controller.signal });
    expect([reply.exitCode, reply.decision]).toEqual([2, "block"]);
  });
});
