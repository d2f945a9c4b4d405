import { describe, expect, it } from "vitest";
import { bin, fixture, runChild } from "./helpers.ts";

const event = JSON.stringify({
  session_id: "s1",
  cwd: "/tmp",
  hook_event_name: "PreToolUse",
  tool_name: "Bash",
  tool_input: { command: "ls" },
  tool_use_id: "toolu_1",
});
const hook = (module: string, ...flags: string[]) =>
  runChild(process.execPath, [bin, "claude-hook", ...flags, fixture("cli", module)], event);

describe("agent-onion claude-hook when the module ends the process its own way", () => {
  it("blocks with exit 2 when the stack never decides and nothing keeps the process alive", async () => {
    const r = await hook("never-settles.ts");
    expect(r.stdout).toBe("");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/ended before .* answered/);
  });

  it("exits 1 instead with --fail-open", async () => {
    const r = await hook("never-settles.ts", "--fail-open");
    expect(r.code).toBe(1);
  });

  it("blocks a denial whose background work never settles, rather than losing the denial", async () => {
    const r = await hook("denies-then-waits.ts");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/ended before .* answered/);
  });

  it("blocks with exit 2 when the module exits the process while it loads", async () => {
    const r = await hook("exits-on-import.ts");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/ended before .* answered/);
  });
});

describe("agent-onion claude-hook when the module writes to stdout", () => {
  it("keeps stdout for its answer and sends what the module printed to stderr", async () => {
    const r = await hook("logs-to-stdout.ts");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "not allowed" },
    });
    expect(r.stderr).toContain("checking the call");
    expect(r.stderr).toContain("still checking");
    expect(r.stderr).toContain('"permissionDecision":"allow"');
  });
});

describe("agent-onion claude-hook --timeout", () => {
  it("blocks with exit 2 when the stack has not decided in time, before Claude Code's own timeout lets the call go on", async () => {
    // The stack never decides: the message is the 0.5 s timer's, and the test's timeout bounds the rest.
    const r = await hook("keeps-waiting.ts", "--timeout", "0.5");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/did not decide within 0\.5 s/);
  });

  it("exits 1 instead with --fail-open", async () => {
    expect((await hook("keeps-waiting.ts", "--timeout", "0.5", "--fail-open")).code).toBe(1);
  });

  it("refuses a timeout that is not a positive number of seconds", async () => {
    const r = await hook("keeps-waiting.ts", "--timeout", "soon");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--timeout must be a positive number of seconds, got "soon"/);
  });
});
