/**
 * The approval middleware with durable approvals: a call that needs a person stops the run
 * `Interrupted`; resuming it, here or from Claude Code settings hooks that answer `ask`, runs the
 * call with the person's decision, recorded in the audit log.
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createAgentStack, type ToolCall } from "../../src/agent/index.ts";
import { MemoryStore, Outcome, durableApprovals } from "../../src/core/index.ts";
import { fromClaudeSettings } from "../../src/executors/settings.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { approval } from "../../src/middleware/approval.ts";
import { audit } from "../../src/middleware/audit.ts";
import { toolPolicy } from "../../src/middleware/tool-policy.ts";
import { tempDir } from "../executors/helpers.ts";

const key = "a-test-key-of-at-least-32-bytes!!";
const call = (command: string): ToolCall => ({ id: "c1", name: "Bash", input: { command } });
const lines = (stream: PassThrough): Record<string, unknown>[] =>
  String(stream.read() ?? "")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("approval with durable approvals", () => {
  it("stops the run Interrupted, and resumes it with the decision in the audit log", async () => {
    const approvals = durableApprovals({ store: new MemoryStore(), key });
    const out = new PassThrough();
    const log = audit({ to: out, redact: false });
    const stack = withMiddleware(
      createAgentStack({ approval: approvals }),
      toolPolicy({ deny: ["Bash(rm *)"] }),
      approval({ match: "Bash(git push*)" }),
      log,
    );
    const ran: string[] = [];
    const op = (c: ToolCall) => (ran.push(String(c.input.command)), { content: "pushed" });

    const first = await stack.run("toolCall", call("git push"), op, { sessionId: "s1" });
    expect(first).toMatchObject({
      _tag: "Rejected",
      by: "approval",
      reason: expect.stringMatching(/^Bash needs approval: waiting for a person to approve \(approval /),
    });
    if (!Outcome.isInterrupted(first)) throw new Error("not interrupted");
    expect(first.approval).toMatchObject({ hook: "approval", subject: "Bash", reason: "Bash wants to run", input: call("git push") });

    const resumed = await approvals.resume(stack, first.approval.token, { decision: "approve", by: "alice" }, op);
    expect(resumed).toEqual({ _tag: "Completed", value: { content: "pushed" } });
    expect(ran).toEqual(["git push"]);

    await stack.flush();
    const written = lines(out);
    const decisions = written.filter((l) => l.type === "decision" && l.phase === "approval");
    expect(decisions.map((d) => [d.hook, d.action, d.reason])).toEqual([
      ["approval", "Reject", expect.stringContaining(`approval ${first.approval.id}`)],
      ["approval", "Continue", `approved by alice (resumed approval ${first.approval.id})`],
    ]);
    expect(written.find((l) => l.type === "run" && l.outcome === "Rejected")).toMatchObject({
      by: "approval",
      approval: first.approval.id,
    });
    await log.close();
  });

  it("calls that need no approval run at once; only the one that asks pauses", async () => {
    const stack = withMiddleware(
      createAgentStack({ approval: durableApprovals({ store: new MemoryStore(), key }) }),
      approval({ match: "Bash(git push*)" }),
    );
    expect(await stack.run("toolCall", call("git status"), () => ({ content: "clean" }))).toEqual({
      _tag: "Completed",
      value: { content: "clean" },
    });
    expect(Outcome.isInterrupted(await stack.run("toolCall", call("git push"), () => ({ content: "" })))).toBe(true);
  });

  it("pauses on a Claude Code settings hook that answers ask, and resumes it", async () => {
    const approvals = durableApprovals({ store: new MemoryStore(), key });
    const ask = `echo '${JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "prod deploy" } })}'`;
    const settings = { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: ask }] }] } };
    const { stack } = fromClaudeSettings(settings, { cwd: tempDir(), stackOptions: { approval: approvals } });
    const ran: string[] = [];
    const op = (c: ToolCall) => (ran.push(String(c.input.command)), { content: "deployed" });
    const first = await stack.run("toolCall", call("deploy"), op);
    if (!Outcome.isInterrupted(first)) throw new Error(`not interrupted: ${JSON.stringify(first)}`);
    expect(first.approval.reason).toBe("prod deploy");
    expect(ran).toEqual([]);
    const edited = await approvals.resume(stack, first.approval.token, { decision: "edit", input: call("deploy --canary") }, op);
    expect(edited).toEqual({ _tag: "Completed", value: { content: "deployed" } });
    expect(ran).toEqual(["deploy --canary"]);
  });

  it("refuses answers that are not well-formed through Claude Code settings hooks too", async () => {
    const ask = `echo '${JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask" } })}'`;
    const settings = { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: ask }] }] } };
    for (const answer of [false, "approve", { decision: "reject" }, {}, { decision: "edit", input: "rm -rf /" }]) {
      const { stack } = fromClaudeSettings(settings, { cwd: tempDir(), stackOptions: { approval: () => answer as never } });
      const ran: unknown[] = [];
      const outcome = await stack.run("toolCall", call("ls"), () => (ran.push(1), { content: "" }));
      expect(outcome._tag, JSON.stringify(answer)).toBe("Rejected");
      expect(ran).toEqual([]);
    }
  });
});
