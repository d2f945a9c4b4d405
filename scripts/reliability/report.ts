/**
 * Generates docs/reliability.md from one run; every figure in it comes from that run, nothing from
 * an earlier one or from a file in the repository.
 *
 *   npm run reliability                        # vitest over test/reliability and every test the checklist
 *                                              # cites, then the full soak (100 000 runs), in a fresh process
 *   npm run reliability -- --soak-runs=20000   # a soak of another length (or SOAK_RUNS)
 *   npm run reliability -- --fuzz-runs=20000   # every fuzz property with 20 000 inputs (FUZZ_RUNS)
 *   npm run reliability -- --quick             # only test/reliability (cited tests elsewhere show "not run")
 *
 * The tests and the soak write their figures to a temporary directory that is removed afterwards.
 * The page gives the command that made it and no commit or clock time, so it changes only when a
 * figure does. It exits 1 when a cited test is missing or failed, or when the load test or the
 * soak failed.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { LoadFigures } from "../../test/reliability/load.ts";
import type { FaultKind, SoakFigures } from "../../test/soak/soak.ts";
import { figuresStamp } from "../figures.ts";
import { checklist, findings, sections, type Item, type TestRef } from "./checklist.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** What the run measures: a change here makes docs/reliability.md stale (scripts/figures.ts). */
const sourcesStamp = figuresStamp(root, ["src/core", "src/agent", "src/stores", "test/reliability", "test/soak", "scripts/reliability"]);
const docPath = join(root, "docs", "reliability.md");
const argv = process.argv.slice(2);
for (const a of argv)
  if (!/^--(quick|fuzz-runs=.*|soak-runs=.*)$/.test(a))
    throw new TypeError(`reliability: unknown argument ${a} (expected --quick, --fuzz-runs=N, --soak-runs=N)`);
const count = (flag: string, env: string): number | undefined => {
  const given = argv.find((a) => a.startsWith(`--${flag}=`))?.split("=")[1] ?? process.env[env];
  if (given === undefined || given === "") return undefined;
  const value = Number(given);
  if (!Number.isInteger(value) || value <= 0) throw new RangeError(`--${flag} (${env}) must be a positive integer, got ${given}`);
  return value;
};
const fuzzRuns = count("fuzz-runs", "FUZZ_RUNS");
const soakRuns = count("soak-runs", "SOAK_RUNS") ?? 100_000;
const quick = argv.includes("--quick");
// Every figure file of this run goes here, and nowhere else: none can be left from another run.
const outDir = mkdtempSync(join(tmpdir(), "reliability-out-"));
const problems: string[] = [];
const say = (line: string): void => console.log(`reliability: ${line}`);

// ---------------------------------------------------------------------------------------------
// 1. The tests: test/reliability (load, fuzz, shortened soak, checklist tests) and every cited file
// ---------------------------------------------------------------------------------------------

interface Assertion {
  readonly ancestorTitles: readonly string[];
  readonly title: string;
  readonly status: string;
  readonly duration?: number;
}
interface VitestJson {
  readonly numTotalTests: number;
  readonly numPassedTests: number;
  readonly numFailedTests: number;
  readonly testResults: readonly { readonly name: string; readonly assertionResults: readonly Assertion[] }[];
}

const cited = [...new Set(checklist.flatMap((i) => i.tests.map((t) => t.file)))].sort();
const files = quick ? ["test/reliability"] : ["test/reliability", ...cited.filter((f) => !f.startsWith("test/reliability/"))];
const tmp = mkdtempSync(join(tmpdir(), "reliability-"));
const vitestOut = join(tmp, "vitest.json");
const vitestCommand = `${fuzzRuns ? `FUZZ_RUNS=${fuzzRuns} ` : ""}RELIABILITY_OUT=<a temporary directory> npx vitest run ${quick ? "test/reliability" : "test/reliability <every file the checklist cites>"}`;
say(`running ${vitestCommand}`);
const started = performance.now();
const vitest = spawnSync("npx", ["vitest", "run", ...files, "--reporter=json", `--outputFile=${vitestOut}`], {
  cwd: root,
  stdio: ["ignore", "ignore", "inherit"],
  env: { ...process.env, RELIABILITY_OUT: outDir, ...(fuzzRuns ? { FUZZ_RUNS: String(fuzzRuns) } : {}) },
});
const vitestSeconds = (performance.now() - started) / 1000;
if (!existsSync(vitestOut)) throw new Error(`vitest wrote no results (exit ${vitest.status})`);
const results = JSON.parse(readFileSync(vitestOut, "utf8")) as VitestJson;
rmSync(tmp, { recursive: true, force: true });
say(
  `vitest: ${results.numPassedTests} passed, ${results.numFailedTests} failed of ${results.numTotalTests} in ${vitestSeconds.toFixed(0)} s`,
);
if (results.numFailedTests > 0) problems.push(`${results.numFailedTests} tests failed in the vitest run`);

const byFile = new Map<string, Assertion[]>();
for (const r of results.testResults) byFile.set(relative(root, r.name), [...r.assertionResults]);
const fullName = (a: Assertion): string => [...a.ancestorTitles, a.title].join(" > ");
for (const [file, list] of byFile) for (const a of list) if (a.status === "failed") problems.push(`failed: ${file} › ${fullName(a)}`);

type RefResult = { ref: TestRef; matched: number; passed: number; names: string[]; ran: boolean };
const resolveRef = (ref: TestRef): RefResult => {
  const list = byFile.get(ref.file);
  if (list === undefined) return { ref, matched: 0, passed: 0, names: [], ran: false };
  const hits = list.filter((a) => fullName(a).includes(ref.test));
  return {
    ref,
    matched: hits.length,
    passed: hits.filter((a) => a.status === "passed").length,
    names: hits.map((a) => a.title),
    ran: true,
  };
};
const itemResults = new Map<string, RefResult[]>();
for (const item of checklist) {
  const refs = item.tests.map(resolveRef);
  itemResults.set(item.id, refs);
  for (const r of refs) {
    if (!r.ran) {
      if (!quick) problems.push(`${item.id}: ${r.ref.file} did not run`);
    } else if (r.matched === 0) problems.push(`${item.id}: no test in ${r.ref.file} matches "${r.ref.test}"`);
    else if (r.passed < r.matched)
      problems.push(
        r.ref.expectFail
          ? `${item.id}: an expected-failure test now fails in ${r.ref.file} ("${r.ref.test}"): was the bug fixed? make it a plain test`
          : `${item.id}: ${r.matched - r.passed} of ${r.matched} tests matching "${r.ref.test}" in ${r.ref.file} failed`,
      );
  }
}

// ---------------------------------------------------------------------------------------------
// 2. Figures: load and fuzz from the tests above, the soak run now; all from this run
// ---------------------------------------------------------------------------------------------

const readJson = <T>(file: string): T | undefined => (existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as T) : undefined);
const load = readJson<LoadFigures>(join(outDir, "load.json"));
if (!load) problems.push("the load test wrote no figures");
else if (load.mismatches || load.lost || load.crossTalk)
  problems.push(
    `the load test lost or mixed up runs: ${JSON.stringify({ mismatches: load.mismatches, lost: load.lost, crossTalk: load.crossTalk })}`,
  );

const fuzz: Record<string, number> = {};
for (const f of readdirSync(outDir)
  .filter((n) => /^fuzz-.*\.json$/.test(n))
  .sort())
  Object.assign(fuzz, JSON.parse(readFileSync(join(outDir, f), "utf8")) as Record<string, number>);
const fuzzTotal = Object.values(fuzz).reduce((a, b) => a + b, 0);
if (fuzzTotal === 0) problems.push("the fuzz properties recorded no inputs");

const soakFile = join(outDir, "soak.json");
const soakCommand = `${soakRuns !== 100_000 ? `SOAK_RUNS=${soakRuns} ` : ""}npm run soak`;
say(`running ${soakCommand}`);
const soakRun = spawnSync("npx", ["tsx", "test/soak/soak.ts"], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, SOAK_RUNS: String(soakRuns), SOAK_OUT: soakFile },
});
if (soakRun.status !== 0) problems.push(`${soakCommand} exited with ${soakRun.status}`);
const soak = readJson<SoakFigures & { command: string; node: string }>(soakFile);
if (!soak) problems.push(`${soakCommand} wrote no figures`);
else if (!soak.ok) problems.push(`the soak failed: ${soak.failures.join("; ")}`);
const soakShort = readJson<SoakFigures>(join(outDir, "soak-short.json"));
rmSync(outDir, { recursive: true, force: true });

// ---------------------------------------------------------------------------------------------
// 3. The document
// ---------------------------------------------------------------------------------------------

const mib = (b: number): string => `${(b / 1048576).toFixed(2)} MiB`;
const bytesPerRun = (x: number): string => `${x >= 0 ? "+" : ""}${x.toFixed(1)} bytes`;
const n = (x: number): string => x.toLocaleString("en-US");
const esc = (s: string): string => s.replaceAll("|", "\\|").replaceAll("\n", " ");

// The commits of this repository, to know a hash cited in the checklist's texts from a number:
// 7 to 12 hex digits that begin one of them (or, without git, that mix digits and letters).
const commits =
  spawnSync("git", ["log", "--all", "--format=%H"], { cwd: root, encoding: "utf8" }).stdout?.split("\n").filter(Boolean) ?? [];
const hexToken = /\b[0-9a-f]{7,12}\b/g;
const isCommit = (token: string): boolean =>
  commits.length > 0 ? commits.some((c) => c.startsWith(token)) : /[0-9]/.test(token) && /[a-f]/.test(token);
/** Whether `text` cites a commit. */
const citesCommit = (text: string): boolean => [...text.matchAll(hexToken)].some((m) => isCommit(m[0]));
/** Dates and clock times (2026-11-23, 09:46). */
const clockTime = /\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}:\d{2}(:\d{2})? ?(UTC|GMT)?\b/;
/**
 * The page describes what holds now: sentences and clauses of the checklist's texts that tell
 * their history (which commit fixed what, what an audit of some day found) are left out.
 *
 * @example
 * current("Run values are checked. They were not until 2058b5a.") // "Run values are checked."
 */
const current = (text: string): string =>
  text
    .replace(/\s*\([^()]*\)/g, (group) => (citesCommit(group) || /\b(found by|introduced|this session)\b/i.test(group) ? "" : group))
    .split(/(?<=[.!?)])\s+(?=[A-Z(`])/)
    .map((sentence) => {
      const clauses = sentence.split(/;\s+/);
      const kept = clauses.filter((clause) => !citesCommit(clause) && !/\bthis session\b/i.test(clause));
      const joined = kept.join("; ");
      // A sentence whose first clause went starts with its next one: give it a capital.
      return kept[0] !== clauses[0] && /^[a-z]/.test(joined) && /^[A-Z]/.test(sentence)
        ? joined[0]!.toUpperCase() + joined.slice(1)
        : joined;
    })
    .filter((sentence) => sentence.trim() !== "")
    .join(" ");

const faultLabel: Record<FaultKind, string> = {
  "throw-sync": "throws synchronously",
  "throw-async": "rejects with an Error",
  "reject-non-error": "rejects with a non-Error (undefined, null, string, number, Symbol, object, array, BigInt)",
  timeout: "exceeds its timeoutMs (answers late)",
  "never-settles": "never settles (hook timeoutMs)",
  "run-deadline": "never settles (run deadline)",
  "invalid-action": "returns an invalid action",
  "reject-on-observe": "returns Reject on an observation point",
  "next-twice": "calls next() twice concurrently",
  abort: "caller aborts mid-run",
};

/** `{{file|text}}` → `file:line` of the first line holding `text` (so line numbers follow the code). */
const locate = (where: string): string =>
  where.replace(/\{\{([^|}]+)\|([^}]+)\}\}/g, (_m, file: string, text: string) => {
    const lines = existsSync(join(root, file)) ? readFileSync(join(root, file), "utf8").split("\n") : [];
    const at = lines.findIndex((l) => l.includes(text));
    // A finding's location is where the fault was; code rewritten since may no longer hold that
    // line, and then the file alone is named.
    return at < 0 ? file : `${file}:${at + 1}`;
  });
const located = findings.map((f) => locate(f.where));

const lines: string[] = [];
const w = (s = ""): void => void lines.push(s);
w("# Reliability");
w();
w(`<!-- Generated by scripts/reliability/report.ts (\`npm run reliability\`); do not edit by hand. -->`);
w(sourcesStamp);
w();
w(
  `Made by \`${["npm run reliability", [quick ? "--quick" : "", fuzzRuns ? `--fuzz-runs=${fuzzRuns}` : "", soakRuns !== 100_000 ? `--soak-runs=${soakRuns}` : ""].filter(Boolean).join(" ")].filter(Boolean).join(" -- ")}\` on Node ${process.version}, ${cpus().length} CPU cores (shared with other work while it ran).`,
);
w("Every figure below comes from that one run: the tests it ran and the soak it ran, each with its command.");
w();
w("## Summary");
w();
w(
  `- **Load held**: ${load ? `${n(load.runs)} concurrent runs through ${load.hooks} asynchronous hooks, each outcome checked against a model of the onion: ${n(load.mismatches)} wrong, ${n(load.lost)} lost, ${n(load.crossTalk)} cross-talk (${n(load.durationMs)} ms, ${n(load.runsPerSecond)} runs/s).` : "no figures."}`,
);
w(
  `- **Faults survived**: ${soak ? `${n(soak.faultsSurvived)} of ${n(soak.faultsInjected)} injected hook faults of ${Object.keys(soak.faults).length} kinds over ${n(soak.runs)} soak runs, each settling exactly as its fault must; ${n(soak.settled)} of ${n(soak.started)} started runs settled, ${n(soak.lost)} lost, ${n(soak.unhandledRejections)} unhandled rejections; heap ${bytesPerRun(soak.heap.slopeBytesPerRun)} per run after GC (tolerance ${soak.heap.slopeToleranceBytesPerRun}), active handles ${soak.handles.start} → ${soak.handles.end}, open files ${soak.fds.start ?? "?"} → ${soak.fds.end ?? "?"}.` : "no soak figures: the soak failed to run."}`,
);
w(
  `- **Inputs tried**: ${n(fuzzTotal)} generated inputs over ${Object.keys(fuzz).length} fuzz properties${fuzzRuns ? ` (FUZZ_RUNS=${fuzzRuns})` : " (default run counts)"}.`,
);
w(
  `- **What was lost**: ${(load?.lost ?? 1) + (soak?.lost ?? 1) === 0 && (soak?.unhandledRejections ?? 1) === 0 ? "nothing: no run lost, none settled twice, no unhandled rejection." : "see the figures: something was lost."}`,
);
w(
  `- **Checklist**: ${checklist.length} items; ${checklist.filter((i) => i.status === "covered").length} covered, ${checklist.filter((i) => i.status === "partial").length} partly covered, ${checklist.filter((i) => i.status === "gap").length} open gap${checklist.filter((i) => i.status === "gap").length === 1 ? "" : "s"}, ${checklist.filter((i) => i.status === "n/a").length} not applicable. ${findings.filter((f) => f.status === "open").length} open findings in src/ are listed at the end, each with its test; ${findings.filter((f) => f.status === "fixed").length} fixed ones keep theirs as regression tests.`,
);
w(
  `- **Test run**: ${n(results.numPassedTests)} of ${n(results.numTotalTests)} tests passed (${n(results.numFailedTests)} failed) in ${vitestSeconds.toFixed(0)} s: \`${vitestCommand}\`.`,
);
if (problems.length > 0) {
  w();
  w("**Problems found by this run:**");
  w();
  for (const p of problems) w(`- ${esc(p)}`);
}
w();

w("## Load");
w();
if (load) {
  w("Command: `npx vitest run test/reliability/load.test.ts` (part of the test run above; test/reliability/load.ts).");
  w();
  w(
    `${n(load.runs)} runs started at once through one stack of ${load.hooks} hooks (befores that transform, afters that transform, arounds that rewrite the result, gates that reject or replace), every hook awaiting a microtask, an immediate or a timer so that runs interleave. Each hook checks that it sees its own run's id, session, metadata and subject; each outcome is compared with a plain-loop model of R1 and R3.`,
  );
  w();
  w("| figure | value |");
  w("|---|---|");
  w(`| runs (all concurrent) | ${n(load.runs)} |`);
  w(`| hooks in the chain | ${load.hooks} |`);
  w(
    `| completed / rejected / replaced / failed | ${n(load.outcomes.completed)} / ${n(load.outcomes.rejected)} / ${n(load.outcomes.replaced)} / ${n(load.outcomes.failed)} |`,
  );
  w(`| outcomes different from the model | ${n(load.mismatches)} |`);
  w(`| runs lost (never settled or rejected) | ${n(load.lost)} |`);
  w(`| hooks that saw another run's identity | ${n(load.crossTalk)} |`);
  w(`| wall time | ${n(load.durationMs)} ms (${n(load.runsPerSecond)} runs/s) |`);
  w();
}

w("## Soak");
w();
if (soak) {
  w(
    `Command: \`${soak.command}\` (test/soak/soak.ts), run by \`npm run reliability\` in a process of its own with Node ${soak.node}; seed ${soak.seed}, ${soak.concurrency} runs in flight, ${Math.round(soak.faultRate * 100)} % of runs with a fault. The heap is read after full collections (${soak.heap.gc}) at each sample, and its least-squares slope over runs must stay within the tolerance (an injected leak of 40 bytes a run fails it: \`SOAK_INJECT_LEAK=40 npm run soak\`); a watchdog fails the soak when a run has not settled within ${n(soak.watchdog.boundMs)} ms (\`SOAK_INJECT_HANG=700 npm run soak\`); handles are \`process.getActiveResourcesInfo()\` and open files /proc/self/fd, counted after the last fault timers ran out; overhead is a run through the stack minus the operation called directly, over ${n(soak.overhead.runsPerSample)} sequential clean runs per sample.`,
  );
  w();
  w("| figure | value |");
  w("|---|---|");
  w(`| runs | ${n(soak.runs)} (${n(soak.cleanRuns)} without a fault) |`);
  w(`| runs started / settled | ${n(soak.started)} / ${n(soak.settled)} |`);
  w(
    `| longest a run may take to settle (watchdog) | ${n(soak.watchdog.boundMs)} ms: ${soak.watchdog.stuck === undefined ? "no run passed it" : `run ${soak.watchdog.stuck.id} (${soak.watchdog.stuck.fault}) did, pending ${n(soak.watchdog.stuck.pendingMs)} ms`} |`,
  );
  w(`| faults injected / survived | ${n(soak.faultsInjected)} / ${n(soak.faultsSurvived)} |`);
  w(`| outcomes different from what the fault must give | ${n(soak.mismatches)} |`);
  w(`| runs lost | ${n(soak.lost)} |`);
  w(`| observer events (one per run, each run exactly once) | ${n(soak.observerEvents)} |`);
  w(`| unhandled rejections / uncaught exceptions | ${n(soak.unhandledRejections)} / ${n(soak.uncaughtExceptions)} |`);
  w(`| hook failures recorded / of them fail-open | ${n(soak.stackStats.hookFailures)} / ${n(soak.stackStats.failOpen)} |`);
  w(
    `| heap after GC: slope over runs | ${bytesPerRun(soak.heap.slopeBytesPerRun)} per run (tolerance ${soak.heap.slopeToleranceBytesPerRun}): ${soak.heap.flat === true ? "flat" : soak.heap.flat === false ? "GREW" : "not checked"} |`,
  );
  w(`| heap after GC, first → last sample | ${mib(soak.heap.startBytes)} → ${mib(soak.heap.endBytes)} |`);
  w(`| active handles, first → last sample | ${soak.handles.start} → ${soak.handles.end}: ${soak.handles.flat ? "flat" : "GREW"} |`);
  w(
    `| open file descriptors, first → last sample | ${soak.fds.start ?? "?"} → ${soak.fds.end ?? "?"}: ${soak.fds.flat === true ? "flat" : soak.fds.flat === false ? "GREW" : "not checked"} |`,
  );
  w(`| overhead per run, all samples | p50 ${soak.overhead.p50us} µs, p99 ${soak.overhead.p99us} µs |`);
  w(
    `| overhead, early → late samples (medians) | p50 ${soak.overhead.earlyP50us} → ${soak.overhead.lateP50us} µs, p99 ${soak.overhead.earlyP99us} → ${soak.overhead.lateP99us} µs: ${soak.overhead.stable === true ? "stable" : soak.overhead.stable === false ? "GREW" : "not checked"} |`,
  );
  w(`| time running soak batches (sampling excluded) | ${(soak.durationMs / 1000).toFixed(1)} s (${n(soak.runsPerSecond)} runs/s) |`);
  w();
  w(
    "Faults survived, by kind (a fault survives when its run settles exactly as that fault must: a fail-closed rejection naming the hook and the failure kind, a fail-open completion, or an abort):",
  );
  w();
  w("| fault | the hook… | injected | survived |");
  w("|---|---|---|---|");
  for (const [kind, f] of Object.entries(soak.faults) as [FaultKind, { injected: number; survived: number }][])
    w(`| \`${kind}\` | ${faultLabel[kind]} | ${n(f.injected)} | ${n(f.survived)} |`);
  w();
  w("Samples along the way:");
  w();
  w("| after runs | heap after GC | active handles | open files | overhead p50 | overhead p99 |");
  w("|---|---|---|---|---|---|");
  for (const s of soak.samples)
    w(
      `| ${n(s.afterRuns)} | ${mib(s.heapUsedBytes)} | ${s.activeHandles} | ${s.openFds ?? "?"} | ${s.overheadP50us} µs | ${s.overheadP99us} µs |`,
    );
  w();
  if (soakShort)
    w(
      `The test run above also ran a shortened soak (test/reliability/soak.test.ts, same function): ${n(soakShort.runs)} runs, ${n(soakShort.faultsInjected)} faults injected, ${n(soakShort.faultsSurvived)} survived, ${n(soakShort.lost)} lost, heap ${bytesPerRun(soakShort.heap.slopeBytesPerRun)} per run (tolerance ${soakShort.heap.slopeToleranceBytesPerRun}).`,
    );
  // The soak's own mutation tests, as this run's vitest results give them.
  const mutations = (byFile.get("test/reliability/soak.test.ts") ?? []).filter((a) => a.ancestorTitles.includes("the soak fails"));
  w();
  w(
    mutations.length === 0
      ? "The soak's mutation tests did not run."
      : `The soak's mutation tests inject into a short soak a run that never settles, then a leak of 800 bytes a run; the soak must fail for each: ${mutations.filter((a) => a.status === "passed").length} of ${mutations.length} passed (${mutations.map((a) => `"${a.title}": ${a.status}`).join("; ")}).`,
  );
  w();
}

w("## Fuzzing");
w();
w(
  `Command: \`${fuzzRuns ? `FUZZ_RUNS=${fuzzRuns} ` : ""}npx vitest run test/reliability/fuzz.test.ts test/reliability/decisions.test.ts\` (part of the run above). \`FUZZ_RUNS=n\` runs every property n times; the defaults keep each to a few seconds.`,
);
w();
w("| property | inputs tried |");
w("|---|---|");
for (const [property, count] of Object.entries(fuzz).sort()) w(`| ${esc(property)} | ${n(count)} |`);
w(`| **total** | **${n(fuzzTotal)}** |`);
w();

w("## Checklist");
w();
w(
  'Every item of the fault and bad-input checklist (reference/faults-and-ecosystem.md §1.4), with the tests that cover it. A test marked *expected failure* is an `it.fails` test: it documents an open bug or gap and passes while that is still true. "passed" means every cited test ran and passed in the run above.',
);
const statusText = (item: Item): string =>
  ({ covered: "covered", partial: "partly covered", gap: "**gap**", "n/a": "does not apply" })[item.status];
for (const [letter, title] of Object.entries(sections)) {
  w();
  w(`### ${letter}. ${title}`);
  w();
  w("| item | fault | status | tests | result | note |");
  w("|---|---|---|---|---|---|");
  for (const item of checklist.filter((i) => i.id.startsWith(letter) && /^\d+$/.test(i.id.slice(1)))) {
    const refs = itemResults.get(item.id) ?? [];
    const cells = refs
      .map(
        (r) =>
          `${r.ref.file.replace(/^test\//, "")} › ${esc(r.ref.test)}${r.ref.expectFail ? " *(expected failure)*" : ""}${r.matched > 1 ? ` (${r.matched} tests)` : ""}`,
      )
      .join("<br>");
    const result = refs.every((r) => !r.ran)
      ? "not run"
      : refs.every((r) => r.ran && r.matched > 0 && r.passed === r.matched)
        ? "passed"
        : refs.some((r) => r.ran && r.matched === 0)
          ? "MISSING"
          : refs.some((r) => !r.ran)
            ? "passed (part not run)"
            : "FAILED";
    w(`| ${item.id} | ${esc(item.fault)} | ${statusText(item)} | ${cells} | ${result} | ${esc(current(item.note ?? ""))} |`);
  }
}
w();

w("## Findings");
w();
w(
  "Limits these tests found in src/ that are still open. Each has an expected-failure test that starts failing once it is fixed (the report then flags it). Faults that were fixed keep their test as a plain regression test; their history is in git and CHANGELOG.md, not here.",
);
const finding = (f: (typeof findings)[number], i: number): string =>
  `**${f.kind}: ${current(f.title)}** (${f.items.join(", ")}). Where: ${current(located[i] as string)}. Repro: ${current(f.repro)}.${f.tests.length ? ` Test: ${f.tests.map((t) => `${t.file} › ${t.test}`).join("; ")}.` : ""}`;
w();
const open = findings.map((f, i) => [f, i] as const).filter(([f]) => f.status === "open");
if (open.length === 0) w("None.");
open.forEach(([f, i], k) => w(`${k + 1}. ${finding(f, i)}`));
w();
w("## Not applicable");
w();
const na = checklist.filter((i) => i.status === "n/a");
w(
  na.length === 0
    ? "Every checklist item applies to what agent-onion has built (core, executors, agent loop, streaming, middleware, stores). Parts that do not apply are in the notes: Windows path quoting (D6) because the executors target POSIX process groups, and a configurable exit-code mapping (D7) because the protocol is Claude Code's."
    : na.map((i) => `- ${i.id}: ${i.note}`).join("\n"),
);
w();

// The page must not date itself: a figure is the run's, not the day's or the commit's.
const page = `${lines.join("\n")}\n`;
const dated = [...page.matchAll(hexToken)].find((m) => isCommit(m[0])) ?? new RegExp(clockTime.source, "g").exec(page);
if (dated != null)
  problems.push(
    `the page holds a commit hash or a clock time ("${dated[0]}" in "${page.slice(Math.max(0, (dated.index ?? 0) - 60), (dated.index ?? 0) + 40).replaceAll("\n", " ")}")`,
  );
mkdirSync(dirname(docPath), { recursive: true });
writeFileSync(docPath, page);
say(`wrote ${relative(root, docPath)}`);
for (const p of problems) console.error(`reliability: PROBLEM: ${p}`);
process.exitCode = problems.length > 0 ? 1 : 0;
