/**
 * The shell corpus's figures, as docs/shell-analysis.md gives them: how many attack commands and
 * classes, how many run the stand-in in a real bash, allow-list bypasses, deny misses (outside and
 * within the documented limit), and everyday commands refused or denied.
 *
 *   npx tsx scripts/shell-corpus-figures.ts          # the analysis against the labels
 *   npx tsx scripts/shell-corpus-figures.ts --bash   # and each label against a real bash first
 */
import { ATTACKS } from "../test/fixtures/shell-corpus/attacks.ts";
import { ATTACK_ALLOW, bashRuns, figures, missingPrograms, needs, pool } from "../test/fixtures/shell-corpus/evaluate.ts";

const pct = (n: number, of: number): string => `${n} of ${of} (${((100 * n) / of).toFixed(1)} %)`;

if (process.argv.includes("--bash")) {
  const missing = await missingPrograms();
  const checked = ATTACKS.filter((c) => needs(c, missing).length === 0);
  const ran = await pool(checked, 8, (c) => bashRuns(c.command));
  const wrong = checked.filter((c, i) => ran[i] !== c.runs);
  console.log(
    `labels checked against bash: ${checked.length} of ${ATTACKS.length}; wrong: ${wrong.length}${missing.size > 0 ? `; missing programs: ${[...missing].join(", ")}` : ""}`,
  );
  for (const c of wrong) console.log(`  wrong label: ${JSON.stringify(c.command)}`);
}
const f = figures();
const limited = ATTACKS.filter((c) => c.runs && c.limit !== undefined).length;
console.log(`attack commands: ${f.attacks} in ${f.classes} classes; bash runs the stand-in in ${f.runs}`);
console.log(`allow-list bypasses (allowed by ${JSON.stringify(ATTACK_ALLOW)}): ${pct(f.allowBypasses.length, f.runs)}`);
console.log(`deny misses (Bash(touch *) not matched) outside the documented limit: ${pct(f.denyMisses.length, f.runs - limited)}`);
const kinds = { interpreter: "programs that run code of their own", configuration: "programs that run what a file the command wrote says" };
for (const [kind, what] of Object.entries(kinds)) {
  const cases = ATTACKS.filter((c) => c.runs && c.limit === kind);
  const missed = cases.filter((c) => f.denyMissesWithinLimit.includes(c.command)).length;
  console.log(`deny misses within the documented limit (${what}): ${missed} of ${cases.length}`);
}
console.log(`everyday commands refused by the everyday allow list: ${pct(f.everydayRefused.length, f.everyday)}`);
console.log(`everyday commands matched by Bash(touch *): ${pct(f.everydayDenied.length, f.everyday)}`);
for (const c of [...f.allowBypasses, ...f.denyMisses]) console.log(`  miss: ${JSON.stringify(c)}`);
for (const c of f.everydayRefused) console.log(`  everyday refused: ${JSON.stringify(c)}`);
