/**
 * `npm run bench`: runs the overhead (time), memory, adapters (around a provider call: AI SDK,
 * LangChain) and spawn (command hooks) suites, each in a fresh Node process with the flags it
 * needs, then writes `benchmarks/results/latest.json` (overhead and memory),
 * `benchmarks/results/ai-sdk.json`, `benchmarks/results/spawn.json` and `benchmarks/README.md`.
 *
 *   npm run bench                     # every suite (about 6 minutes on 2 idle cores)
 *   npm run bench -- --quick          # short rounds and few samples, for a smoke test
 *   npm run bench -- --only memory    # or overhead, adapters, spawn; the other suites are kept from results/
 *   npm run bench -- --report         # only re-render README.md from results/
 *   npm run bench -- --filter onion   # only overhead/memory cases whose id matches (nothing is written)
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AdapterReport } from "./ai-sdk.bench.ts";
import { memoryNodeFlags, type MemoryReport } from "./memory.bench.ts";
import type { OverheadReport } from "./overhead.bench.ts";
import { derive, machine, renderReadme, type Extras, type Latest } from "./report.ts";
import type { SpawnReport } from "./spawn.bench.ts";
import { fmt, parseArgs, textTable } from "./util.ts";

const here = dirname(fileURLToPath(import.meta.url));
const resultsDir = join(here, "results");
const latestPath = join(resultsDir, "latest.json");
const adaptersPath = join(resultsDir, "ai-sdk.json");
const spawnPath = join(resultsDir, "spawn.json");
const readmePath = join(here, "README.md");

const suites = ["overhead", "memory", "adapters", "spawn"] as const;
type Suite = (typeof suites)[number];

const args = parseArgs(process.argv.slice(2));
const quick = args.has("quick");
const only = args.get("only");
const filter = args.get("filter");
if (only !== undefined && !(suites as readonly string[]).includes(only)) throw new Error(`--only ${only}: expected one of ${suites.join(", ")}`);
if (filter !== undefined && (only === "adapters" || only === "spawn")) throw new Error("--filter applies to the overhead and memory suites only");
/** `--filter` runs only the overhead and memory suites (their case ids are what it matches). */
const selected = (suite: Suite): boolean => (only === undefined ? filter === undefined || suite === "overhead" || suite === "memory" : only === suite);

const runSuite = <T>(script: string, flags: readonly string[], extra: readonly string[]): T => {
  const dir = mkdtempSync(join(tmpdir(), "agent-onion-bench-"));
  const out = join(dir, "out.json");
  try {
    const child = spawnSync(process.execPath, [...flags, "--import", "tsx", join(here, script), "--json", out, ...extra], {
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, NODE_ENV: "production", AGENT_ONION_STRICT: "0" },
    });
    if (child.status !== 0 || !existsSync(out)) throw new Error(`${script} failed (exit ${child.status ?? child.signal})`);
    return JSON.parse(readFileSync(out, "utf8")) as T;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

const readJson = <T>(path: string): T | undefined => (existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as T) : undefined);
const previous = (): Latest | undefined => readJson<Latest>(latestPath);
const previousExtras = (): Extras => ({ adapters: readJson<AdapterReport>(adaptersPath), spawn: readJson<SpawnReport>(spawnPath) });
const writeJson = (path: string, value: unknown): void => writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);

const main = (): void => {
  const started = Date.now();
  const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`;
  let overhead: OverheadReport | undefined;
  let memory: MemoryReport | undefined;
  let adapters: AdapterReport | undefined;
  let spawn: SpawnReport | undefined;
  if (args.has("report")) {
    const last = previous();
    const extras = previousExtras();
    if (last === undefined && extras.adapters === undefined && extras.spawn === undefined) throw new Error(`no results in ${resultsDir} to report from`);
    const latest: Latest = last ?? { machine: machine(), command, overhead: undefined, memory: undefined, derived: derive(undefined, undefined) };
    writeFileSync(readmePath, renderReadme({ ...latest, derived: derive(latest.overhead, latest.memory) }, extras));
    console.log(`wrote ${readmePath}`);
    return;
  }
  const filterArgs = filter !== undefined ? ["--filter", filter] : [];
  const load = loadavg()[0] ?? 0;
  if (load > cpus().length * 0.75) console.error(`warning: load average ${load.toFixed(1)} on ${cpus().length} cores; times will be noisy (the README says so)`);
  if (selected("overhead")) {
    console.error("overhead suite (time)...");
    overhead = runSuite<OverheadReport>("overhead.bench.ts", [], [
      "--rounds", args.get("rounds") ?? (quick ? "1" : "4"),
      "--time-ms", args.get("time-ms") ?? (quick ? "80" : "120"),
      ...filterArgs,
    ]);
  }
  if (selected("memory")) {
    console.error("memory suite (bytes)...");
    memory = runSuite<MemoryReport>("memory.bench.ts", memoryNodeFlags, filterArgs);
  }
  if (selected("adapters")) {
    console.error("adapters suite (around a provider call: AI SDK, LangChain)...");
    adapters = { ...runSuite<AdapterReport>("ai-sdk.bench.ts", [], ["--rounds", quick ? "1" : "5", "--time-ms", quick ? "60" : "250"]), command };
  }
  if (selected("spawn")) {
    console.error("spawn suite (command hooks)...");
    spawn = { ...runSuite<SpawnReport>("spawn.bench.ts", [], ["--samples", quick ? "10" : "100", "--bridge-samples", quick ? "3" : "20"]), command };
  }
  const ranTimeOrMemory = overhead !== undefined || memory !== undefined;
  const last = previous();
  if (only !== undefined) {
    overhead ??= last?.overhead;
    memory ??= last?.memory;
  }
  const derived = derive(overhead, memory);
  // latest.json holds the overhead and memory suites: rewritten only when one of them ran.
  const latest: Latest = ranTimeOrMemory || last === undefined ? { machine: machine(), command, overhead, memory, derived } : { ...last, derived };

  if (ranTimeOrMemory) {
    console.log(textTable(["target", "measured", "limit", "met"], derived.targets.map((t) => [t.id, t.measured, t.limit, t.met === undefined ? (t.measured === "n/a" ? "n/a" : "-") : t.met ? "yes" : "NO"])));
  }
  if (filter !== undefined) {
    console.log(textTable(["case", "ns/call", "bytes/run"], [...new Set([...Object.keys(derived.ns), ...Object.keys(derived.bytes)])].map((id) => [id, fmt(derived.ns[id], 1), fmt(derived.bytes[id], 1)])));
    console.log("(filtered run: README.md and results/ left unchanged)");
    return;
  }
  mkdirSync(resultsDir, { recursive: true });
  const written: string[] = [];
  if (ranTimeOrMemory) {
    writeJson(latestPath, latest);
    written.push(latestPath);
  }
  if (adapters !== undefined) {
    writeJson(adaptersPath, adapters);
    written.push(adaptersPath);
  }
  if (spawn !== undefined) {
    writeJson(spawnPath, spawn);
    written.push(spawnPath);
  }
  const extras = previousExtras();
  writeFileSync(readmePath, renderReadme(latest, extras));
  written.push(readmePath);
  console.log(`wrote ${written.join(", ")} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
};

main();
