/**
 * Record what the real Claude Code writes to its transcript in the transcript scenario
 * (test/support/claude-code/transcript-kinds.ts), scrubbed of temporary paths and ids:
 * test/fixtures/claude-code/transcript-sample.json holds the Claude Code version, the kinds of the
 * lines agent-onion imitates in the order they were written, and the first line of each kind.
 *
 *   npx tsx scripts/claude-code/record-transcript.ts
 */
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { claudeCodeProblem, claudeCodeVersion } from "../../test/support/claude-code/availability.ts";
import { scrub } from "../../test/support/claude-code/event-runs.ts";
import { removeRunDirs, runClaudeCode } from "../../test/support/claude-code/run-claude-code.ts";
import { kindsOf, lineKind, transcriptSettings, transcriptTurns } from "../../test/support/claude-code/transcript-kinds.ts";

const out = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "test", "fixtures", "claude-code", "transcript-sample.json");

if (claudeCodeProblem !== undefined) {
  console.error(`record-transcript: ${claudeCodeProblem}`);
  process.exit(1);
}
try {
  const run = await runClaudeCode({ settings: transcriptSettings, turns: transcriptTurns() });
  const lines = run.transcript();
  const sample: Record<string, unknown> = {};
  for (const line of lines) {
    const kind = lineKind(line);
    if (kind !== undefined) sample[kind] ??= scrub(line, run);
  }
  writeFileSync(out, `${JSON.stringify({ claudeCode: claudeCodeVersion, kinds: kindsOf(lines), lines: sample }, null, 2)}\n`);
  console.log(`${kindsOf(lines).join(", ")}\nwrote ${out}`);
} finally {
  removeRunDirs();
}
