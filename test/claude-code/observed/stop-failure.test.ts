/**
 * StopFailure in the real Claude Code, observed with the pinned version: an answer cut at the
 * output token limit ends the turn with StopFailure (`max_output_tokens`) instead of Stop.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { it } from "vitest";
import { on, settings } from "../../support/claude-code/hooks.ts";
import type { MockAnswer } from "../../support/claude-code/mock-anthropic.ts";
import { runClaudeCode } from "../../support/claude-code/run-claude-code.ts";
import { describeClaudeCode } from "../../support/claude-code/suite.ts";

const record = { type: "command", command: 'cat >> "$CLAUDE_PROJECT_DIR/events.jsonl"; echo >> "$CLAUDE_PROJECT_DIR/events.jsonl"' };

describeClaudeCode("an answer cut at the output token limit", () => {
  it.concurrent("is asked to go on 3 times, then the turn ends with StopFailure max_output_tokens, not Stop", async ({ expect }) => {
    const cut: MockAnswer = { text: "a long answer that", stopReason: "max_tokens" };
    const run = await runClaudeCode({
      settings: settings(on("StopFailure", undefined, record), on("Stop", undefined, record)),
      turns: [],
      whenDone: cut,
    });
    expect(run.modelCalls).toHaveLength(4);
    const events = readFileSync(join(run.project, "events.jsonl"), "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events).toEqual([
      expect.objectContaining({
        hook_event_name: "StopFailure",
        error: "max_output_tokens",
        last_assistant_message: expect.stringMatching(/^API Error: Claude's response exceeded the \d+ output token maximum/),
      }),
    ]);
    expect(events[0]).not.toHaveProperty("error_details");
  });
});
