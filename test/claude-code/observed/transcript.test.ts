/**
 * The transcript, against the real thing: the same session run by Claude Code and by the reference
 * agent gives the same kinds of line in the same order, and every field agent-onion writes is one
 * Claude Code writes on that kind of line; the sample in test/fixtures/claude-code/transcript-sample.json
 * (written by scripts/claude-code/record-transcript.ts, which the agent's own tests hold it to) is
 * still what the pinned version writes.
 */
import { it } from "vitest";
import sample from "../../fixtures/claude-code/transcript-sample.json" with { type: "json" };
import { claudeCodeVersion } from "../../support/claude-code/availability.ts";
import { runAgentOnion } from "../../support/claude-code/run-agent-onion.ts";
import { runClaudeCode } from "../../support/claude-code/run-claude-code.ts";
import { describeClaudeCode } from "../../support/claude-code/suite.ts";
import {
  fieldsNotIn,
  kindsOf,
  lineKind,
  transcriptSettings,
  transcriptTurns,
  type LineKind,
} from "../../support/claude-code/transcript-kinds.ts";

describeClaudeCode("the transcript Claude Code writes", () => {
  it("was sampled with the pinned version", ({ expect }) => {
    expect(sample.claudeCode).toBe(claudeCodeVersion);
  });

  it("has the lines of the sample, and the reference agent's lines are in its shapes and order", async ({ expect }) => {
    const [theirs, ours] = await Promise.all([
      runClaudeCode({ settings: transcriptSettings, turns: transcriptTurns() }).then((run) => run.transcript()),
      runAgentOnion({ settings: transcriptSettings, turns: transcriptTurns() }).then((run) => run.transcript()),
    ]);
    expect(kindsOf(theirs)).toEqual(sample.kinds);
    expect(kindsOf(ours)).toEqual(kindsOf(theirs));
    const first = new Map<LineKind, Record<string, unknown>>();
    for (const line of theirs) {
      const kind = lineKind(line);
      if (kind !== undefined && !first.has(kind)) first.set(kind, line);
    }
    for (const line of ours) expect(fieldsNotIn(line, first.get(lineKind(line)!)), JSON.stringify(line)).toEqual([]);
  });
});
