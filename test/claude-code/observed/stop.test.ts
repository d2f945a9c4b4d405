/**
 * Stop hooks in the real Claude Code, observed with the pinned version: how often a Stop hook may
 * block in a row, what the model reads when it does, and what the hook is told.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { it } from "vitest";
import { answer, on, settings } from "../../support/claude-code/hooks.ts";
import { runClaudeCode } from "../../support/claude-code/run-claude-code.ts";
import { describeClaudeCode } from "../../support/claude-code/suite.ts";

const record = 'cat >> "$CLAUDE_PROJECT_DIR/stops.jsonl"; echo >> "$CLAUDE_PROJECT_DIR/stops.jsonl"';

describeClaudeCode("a Stop hook that always blocks", () => {
  it.concurrent("runs 9 times: 8 blocks send the model back to work, the 9th ends the turn with an empty result", async ({ expect }) => {
    const hook = { type: "command", command: `${record}; echo 'keep going' >&2; exit 2` };
    const run = await runClaudeCode({ settings: settings(on("Stop", undefined, hook)), turns: [], whenDone: "Done." });
    expect(run.hookRuns.filter((h) => h.event === "Stop").map((h) => h.status)).toEqual(Array(9).fill(2));
    expect(run.modelCalls).toHaveLength(9);
    expect(run.result).toMatchObject({ subtype: "success", is_error: false, result: "" });
    const inputs = readFileSync(join(run.project, "stops.jsonl"), "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(inputs.map((i) => i.stop_hook_active)).toEqual([false, ...Array(8).fill(true)]);
    expect(inputs.every((i) => i.last_assistant_message === "Done.")).toBe(true);
  });

  it.concurrent("the model reads each block twice: as Stop hook feedback in a user message and as a system message", async ({ expect }) => {
    const hook = answer({ once: "$CLAUDE_PROJECT_DIR/.once", out: { decision: "block", reason: "write the tests first" } });
    const run = await runClaudeCode({ settings: settings(on("Stop", undefined, hook)), turns: ["First.", "Second."] });
    const added = run.modelCalls[1]!.body!.messages.slice(-2);
    expect(added[0]).toMatchObject({
      role: "user",
      content: expect.stringContaining("Stop hook feedback:\nwrite the tests first\n</system-reminder>"),
    });
    expect(added[1]).toMatchObject({
      role: "system",
      content: [{ type: "text", text: `Stop hook blocking error from command: "${String(hook.command)}": write the tests first` }],
    });
    expect(run.finalText).toBe("Second.");
  });

  it.concurrent("`continue: false` beside a block ends the turn: no further model call, an empty result", async ({ expect }) => {
    const run = await runClaudeCode({
      settings: settings(
        on(
          "Stop",
          undefined,
          answer({ out: { continue: false, stopReason: "STOP-REASON-MARKER", decision: "block", reason: "BLOCK-REASON-MARKER" } }),
        ),
      ),
      turns: ["First.", "Second."],
    });
    expect(run.modelCalls).toHaveLength(1);
    expect(run.finalText).toBe("");
    expect(run.modelSaw("BLOCK-REASON-MARKER")).toBe(false);
    expect(run.modelSaw("STOP-REASON-MARKER")).toBe(false);
  });
});
