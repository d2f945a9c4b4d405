/**
 * Which tool calls a `continue: false` stops, loaded from settings, run by real child processes,
 * inside a real agent loop: a call that already ran keeps its result. Files in a temp dir order
 * the calls, so no test depends on how fast a process starts.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.ts";
import { createScriptedModel } from "../../src/agent/scripted-model.ts";
import { defineTool } from "../../src/agent/tool.ts";
import type { Message } from "../../src/agent/types.ts";
import { fromClaudeSettings } from "../../src/executors/settings.ts";
import { eventually, existsSync, tempDir } from "./helpers.ts";

const stopping = `echo '${JSON.stringify({ continue: false, stopReason: "stop now" })}'`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A PreToolUse hook per command (`case` patterns on its stdin, which holds the call's input);
 * any other command is allowed at once.
 */
const preToolUse = (cases: Record<string, string>, more: object = {}) => ({
  hooks: {
    PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", timeout: 20, command: `input=$(cat); case "$input" in ${Object.entries(cases).map(([c, then]) => `*'"${c}"'*) ${then};;`).join(" ")} *) exit 0;; esac` }] }],
    ...more,
  },
});

/** A Bash tool that records what ran, running `steps[command]` first when there is one. */
const bashTool = (ran: string[], steps: Record<string, () => Promise<void>> = {}) =>
  defineTool<{ command?: unknown }>({
    name: "Bash", description: "run a command", inputSchema: { type: "object", properties: { command: { type: "string" } } },
    execute: async ({ command }) => {
      await steps[String(command)]?.();
      ran.push(String(command));
      return `output of ${String(command)}`;
    },
  });

const toolResults = (messages: readonly Message[] | undefined) => (messages ?? []).filter((m) => m.role === "tool");

describe("after continue: false, a call that already ran", () => {
  it("keeps its real result: a PostToolUse hook's allow is not turned into a refusal", async () => {
    const dir = tempDir();
    const ran: string[] = [];
    // `make` asks to stop while `slow`, already past its PreToolUse hook, runs.
    const bash = bashTool(ran, {
      slow: async () => {
        writeFileSync(join(dir, "slow-running"), "");
        await eventually(() => existsSync(join(dir, "stopped")), 10_000);
        await sleep(300);
      },
    });
    const settings = preToolUse(
      { make: `while [ ! -e '${dir}/slow-running' ]; do sleep 0.02; done; ${stopping}; touch '${dir}/stopped'` },
      { PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "exit 0" }] }] },
    );
    const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "Bash", input: { command: "make" } }, { name: "Bash", input: { command: "slow" } }] }, "all done"] });
    const turn = await createAgent({ model, tools: [bash], stack: fromClaudeSettings(settings, { cwd: "/tmp" }).stack }).run("build");
    expect(ran).toEqual(["slow"]);
    expect(turn).toMatchObject({ finishReason: "stopped-by-guard", result: { stoppedBy: { reason: "stop now" } } });
    expect(model.requests).toHaveLength(1);
    expect(toolResults(turn.result?.messages)[1]).toMatchObject({ content: "output of slow" });
    expect(toolResults(turn.result?.messages)[1]?.isError).toBeFalsy();
  });
});
