import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { fixture, memoryIo } from "./helpers.ts";

describe("agent-onion usage", () => {
  it("prints usage and exits 64 without a command; --help exits 0", async () => {
    const io = memoryIo();
    expect(await main([], io)).toBe(64);
    expect(io.stderr).toMatch(/^Usage: agent-onion <command>/);
    const help = memoryIo();
    expect(await main(["--help"], help)).toBe(0);
    expect(help.stdout).toMatch(/claude-hook <module>/);
    expect(help.stdout).toMatch(/serve <module> \[--port <port>\]/);
    expect(help.stdout).toMatch(/--version/);
  });

  it("names an unknown command and exits 64", async () => {
    const io = memoryIo();
    expect(await main(["hook"], io)).toBe(64);
    expect(io.stderr).toMatch(/unknown command "hook"/);
  });

  it.each([
    [["try", "--event", "PreToolUse"], "{}", /try needs at least one --settings <file>/],
    [["try", "--settings", "x.json", "--event", "PreToolUs"], "{}", /--event PreToolUs is not one of SessionStart/],
    [["try", "--settings", "x.json"], "{}", /--event is required/],
    [["try", "--settings", "x.json", "--event", "Stop", "--colour"], "{}", /agent-onion try: unknown option "--colour"\n/],
    [
      ["try", "--settings", "x.json", "--event", "Stop", "--jsn"],
      "{}",
      /agent-onion try: unknown option "--jsn" \(did you mean "--json"\?\)/,
    ],
    [["try", "--settings", "x.json", "--event", "Stop"], undefined, /pipe the event JSON on stdin/],
    [["try", "--settings", "x.json", "--event", "Stop"], "{not json", /the event is not valid JSON/],
    [
      ["try", "--settings", "x.json", "--event", "Stop"],
      '{"hook_event_name":"PreToolUse"}',
      /the event on stdin is PreToolUse, but --event says Stop/,
    ],
    [["explain", "--event", "Stop"], undefined, /explain needs --settings <file>... or --module <file>/],
  ])("refuses %j with a clear usage error (exit 64)", async (argv, stdin, message) => {
    const io = memoryIo(stdin);
    expect(await main(argv, io)).toBe(64);
    expect(io.stderr).toMatch(message);
    expect(io.stderr).toMatch(/Usage: agent-onion/);
  });

  it("exits 1 for a runtime error such as a malformed settings file, naming file and pointer", async () => {
    const io = memoryIo("{}");
    expect(await main(["try", "--settings", fixture("settings", "malformed.json"), "--event", "PreToolUse"], io)).toBe(1);
    expect(io.stderr).toMatch(/malformed\.json: \/hooks\/PreToolUse\/0\/hooks\/0\/timeout: Expected number/);
  });

  it("claude-hook refuses to decide without a module or an event, and blocks (exit 2) so a broken guard never allows", async () => {
    expect(await main(["claude-hook"], memoryIo("{}"))).toBe(2);
    const io = memoryIo("{}");
    expect(await main(["claude-hook", fixture("settings", "guard-stack.ts")], io)).toBe(2);
    expect(io.stderr).toMatch(/cannot read the event: .*hook_event_name is missing/);
    const open = memoryIo("{}");
    expect(await main(["claude-hook", "--fail-open", fixture("settings", "guard-stack.ts")], open)).toBe(1);
  });

  it("claude-hook answers a usage mistake with Claude Code's codes only: 2, or 1 with --fail-open, never 64", async () => {
    expect(await main(["claude-hook", "--colour", "x.ts"], memoryIo("{}"))).toBe(2);
    expect(await main(["claude-hook", "--fail-open", "a.ts", "b.ts"], memoryIo("{}"))).toBe(1);
  });

  it("claude-hook says a usage mistake in one line, since Claude Code shows its stderr to Claude and the user", async () => {
    const io = memoryIo("{}");
    expect(await main(["claude-hook", "--fail-opn", "x.ts"], io)).toBe(2);
    expect(io.stderr.trimEnd().split("\n")).toEqual([
      'agent-onion claude-hook: unknown option "--fail-opn" (did you mean "--fail-open"?); agent-onion --help shows the usage',
    ]);
  });
});

describe("agent-onion claude-hook and approvals", () => {
  const approvals = fixture("settings", "approval-stack.ts");
  const event = (fields: Record<string, unknown>) => JSON.stringify({ session_id: "s1", cwd: "/tmp", ...fields });

  it("turns an approval asked on PreToolUse into Claude Code's ask", async () => {
    const io = memoryIo(
      event({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "git push" }, tool_use_id: "t1" }),
    );
    expect(await main(["claude-hook", approvals], io)).toBe(0);
    expect(JSON.parse(io.stdout)).toEqual({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "pushing needs a person" },
    });
  });

  it("denies an approval asked on any other event, where Claude Code has no one to ask, and says why", async () => {
    const io = memoryIo(event({ hook_event_name: "UserPromptSubmit", prompt: "deploy to prod" }));
    expect(await main(["claude-hook", approvals], io)).toBe(0);
    const reply = JSON.parse(io.stdout) as { decision: string; reason: string };
    expect(reply.decision).toBe("block");
    expect(reply.reason).toMatch(
      /^approval required by prod-prompts \(prompts about prod need a person\), but Claude Code asks a person only on PreToolUse, so no one could approve on UserPromptSubmit$/,
    );
  });
});

describe("agent-onion try", () => {
  const settings = ["--settings", fixture("settings", "user.json"), "--project-dir", fixture("settings")];

  it("prints the decision, what Claude Code would receive, and the trace; exits 2 when blocked", async () => {
    const io = memoryIo('{"tool_input":{"command":"rm -rf /"}}');
    expect(await main(["try", ...settings, "--event", "PreToolUse"], io)).toBe(2);
    expect(io.stdout).toMatch(/^decision: deny\nreason: {3}Destructive command blocked: rm -rf \//);
    expect(io.stdout).toMatch(
      /Claude Code receives: exit 0, \{"hookSpecificOutput":\{"hookEventName":"PreToolUse","permissionDecision":"deny"/,
    );
    expect(io.stdout).toMatch(/toolCall +PreToolUse:command:guard\.mjs +before +Reject/);
    expect(io.stdout).toMatch(/not run: .*user\.json#\/hooks\/Setup\/0\/hooks\/0: agent-onion does not drive Setup/);
  });

  it("exits 0 when the action goes ahead, and reports a rewrite as updatedInput", async () => {
    const io = memoryIo('{"tool_input":{"command":"curl https://example.com"}}');
    expect(await main(["try", ...settings, "--event", "PreToolUse", "--json"], io)).toBe(0);
    const out = JSON.parse(io.stdout);
    expect(out.decision).toBe("allow");
    expect(out.answer).toEqual({
      hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { command: "echo dry-run: curl https://example.com" } },
    });
    expect(out.trace[0]).toMatchObject({ hook: "PreToolUse:command:guard.mjs", action: "Transform" });
  });
});

describe("agent-onion try and explain with a prompt hook in the settings", () => {
  const settings = ["--settings", fixture("settings", "judge.json"), "--project-dir", fixture("settings")];

  it("decide with the other hooks and list the prompt hook as not run, since no model was given", async () => {
    const tried = memoryIo('{"tool_input":{"command":"rm -rf /"}}');
    expect(await main(["try", ...settings, "--event", "PreToolUse"], tried)).toBe(2);
    expect(tried.stdout).toMatch(/^decision: deny/);
    expect(tried.stdout).toMatch(/not run: .*judge\.json#\/hooks\/Stop\/0\/hooks\/0: prompt hooks need a model, and none was given/);
    const explained = memoryIo();
    expect(await main(["explain", ...settings, "--event", "Stop"], explained)).toBe(0);
    expect(explained.stdout).toMatch(/not run: .*judge\.json#\/hooks\/Stop\/0\/hooks\/0: prompt hooks need a model/);
  });
});

describe("agent-onion explain", () => {
  it("lists the hooks an event would run, in onion order, with sources, and why others would not", async () => {
    const io = memoryIo();
    const argv = [
      "explain",
      "--settings",
      fixture("settings", "user.json"),
      "--settings",
      fixture("settings", "local.json"),
      "--event",
      "PreToolUse",
      "--input",
      '{"tool_input":{"command":"git status"}}',
    ];
    expect(await main(argv, io)).toBe(0);
    expect(io.stdout).toMatch(/^PreToolUse runs the before and around phases of toolCall/);
    // Settings handlers of one event run together, Claude Code's way, as one hook of the onion.
    expect(io.stdout).toMatch(
      /1\. +claude-settings:PreToolUse +\[priority 100, closed, match function Bash \| Bash\(git push \*\)\]\n +from .*user\.json#\/hooks\/PreToolUse\/0\/hooks\/0, .*local\.json#\/hooks\/PreToolUse\/0\/hooks\/0/,
    );
  });

  it("explains a TypeScript stack module too", async () => {
    const io = memoryIo();
    expect(await main(["explain", "--module", fixture("settings", "guard-stack.ts"), "--event", "PostToolUse"], io)).toBe(0);
    expect(io.stdout).toMatch(/1\. +redact/);
    expect(io.stdout).toMatch(/- +guard .*skipped: no after or around phase/);
  });

  it("lists a hook as running exactly when claude-hook runs it: an around on PreToolUse, an after on UserPromptSubmit", async () => {
    const module = fixture("settings", "phases-stack.ts");
    const cases = [
      {
        event: "PreToolUse",
        hook: "around-guard",
        input: '{"tool_input":{"command":"rm -rf /"}}',
        answer: /"permissionDecision":"deny","permissionDecisionReason":"around-guard blocked rm -rf"/,
      },
      {
        event: "UserPromptSubmit",
        hook: "prompt-after",
        input: '{"prompt":"deploy to prod"}',
        answer: /"decision":"block","reason":"prompt-after rejected"/,
      },
    ];
    for (const c of cases) {
      const explained = memoryIo();
      expect(await main(["explain", "--module", module, "--event", c.event, "--input", c.input], explained)).toBe(0);
      expect(explained.stdout).toMatch(new RegExp(`1\\. +${c.hook} `));
      const ran = memoryIo(
        JSON.stringify({
          hook_event_name: c.event,
          session_id: "s1",
          cwd: "/tmp",
          tool_name: "Bash",
          tool_use_id: "t1",
          ...JSON.parse(c.input),
        }),
      );
      expect(await main(["claude-hook", module], ran)).toBe(0);
      expect(ran.stdout).toMatch(c.answer);
    }
  });
});
