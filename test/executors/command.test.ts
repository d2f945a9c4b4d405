import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Outcome } from "../../src/core/outcome.ts";
import { commandHook } from "../../src/executors/command.ts";
import { routeHookNotices } from "../../src/executors/external.ts";
import { alive, bash, echoTool, eventually, existsSync, fixture, node, notices, readPid, tempDir } from "./helpers.ts";
import { agentStack } from "./stack-helpers.ts";
import { takeWarnings } from "../support/warnings.ts";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

// A deadline only against a hang: a loaded machine can take seconds to start bash.
const pre = (over: Parameters<typeof commandHook<"PreToolUse">>[0]) => commandHook({ timeoutMs: 60_000, killGraceMs: 100, ...over });
const deny = (reason: string) =>
  JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason } });
const allow = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } });

const runTool = async (hook: ReturnType<typeof pre>, command = "ls") => {
  let ran = false;
  const stack = agentStack().use("toolCall", hook);
  const outcome = await stack.run("toolCall", bash(command), (call) => {
    ran = true;
    return echoTool(call);
  });
  return { outcome, ran, stack };
};

describe("commandHook's default name", () => {
  it("is its program's, never a variable assigned before it, whose value may be a credential", () => {
    expect(commandHook({ event: "PreToolUse", command: "API_TOKEN=sk-live-123 ./guard.sh --strict" }).name).toBe("command:guard.sh");
    expect(commandHook({ event: "PreToolUse", command: "/usr/bin/node", args: ["hooks/guard.mjs"] }).name).toBe("command:node");
  });
});

describe("commandHook exit codes", () => {
  it("lets the call through on exit 0 with no output", async () => {
    const { outcome, ran } = await runTool(pre({ event: "PreToolUse", ...node("respond.mjs", "0") }));
    expect(ran).toBe(true);
    expect(outcome).toEqual(Outcome.completed({ content: "ran: ls" }));
  });

  it("blocks on exit 2 with stderr as the reason", async () => {
    const { outcome, ran } = await runTool(pre({ event: "PreToolUse", ...node("respond.mjs", "2", "", "rm is not allowed\n") }));
    expect(ran).toBe(false);
    expect(outcome).toMatchObject({ _tag: "Rejected", reason: "rm is not allowed" });
  });

  it("blocks on exit 2 even when the JSON beside it says allow", async () => {
    const { outcome } = await runTool(pre({ event: "PreToolUse", ...node("respond.mjs", "2", allow, "no") }));
    expect(outcome).toMatchObject({ _tag: "Rejected", reason: "no" });
  });

  it("prefers the JSON's reason over stderr when exit 2 comes with a deny", async () => {
    const { outcome } = await runTool(pre({ event: "PreToolUse", ...node("respond.mjs", "2", deny("from json"), "from stderr") }));
    expect(outcome).toMatchObject({ _tag: "Rejected", reason: "from json" });
  });

  it("treats exit 1 without JSON as a hook failure: closed by default, naming the hook and the code", async () => {
    const { outcome, ran } = await runTool(pre({ event: "PreToolUse", name: "lint", ...node("respond.mjs", "1", "", "boom\nmore") }));
    expect(ran).toBe(false);
    expect(outcome._tag).toBe("Rejected");
    expect((outcome as { reason: string }).reason).toMatch(/hook "lint".*exited with code 1: boom/);
  });

  it("lets exit 1 through with failMode open, as Claude Code does, and counts it", async () => {
    const { outcome, ran, stack } = await runTool(pre({ event: "PreToolUse", failMode: "open", ...node("respond.mjs", "1") }));
    expect(ran).toBe(true);
    expect(outcome._tag).toBe("Completed");
    expect(stack.stats.failOpen).toBe(1);
  });

  it("does not count exit 1 as a failure on Notification and StopFailure, where Claude Code ignores the exit code", async () => {
    const stack = agentStack()
      .use("notification", commandHook({ event: "Notification", timeoutMs: 5000, ...node("respond.mjs", "1", "", "boom") }))
      .use("error", commandHook({ event: "StopFailure", timeoutMs: 5000, ...node("respond.mjs", "3", "", "boom") }));
    expect((await stack.run("notification", { type: "info", message: "hi" }, () => undefined))._tag).toBe("Completed");
    await stack.run(
      "error",
      { where: "model", error: new Error("rate limited"), attempt: 1 } as never,
      () => ({ action: "fail" }) as never,
    );
    expect(stack.stats.hookFailures).toBe(0);
  });

  it("sends the notices of a hook made without onNotice to a host that routes them, and to process warnings again after", async () => {
    const hook = commandHook({
      event: "SessionStart",
      name: "issues",
      timeoutMs: 5000,
      ...node("respond.mjs", "2", "", "could not fetch issues"),
    });
    const stack = agentStack().use("sessionStart", hook);
    const routed: string[] = [];
    const restore = routeHookNotices((n) => void routed.push(`${n.kind}: ${n.message}`));
    await stack.run("sessionStart", { sessionId: "s", source: "startup" }, (s) => ({ sessionId: s.sessionId }));
    restore();
    takeWarnings();
    await stack.run("sessionStart", { sessionId: "s", source: "startup" }, (s) => ({ sessionId: s.sessionId }));
    expect(routed).toEqual(["hook-error: could not fetch issues"]);
    expect(
      takeWarnings()
        .filter((w) => w.type === "AgentOnionHookWarning")
        .map((w) => w.message),
    ).toEqual(['hook "issues" (SessionStart): could not fetch issues']);
  });

  it("honours valid JSON on another exit code, as Claude Code does", async () => {
    const { outcome } = await runTool(pre({ event: "PreToolUse", ...node("respond.mjs", "1", deny("json decides")) }));
    expect(outcome).toMatchObject({ _tag: "Rejected", reason: "json decides" });
  });

  it("fails a hook killed by a signal", async () => {
    const { outcome } = await runTool(pre({ event: "PreToolUse", command: fixture("commands", "kill-self.sh"), args: [] }));
    expect((outcome as { reason: string }).reason).toMatch(/killed by SIGKILL/);
  });
});

/**
 * Answers a hook that wants a call to run, or a broken one, might print, with whether the call
 * runs: only a JSON object that passes the schema decides; every trick around it fails closed
 * (a hook mounted by hand) or, where Claude Code reads it that way, decides as Claude Code does.
 */
const hostileAnswers: readonly (readonly [string, string, boolean])[] = [
  ["a key given twice reads the last (block, then approve)", `echo '{"decision":"block","decision":"approve"}'`, true],
  ["a key given twice reads the last (approve, then block)", `echo '{"decision":"approve","decision":"block"}'`, false],
  [
    "an ask then an allow in one object reads the allow",
    `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecision":"allow"}}'`,
    true,
  ],
  ["exit 2 with an allow beside it", `echo '${allow}'; exit 2`, false],
  ["exit 1 with an allow (JSON decides on any code but 2)", `echo '${allow}'; exit 1`, true],
  ["a byte order mark before a block still blocks", `printf '\\xef\\xbb\\xbf{"decision":"block"}'`, false],
  [
    "a zero-width space inside allow",
    `printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow\\xe2\\x80\\x8b"}}'`,
    false,
  ],
  [
    "an allow written for another event",
    `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"allow"}}'`,
    false,
  ],
  ["truncated JSON", `printf '{"decision":"appro'`, false],
  ["an allow inside an array", `echo '[${allow}]'`, false],
  ["an allow after a banner", `echo 'ok'; echo '${allow}'`, false],
  ["an allow, then killed by a signal", `echo '${allow}'; kill -9 $$`, false],
  ["an allow after 2 MB of spaces", `head -c 2000000 /dev/zero | tr '\\0' ' '; echo '${allow}'`, false],
  [
    "an allow with invalid UTF-8",
    `printf '{"reason":"\\xff","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`,
    false,
  ],
  ["deeply nested arrays", `head -c 200000 /dev/zero | tr '\\0' '['`, false],
  [
    "an allow whose rewrite hides in __proto__",
    `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"__proto__":{"command":"rm"}}}}'`,
    true,
  ],
];

describe("a hostile command hook's answers", () => {
  it.each(hostileAnswers)("%s", async (_label, command, runs) => {
    const { ran, outcome } = await runTool(pre({ event: "PreToolUse", command, shell: "bash", onNotice: () => {} }));
    expect(ran).toBe(runs);
    if (runs) expect(outcome).toEqual(Outcome.completed({ content: expect.stringMatching(/^ran: (ls|undefined)$/) }));
  });
});

describe("commandHook process hygiene", () => {
  it("survives a script that exits without reading a 2 MB event", async () => {
    const { outcome } = await runTool(pre({ event: "PreToolUse", ...node("exit-without-reading.mjs", "2") }), "x".repeat(2 * 1024 * 1024));
    expect(outcome._tag).toBe("Rejected");
    expect((outcome as { reason: string }).reason).toBe("exited with code 2");
  });

  it("finishes a script that waits for EOF on stdin", async () => {
    const n = notices();
    const { outcome } = await runTool(pre({ event: "PreToolUse", command: fixture("commands", "wait-for-eof.sh"), onNotice: n.sink }));
    expect(outcome._tag).toBe("Completed");
    expect(n.list[0]?.message).toMatch(/^read \d+ bytes$/);
  });

  it("kills the whole tree of a script that ignores SIGTERM, and fails closed", async () => {
    const pidFile = join(tempDir(), "gc.pid");
    const { outcome } = await runTool(
      pre({ event: "PreToolUse", command: fixture("commands", "ignore-sigterm.sh"), args: [pidFile], timeoutMs: 300 }),
    );
    // Settled before the grandchild's 30 s were over (it writes .ended then), however long that took.
    expect(existsSync(`${pidFile}.ended`)).toBe(false);
    expect((outcome as { reason: string }).reason).toMatch(/timed out after 300 ms; its process tree was killed/);
    expect(await eventually(() => !alive(readPid(pidFile)))).toBe(true);
    expect(existsSync(`${pidFile}.ended`)).toBe(false); // killed, not ended on its own
  });

  it("fails a missing script (shell form: exit 127) and a non-executable one (exec form: EACCES)", async () => {
    const missing = await runTool(pre({ event: "PreToolUse", command: fixture("commands", "no-such-hook.sh") }));
    expect((missing.outcome as { reason: string }).reason).toMatch(/exited with code 127/);
    const denied = await runTool(pre({ event: "PreToolUse", command: fixture("commands", "not-executable.sh"), args: [] }));
    expect((denied.outcome as { reason: string }).reason).toMatch(/could not start: .*EACCES/);
  });

  it("fails closed when the script's interpreter line names a missing program (exec form: ENOENT; shell form: exit 127)", async () => {
    const exec = await runTool(pre({ event: "PreToolUse", command: fixture("commands", "bad-interpreter.sh"), args: [] }));
    expect(exec.ran).toBe(false);
    expect((exec.outcome as { reason: string }).reason).toMatch(/could not start: .*ENOENT/);
    const shell = await runTool(pre({ event: "PreToolUse", command: fixture("commands", "bad-interpreter.sh") }));
    expect(shell.ran).toBe(false);
    expect((shell.outcome as { reason: string }).reason).toMatch(/exited with code 127/);
  });

  it("fails closed, naming EMFILE, when the process has no file descriptor left to spawn with", () => {
    // A child under `ulimit -n 256` opens /dev/null until EMFILE, then runs a gate with a command hook.
    const script = fixture("emfile-run.mts");
    const child = spawnSync("sh", ["-c", 'ulimit -n 256 && exec "$0" --import tsx "$1"', process.execPath, script], {
      encoding: "utf8",
      timeout: 30_000,
    });
    const result = JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "{}") as {
      exhausted?: string;
      tag?: string;
      reason?: string;
      ran?: boolean;
    };
    expect(result.exhausted).toBe("EMFILE");
    expect(result.tag).toBe("Rejected");
    expect(result.reason).toMatch(/could not start: .*EMFILE/);
    expect(result.ran).toBe(false);
  });

  it("fails a hook whose stdout passes the cap, and one whose stdout is not UTF-8", async () => {
    const huge = await runTool(pre({ event: "PreToolUse", ...node("huge-stdout.mjs", "4"), maxStdoutBytes: 1024 * 1024 }));
    expect((huge.outcome as { reason: string }).reason).toMatch(/more than 1048576 bytes on stdout/);
    const bad = await runTool(pre({ event: "PreToolUse", ...node("invalid-utf8.mjs") }));
    expect((bad.outcome as { reason: string }).reason).toMatch(/not valid UTF-8/);
  });

  it("strips terminal escapes and bidi overrides from a blocking reason", async () => {
    const { outcome } = await runTool(pre({ event: "PreToolUse", command: fixture("commands", "ansi-reason.sh") }));
    expect((outcome as { reason: string }).reason).toBe("rm is not allowed here");
  });

  it("gives the child an allowlisted environment without our secrets", async () => {
    process.env.AGENT_ONION_TEST_SECRET = "hunter2";
    const texts: string[] = [];
    const stack = agentStack().use(
      "toolCall",
      pre({ event: "PreToolUse", ...node("env-dump.mjs"), allowedEnvVars: ["CI_FLAG"], env: { EXTRA: "1" } }),
    );
    await stack.run("toolCall", bash("ls"), echoTool, { onContext: (t) => texts.push(t) });
    delete process.env.AGENT_ONION_TEST_SECRET;
    const names = texts[0]!.split(",");
    expect(names).toContain("PATH");
    expect(names).toContain("CLAUDE_PROJECT_DIR");
    expect(names).toContain("EXTRA");
    expect(names).not.toContain("AGENT_ONION_TEST_SECRET");
  });

  it("sends the documented common and per-event fields on stdin", async () => {
    const cwd = tempDir();
    const file = join(cwd, "event.json");
    const stack = agentStack().use(
      "toolCall",
      pre({ event: "PreToolUse", ...node("record-event.mjs", file), transcriptPath: "/t/session.jsonl" }),
    );
    await stack.run("toolCall", { id: "toolu_9", name: "Write", input: { file_path: "/repo/a.ts", content: "x" } }, echoTool, {
      sessionId: "sess-1",
      metadata: { cwd, permissionMode: "acceptEdits" },
    });
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      session_id: "sess-1",
      transcript_path: "/t/session.jsonl",
      cwd,
      hook_event_name: "PreToolUse",
      permission_mode: "acceptEdits",
      tool_name: "Write",
      tool_input: { file_path: "/repo/a.ts", content: "x" },
      tool_use_id: "toolu_9",
    });
  });
});

describe("commandHook shell", () => {
  // `[[ ]]` is bash; /bin/sh (dash on Debian) does not know it, so the guard never fires there.
  const bashOnly = `if [[ "$(cat)" == *'rm -rf'* ]]; then echo "Blocked: rm -rf" >&2; exit 2; fi`;

  it('runs shell form with bash -c when shell is "bash", and with /bin/sh -c by default', async () => {
    expect((await runTool(pre({ event: "PreToolUse", command: bashOnly, shell: "bash" }), "rm -rf /")).outcome).toMatchObject({
      _tag: "Rejected",
      reason: "Blocked: rm -rf",
    });
    expect((await runTool(pre({ event: "PreToolUse", command: 'echo "$BASH_VERSION" >&2; exit 2' }))).outcome).toMatchObject({
      _tag: "Rejected",
      reason: "exited with code 2",
    });
  });

  it("fails with a spawn error naming the hook and the shell when that shell is not on PATH", async () => {
    const empty = tempDir();
    for (const [shell, program] of [
      ["bash", "bash"],
      ["powershell", "pwsh"],
    ] as const) {
      const { outcome, ran } = await runTool(
        pre({ event: "PreToolUse", name: `guard-${shell}`, command: "exit 0", shell, env: { PATH: empty } }),
      );
      expect(ran).toBe(false);
      expect((outcome as { reason: string }).reason).toMatch(
        new RegExp(`hook "guard-${shell}".*could not start: shell: "${shell}" runs ${program}, which was not found on PATH`),
      );
    }
  });

  it("refuses a shell other than bash or powershell", () => {
    expect(() => pre({ event: "PreToolUse", command: "true", shell: "zsh" as never })).toThrow(
      /commandHook: shell must be "bash" or "powershell", got "zsh"/,
    );
  });
});

describe("commandHook never puts tool input in a shell", () => {
  it("leaves the marker file uncreated for inputs full of shell metacharacters", async () => {
    const { default: fc } = await import("fast-check");
    const dir = tempDir();
    const marker = join(dir, "PWNED");
    const payloads = fc.oneof(
      fc.constantFrom(
        `"; touch ${marker}; "`,
        `$(touch ${marker})`,
        `\`touch ${marker}\``,
        `'; touch ${marker}; '`,
        `\n touch ${marker}\n`,
        `> ${marker}`,
        `| touch ${marker}`,
        `&& touch ${marker}`,
      ),
      fc
        .tuple(fc.string(), fc.constantFrom(";", "$(", "`", "|", "&&", "\n", ">", "'", '"'), fc.string())
        .map(([a, m, b]) => `${a}${m} touch ${marker} ${m}${b}`),
    );
    const shellHook = pre({ event: "PreToolUse", name: "shell", command: `${fixture("commands", "touch-if-injected.sh")} --tag safe` });
    const execHook = pre({
      event: "PreToolUse",
      name: "exec",
      command: fixture("commands", "touch-if-injected.sh"),
      args: [`$(touch ${marker})`, `; touch ${marker}`],
    });
    const stack = agentStack().use("toolCall", shellHook).use("toolCall", execHook);
    await fc.assert(
      fc.asyncProperty(payloads, async (payload) => {
        const outcome = await stack.run("toolCall", { id: "t", name: "Bash", input: { command: payload, description: payload } }, echoTool);
        return outcome._tag === "Completed" && !existsSync(marker);
      }),
      { numRuns: 25 },
    );
    expect(existsSync(marker)).toBe(false);
  });
});
