/**
 * What a hook gets besides the event, as Claude Code gives it: the environment (all of it by
 * default from settings, an allowlist on request), Claude Code's variables, `CLAUDE_ENV_FILE`
 * on SessionStart (whose exports reach later commands through the session's info), and a
 * `transcript_path` that always names a readable file. Real child processes report what they got.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionInfo } from "../../src/agent/types.ts";
import { commandHook } from "../../src/executors/command.ts";
import { fromClaudeSettings, type ClaudeSettingsOptions } from "../../src/executors/settings.ts";
import { bash, node, tempDir } from "./helpers.ts";
import { agentStack } from "./stack-helpers.ts";

const dump = (file: string) => ({ type: "command", ...node("env-to-file.mjs", file) });
const readEnv = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, string>;

beforeEach(() => {
  process.env.AGENT_ONION_TEST_TOKEN = "from-the-parent";
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = "http://collector.invalid";
});
afterEach(() => {
  delete process.env.AGENT_ONION_TEST_TOKEN;
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
});

/** Run one PreToolUse and one UserPromptSubmit hook that write their environment; return both. */
const environments = async (options: ClaudeSettingsOptions = {}) => {
  const dir = tempDir();
  const settings = {
    hooks: { PreToolUse: [{ hooks: [dump(join(dir, "tool.json"))] }], UserPromptSubmit: [{ hooks: [dump(join(dir, "prompt.json"))] }] },
  };
  const { stack } = fromClaudeSettings(settings, { cwd: dir, projectDir: "/repo", onNotice: () => {}, ...options });
  const run = { sessionId: "session-42", metadata: { effort: "high" } };
  await stack.run("toolCall", bash("ls"), () => ({ content: "ok" }), run);
  await stack.run("userPrompt", { text: "hi" }, (p) => p, run);
  return { tool: readEnv(join(dir, "tool.json")), prompt: readEnv(join(dir, "prompt.json")) };
};

describe("the environment of a command hook loaded from settings", () => {
  it("is ours, whole, as Claude Code gives its own, without OpenTelemetry exporter settings", async () => {
    const { tool } = await environments();
    expect(tool.AGENT_ONION_TEST_TOKEN).toBe("from-the-parent");
    expect(tool.OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    expect(tool.PATH).toBe(process.env.PATH);
  });

  it("carries Claude Code's variables: CLAUDECODE, CLAUDE_CODE_SESSION_ID, CLAUDE_PROJECT_DIR, CLAUDE_PID, and CLAUDE_EFFORT on tool events only", async () => {
    const { tool, prompt } = await environments();
    expect(tool).toMatchObject({
      CLAUDECODE: "1",
      CLAUDE_CODE_SESSION_ID: "session-42",
      CLAUDE_PROJECT_DIR: "/repo",
      CLAUDE_PID: String(process.pid),
      CLAUDE_EFFORT: "high",
    });
    expect(prompt).toMatchObject({ CLAUDECODE: "1", CLAUDE_CODE_SESSION_ID: "session-42" });
    expect(prompt.CLAUDE_EFFORT).toBeUndefined();
    expect(tool.CLAUDE_ENV_FILE).toBeUndefined();
  });

  it('is the allowlist, with Claude Code\'s variables, with environment: "allowlist" (or allowedEnvVars)', async () => {
    for (const options of [{ environment: "allowlist" as const }, { allowedEnvVars: ["LANG"] }]) {
      const { tool } = await environments(options);
      expect(tool.AGENT_ONION_TEST_TOKEN).toBeUndefined();
      expect(tool).toMatchObject({ CLAUDECODE: "1", CLAUDE_PROJECT_DIR: "/repo", PATH: process.env.PATH });
    }
  });

  it("is the allowlist for a commandHook used directly, unless it asks to inherit", async () => {
    const dir = tempDir();
    const run = async (environment?: "inherit") => {
      const file = join(dir, `${environment ?? "default"}.json`);
      await agentStack()
        .use("toolCall", commandHook({ event: "PreToolUse", ...node("env-to-file.mjs", file), ...(environment ? { environment } : {}) }))
        .run("toolCall", bash("ls"), () => ({ content: "ok" }));
      return readEnv(file);
    };
    expect((await run()).AGENT_ONION_TEST_TOKEN).toBeUndefined();
    expect((await run("inherit")).AGENT_ONION_TEST_TOKEN).toBe("from-the-parent");
  });
});

describe("CLAUDE_ENV_FILE", () => {
  it("is given to SessionStart hooks, and the variables they export are on the session's info for later commands", async () => {
    const dir = tempDir();
    const exports = `echo 'export NODE_ENV=production' >> "$CLAUDE_ENV_FILE"; echo 'export PATH="$PATH:${dir}/bin"' >> "$CLAUDE_ENV_FILE"`;
    const settings = {
      hooks: {
        SessionStart: [
          {
            hooks: [
              { type: "command", command: exports },
              { type: "command", command: `echo 'export DEBUG_LOG=true' >> "$CLAUDE_ENV_FILE"` },
            ],
          },
        ],
      },
    };
    const { stack } = fromClaudeSettings(settings, { cwd: dir, onNotice: () => {} });
    const outcome = await stack.run("sessionStart", { sessionId: "s-env", source: "startup" }, (s) => ({ sessionId: s.sessionId }));
    expect(outcome._tag).toBe("Completed");
    const info = (outcome as { value: SessionInfo }).value;
    expect(info.env).toEqual({ NODE_ENV: "production", DEBUG_LOG: "true", PATH: `${process.env.PATH}:${dir}/bin` });
    expect(info.envFile && readFileSync(info.envFile, "utf8")).toMatch(/export NODE_ENV=production/);
  });

  it("goes where the envFile option says, per session, and leaves the session's info alone when nothing was written", async () => {
    const dir = tempDir();
    const settings = { hooks: { SessionStart: [{ hooks: [{ type: "command", command: 'echo "$CLAUDE_ENV_FILE" > /dev/null' }] }] } };
    const { stack } = fromClaudeSettings(settings, { cwd: dir, envFile: (id) => join(dir, `${id}.sh`), onNotice: () => {} });
    const outcome = await stack.run("sessionStart", { sessionId: "quiet", source: "startup" }, (s) => ({ sessionId: s.sessionId }));
    expect(outcome).toEqual({ _tag: "Completed", value: { sessionId: "quiet" } });
  });
});

describe("CLAUDE_ENV_FILE, written by a hook that may be hostile", () => {
  const writes = (dir: string) =>
    `cat >> "$CLAUDE_ENV_FILE" <<'EOF'
export SEEN="$AGENT_ONION_TEST_TOKEN"
touch "${dir}/ran-with-[$AGENT_ONION_TEST_TOKEN]"
EOF`;
  const start = async (stack: ReturnType<typeof agentStack>, run?: { signal?: AbortSignal }) =>
    stack.run("sessionStart", { sessionId: `s-${Math.random()}`, source: "startup" }, (s) => ({ sessionId: s.sessionId }), run);

  it("is read with the environment the hook was given, so an allowlisted hook cannot reach a secret through it", async () => {
    const dir = tempDir();
    const hook = commandHook({ event: "SessionStart", command: writes(dir), timeoutMs: 5000, onNotice: () => {} });
    const outcome = await start(agentStack().use("sessionStart", hook));
    expect((outcome as { value: SessionInfo }).value.env).toEqual({ SEEN: "" });
    expect(existsSync(join(dir, "ran-with-[]"))).toBe(true);
    expect(existsSync(join(dir, "ran-with-[from-the-parent]"))).toBe(false);
  });

  it("is read with the allowlist when settings ask for one, and with the whole environment by default, as Claude Code reads it", async () => {
    for (const [options, seen] of [
      [{ environment: "allowlist" as const }, ""],
      [{}, "from-the-parent"],
    ] as const) {
      const dir = tempDir();
      const settings = { hooks: { SessionStart: [{ hooks: [{ type: "command", command: writes(dir) }] }] } };
      const { stack } = fromClaudeSettings(settings, { cwd: dir, onNotice: () => {}, ...options });
      const outcome = await start(stack as never);
      expect((outcome as { value: SessionInfo }).value.env).toEqual({ SEEN: seen });
    }
  });
});

describe("transcript_path", () => {
  const recordEvent = (file: string) => ({ hooks: { PreToolUse: [{ hooks: [{ type: "command", ...node("record-event.mjs", file) }] }] } });

  it("names the run's transcript when it has one", async () => {
    const dir = tempDir();
    const { stack } = fromClaudeSettings(recordEvent(join(dir, "event.json")), { cwd: dir });
    await stack.run("toolCall", bash("ls"), () => ({ content: "ok" }), { metadata: { transcriptPath: "/sessions/s1.jsonl" } });
    expect(JSON.parse(readFileSync(join(dir, "event.json"), "utf8")).transcript_path).toBe("/sessions/s1.jsonl");
  });

  it("names an empty JSONL file when the run has none, so scripts that read it find no conversation rather than no file", async () => {
    const dir = tempDir();
    const { stack } = fromClaudeSettings(recordEvent(join(dir, "event.json")), { cwd: dir });
    await stack.run("toolCall", bash("ls"), () => ({ content: "ok" }), { sessionId: "no-transcript" });
    const path = JSON.parse(readFileSync(join(dir, "event.json"), "utf8")).transcript_path as string;
    expect(existsSync(path)).toBe(true);
    expect(readFileSync(path, "utf8")).toBe("");
  });

  it("comes from the transcriptPath option, per session, and the event carries effort on tool events", async () => {
    const dir = tempDir();
    const { stack } = fromClaudeSettings(recordEvent(join(dir, "event.json")), {
      cwd: dir,
      transcriptPath: (id) => `/sessions/${id}.jsonl`,
      effort: "medium",
    });
    await stack.run("toolCall", bash("ls"), () => ({ content: "ok" }), { sessionId: "s7" });
    expect(JSON.parse(readFileSync(join(dir, "event.json"), "utf8"))).toMatchObject({
      transcript_path: "/sessions/s7.jsonl",
      effort: { level: "medium" },
    });
  });
});
