/**
 * Which hook events the real Claude Code fires in `-p` runs, and the fields of each event's input:
 * the fixtures in test/fixtures/claude-code/events (written by scripts/claude-code/record-events.ts)
 * still describe what the pinned version sends.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { it } from "vitest";
import { eventRuns, recordedEvents } from "../../support/claude-code/event-runs.ts";
import { fixtures } from "../../support/claude-code/hooks.ts";
import { runClaudeCode } from "../../support/claude-code/run-claude-code.ts";
import { claudeCodeVersion } from "../../support/claude-code/availability.ts";
import { describeClaudeCode } from "../../support/claude-code/suite.ts";

interface Index {
  readonly claudeCode: string;
  readonly runs: Record<string, string[]>;
  readonly recordedFrom: Record<string, string>;
}
const dir = join(fixtures, "events");
const index = JSON.parse(readFileSync(join(dir, "index.json"), "utf8")) as Index;

describeClaudeCode("the hook events Claude Code fires", () => {
  it("were recorded with the pinned version", ({ expect }) => {
    expect(index.claudeCode).toBe(claudeCodeVersion);
  });

  for (const [name, options] of Object.entries(eventRuns())) {
    it.concurrent(`${name}: the same events, each with the fields of its fixture`, async ({ expect }) => {
      const events = recordedEvents(await runClaudeCode(options));
      expect(new Set(events.map((e) => e.hook_event_name))).toEqual(new Set(index.runs[name]));
      for (const [event, source] of Object.entries(index.recordedFrom)) {
        if (source !== name) continue;
        const fixture = JSON.parse(readFileSync(join(dir, `${event}.json`), "utf8")) as Record<string, unknown>;
        const live = events.find((e) => e.hook_event_name === event)!;
        expect(Object.keys(live).sort(), event).toEqual(Object.keys(fixture).sort());
      }
    });
  }
});
