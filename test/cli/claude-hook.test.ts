/**
 * `agent-onion claude-hook` run as Claude Code runs a command hook: a child process, the event
 * JSON on stdin, the answer read from the exit code and stdout.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { bin, fixture, root, runChild } from "./helpers.ts";

const guard = fixture("settings", "guard-stack.ts");
const hook = (event: Record<string, unknown>, ...flags: string[]) =>
  runChild(process.execPath, [bin, "claude-hook", ...flags, guard], JSON.stringify({ session_id: "s1", cwd: "/tmp", ...event }));

describe("agent-onion claude-hook (child process)", () => {
  it("denies a destructive command in Claude Code's JSON, with exit 0", async () => {
    const r = await hook({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -rf build" }, tool_use_id: "t1" });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "Destructive command blocked: rm -rf build",
      },
    });
  });

  it("turns an approval request into Claude Code's ask", async () => {
    const r = await hook({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "git push" }, tool_use_id: "t2" });
    expect(JSON.parse(r.stdout)).toEqual({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "pushing needs a person" },
    });
  });

  it("turns an approval request into Claude Code's ask also when the module exports a stack, not a factory", async () => {
    const event = {
      session_id: "s1",
      cwd: "/tmp",
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "git push" },
      tool_use_id: "t3",
    };
    const r = await runChild(process.execPath, [bin, "claude-hook", fixture("settings", "approval-stack-plain.ts")], JSON.stringify(event));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "pushing needs a person" },
    });
  });

  it("answers Claude Code's ask also when the stack's own approver is durable: Claude Code asks the person", async () => {
    const event = {
      session_id: "s1",
      cwd: "/tmp",
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "git push" },
      tool_use_id: "t4",
    };
    const r = await runChild(
      process.execPath,
      [bin, "claude-hook", fixture("settings", "approval-stack-durable.ts")],
      JSON.stringify(event),
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "pushing needs a person" },
    });
  });

  it("blocks with exit 2 when it cannot load the module, or exits 1 with --fail-open", async () => {
    const event = JSON.stringify({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: {} });
    const closed = await runChild(process.execPath, [bin, "claude-hook", "no/such/module.ts"], event);
    expect(closed.code).toBe(2);
    expect(closed.stderr).toMatch(/agent-onion claude-hook: cannot load no\/such\/module\.ts/);
    const open = await runChild(process.execPath, [bin, "claude-hook", "--fail-open", "no/such/module.ts"], event);
    expect(open.code).toBe(1);
  });

  it("lets an event it does not drive go on as without it (exit 1, Claude Code's non-blocking error) and says why on stderr", async () => {
    for (const name of ["PermissionRequest", "PermissionDenied", "WorktreeRemove"]) {
      const r = await hook({ hook_event_name: name, tool_name: "Bash", tool_input: { command: "rm -rf build" } });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(
        `agent-onion claude-hook: agent-onion does not drive ${name} events; nothing was checked, and Claude Code goes on as without this hook`,
      );
    }
    const open = await hook({ hook_event_name: "PermissionRequest" }, "--fail-open");
    expect(open.code).toBe(1);
  });

  it("says that worktree creation fails on WorktreeCreate, where any non-zero exit fails it and the hook must print a path", async () => {
    const r = await hook({ hook_event_name: "WorktreeCreate", name: "bold-oak-a3f2" });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(
      "agent-onion does not drive WorktreeCreate events; nothing was checked and no worktree path was printed, so worktree creation fails",
    );
    expect(r.stderr).not.toMatch(/goes (ahead|on)/);
  });

  it("does not promise what an event it does not know will do", async () => {
    const r = await hook({ hook_event_name: "SomeFutureEvent" });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "agent-onion does not drive SomeFutureEvent events; nothing was checked. Claude Code treats exit 1 as a non-blocking error on most events",
    );
  });

  it("still blocks with exit 2 on an event it cannot read", async () => {
    const r = await hook({ hook_event_name: "PreToolUse", tool_input: { command: "rm -rf build" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot read the event: PreToolUse event is missing tool_name/);
  });

  it("shows the user a mounted command hook's SessionStart error, as Claude Code would, and keeps the context", async () => {
    const r = await runChild(
      process.execPath,
      [bin, "claude-hook", fixture("settings", "notice-stack.ts")],
      JSON.stringify({ session_id: "s1", cwd: "/tmp", hook_event_name: "SessionStart", source: "startup" }),
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      systemMessage: 'hook "issues" (SessionStart): could not fetch issues',
      hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "Project rules: be brief." },
    });
    // Said once, where Claude Code shows it: not also as a Node warning on stderr.
    expect(r.stderr).not.toContain("could not fetch issues");
  });

  it("is runnable with npx from the project", async () => {
    const r = await runChild("npx", ["--no-install", "agent-onion", "--help"], "");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: agent-onion <command>/);
  });
});

describe("agent-onion claude-hook, reading the event before the module", () => {
  it("answers an event it does not drive without loading the module at all", async () => {
    const r = await runChild(
      process.execPath,
      [bin, "claude-hook", "no/such/module.ts"],
      JSON.stringify({ hook_event_name: "PermissionRequest", session_id: "s1" }),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("agent-onion does not drive PermissionRequest events");
    expect(r.stderr).not.toContain("cannot load");
  });

  it("answers an output rewritten into a string in Bash's own shape, so Claude Code takes it", async () => {
    const response = { stdout: "API_KEY=s3cret", stderr: "", interrupted: false, isImage: false };
    const r = await runChild(
      process.execPath,
      [bin, "claude-hook", fixture("cli", "redact-to-string.ts")],
      JSON.stringify({
        hook_event_name: "PostToolUse",
        session_id: "s1",
        cwd: "/tmp",
        tool_name: "Bash",
        tool_input: { command: "cat .env" },
        tool_use_id: "t1",
        tool_response: response,
      }),
    );
    expect(r.code).toBe(0);
    const updated = JSON.parse(r.stdout).hookSpecificOutput.updatedToolOutput;
    expect(updated).toEqual({
      stdout: JSON.stringify(response).replace("s3cret", "[redacted]"),
      stderr: "",
      interrupted: false,
      isImage: false,
    });
  });
});

describe("agent-onion as a command", () => {
  it("prints its version", async () => {
    const { readFileSync } = await import("node:fs");
    const version = (JSON.parse(readFileSync(`${root}/package.json`, "utf8")) as { version: string }).version;
    const r = await runChild(process.execPath, [bin, "--version"], "");
    expect([r.code, r.stdout]).toEqual([0, `${version}\n`]);
  });

  // Python sets the pipe non-blocking, as a parent process may leave it: Node cannot for a child's stdio.
  const python = spawnSync("python3", ["--version"]).status === 0;
  it.skipIf(!python)("writes an answer larger than the pipe whole, also to a stdout that does not block (EAGAIN)", async () => {
    const command = `curl ${"x".repeat(300_000)}`;
    const parent = [
      "import os, subprocess, sys",
      "r, w = os.pipe()",
      "os.set_blocking(w, False)",
      "p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=w)",
      "os.close(w)",
      "p.stdin.write(sys.stdin.buffer.read()); p.stdin.close()",
      "out = b''",
      "while chunk := os.read(r, 65536): out += chunk",
      "sys.stdout.buffer.write(out); sys.exit(p.wait())",
    ].join("\n");
    const event = {
      session_id: "s1",
      cwd: "/tmp",
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command },
      tool_use_id: "t9",
    };
    const r = await runChild("python3", ["-c", parent, process.execPath, bin, "claude-hook", guard], JSON.stringify(event));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.updatedInput.command).toBe(`echo dry-run: ${command}`);
  });

  it("stops quietly when the reader of its output goes away (EPIPE), keeping its exit code", async () => {
    const command = `"${process.execPath}" "${bin}" try --settings "${fixture("settings", "user.json")}" --project-dir "${fixture("settings")}" --event PreToolUse --json <<< '{"tool_input":{"command":"rm -rf /"}}'`;
    for (const reader of ["head -1", "true"]) {
      const r = await runChild("bash", ["-c", `${command} | ${reader}; echo "exit \${PIPESTATUS[0]}" >&2`], "");
      expect(r.stderr, reader).not.toMatch(/EPIPE|Error/);
      expect(r.stderr, reader).toContain("exit 2");
    }
  });
});
