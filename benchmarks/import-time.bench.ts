/**
 * Import time: how long a fresh Node process takes to `import "agent-onion"` (and each subpath),
 * beside `node -e 0`. Each case runs in `--runs` fresh processes (default 10), the cases
 * interleaved round by round so a busy machine slows them alike; a process is timed from spawn to
 * exit, and its CPU time (user and system) is measured too, which a busy machine disturbs much
 * less. The package is imported by its name from this checkout (Node resolves a package's own
 * name through its "exports", so this is dist/, as installed), after `npm run build`.
 *
 *   npx tsx benchmarks/import-time.bench.ts [--runs 10] [--no-build] [--json out.json]
 *
 * Target: the root at most 60 ms over `node -e 0` (median).
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { timeProcess, type ProcessTime } from "./process-time.ts";
import { fmt, median, parseArgs, textTable } from "./util.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The target: the root's median at most this many ms over `node -e 0`'s. */
export const ROOT_BUDGET_MS = 60;

export interface ImportCase {
  readonly name: string;
  readonly min: number;
  readonly median: number;
  readonly max: number;
  /** Median over `node -e 0`'s median. */
  readonly over: number;
  /** Median CPU time, and its excess over `node -e 0`'s. */
  readonly cpu: number;
  readonly cpuOver: number;
}

const cases: readonly (readonly [string, string])[] = [
  ["node -e 0", "0"],
  ...["", "/core", "/agent", "/middleware", "/ai-sdk", "/mcp", "/koa", "/otel", "/redis", "/effect", "/claude"].map(
    (s) => [`import "agent-onion${s}"`, `import "agent-onion${s}";`] as const,
  ),
];

const timeOnce = (code: string): ProcessTime => timeProcess(process.execPath, ["--input-type=module", "-e", code], { cwd: root });

/**
 * Time every case in `runs` fresh processes each.
 *
 * @example
 * const table = measureImports(10)
 */
export const measureImports = (runs: number): ImportCase[] => {
  const samples = cases.map(() => [] as ProcessTime[]);
  for (let round = 0; round < runs; round++) cases.forEach(([, code], i) => samples[i]!.push(timeOnce(code)));
  const base = median(samples[0]!.map((s) => s.wall));
  const baseCpu = median(samples[0]!.map((s) => s.cpu));
  return cases.map(([name], i) => {
    const wall = samples[i]!.map((s) => s.wall);
    const cpu = median(samples[i]!.map((s) => s.cpu));
    return {
      name,
      min: Math.min(...wall),
      median: median(wall),
      max: Math.max(...wall),
      over: median(wall) - base,
      cpu,
      cpuOver: cpu - baseCpu,
    };
  });
};

const main = (): void => {
  const args = parseArgs(process.argv.slice(2));
  const runs = Number(args.get("runs") ?? 10);
  if (!args.has("no-build")) execFileSync("npm", ["run", "build", "--silent"], { cwd: root, stdio: "inherit" });
  const load = loadavg();
  const results = measureImports(runs);
  const rootCase = results[1]!;
  console.log(
    `Import time, ${runs} fresh processes per case, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, load ${load.map((l) => l.toFixed(1)).join(" ")}`,
  );
  console.log(`Command: npx tsx benchmarks/import-time.bench.ts --runs ${runs}\n`);
  console.log(
    textTable(
      ["case", "min ms", "median ms", "max ms", "median over node -e 0", "CPU ms (median)", "CPU over node -e 0"],
      results.map((r) => [
        r.name,
        fmt(r.min),
        fmt(r.median),
        fmt(r.max),
        r === results[0] ? "" : `+${fmt(r.over)} ms`,
        fmt(r.cpu),
        r === results[0] ? "" : `+${fmt(r.cpuOver)} ms`,
      ]),
    ),
  );
  console.log(
    `\nroot: +${fmt(rootCase.over)} ms over node -e 0, wall (target: at most +${ROOT_BUDGET_MS} ms): ${rootCase.over <= ROOT_BUDGET_MS ? "met" : "NOT met"}; CPU: +${fmt(rootCase.cpuOver)} ms`,
  );
  const out = args.get("json");
  if (out)
    writeFileSync(
      out,
      `${JSON.stringify({ suite: "import-time", date: new Date().toISOString(), node: process.version, runs, load, cases: results }, null, 2)}\n`,
    );
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
