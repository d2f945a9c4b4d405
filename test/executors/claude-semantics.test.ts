/**
 * Hooks loaded from settings decide as Claude Code decides (observed with its 2.1.328 binary):
 * every matching hook of an event runs at once on the same input and to its end; a block beats
 * a rewrite and an ask, an ask beats an allow; failures let the call run unless the user opts
 * into closed. And two improvements: rewrites resolve to the last in settings order, and a
 * rewritten input is checked again by the event's hooks (and by in-process guards) before it
 * runs. Every hook is a real child process; files in a temp dir let hooks meet and record.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { createScriptedModel } from "../../src/agent/scripted-model.ts";
import { defineTool } from "../../src/agent/tool.ts";
import type { ToolCall } from "../../src/agent/types.ts";
import { Reject } from "../../src/core/action.ts";
import type { HookError } from "../../src/core/errors.ts";
import { Priority } from "../../src/core/priority.ts";
import { fromClaudeSettings, type ClaudeSettingsOptions } from "../../src/executors/settings.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { toolPolicy } from "../../src/middleware/tool-policy.ts";
import { bash, notices, tempDir } from "./helpers.ts";

/** Settings with these PreToolUse handlers (each `{ command, if?, timeout? }`), in this order, all on Bash. */
const preToolUse = (...handlers: Record<string, unknown>[]) => ({
  hooks: { PreToolUse: [{ matcher: "Bash", hooks: handlers.map((h) => ({ type: "command", ...h })) }] },
});
const json = (value: unknown) => `echo '${JSON.stringify(value)}'`;
const deny = (reason: string) =>
  json({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason } });
const rewrite = (command: string) =>
  json({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: { command } } });
const decide = (decision: string) => json({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: decision } });
/** Appends the event it read to `file`, one line each. */
const record = (file: string) => `cat >> '${file}'; echo >> '${file}'`;
const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : []);
const commandsSeen = (file: string) => lines(file).map((l) => (JSON.parse(l) as { tool_input: { command: string } }).tool_input.command);

/** Load the settings and run one Bash call; what ran, the outcome, and what was said. */
const call = async (settings: object, command = "ls", options: ClaudeSettingsOptions = {}) => {
  const n = notices();
  const ran: ToolCall[] = [];
  const { stack } = fromClaudeSettings(settings, { cwd: tempDir(), onNotice: n.sink, ...options });
  const outcome = await stack.run("toolCall", bash(command), (c) => (ran.push(c as ToolCall), { content: "ran" }));
  return { outcome, ran: ran.map((c) => String(c.input.command)), notices: n.list.map((x) => `${x.kind}: ${x.message}`) };
};

describe("every matching hook of an event runs at once, on the same input, to its end", () => {
  it("two hooks that each wait for the other to have started both finish (they run at the same time)", async () => {
    const dir = tempDir();
    const meet = (me: string, other: string) =>
      `touch '${dir}/${me}'; for i in $(seq 150); do [ -e '${dir}/${other}' ] && exit 0; sleep 0.02; done; echo 'ran alone' >&2; exit 1`;
    const { outcome, notices: said } = await call(preToolUse({ command: meet("a", "b") }, { command: meet("b", "a") }));
    expect(outcome._tag).toBe("Completed");
    expect(said).toEqual([]);
  });

  it("each hook reads the same event, even when another rewrites it", async () => {
    const dir = tempDir();
    const { ran } = await call(
      preToolUse({ command: `${record(`${dir}/first`)}; ${rewrite("ls -la")}` }, { command: record(`${dir}/second`) }),
    );
    expect(ran).toEqual(["ls -la"]);
    expect(commandsSeen(`${dir}/first`)[0]).toBe("ls");
    // The second hook saw the original; then, rechecking the rewrite, the rewritten call.
    expect(commandsSeen(`${dir}/second`)).toEqual(["ls", "ls -la"]);
    expect(lines(`${dir}/second`)[0]).toBe(lines(`${dir}/first`)[0]);
  });

  it("an audit logger beside a deny still logs the call, before or after it in settings order", async () => {
    for (const order of ["deny first", "log first"]) {
      const dir = tempDir();
      const handlers = [{ command: deny("no") }, { command: record(`${dir}/audit`) }];
      const { outcome, ran } = await call(preToolUse(...(order === "deny first" ? handlers : handlers.reverse())));
      expect(outcome).toMatchObject({ _tag: "Rejected", reason: "no" });
      expect(ran).toEqual([]);
      expect(commandsSeen(`${dir}/audit`)).toEqual(["ls"]);
    }
  });
});

describe("decisions", () => {
  it("a deny beats another hook's rewrite: nothing runs", async () => {
    const { outcome, ran } = await call(preToolUse({ command: rewrite("ls -la") }, { command: deny("read-only session") }));
    expect(outcome).toMatchObject({ _tag: "Rejected", reason: "read-only session" });
    expect(ran).toEqual([]);
  });

  it("the reasons of every hook that denies reach the model", async () => {
    const { outcome } = await call(preToolUse({ command: deny("no network") }, { command: "echo 'no writes' >&2; exit 2" }));
    expect(outcome).toMatchObject({ _tag: "Rejected", reason: "no network\nno writes" });
  });

  it("an ask beats an allow: the person is asked, once", async () => {
    const asked: unknown[] = [];
    const settings = preToolUse(
      { command: decide("allow") },
      {
        command: json({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "prod" } }),
      },
    );
    const { outcome, ran } = await call(settings, "deploy", {
      stackOptions: { approval: (r) => (asked.push(r.reason), { decision: "approve" }) },
    });
    expect(outcome._tag).toBe("Completed");
    expect(ran).toEqual(["deploy"]);
    expect(asked).toEqual(["prod"]);
  });

  it("a deny beats an ask: no one is asked about a call that a hook refuses anyway", async () => {
    const asked: unknown[] = [];
    const { outcome } = await call(preToolUse({ command: decide("ask") }, { command: deny("never") }), "deploy", {
      stackOptions: { approval: () => (asked.push(1), { decision: "approve" }) },
    });
    expect(outcome).toMatchObject({ _tag: "Rejected", reason: "never" });
    expect(asked).toEqual([]);
  });

  it("an ask with no one to ask is a denial that says so (Claude Code's -p mode: a denial the model reads)", async () => {
    const { outcome } = await call(preToolUse({ command: decide("ask") }));
    expect(outcome).toMatchObject({ _tag: "Rejected", reason: expect.stringMatching(/no approval handler/) });
  });

  it('{"decision":"approve"} is an allow, and "block" a deny (PreToolUse\'s deprecated forms)', async () => {
    expect((await call(preToolUse({ command: json({ decision: "approve" }) }))).outcome._tag).toBe("Completed");
    expect((await call(preToolUse({ command: json({ decision: "block", reason: "old" }) }))).outcome).toMatchObject({
      _tag: "Rejected",
      reason: "old",
    });
  });

  it("exit 1 with a valid JSON deny blocks", async () => {
    const { outcome } = await call(preToolUse({ command: `${deny("from JSON")}; exit 1` }));
    expect(outcome).toMatchObject({ _tag: "Rejected", reason: "from JSON" });
  });
});

describe("two hooks that rewrite", () => {
  it("resolve to the last one in settings order, not the last to finish", async () => {
    // The first rewrites after 300 ms, the second at once: Claude Code would run the first's.
    const slowFirst = await call(preToolUse({ command: `sleep 0.3; ${rewrite("echo first")}` }, { command: rewrite("echo second") }));
    expect(slowFirst.ran).toEqual(["echo second"]);
    const slowSecond = await call(preToolUse({ command: rewrite("echo first") }, { command: `sleep 0.3; ${rewrite("echo second")}` }));
    expect(slowSecond.ran).toEqual(["echo second"]);
  });
});

describe("a rewritten input is checked again before it runs", () => {
  const rmToCleanup = `input=$(cat); case "$input" in *'"cleanup"'*) ${rewrite("rm -rf /tmp/agent-onion-never")};; esac`;
  const rmBlocker = (log: string) =>
    `input=$(cat); echo "$input" >> '${log}'; case "$input" in *'rm -rf'*) echo 'rm -rf is blocked' >&2; exit 2;; esac`;

  it("by the guard beside the rewriter: a rewrite into rm -rf is refused", async () => {
    const dir = tempDir();
    const { outcome, ran } = await call(preToolUse({ command: rmToCleanup }, { command: rmBlocker(`${dir}/guard`) }), "cleanup");
    expect(outcome).toMatchObject({ _tag: "Rejected", reason: "rm -rf is blocked" });
    expect(ran).toEqual([]);
    expect(commandsSeen(`${dir}/guard`)).toEqual(["cleanup", "rm -rf /tmp/agent-onion-never"]);
  });

  it("by a guard whose if condition only the rewritten call meets", async () => {
    const dir = tempDir();
    const { outcome, ran } = await call(
      preToolUse({ command: rmToCleanup }, { command: rmBlocker(`${dir}/guard`), if: "Bash(rm *)" }),
      "cleanup",
    );
    expect(outcome).toMatchObject({ _tag: "Rejected", reason: "rm -rf is blocked" });
    expect(ran).toEqual([]);
    expect(commandsSeen(`${dir}/guard`)).toEqual(["rm -rf /tmp/agent-onion-never"]);
  });

  it("by in-process guards: one inside sees the final call, and one outside with recheck (toolPolicy) refuses it", async () => {
    const seenInside: string[] = [];
    const inside = createAgentStack().use("toolCall", {
      name: "inside",
      priority: Priority.last - 1,
      before: (c) => void seenInside.push(String(c.input.command)),
    });
    const policed = withMiddleware(createAgentStack(), toolPolicy({ deny: ["Bash(rm *)"] }));
    const ran: string[] = [];
    for (const stack of [inside, policed]) {
      const { stack: loaded } = fromClaudeSettings(preToolUse({ command: rmToCleanup }), { cwd: tempDir(), stack, onNotice: () => {} });
      const outcome = await loaded.run("toolCall", bash("cleanup"), (c) => (ran.push(String(c.input.command)), { content: "ran" }));
      if (stack === policed) expect(outcome._tag).toBe("Rejected");
    }
    expect(seenInside).toEqual(["rm -rf /tmp/agent-onion-never"]);
    expect(ran).toEqual(["rm -rf /tmp/agent-onion-never"]); // only where no guard refused it
  });

  it("by an outer in-process guard with recheck: true of its own", async () => {
    const outer = createAgentStack().use("toolCall", {
      name: "no-rm",
      priority: Priority.guard,
      recheck: true,
      before: (c) => (/\brm\b/.test(String(c.input.command)) ? Reject("no rm") : undefined),
    });
    const { stack } = fromClaudeSettings(preToolUse({ command: rmToCleanup }), { cwd: tempDir(), stack: outer, onNotice: () => {} });
    expect(await stack.run("toolCall", bash("cleanup"), () => ({ content: "ran" }))).toMatchObject({
      _tag: "Rejected",
      reason: "no rm",
      by: "no-rm",
    });
  });
});

describe("failures follow Claude Code (open) unless the user opts into closed", () => {
  const failing = [
    ["exit 1", { command: "echo 'boom' >&2; exit 1" }, /exited with code 1: boom/],
    ["a missing script", { command: "/no/such/hook.sh" }, /exited with code 127/],
    ["a timeout", { command: "sleep 5", timeout: 0.3 }, /timed out after 300 ms/],
    ["an unreadable answer", { command: `printf 'checking... {"decision":"block"}'` }, /printed text before its JSON/],
  ] as const;

  it.each(failing)("%s lets the call run, and says so", async (_what, handler, message) => {
    const { outcome, ran, notices: said } = await call(preToolUse(handler));
    expect(outcome._tag).toBe("Completed");
    expect(ran).toEqual(["ls"]);
    expect(said).toEqual([expect.stringMatching(message)]);
  });

  it.each(failing)('%s refuses the call with failMode: "closed", naming the hook', async (_what, handler, message) => {
    const { outcome, ran } = await call(preToolUse(handler), "ls", { failMode: "closed" });
    expect(outcome).toMatchObject({
      _tag: "Rejected",
      reason: expect.stringMatching(/^hook "PreToolUse:command:[^"]+" \(settings#\/hooks\/PreToolUse\/0\/hooks\/0\) failed: /),
    });
    expect((outcome as { reason: string }).reason).toMatch(message);
    expect(ran).toEqual([]);
  });

  it.each(failing)(
    "%s is counted in the stack's stats and told to its onFailure, as its own hooks' failures are",
    async (_what, handler, message) => {
      const told: HookError[] = [];
      const outer = createAgentStack({ onFailure: (e) => told.push(e) });
      const { stack } = fromClaudeSettings(preToolUse(handler, { command: "exit 0" }), {
        cwd: tempDir(),
        stack: outer,
        onNotice: () => {},
      });
      const outcome = await stack.run("toolCall", bash("ls"), () => ({ content: "ran" }));
      expect(outcome._tag).toBe("Completed");
      expect(stack.stats).toMatchObject({ hookFailures: 1, failOpen: 1 });
      expect(told).toHaveLength(1);
      expect(told[0]).toMatchObject({
        hook: expect.stringMatching(/^PreToolUse:command:/),
        point: "toolCall",
        phase: "before",
        source: "settings#/hooks/PreToolUse/0/hooks/0",
      });
      expect(told[0]!.message).toMatch(message);
    },
  );

  it("a failure that fails closed is counted too, but not as let through", async () => {
    const { stack } = fromClaudeSettings(preToolUse({ command: "exit 1" }), { cwd: tempDir(), failMode: "closed", onNotice: () => {} });
    expect((await stack.run("toolCall", bash("ls"), () => ({ content: "ran" })))._tag).toBe("Rejected");
    expect(stack.stats).toMatchObject({ hookFailures: 1, failOpen: 0 });
  });

  it("a failing SessionStart hook never refuses the session, even failing closed", async () => {
    const n = notices();
    const settings = {
      hooks: {
        SessionStart: [
          {
            hooks: [
              { type: "command", command: "exit 1" },
              { type: "command", command: "echo 'Branch: main'" },
            ],
          },
        ],
      },
    };
    const { stack } = fromClaudeSettings(settings, { cwd: tempDir(), failMode: "closed", onNotice: n.sink });
    const context: string[] = [];
    const outcome = await stack.run("sessionStart", { sessionId: "s1", source: "startup" }, (s) => ({ sessionId: s.sessionId }), {
      onContext: (t) => context.push(t),
    });
    expect(outcome).toMatchObject({ _tag: "Completed", value: { sessionId: "s1" } });
    expect(context).toEqual(["Branch: main"]);
    expect(n.list.map((x) => x.kind)).toEqual(["hook-error"]);
  });
});

describe("Stop hooks", () => {
  it("may block at most 9 times in a row, as in Claude Code; the stop after that goes ahead", async () => {
    const model = createScriptedModel({ turns: Array.from({ length: 12 }, (_, i) => `attempt ${i + 1}`) });
    const settings = { hooks: { Stop: [{ hooks: [{ type: "command", command: json({ decision: "block", reason: "keep going" }) }] }] } };
    const { stack } = fromClaudeSettings(settings, { cwd: tempDir(), onNotice: () => {} });
    const turn = await createAgent({ model, tools: [], stack, maxStopBlocks: 50 }).run("work");
    expect(model.requests).toHaveLength(10);
    expect(turn).toMatchObject({ status: "completed", text: "attempt 10" });
  });

  it("every Stop hook's reason to go on is fed back, and continue: false from one of them lets the stop happen", async () => {
    const stop = { reason: "end_turn", blockedCount: 0 };
    const two = {
      hooks: {
        Stop: [
          {
            hooks: [
              { type: "command", command: json({ decision: "block", reason: "run the tests" }) },
              { type: "command", command: "echo 'update the changelog' >&2; exit 2" },
            ],
          },
        ],
      },
    };
    const { stack } = fromClaudeSettings(two, { cwd: tempDir(), onNotice: () => {} });
    expect(await stack.run("stop", stop, () => ({ stop: true as const }))).toMatchObject({
      _tag: "Rejected",
      reason: "run the tests\nupdate the changelog",
    });
    const halting = {
      hooks: {
        Stop: [
          {
            hooks: [
              { type: "command", command: json({ decision: "block", reason: "more" }) },
              { type: "command", command: json({ continue: false, stopReason: "enough" }) },
            ],
          },
        ],
      },
    };
    const halted = fromClaudeSettings(halting, { cwd: tempDir(), onNotice: () => {} }).stack;
    expect((await halted.run("stop", stop, () => ({ stop: true as const })))._tag).toBe("Completed");
  });
});

describe("PostToolUse in a real agent loop", () => {
  it("the model reads the (rewritten) output of a call that ran, and the hook's reason, never that the call was rejected", async () => {
    const written: string[] = [];
    const write = defineTool<{ file_path?: unknown }>({
      name: "Write",
      description: "write",
      inputSchema: { type: "object" },
      execute: ({ file_path }) => (written.push(String(file_path)), "Wrote 3 lines; API_KEY=sk-live-123"),
    });
    const redact = json({
      decision: "block",
      reason: "the output held a key; it was redacted",
      hookSpecificOutput: { hookEventName: "PostToolUse", updatedToolOutput: "Wrote 3 lines; API_KEY=[redacted]" },
    });
    const settings = { hooks: { PostToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: redact }] }] } };
    const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "Write", input: { file_path: "/tmp/x" } }] }, "done"] });
    const { stack } = fromClaudeSettings(settings, { cwd: tempDir(), onNotice: () => {} });
    await createAgent({ model, tools: [write], stack }).run("write it");
    expect(written).toEqual(["/tmp/x"]);
    const sent = JSON.stringify(model.requests[1]?.messages);
    expect(sent).toContain("API_KEY=[redacted]");
    expect(sent).not.toContain("sk-live-123");
    expect(sent).toContain("the output held a key; it was redacted");
    expect(sent).not.toMatch(/rejected/);
  });
});

describe("context", () => {
  it("every hook's additionalContext reaches the model, in settings order", async () => {
    const ctx = (text: string) => json({ hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: text } });
    const n = notices();
    const { stack } = fromClaudeSettings(preToolUse({ command: `sleep 0.2; ${ctx("first")}` }, { command: ctx("second") }), {
      cwd: tempDir(),
      onNotice: n.sink,
    });
    const context: string[] = [];
    await stack.run("toolCall", bash("ls"), () => ({ content: "ran" }), { onContext: (t) => context.push(t) });
    expect(context).toEqual(["first", "second"]);
  });
});
