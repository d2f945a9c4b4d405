/**
 * The `toolBatch` gate (Claude Code's PostToolBatch): once every tool call of a step has resolved,
 * before the next model call; its context reaches that call, and a refusal ends the run there.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAgent, createAgentStack, createScriptedModel, type ToolBatch } from "../../src/agent/index.ts";
import { Reject } from "../../src/core/index.ts";
import { fromClaudeSettings } from "../../src/executors/index.ts";
import { answer, on, settings } from "../support/claude-code/hooks.ts";
import { tempDir } from "../executors/helpers.ts";
import { bashTool, lines } from "./helpers.ts";

const twoCalls = () =>
  createScriptedModel({
    turns: [
      {
        toolCalls: [
          { name: "Bash", input: { command: "ls" }, id: "a" },
          { name: "Bash", input: { command: "pwd" }, id: "b" },
        ],
      },
      "Done.",
    ],
  });

describe("the toolBatch gate", () => {
  it("runs once per step, with every call and the result the model reads, after all of them resolved", async () => {
    const batches: ToolBatch[] = [];
    const ran: string[] = [];
    const stack = createAgentStack().use("toolBatch", { name: "see", before: (b) => void batches.push(b as ToolBatch) });

    await createAgent({ model: twoCalls(), stack, tools: [bashTool(ran)] }).run("go");

    expect(batches).toEqual([
      {
        calls: [
          { call: { id: "a", name: "Bash", input: { command: "ls" } }, result: { content: "ran: ls" } },
          { call: { id: "b", name: "Bash", input: { command: "pwd" } }, result: { content: "ran: pwd" } },
        ],
      },
    ]);
  });

  it("ends the run before the next model call when a hook refuses, the reason left in the conversation", async () => {
    const stack = createAgentStack().use("toolBatch", { name: "enough", before: () => Reject("Stop after listing.") });
    const model = twoCalls();

    const turn = await createAgent({ model, stack, tools: [bashTool()] }).run("go");

    expect(model.requests).toHaveLength(1);
    expect(turn).toMatchObject({ status: "completed", finishReason: "stopped-by-guard" });
    expect(turn.result?.stoppedBy).toEqual({ reason: "Stop after listing.", by: "enough", kind: "hook" });
    expect(lines(turn.result!.messages).at(-1)).toBe("system: Stop after listing.");
  });

  it("runs a PostToolBatch command hook with Claude Code's input, and its block ends the run", async () => {
    const dir = tempDir();
    const { stack } = fromClaudeSettings(
      settings(
        on(
          "PostToolBatch",
          undefined,
          answer({ save: "$CLAUDE_PROJECT_DIR/batch.json", out: { decision: "block", reason: "BATCH-BLOCK" } }),
        ),
      ),
      { cwd: dir, projectDir: dir },
    );

    const turn = await createAgent({ model: twoCalls(), stack, tools: [bashTool()] }).run("go");

    expect(turn.result?.stoppedBy).toMatchObject({ reason: "BATCH-BLOCK", kind: "hook" });
    expect(JSON.parse(readFileSync(join(dir, "batch.json"), "utf8"))).toMatchObject({
      hook_event_name: "PostToolBatch",
      tool_calls: [
        { tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "a", tool_response: "ran: ls" },
        { tool_name: "Bash", tool_input: { command: "pwd" }, tool_use_id: "b", tool_response: "ran: pwd" },
      ],
    });
  });
});
