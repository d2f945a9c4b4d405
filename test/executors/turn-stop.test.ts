/**
 * Which tool calls a `continue: false` stops, loaded from settings, run by real child processes,
 * inside a real agent loop: the call whose hook asked runs (as in Claude Code), a call that
 * already ran keeps its result, and a sub-agent the run started stops with it (but a sub-agent's
 * stop is its own). Files in a temp dir order the
 * calls, so no test depends on how fast a process starts.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.ts";
import type { LanguageModel } from "../../src/agent/model.ts";
import { createScriptedModel, type ScriptedAnswer } from "../../src/agent/scripted-model.ts";
import { defineTool } from "../../src/agent/tool.ts";
import type { Message, ModelRequest } from "../../src/agent/types.ts";
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
    PreToolUse: [
      {
        matcher: "Bash",
        hooks: [
          {
            type: "command",
            timeout: 20,
            command: `input=$(cat); case "$input" in ${Object.entries(cases)
              .map(([c, then]) => `*'"${c}"'*) ${then};;`)
              .join(" ")} *) exit 0;; esac`,
          },
        ],
      },
    ],
    ...more,
  },
});

/** A Bash tool that records what ran, running `steps[command]` first when there is one. */
const bashTool = (ran: string[], steps: Record<string, () => Promise<void>> = {}) =>
  defineTool<{ command?: unknown }>({
    name: "Bash",
    description: "run a command",
    inputSchema: { type: "object", properties: { command: { type: "string" } } },
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
    const model = createScriptedModel({
      turns: [
        {
          toolCalls: [
            { name: "Bash", input: { command: "make" } },
            { name: "Bash", input: { command: "slow" } },
          ],
        },
        "all done",
      ],
    });
    const turn = await createAgent({ model, tools: [bash], stack: fromClaudeSettings(settings, { cwd: "/tmp" }).stack }).run("build");
    expect(ran).toEqual(["make", "slow"]);
    expect(turn).toMatchObject({ finishReason: "stopped-by-guard", result: { stoppedBy: { reason: "stop now" } } });
    expect(model.requests).toHaveLength(1);
    expect(toolResults(turn.result?.messages)[1]).toMatchObject({ content: "output of slow" });
    expect(toolResults(turn.result?.messages)[1]?.isError).toBeFalsy();
  });
});

/** A model for a parent and its `helper` sub-agent (whose prompt is "sub-task"): each answers from its own list, by how many answers it gave before. */
type Script = readonly (string | ScriptedAnswer)[];
const parentAndHelper = (parent: Script, helper: Script) => {
  const answer = (script: Script, request: ModelRequest) => script[request.messages.filter((m) => m.role === "assistant").length] ?? "done";
  return createScriptedModel({
    turns: [],
    whenDone: (request) => answer(request.messages[0]?.content === "sub-task" ? helper : parent, request),
  });
};
const calls = (...commands: string[]) => ({
  toolCalls: commands.map((command) =>
    command === "helper" ? { name: "helper", input: { prompt: "sub-task" } } : { name: "Bash", input: { command } },
  ),
});

/** The parent's `make` asks to stop while the sub-agent's `first` runs; what the sub-agent asks for after comes after the stop. */
const parentStopsWhileSubagentRuns = () => {
  const dir = tempDir();
  const ran: string[] = [];
  const bash = bashTool(ran, {
    first: async () => {
      writeFileSync(join(dir, "first-running"), "");
      await eventually(() => existsSync(join(dir, "stopped")), 10_000);
      await sleep(300);
    },
  });
  const settings = preToolUse({ make: `while [ ! -e '${dir}/first-running' ]; do sleep 0.02; done; ${stopping}; touch '${dir}/stopped'` });
  return { ran, bash, settings };
};

describe("continue: false and sub-agents", () => {
  it("a sub-agent the run started runs no tool call after the run asked to stop", async () => {
    const { ran, bash, settings } = parentStopsWhileSubagentRuns();
    const model = parentAndHelper([calls("make", "helper"), "parent done"], [calls("first"), calls("second"), "helper done"]);
    const agent = createAgent({
      model,
      tools: [bash],
      subagents: [{ name: "helper", tools: [bash] }],
      stack: fromClaudeSettings(settings, { cwd: "/tmp" }).stack,
    });
    const turn = await agent.run("build");
    expect(ran).toEqual(["make", "first"]);
    expect(turn).toMatchObject({ finishReason: "stopped-by-guard", result: { stoppedBy: { reason: "stop now" } } });
  });

  it("a sub-agent the run started asks its model nothing more after the run asked to stop", async () => {
    const { ran, bash, settings } = parentStopsWhileSubagentRuns();
    const scripted = parentAndHelper(
      [calls("make", "helper"), "parent done"],
      [calls("first"), calls("second"), calls("third"), "helper done"],
    );
    let helperRequests = 0;
    const model: LanguageModel = {
      id: scripted.id,
      generate: (request, options) => {
        if (request.messages[0]?.content === "sub-task") helperRequests++;
        return scripted.generate(request, options);
      },
    };
    const agent = createAgent({
      model,
      tools: [bash],
      subagents: [{ name: "helper", tools: [bash] }],
      stack: fromClaudeSettings(settings, { cwd: "/tmp" }).stack,
    });
    const turn = await agent.run("build");
    expect(ran).toEqual(["make", "first"]);
    expect(helperRequests).toBe(1);
    expect(turn).toMatchObject({ finishReason: "stopped-by-guard" });
  });

  it("a sub-agent's own stop does not refuse its parent's calls", async () => {
    const dir = tempDir();
    const ran: string[] = [];
    // The sub-agent's `stop-me` asks to stop while its `hold` keeps it running; the parent's
    // `late` is allowed after that, and `hold` waits for `late` to run (or 5 s).
    const bash = bashTool(ran, {
      hold: async () => {
        writeFileSync(join(dir, "hold-running"), "");
        await eventually(() => existsSync(join(dir, "late-ran")), 5_000);
      },
      late: async () => writeFileSync(join(dir, "late-ran"), ""),
    });
    const settings = preToolUse({
      "stop-me": `while [ ! -e '${dir}/hold-running' ]; do sleep 0.02; done; ${stopping}; touch '${dir}/sub-stopped'`,
      late: `while [ ! -e '${dir}/sub-stopped' ]; do sleep 0.02; done; sleep 0.3; exit 0`,
    });
    const model = parentAndHelper([calls("helper", "late"), "parent done"], [calls("stop-me", "hold"), "helper done"]);
    const agent = createAgent({
      model,
      tools: [bash],
      subagents: [{ name: "helper", tools: [bash] }],
      stack: fromClaudeSettings(settings, { cwd: "/tmp" }).stack,
    });
    const turn = await agent.run("build");
    expect(ran).toEqual(["stop-me", "late", "hold"]);
    expect(turn).toMatchObject({ finishReason: "stop", text: "parent done" });
  });
});
