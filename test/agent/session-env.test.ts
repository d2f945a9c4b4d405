/**
 * Claude Code's `CLAUDE_ENV_FILE` in the reference agent: what SessionStart hooks export there
 * reaches the session's later shell commands (through `ToolExecuteOptions.env` and `commandEnv`),
 * never a later hook's environment, and a SessionStart after a compaction may export more.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  commandEnv,
  createAgent,
  createScriptedModel,
  defineTool,
  summarizeOldest,
  type ToolExecuteOptions,
} from "../../src/agent/index.ts";
import { fromClaudeSettings } from "../../src/executors/index.ts";
import { on, settings, shell } from "../support/claude-code/hooks.ts";

/** A Bash tool as a user writes one: the commands run with the session's exported variables. */
const bash = (seen: ToolExecuteOptions[] = []) =>
  defineTool<{ command: string }>({
    name: "Bash",
    execute: ({ command }, options) => {
      seen.push(options);
      return execFileSync("bash", ["-c", command], { env: commandEnv(options), encoding: "utf8" }).trim();
    },
  });

const exporting = (line: string) => shell(`cat > /dev/null; echo '${line}' >> "$CLAUDE_ENV_FILE"`);
const echo = (variable: string) =>
  createScriptedModel({ turns: [{ toolCalls: [{ name: "Bash", input: { command: `echo "[$${variable}]"` } }] }, "Done."] });

describe("CLAUDE_ENV_FILE", () => {
  it("lets what SessionStart hooks export reach the session's later commands, through the tool's options", async () => {
    const seen: ToolExecuteOptions[] = [];
    const { stack } = fromClaudeSettings(
      settings(
        on("SessionStart", undefined, exporting("export RIG_STAGE=from-session-start"), exporting('export PATH="$PATH:/opt/rig/bin"')),
      ),
    );
    const model = echo("RIG_STAGE");
    const session = await createAgent({ model, stack, tools: [bash(seen)] }).session();

    await session.prompt("go");

    expect(model.requests[1]!.messages.at(-1)!.content).toBe("[from-session-start]");
    expect(seen[0]!.env).toEqual({ RIG_STAGE: "from-session-start", PATH: `${process.env.PATH}:/opt/rig/bin` });
    expect(seen[0]!.envFile).toMatch(/\.env\.sh$/);
    expect(session.env).toEqual(seen[0]!.env);
    await session.close();
  });

  it("is not given to later hooks: a UserPromptSubmit hook does not see the variable", async () => {
    const { stack } = fromClaudeSettings(
      settings(
        on("SessionStart", undefined, exporting("export RIG_SECRET_STAGE=1")),
        on("UserPromptSubmit", undefined, shell('cat > /dev/null; echo "hook saw [${RIG_SECRET_STAGE:-nothing}]"')),
      ),
    );
    const model = echo("RIG_SECRET_STAGE");

    await createAgent({ model, stack, tools: [bash()] }).run("go");

    expect(model.requests[0]!.messages.map((m) => m.content).join("\n")).toContain("hook saw [nothing]");
  });

  it("takes what a SessionStart after a compaction exports, for the commands after it", async () => {
    const { stack } = fromClaudeSettings(
      settings(
        on("SessionStart", "startup", exporting("export RIG_STAGE=startup")),
        on("SessionStart", "compact", exporting("export RIG_STAGE=after-compact")),
      ),
    );
    const model = createScriptedModel({
      turns: [],
      whenDone: (r) =>
        r.messages.at(-1)!.role === "user" ? { toolCalls: [{ name: "Bash", input: { command: 'echo "[$RIG_STAGE]"' } }] } : "ok",
    });
    const session = await createAgent({ model, stack, tools: [bash()], compact: summarizeOldest({ keep: 1 }) }).session();

    await session.prompt("before");
    await session.compact();
    await session.prompt("after");

    const results = model.requests
      .map((r) => r.messages.at(-1)!)
      .filter((m) => m.role === "tool")
      .map((m) => m.content);
    expect(results).toEqual(["[startup]", "[after-compact]"]);
    await session.close();
  });

  it("adds nothing when no hook exported anything", async () => {
    const seen: ToolExecuteOptions[] = [];
    const { stack } = fromClaudeSettings(settings(on("SessionStart", undefined, shell("cat > /dev/null"))));

    await createAgent({ model: echo("HOME"), stack, tools: [bash(seen)] }).run("go");

    expect(seen[0]!.env).toBeUndefined();
    expect(commandEnv(seen[0], { A: "1", B: undefined })).toEqual({ A: "1" });
  });
});
