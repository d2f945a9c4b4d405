/**
 * Record the input JSON of every hook event the real Claude Code fires in the rig's event runs,
 * scrubbed of temporary paths and ids, as fixtures other tests can use:
 * test/fixtures/claude-code/events/<Event>.json (the first input of each event) and index.json
 * (the Claude Code version, which events each run fired in the order they arrived, and the run each
 * fixture was recorded from); and transcript-lines.json beside them, the shape of each kind of line
 * of the first run's transcript (the JSONL file transcript_path names).
 *
 *   npx tsx scripts/claude-code/record-events.ts
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { claudeCodeProblem, claudeCodeVersion } from "../../test/support/claude-code/availability.ts";
import { eventRuns, recordedEvents, scrub, shapeOf } from "../../test/support/claude-code/event-runs.ts";
import { removeRunDirs, runClaudeCode } from "../../test/support/claude-code/run-claude-code.ts";

const out = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "test", "fixtures", "claude-code", "events");

if (claudeCodeProblem !== undefined) {
  console.error(`record-events: ${claudeCodeProblem}`);
  process.exit(1);
}
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const index: Record<string, string[]> = {};
const sources: Record<string, string> = {};
const written = new Set<string>();
const transcriptLines: Record<string, unknown> = {};
try {
  for (const [name, options] of Object.entries(eventRuns())) {
    const run = await runClaudeCode(options);
    const events = recordedEvents(run);
    index[name] = events.map((e) => String(e.hook_event_name));
    for (const event of events) {
      const eventName = String(event.hook_event_name);
      if (written.has(eventName)) continue;
      written.add(eventName);
      sources[eventName] = name;
      writeFileSync(join(out, `${eventName}.json`), `${JSON.stringify(scrub(event, run), null, 2)}\n`);
    }
    if (Object.keys(transcriptLines).length === 0)
      for (const line of run.transcript()) transcriptLines[String(line.type)] ??= shapeOf(scrub(line, run));
    console.log(`${name}: ${index[name]!.join(", ")}`);
  }
} finally {
  removeRunDirs();
}
writeFileSync(
  join(out, "index.json"),
  `${JSON.stringify({ claudeCode: claudeCodeVersion, runs: index, recordedFrom: sources }, null, 2)}\n`,
);
writeFileSync(
  join(out, "..", "transcript-lines.json"),
  `${JSON.stringify({ claudeCode: claudeCodeVersion, lines: transcriptLines }, null, 2)}\n`,
);
console.log(`wrote ${written.size} event fixtures to ${out}`);
