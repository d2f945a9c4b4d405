/**
 * Run every parity scenario on the real Claude Code and on agent-onion, and print a Markdown table:
 * whether agent-onion does what Claude Code does, and what differs where it does not.
 *
 *   npx tsx scripts/claude-code/parity-report.ts
 */
import { isDeepStrictEqual } from "node:util";
import { claudeCodeProblem, claudeCodeVersion } from "../../test/support/claude-code/availability.ts";
import { runBoth, type Observation } from "../../test/support/claude-code/parity.ts";
import { removeRunDirs } from "../../test/support/claude-code/run-claude-code.ts";
import { aggregation, answers, guards, lifecycle, permissions, postToolUse } from "../../test/claude-code/parity/scenarios.ts";

if (claudeCodeProblem !== undefined) {
  console.error(`parity-report: ${claudeCodeProblem}`);
  process.exit(1);
}

/** The fields where two observations differ, as `field: claude → onion`. */
const difference = (claude: Observation, onion: Observation): string =>
  (Object.keys(claude) as (keyof Observation)[])
    .filter((k) => !isDeepStrictEqual(claude[k], onion[k]))
    .map((k) => `${k}: ${JSON.stringify(claude[k])} → ${JSON.stringify(onion[k])}`)
    .join("; ");

console.log(`| Scenario | agent-onion | What differs (Claude Code ${claudeCodeVersion} → agent-onion) |`);
console.log("|---|---|---|");
try {
  for (const cases of [aggregation, answers, postToolUse, lifecycle, guards, permissions]) {
    for (const [name, { scenario, claude: pinned }] of Object.entries(cases)) {
      const { claude, onion } = await runBoth(scenario);
      const drift = isDeepStrictEqual(claude, pinned) ? "" : ` (Claude Code no longer matches the pin: ${difference(pinned, claude)})`;
      const same = isDeepStrictEqual(claude, onion);
      console.log(
        `| ${name.replace(/\|/g, "\\|")} | ${same ? "same" : "differs"} | ${same ? "" : difference(claude, onion).replace(/\|/g, "\\|")}${drift} |`,
      );
    }
  }
} finally {
  removeRunDirs();
}
