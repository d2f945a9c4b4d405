/**
 * What the real Claude Code gives a command hook besides its input, observed with the pinned
 * version: the environment (its own, whole, plus variables of its own), CLAUDE_ENV_FILE on
 * SessionStart, and the transcript that transcript_path names.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { it } from "vitest";
import { on, settings, shell } from "../../support/claude-code/hooks.ts";
import { bashTurn, runClaudeCode } from "../../support/claude-code/run-claude-code.ts";
import { describeClaudeCode } from "../../support/claude-code/suite.ts";

/** Save the hook's input and environment as <name>.json and <name>.env in the project. */
const dump = (name: string, extra = "") =>
  shell(`cat > "$CLAUDE_PROJECT_DIR/${name}.json"; env -0 > "$CLAUDE_PROJECT_DIR/${name}.env"${extra}`);
const envOf = (project: string, name: string): Record<string, string> =>
  Object.fromEntries(
    readFileSync(join(project, `${name}.env`), "utf8")
      .split("\0")
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
  );
const inputOf = (project: string, name: string) =>
  JSON.parse(readFileSync(join(project, `${name}.json`), "utf8")) as Record<string, unknown>;

describeClaudeCode("what a hook gets besides its input", () => {
  it.concurrent("Claude Code's whole environment, secrets included, plus CLAUDECODE, CLAUDE_CODE_SESSION_ID, CLAUDE_PID, CLAUDE_PROJECT_DIR; CLAUDE_EFFORT on tool and stop events; CLAUDE_ENV_FILE on SessionStart only", async ({
    expect,
  }) => {
    const run = await runClaudeCode({
      settings: settings(
        on("SessionStart", undefined, dump("session-start", '; echo "export RIG_FROM_ENV_FILE=exported" >> "$CLAUDE_ENV_FILE"')),
        on("UserPromptSubmit", undefined, dump("prompt")),
        on("PreToolUse", "Bash", dump("pre-tool-use")),
        on("Stop", undefined, dump("stop")),
      ),
      env: { RIG_MARKER: "from-the-shell" },
      turns: [bashTurn('echo "$RIG_FROM_ENV_FILE $CLAUDE_EFFORT" > bash-saw.txt'), "Done."],
    });
    const events = ["session-start", "prompt", "pre-tool-use", "stop"];
    for (const name of events) {
      const env = envOf(run.project, name);
      const input = inputOf(run.project, name);
      expect(env).toMatchObject({
        CLAUDECODE: "1",
        CLAUDE_CODE_SESSION_ID: input.session_id,
        CLAUDE_PROJECT_DIR: run.project,
        RIG_MARKER: "from-the-shell",
        ANTHROPIC_API_KEY: "sk-ant-api03-offline-rig-key",
        HOME: run.home,
      });
      expect(env.CLAUDE_PID).toMatch(/^\d+$/);
      expect(env.RIG_FROM_ENV_FILE).toBeUndefined();
    }
    expect(envOf(run.project, "session-start").CLAUDE_ENV_FILE).toMatch(new RegExp(`^${run.home}/\\.claude/session-env/.+\\.sh$`));
    for (const name of ["prompt", "pre-tool-use", "stop"]) expect(envOf(run.project, name).CLAUDE_ENV_FILE).toBeUndefined();
    expect(envOf(run.project, "session-start").CLAUDE_EFFORT).toBeUndefined();
    expect(envOf(run.project, "prompt").CLAUDE_EFFORT).toBeUndefined();
    expect(envOf(run.project, "pre-tool-use").CLAUDE_EFFORT).toBe("medium");
    expect(envOf(run.project, "stop").CLAUDE_EFFORT).toBe("medium");
    // The SessionStart hook's export reached the Bash command, never a later hook.
    expect(readFileSync(join(run.project, "bash-saw.txt"), "utf8")).toBe("exported medium\n");
  });

  it.concurrent("transcript_path: Claude Code's JSONL of the session, holding the turn's user and assistant lines by the time Stop runs", async ({
    expect,
  }) => {
    const run = await runClaudeCode({
      settings: settings(on("Stop", undefined, shell('cp "$(jq -r .transcript_path)" "$CLAUDE_PROJECT_DIR/transcript.jsonl"'))),
      turns: [bashTurn("echo hi"), "All done."],
    });
    const lines = readFileSync(join(run.project, "transcript.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const types = new Set(lines.map((l) => l.type));
    for (const type of ["user", "assistant", "attachment"]) expect(types).toContain(type);
    const assistant = lines.filter((l) => l.type === "assistant");
    expect(assistant.at(-1)).toMatchObject({ message: { role: "assistant", content: [{ type: "text", text: "All done." }] } });
    expect(lines.find((l) => l.type === "user")).toMatchObject({
      message: { role: "user", content: "Run the task." },
      sessionId: expect.any(String),
      uuid: expect.any(String),
    });
    expect(lines.find((l) => (l.toolUseResult as object | undefined) !== undefined)).toMatchObject({
      toolUseResult: { stdout: "hi", stderr: "" },
    });
  });
});
