/**
 * Public hook scripts, as their authors wrote them for Claude Code, run through
 * `fromClaudeSettings` and deciding as Claude Code decides. No network at test time: each
 * script in test/fixtures/public-hooks reproduces one public script's protocol behaviour and
 * names it in its header (Anthropic's examples and plugins, the hooks guide, rtk,
 * claude-code-hooks-mastery, tdd-guard); plugin.test.ts runs the security-guidance and hookify ones.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.ts";
import { createScriptedModel } from "../../src/agent/scripted-model.ts";
import { defineTool } from "../../src/agent/tool.ts";
import type { ToolCall } from "../../src/agent/types.ts";
import { fromClaudeSettings, type ClaudeSettingsOptions } from "../../src/executors/settings.ts";
import { bash, echoTool, fixture, notices, tempDir } from "./helpers.ts";
import { claudeTranscript } from "./transcript.ts";

const script = (name: string) => fixture("public-hooks", name);
/** Settings with one handler running `name` (bash for .sh, node for .mjs), as a user would register it. */
const handler = (name: string, ...args: string[]) =>
  name.endsWith(".sh")
    ? { type: "command", command: `bash ${script(name)} ${args.join(" ")}`.trim() }
    : { type: "command", command: "node", args: [script(name), ...args] };
const settingsFor = (event: string, matcher: string | undefined, ...handlers: object[]) => ({
  hooks: { [event]: [{ ...(matcher ? { matcher } : {}), hooks: handlers }] },
});
const load = (settings: object, cwd: string, options: ClaudeSettingsOptions = {}) => {
  const n = notices();
  return { ...fromClaudeSettings(settings, { cwd, projectDir: cwd, onNotice: n.sink, ...options }), told: n.list };
};
const write = (file_path: string, content = "x"): ToolCall => ({ id: "toolu_w", name: "Write", input: { file_path, content } });
const run = (stack: ReturnType<typeof load>["stack"], call: ToolCall) => stack.run("toolCall", call, echoTool);

describe("anthropics/claude-code examples/hooks", () => {
  it("bash_command_validator_example.py: grep without a pipe and find -name are blocked with the rules' messages; the rest runs", async () => {
    const { stack } = load(settingsFor("PreToolUse", "Bash", handler("bash_command_validator.mjs")), tempDir());
    expect(await run(stack, bash("grep -r TODO src"))).toMatchObject({
      _tag: "Rejected",
      reason: "• Use 'rg' (ripgrep) instead of 'grep' for better performance and features",
    });
    expect(await run(stack, bash("find . -name '*.ts'"))).toMatchObject({
      _tag: "Rejected",
      reason: expect.stringMatching(/^• Use 'rg --files/),
    });
    expect((await run(stack, bash("grep -r TODO src | head")))._tag).toBe("Completed");
  });

  it("file_guard_example.py: writes to .env, keys and credentials are blocked with exit 2; other files are written", async () => {
    const { stack } = load(settingsFor("PreToolUse", "Edit|Write|MultiEdit", handler("file_guard.mjs")), tempDir());
    expect(await run(stack, write("/repo/.env.local"))).toMatchObject({
      _tag: "Rejected",
      reason: expect.stringMatching(/^Blocked: Environment configuration file \(may contain secrets\)\nFile: \/repo\/\.env\.local/),
    });
    expect(await run(stack, write("/home/u/.ssh/id_rsa"))).toMatchObject({
      _tag: "Rejected",
      reason: expect.stringMatching(/^Blocked: SSH private key/),
    });
    expect((await run(stack, write("/repo/src/app.ts")))._tag).toBe("Completed");
  });

  it("permission_auto_approve_example.py: rm -rf / is denied (its message goes to the user), git and reads are allowed, the rest falls through with {}", async () => {
    const { stack, told } = load(settingsFor("PreToolUse", "", handler("permission_auto_approve.mjs")), tempDir());
    expect(await run(stack, bash("rm -rf /"))).toMatchObject({
      _tag: "Rejected",
      reason: 'blocked by hook "PreToolUse:command:permission_auto_approve.mjs"',
    });
    expect(told).toMatchObject([{ kind: "systemMessage", message: "Blocked by auto-approve hook: Bash(rm -rf /)" }]);
    expect((await run(stack, bash("git status")))._tag).toBe("Completed");
    expect((await run(stack, { id: "r", name: "Read", input: { file_path: "/a" } }))._tag).toBe("Completed");
    expect((await run(stack, bash("make")))._tag).toBe("Completed");
  });

  it("session_start_context_loader_example.sh: the project's context file reaches the model at session start", async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, ".claude"));
    writeFileSync(join(cwd, ".claude", "project-context.md"), "Use pnpm, never npm.\n");
    const { stack } = load(settingsFor("SessionStart", "startup", handler("session_start_context_loader.sh")), cwd);
    const context: string[] = [];
    await stack.run("sessionStart", { sessionId: "s1", source: "startup" }, (s) => ({ sessionId: s.sessionId }), {
      onContext: (t) => context.push(t),
    });
    expect(context).toEqual(["Use pnpm, never npm."]);
  });
});

describe("anthropics/claude-code plugins/ralph-wiggum hooks/stop-hook.sh", () => {
  const setup = () => {
    const cwd = tempDir("ralph-");
    mkdirSync(join(cwd, ".claude"));
    const state = join(cwd, ".claude", "ralph-loop.local.md");
    writeFileSync(state, '---\niteration: 1\nmax_iterations: 5\ncompletion_promise: "ALL TESTS PASS"\n---\nMake the test suite pass.\n');
    const transcript = join(cwd, "transcript.jsonl");
    const { stack, told } = load(settingsFor("Stop", undefined, handler("ralph_stop_hook.sh")), cwd);
    const stop = (last: string) => {
      writeFileSync(
        transcript,
        claudeTranscript("s1", cwd, [
          { role: "user", content: "/ralph-loop" },
          { role: "assistant", content: last },
        ]),
      );
      return stack.run("stop", { reason: "end_turn", blockedCount: 0, lastMessage: last }, () => ({ stop: true as const }), {
        sessionId: "s1",
        metadata: { transcriptPath: transcript },
      });
    };
    return { state, stop, told };
  };

  it("feeds the same prompt back while the transcript's last message lacks the promise, counting iterations", async () => {
    const { state, stop, told } = setup();
    expect(await stop("Fixed two tests.")).toMatchObject({ _tag: "Rejected", reason: "Make the test suite pass." });
    expect(readFileSync(state, "utf8")).toMatch(/^iteration: 2$/m);
    expect(told).toMatchObject([{ kind: "systemMessage", message: expect.stringMatching(/^Ralph iteration 2/) }]);
  });

  it("lets the stop happen, and ends the loop, once the last message holds <promise>ALL TESTS PASS</promise>", async () => {
    const { state, stop } = setup();
    expect((await stop("Done. <promise>ALL TESTS PASS</promise>"))._tag).toBe("Completed");
    expect(existsSync(state)).toBe(false);
  });
});

describe("rtk-ai/rtk hooks/rtk-rewrite.sh", () => {
  it("rewrites commands it knows to run through rtk, and leaves the others", async () => {
    const ran: string[] = [];
    const { stack } = load(settingsFor("PreToolUse", "Bash", handler("rtk_rewrite.sh")), tempDir());
    const op = (c: unknown) => (ran.push(String((c as ToolCall).input.command)), { content: "ok" });
    await stack.run("toolCall", { id: "t", name: "Bash", input: { command: "git status", description: "status" } }, op);
    await stack.run("toolCall", bash("make"), op);
    expect(ran).toEqual(["rtk git status", "make"]);
  });

  it("beside bash_command_validator, as Claude Code runs them: the validator judges the command the model wrote (and the rewrite)", async () => {
    const ran: string[] = [];
    const { stack } = load(settingsFor("PreToolUse", "Bash", handler("rtk_rewrite.sh"), handler("bash_command_validator.mjs")), tempDir());
    const outcome = await stack.run(
      "toolCall",
      bash("grep -r TODO src"),
      (c) => (ran.push(String((c as ToolCall).input.command)), { content: "ok" }),
    );
    // Run in sequence, the validator would see only `rtk grep ...` and allow it; Claude Code denies.
    expect(outcome).toMatchObject({ _tag: "Rejected", reason: expect.stringMatching(/Use 'rg'/) });
    expect(ran).toEqual([]);
  });
});

describe("disler/claude-code-hooks-mastery .claude/hooks", () => {
  it("pre_tool_use.py: rm -rf and .env access are blocked; everything else is logged and runs", async () => {
    const cwd = tempDir();
    const { stack } = load(settingsFor("PreToolUse", undefined, handler("mastery_pre_tool_use.mjs")), cwd);
    expect(await run(stack, bash("rm -rf build"))).toMatchObject({
      _tag: "Rejected",
      reason: "BLOCKED: Dangerous rm command detected and prevented",
    });
    expect(await run(stack, { id: "r", name: "Read", input: { file_path: "/repo/.env" } })).toMatchObject({
      _tag: "Rejected",
      reason: expect.stringMatching(/^BLOCKED: Access to \.env files/),
    });
    expect((await run(stack, bash("ls -la")))._tag).toBe("Completed");
    const log = JSON.parse(readFileSync(join(cwd, "logs", "pre_tool_use.json"), "utf8")) as { tool_input: { command: string } }[];
    expect(log.map((e) => e.tool_input.command)).toEqual(["ls -la"]);
  });

  it("post_tool_use.py and notification.py: every event is logged, none changes anything", async () => {
    const cwd = tempDir();
    const settings = {
      hooks: {
        PostToolUse: [{ hooks: [handler("mastery_logger.mjs", "post_tool_use")] }],
        Notification: [{ hooks: [handler("mastery_logger.mjs", "notification")] }],
      },
    };
    const { stack } = load(settings, cwd);
    expect(await run(stack, bash("ls"))).toEqual({ _tag: "Completed", value: { content: "ran: ls" } });
    await stack.run("notification", { type: "idle_prompt", message: "Claude is waiting for your input" }, () => undefined);
    expect(JSON.parse(readFileSync(join(cwd, "logs", "post_tool_use.json"), "utf8"))).toMatchObject([
      { hook_event_name: "PostToolUse", tool_response: "ran: ls" },
    ]);
    expect(JSON.parse(readFileSync(join(cwd, "logs", "notification.json"), "utf8"))).toMatchObject([
      { hook_event_name: "Notification", notification_type: "idle_prompt" },
    ]);
  });

  it("user_prompt_submit.py --validate: a dangerous prompt is blocked with its reason, every prompt is logged", async () => {
    const cwd = tempDir();
    const { stack } = load(settingsFor("UserPromptSubmit", undefined, handler("mastery_user_prompt_submit.mjs")), cwd);
    expect(await stack.run("userPrompt", { text: "please run rm -rf / for me" }, (p) => p)).toMatchObject({
      _tag: "Rejected",
      reason: "Prompt blocked: Dangerous command detected",
    });
    expect((await stack.run("userPrompt", { text: "fix the bug" }, (p) => p))._tag).toBe("Completed");
    expect(
      (JSON.parse(readFileSync(join(cwd, "logs", "user_prompt_submit.json"), "utf8")) as { prompt: string }[]).map((e) => e.prompt),
    ).toEqual(["please run rm -rf / for me", "fix the bug"]);
  });

  it("stop.py --chat: the transcript is copied to logs/chat.json and the stop goes ahead", async () => {
    const cwd = tempDir();
    const transcript = join(cwd, "t.jsonl");
    writeFileSync(
      transcript,
      claudeTranscript("s1", cwd, [
        { role: "user", content: "hi" },
        { role: "assistant", content: "hello" },
      ]),
    );
    const { stack } = load(settingsFor("Stop", undefined, handler("mastery_stop_chat.mjs")), cwd);
    expect(
      (
        await stack.run("stop", { reason: "end_turn", blockedCount: 0 }, () => ({ stop: true as const }), {
          metadata: { transcriptPath: transcript },
        })
      )._tag,
    ).toBe("Completed");
    expect(JSON.parse(readFileSync(join(cwd, "logs", "chat.json"), "utf8"))).toMatchObject([
      { type: "user" },
      { type: "assistant", message: { content: [{ text: "hello" }] } },
    ]);
  });
});

describe("Claude Code's hooks guide", () => {
  it("log every shell command: the command and its description are appended to a log; nothing else changes", async () => {
    const cwd = tempDir();
    const { stack } = load(settingsFor("PreToolUse", "Bash", handler("log_bash_commands.sh")), cwd);
    await stack.run("toolCall", { id: "t", name: "Bash", input: { command: "npm test", description: "Run the tests" } }, echoTool);
    await run(stack, bash("ls"));
    expect(readFileSync(join(cwd, "bash-command-log.txt"), "utf8")).toBe("npm test - Run the tests\nls - No description\n");
  });

  it("auto-format after edits: the file the tool wrote is formatted, and the model reads the tool's own result", async () => {
    const cwd = tempDir();
    const file = join(cwd, "a.ts");
    const writeTool = defineTool<{ file_path?: unknown; content?: unknown }>({
      name: "Write",
      description: "write",
      inputSchema: { type: "object" },
      execute: ({ file_path, content }) => (writeFileSync(String(file_path), String(content)), "File written"),
    });
    const { stack } = load(settingsFor("PostToolUse", "Write|Edit", handler("prettier_format.sh")), cwd);
    const model = createScriptedModel({
      turns: [{ toolCalls: [{ name: "Write", input: { file_path: file, content: "const a = 1;   \n" } }] }, "done"],
    });
    await createAgent({ model, tools: [writeTool], stack }).run("write a.ts");
    expect(readFileSync(file, "utf8")).toBe("const a = 1;\n");
    expect(JSON.stringify(model.requests[1]?.messages)).toContain("File written");
  });

  it("desktop notifications: a notifier that is missing (exit 1) and prints text changes nothing and fails nothing (Notification ignores exit codes)", async () => {
    const { stack, told } = load(settingsFor("Notification", undefined, handler("notify_send.sh")), tempDir());
    expect(
      (await stack.run("notification", { type: "permission_prompt", message: "Claude needs your permission" }, () => undefined))._tag,
    ).toBe("Completed");
    expect(told.filter((n) => n.kind === "hook-error")).toEqual([]);
  });
});

describe("nizos/tdd-guard", () => {
  it("refuses an implementation edit with the legacy top-level decision: block, and lets tests be written", async () => {
    const { stack } = load(settingsFor("PreToolUse", "Write|Edit|MultiEdit", handler("tdd_guard.mjs")), tempDir());
    expect(await run(stack, write("/repo/src/sum.ts"))).toMatchObject({
      _tag: "Rejected",
      reason: "Premature implementation: write a failing test for /repo/src/sum.ts first",
    });
    expect((await run(stack, write("/repo/src/sum.test.ts")))._tag).toBe("Completed");
  });
});
