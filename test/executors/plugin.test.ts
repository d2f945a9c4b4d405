/**
 * Claude Code plugins loaded with `fromClaudePlugin`: two test plugins laid out like Anthropic's
 * security-guidance and hookify (test/fixtures/plugins), whose scripts speak their protocol
 * (exit 2 reminders, `metrics`, `rewakeMessage`, `permissionDecision` on PostToolUse, a Stop gate
 * that reads the transcript), run as real child processes.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.ts";
import { createScriptedModel } from "../../src/agent/scripted-model.ts";
import { defineTool } from "../../src/agent/tool.ts";
import type { StopRequest, ToolCall } from "../../src/agent/types.ts";
import { fromClaudePlugin, fromClaudeSettings } from "../../src/executors/settings.ts";
import { echoTool, fixture, node, notices, tempDir } from "./helpers.ts";
import { claudeTranscript } from "./transcript.ts";

const securityGuidance = fixture("plugins", "security-guidance");
const hookify = fixture("plugins", "hookify");
const write = (file_path: string, content: string, id = "toolu_w"): ToolCall => ({ id, name: "Write", input: { file_path, content } });
const bashCall = (command: string): ToolCall => ({ id: "toolu_b", name: "Bash", input: { command } });

describe("a plugin laid out as security-guidance", () => {
  const load = (cwd: string, onNotice = notices().sink) =>
    fromClaudePlugin({ dir: securityGuidance, dataDir: join(cwd, "data") }, { cwd, onNotice });

  it("loads its hooks.json, rewakeMessage and rewakeSummary included, each hook named after the plugin", () => {
    const { hooks, warnings, unused } = load(tempDir());
    expect(unused).toEqual([]);
    expect(warnings).toEqual([]);
    expect(hooks.map((h) => [h.name, h.plugin, h.match])).toEqual([
      ["security-guidance:PreToolUse:command:security_reminder_hook.mjs", "security-guidance", "Edit|Write|MultiEdit"],
      ["security-guidance:PreToolUse:command:git_pre_commit_hook.mjs", "security-guidance", "Bash"],
      ["security-guidance:Stop:command:review_on_stop.mjs", "security-guidance", undefined],
    ]);
  });

  it("blocks the first risky edit of a file with its reminder, lets it through the second time, and reads a metrics answer as an allow", async () => {
    const cwd = tempDir();
    const n = notices();
    const { stack } = load(cwd, n.sink);
    const file = join(cwd, "app.js");
    expect(await stack.run("toolCall", write(file, "eval(input)"), echoTool, { sessionId: "s1" })).toMatchObject({
      _tag: "Rejected",
      reason: "Security Warning: eval() executes arbitrary code and is a major security risk.",
    });
    expect((await stack.run("toolCall", write(file, "eval(input)"), echoTool, { sessionId: "s1" }))._tag).toBe("Completed");
    expect((await stack.run("toolCall", write(file, "const a = 1"), echoTool, { sessionId: "s1" }))._tag).toBe("Completed");
    expect(n.list.filter((x) => x.kind === "ignored").map((x) => x.message)).toEqual([
      "metrics: not a field Claude Code reads on PreToolUse",
      "metrics: not a field Claude Code reads on PreToolUse",
    ]);
    expect(n.list.filter((x) => x.kind === "hook-error")).toEqual([]);
  });

  it("denies a git commit whose staged changes hold an AWS access key id, and lets a clean one through", async () => {
    const repo = tempDir("repo-");
    const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd: repo });
    git("init", "-q");
    writeFileSync(join(repo, "config.py"), 'KEY = "AKIAIOSFODNN7EXAMPLE"\n');
    git("add", "config.py");
    const { stack } = load(repo);
    const commit = await stack.run("toolCall", bashCall("git commit -m 'add config'"), echoTool, { metadata: { cwd: repo } });
    expect(commit).toMatchObject({ _tag: "Rejected", reason: "Commit blocked: 1 staged line(s) hold an AWS access key id" });
    writeFileSync(join(repo, "config.py"), 'KEY = os.environ["KEY"]\n');
    git("add", "config.py");
    expect((await stack.run("toolCall", bashCall("git commit -m 'add config'"), echoTool, { metadata: { cwd: repo } }))._tag).toBe(
      "Completed",
    );
  });

  it("runs its asyncRewake Stop hook in the background: the stop goes ahead, and its findings are told after", async () => {
    const n = notices();
    const { stack } = load(tempDir(), n.sink);
    const stop: StopRequest = { reason: "end_turn", blockedCount: 0, lastMessage: "Use eval() to parse it." };
    expect((await stack.run("stop", stop, () => ({ stop: true as const })))._tag).toBe("Completed");
    await stack.flush();
    expect(n.list).toMatchObject([{ kind: "background-result", message: "review: the final answer suggests eval()" }]);
  });
});

describe("a plugin laid out as hookify", () => {
  /** A project with hookify rules in .claude/hookify.*.local.md, as hookify's /hookify command writes them. */
  const project = (withStopRule = true) => {
    const cwd = tempDir("project-");
    mkdirSync(join(cwd, ".claude"));
    const rule = (name: string, front: Record<string, string>, message: string) =>
      writeFileSync(
        join(cwd, ".claude", `hookify.${name}.local.md`),
        `---\nname: ${name}\nenabled: true\n${Object.entries(front)
          .map(([k, v]) => `${k}: ${v}`)
          .join("\n")}\n---\n${message}\n`,
      );
    rule("block-rm", { event: "bash", pattern: "rm\\s+-rf", action: "block" }, "Destructive rm -rf is blocked.");
    rule("ask-push", { event: "bash", pattern: "git\\s+push", action: "ask" }, "Pushing needs a person.");
    rule("no-debugger", { event: "file", pattern: "debugger", action: "block" }, "Remove the debugger statement.");
    if (withStopRule)
      rule(
        "require-tests",
        { event: "stop", field: "transcript", pattern: "^(?![\\s\\S]*npm test)", action: "block" },
        "Run npm test before stopping.",
      );
    return cwd;
  };

  it("denies rm -rf with its JSON permissionDecision, asks a person about git push, and tells the user the rule's message", async () => {
    const cwd = project();
    const n = notices();
    const asked: string[] = [];
    const { stack } = fromClaudePlugin(hookify, {
      cwd,
      onNotice: n.sink,
      stackOptions: { approval: (r) => (asked.push(String(r.reason ?? "")), { decision: "deny", reason: "not now" }) },
    });
    expect(await stack.run("toolCall", bashCall("rm -rf build"), echoTool)).toMatchObject({
      _tag: "Rejected",
      reason: 'blocked by hook "hookify:PreToolUse:command:pretooluse.mjs"',
    });
    expect(n.list).toContainEqual(
      expect.objectContaining({ kind: "systemMessage", message: "**[block-rm]**\nDestructive rm -rf is blocked." }),
    );
    expect(await stack.run("toolCall", bashCall("git push origin main"), echoTool)).toMatchObject({ _tag: "Rejected", reason: "not now" });
    expect(asked).toEqual([""]);
    expect((await stack.run("toolCall", bashCall("ls"), echoTool))._tag).toBe("Completed");
  });

  it("on PostToolUse, its deny cannot undo the write: the model reads the tool's output and the block beside it", async () => {
    const cwd = project(false);
    const written: string[] = [];
    const writeTool = defineTool<{ file_path?: unknown; content?: unknown }>({
      name: "Write",
      description: "write a file",
      inputSchema: { type: "object" },
      execute: ({ file_path, content }) => (
        writeFileSync(String(file_path), String(content)), written.push(String(file_path)), `wrote ${String(file_path)}`
      ),
    });
    const file = join(cwd, "app.js");
    const model = createScriptedModel({
      turns: [{ toolCalls: [{ name: "Write", input: { file_path: file, content: "debugger;" } }] }, "done"],
    });
    const loaded = fromClaudePlugin(hookify, { cwd, onNotice: () => {} });
    // The PreToolUse rule would refuse the write first; this test is about what PostToolUse answers.
    const pre = loaded.hooks.find((h) => h.event === "PreToolUse")!.hook;
    const turn = await createAgent({ model, tools: [writeTool], stack: loaded.stack.without(pre) }).run("write it");
    expect(written).toEqual([file]);
    const sent = JSON.stringify(model.requests[1]?.messages);
    expect(sent).toContain(`wrote ${file}`);
    expect(sent).toContain('blocked by hook \\"hookify:PostToolUse:command:posttooluse.mjs\\"');
    expect(sent).not.toMatch(/was rejected/);
    expect(turn.status).toBe("completed");
  });

  it("its Stop gate reads the transcript: it keeps the agent going until the transcript shows npm test ran", async () => {
    const cwd = project();
    const { stack } = fromClaudePlugin(hookify, { cwd, onNotice: () => {} });
    const transcript = join(cwd, "transcript.jsonl");
    const stop: StopRequest = { reason: "end_turn", blockedCount: 0, lastMessage: "Done." };
    const ask = () =>
      stack.run("stop", stop, () => ({ stop: true as const }), { sessionId: "s1", metadata: { transcriptPath: transcript } });
    writeFileSync(
      transcript,
      claudeTranscript("s1", cwd, [
        { role: "user", content: "fix the bug" },
        { role: "assistant", content: "Fixed it." },
      ]),
    );
    expect(await ask()).toMatchObject({ _tag: "Rejected", reason: "**[require-tests]**\nRun npm test before stopping." });
    writeFileSync(
      transcript,
      claudeTranscript("s1", cwd, [
        { role: "user", content: "fix the bug" },
        { role: "assistant", content: "Running the tests.", toolCalls: [{ id: "toolu_1", name: "Bash", input: { command: "npm test" } }] },
        { role: "tool", content: "4 passing", toolCallId: "toolu_1", toolName: "Bash" },
        { role: "assistant", content: "Fixed it; the tests pass." },
      ]),
    );
    expect((await ask())._tag).toBe("Completed");
  });

  it("sets CLAUDE_PLUGIN_ROOT for its own hooks alone: a settings hook beside them does not get it", async () => {
    const cwd = project();
    const out = join(cwd, "env.json");
    const settings = { hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", ...node("env-to-file.mjs", out) }] }] } };
    const { stack, hooks } = fromClaudeSettings(settings, { cwd, plugins: [hookify], onNotice: () => {} });
    // One hook of the stack runs both, Claude Code's way.
    expect(new Set(hooks.filter((h) => h.event === "UserPromptSubmit").map((h) => h.hook))).toEqual(
      new Set(["claude-settings:UserPromptSubmit"]),
    );
    expect((await stack.run("userPrompt", { text: "hello" }, (p) => p))._tag).toBe("Completed");
    const { readFileSync } = await import("node:fs");
    const env = JSON.parse(readFileSync(out, "utf8")) as Record<string, string>;
    expect(env.CLAUDE_PLUGIN_ROOT).toBeUndefined();
  });

  it("copied into settings without a plugin root, its scripts cannot start (exit 1), and each failure is told, never silent", async () => {
    const n = notices();
    const { stack } = fromClaudeSettings([join(hookify, "hooks", "hooks.json")], { cwd: project(), onNotice: n.sink });
    expect((await stack.run("toolCall", bashCall("rm -rf build"), echoTool))._tag).toBe("Completed");
    expect(n.list.map((x) => `${x.kind}: ${x.message}`)).toEqual([
      "hook-error: exited with code 1: Error: Cannot find module '/hooks/pretooluse.mjs' (let through)",
      "hook-error: exited with code 1: Error: Cannot find module '/hooks/posttooluse.mjs' (let through)",
    ]);
  });
});

describe("a plugin whose hooks use what agent-onion does not supply", () => {
  it("warns about ${user_config.*} when loaded, naming the hook", () => {
    const dir = tempDir("plugin-");
    mkdirSync(join(dir, "hooks"));
    writeFileSync(
      join(dir, "hooks", "hooks.json"),
      JSON.stringify({
        hooks: {
          Stop: [
            { hooks: [{ type: "command", command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/notify.js", "${user_config.webhook_url}"] }] },
          ],
        },
      }),
    );
    const { warnings } = fromClaudePlugin(dir, { cwd: dir });
    expect(warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/\$\{user_config\.\*\} is a plugin option agent-onion does not supply/),
    ]);
  });

  it("says when a directory holds no hooks at all", () => {
    const { hooks, warnings } = fromClaudePlugin(tempDir("empty-plugin-"), {});
    expect(hooks).toEqual([]);
    expect(warnings.map((w) => w.message)).toEqual(["the plugin has no hooks (no hooks/hooks.json, and its plugin.json names none)"]);
  });
});
