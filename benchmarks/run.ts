/**
 * `npm run bench`: runs the overhead (time) and memory suites, each in a fresh Node process with
 * the flags it needs, then writes `benchmarks/results/latest.json` and `benchmarks/README.md`.
 *
 *   npm run bench                     # both suites (about 3 minutes on 2 idle cores)
 *   npm run bench -- --quick          # one short round, for a smoke test
 *   npm run bench -- --only memory    # or --only overhead; the other suite is kept from latest.json
 *   npm run bench -- --report         # only re-render README.md from latest.json
 *   npm run bench -- --filter onion   # only cases whose id matches (README/latest.json are not written)
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { memoryNodeFlags, type MemoryReport } from "./memory.bench.ts";
import type { OverheadReport } from "./overhead.bench.ts";
import { derive, machine, renderReadme, type Latest } from "./report.ts";
import { fmt, parseArgs, textTable } from "./util.ts";

const here = dirname(fileURLToPath(import.meta.url));
const resultsDir = join(here, "results");
const latestPath = join(resultsDir, "latest.json");
const readmePath = join(here, "README.md");

const args = parseArgs(process.argv.slice(2));
const quick = args.has("quick");
const only = args.get("only");
const filter = args.get("filter");

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

const previous = (): Latest | undefined => (existsSync(latestPath) ? (JSON.parse(readFileSync(latestPath, "utf8")) as Latest) : undefined);

const main = (): void => {
  const started = Date.now();
  const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`;
  let overhead: OverheadReport | undefined;
  let memory: MemoryReport | undefined;
  if (args.has("report")) {
    const last = previous();
    if (last === undefined) throw new Error(`no ${latestPath} to report from`);
    writeFileSync(readmePath, renderReadme({ ...last, derived: derive(last.overhead, last.memory) }));
    console.log(`wrote ${readmePath}`);
    return;
  }
  const filterArgs = filter !== undefined ? ["--filter", filter] : [];
  const load = loadavg()[0] ?? 0;
  if (load > cpus().length * 0.75) console.error(`warning: load average ${load.toFixed(1)} on ${cpus().length} cores; times will be noisy (the README says so)`);
  if (only === undefined || only === "overhead") {
    console.error("overhead suite (time)...");
    overhead = runSuite<OverheadReport>("overhead.bench.ts", [], [
      "--rounds", args.get("rounds") ?? (quick ? "1" : "4"),
      "--time-ms", args.get("time-ms") ?? (quick ? "80" : "120"),
      ...filterArgs,
    ]);
  }
  if (only === undefined || only === "memory") {
    console.error("memory suite (bytes)...");
    memory = runSuite<MemoryReport>("memory.bench.ts", memoryNodeFlags, filterArgs);
  }
  if (only !== undefined) {
    const last = previous();
    overhead ??= last?.overhead;
    memory ??= last?.memory;
  }
  const derived = derive(overhead, memory);
  const latest: Latest = { machine: machine(), command, overhead, memory, derived };

  console.log(textTable(["target", "measured", "limit", "met"], derived.targets.map((t) => [t.id, t.measured, t.limit, t.met === undefined ? "n/a" : t.met ? "yes" : "NO"])));
  if (filter !== undefined) {
    console.log(textTable(["case", "ns/call", "bytes/run"], [...new Set([...Object.keys(derived.ns), ...Object.keys(derived.bytes)])].map((id) => [id, fmt(derived.ns[id], 1), fmt(derived.bytes[id], 1)])));
    console.log("(filtered run: README.md and latest.json left unchanged)");
    return;
  }
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(latestPath, `${JSON.stringify(latest, null, 2)}\n`);
  writeFileSync(readmePath, renderReadme(latest));
  console.log(`wrote ${latestPath} and ${readmePath} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
};

main();
