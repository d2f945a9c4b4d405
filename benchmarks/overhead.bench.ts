/**
 * Overhead suite (time): ns per call for every case in `cases.ts`, measured with mitata's
 * `measure`. Each sample calls the case `inner` times, awaiting each result, so the harness
 * cost is spread out.
 *
 * Isolation: each group of cases (one family with one kind of operation, e.g. `onion-ba/async`)
 * runs in its own Node process, so no library's JIT feedback is shaped by another's cases. The
 * groups are measured `rounds` times, in alternating order; the figure kept for a case is the
 * lowest of its round medians (on a shared machine, interference only ever adds time). A second
 * pass runs all agent-onion cases together in one process ("shared"), as an application with many
 * points and operations would, so the cost of that polymorphism is visible too; it also runs
 * `rounds` times, each round in a fresh process, keeping the lowest round median per case.
 *
 *   npx tsx benchmarks/overhead.bench.ts [--rounds 3] [--time-ms 150] [--clock cpu|wall] [--filter onion] [--json out.json]
 *   npx tsx benchmarks/overhead.bench.ts --in-process [...]   # everything in this one process
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { do_not_optimize, measure } from "mitata";
import { buildCases, caseId, families, input, type Case } from "./cases.ts";
import { fmt, median, parseArgs, sleep, textTable } from "./util.ts";

export interface OverheadResult {
  readonly id: string;
  readonly family: string;
  readonly op: string;
  readonly n: number;
  /** The figure used: the lowest over rounds of the round's median sample, ns per call. */
  readonly ns: number;
  /** Median over rounds of the mean ns per call (includes amortised GC, and any interference). */
  readonly mean: number;
  /** Median sample (ns per call) of each round. */
  readonly rounds: number[];
}

export interface OverheadReport {
  readonly suite: "overhead";
  readonly rounds: number;
  readonly timeMs: number;
  readonly inner: number;
  readonly node: string;
  readonly isolated: boolean;
  readonly clock: Clock;
  /** `os.loadavg()` before and after: a loaded machine makes every number suspect. */
  readonly load: { before: number[]; after: number[] };
  readonly results: OverheadResult[];
  /** agent-onion's cases measured together in one process (polymorphic call sites, as in an application). */
  readonly shared: OverheadResult[];
  readonly skipped: { family: string; reason: string }[];
}

const inner = 32;

/**
 * Clocks. `cpu` is this process's CPU time (`process.cpuUsage`, µs resolution, samples of a few
 * hundred µs): everything measured runs on the main thread with no I/O, so on an idle machine it
 * equals wall time, and on a busy one it leaves out the time other processes held the CPU.
 */
export type Clock = "cpu" | "wall";
const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1e3;
};
let clock: Clock = "cpu";

const measureCase = async (c: Case, timeMs: number): Promise<{ avg: number; p50: number }> => {
  const fn = c.fn;
  const x = input;
  const stats = await measure(
    async () => {
      for (let k = 0; k < inner; k++) do_not_optimize(await fn(x));
    },
    { min_cpu_time: timeMs * 1e6, batch_samples: 64, min_samples: 12, ...(clock === "cpu" ? { now: cpuNow } : {}) },
  );
  return { avg: stats.avg / inner, p50: stats.p50 / inner };
};

interface Samples {
  readonly c: { readonly id: string; readonly family: string; readonly op: string; readonly n: number };
  readonly avgs: number[];
  readonly p50s: number[];
}

const summarise = (samples: Iterable<Samples>): OverheadResult[] =>
  [...samples].map(({ c, avgs, p50s }) => ({
    id: c.id, family: c.family, op: c.op, n: c.n, ns: Math.min(...p50s), mean: median(avgs), rounds: p50s,
  }));

/** Measure the matching cases in this process, `rounds` times in alternating order. */
export const runInProcess = async (options: { rounds: number; timeMs: number; warmupMs: number; filter?: RegExp; log?: (line: string) => void }): Promise<{ results: OverheadResult[]; skipped: { family: string; reason: string }[] }> => {
  const log = options.log ?? (() => {});
  const { cases, skipped } = await buildCases(options.filter);
  const samples = new Map<string, Samples>(cases.map((c) => [c.id, { c, avgs: [], p50s: [] }]));
  // Reach a steady state first: every case of the process runs (so all feedback is in place, as
  // it will be while measuring), and background compilation gets time to finish.
  for (let pass = 0; pass < 2; pass++) {
    for (const c of cases) {
      const until = performance.now() + options.warmupMs / 2;
      while (performance.now() < until) for (let k = 0; k < 64; k++) await c.fn(input);
    }
    await sleep(20);
  }
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? cases : [...cases].reverse();
    for (const c of order) {
      const { avg, p50 } = await measureCase(c, options.timeMs);
      const s = samples.get(c.id) as Samples;
      s.avgs.push(avg);
      s.p50s.push(p50);
    }
    if (options.rounds > 1) log(`overhead: round ${round + 1}/${options.rounds}`);
  }
  return { results: summarise(samples.values()), skipped };
};

const self = fileURLToPath(import.meta.url);

/** Run one group in a fresh process (one round) and read back its results. */
const child = (filter: string, timeMs: number, warmupMs: number, rounds: number, dir: string, clockName: Clock): { results: OverheadResult[]; skipped: { family: string; reason: string }[] } => {
  const out = join(dir, `${filter.replace(/[^a-z0-9]+/gi, "_")}.json`);
  const result = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", self, "--in-process", "--filter", filter, "--rounds", String(rounds), "--time-ms", String(timeMs), "--warmup-ms", String(warmupMs), "--clock", clockName, "--json", out], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (result.status !== 0) throw new Error(`overhead group ${filter} failed (exit ${result.status ?? result.signal})`);
  const report = JSON.parse(readFileSync(out, "utf8")) as OverheadReport;
  return { results: report.results, skipped: report.skipped };
};

/** Every group in its own process, `rounds` times; then agent-onion's cases together. */
export const runIsolated = (options: { rounds: number; timeMs: number; warmupMs: number; clock: Clock; filter?: RegExp; log?: (line: string) => void }): OverheadReport => {
  const log = options.log ?? (() => {});
  const before = loadavg();
  const dir = mkdtempSync(join(tmpdir(), "agent-onion-overhead-"));
  try {
    const groups = families.flatMap((f) => f.ops.map((op) => ({ family: f.id, op, pattern: `^${f.id}/${op}/` })))
      .filter((g) => options.filter === undefined || families.find((f) => f.id === g.family)?.sizes.some((n) => options.filter?.test(caseId(g.family, g.op, n))));
    const filterFor = (pattern: string): string => (options.filter === undefined ? pattern : `(?=${pattern})(?=.*${options.filter.source})`);
    const samples = new Map<string, Samples>();
    const skipped = new Map<string, { family: string; reason: string }>();
    for (let round = 0; round < options.rounds; round++) {
      const started = Date.now();
      const order = round % 2 === 0 ? groups : [...groups].reverse();
      for (const g of order) {
        const r = child(filterFor(g.pattern), options.timeMs, options.warmupMs, 1, dir, options.clock);
        for (const s of r.skipped) skipped.set(s.family, s);
        for (const res of r.results) {
          const s: Samples = samples.get(res.id) ?? { c: res, avgs: [] as number[], p50s: [] as number[] };
          s.avgs.push(res.mean);
          s.p50s.push(res.ns);
          samples.set(res.id, s);
        }
      }
      log(`overhead: isolated round ${round + 1}/${options.rounds} done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    let shared: OverheadResult[] = [];
    if (groups.some((g) => g.family.startsWith("onion-"))) {
      const started = Date.now();
      // One process per round, as for the groups: how a process's JIT settles varies from process
      // to process (seen here: the same build at 1x and 2x), so the best round is kept, like above.
      const rounds = new Map<string, Samples>();
      for (let round = 0; round < options.rounds; round++)
        for (const res of child(filterFor("^onion-"), options.timeMs, options.warmupMs, 1, dir, options.clock).results) {
          const s: Samples = rounds.get(res.id) ?? { c: res, avgs: [] as number[], p50s: [] as number[] };
          s.avgs.push(res.mean);
          s.p50s.push(res.ns);
          rounds.set(res.id, s);
        }
      shared = summarise(rounds.values());
      log(`overhead: shared agent-onion pass done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    return {
      suite: "overhead", rounds: options.rounds, timeMs: options.timeMs, inner, node: process.version, isolated: true, clock: options.clock,
      load: { before, after: loadavg() }, results: summarise(samples.values()), shared, skipped: [...skipped.values()],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

const main = async (): Promise<void> => {
  const args = parseArgs(process.argv.slice(2));
  const filterArg = args.get("filter");
  const options = {
    rounds: Number(args.get("rounds") ?? 3),
    timeMs: Number(args.get("time-ms") ?? 150),
    warmupMs: Number(args.get("warmup-ms") ?? 300),
    clock: (args.get("clock") === "wall" ? "wall" : "cpu") as Clock,
    ...(filterArg !== undefined ? { filter: new RegExp(filterArg) } : {}),
    log: (line: string) => console.error(line),
  };
  clock = options.clock;
  let report: OverheadReport;
  if (args.has("in-process")) {
    const before = loadavg();
    const { results, skipped } = await runInProcess(options);
    report = { suite: "overhead", rounds: options.rounds, timeMs: options.timeMs, inner, node: process.version, isolated: false, clock: options.clock, load: { before, after: loadavg() }, results, shared: [], skipped };
  } else report = runIsolated(options);
  const out = args.get("json");
  if (out !== undefined) writeFileSync(out, JSON.stringify(report, null, 2));
  else {
    const rows = (results: OverheadResult[]): string[][] => results.map((r) => [r.id, fmt(r.ns, 1), fmt(r.mean, 1), r.rounds.map((v) => fmt(v, 0)).join(" ")]);
    console.log(textTable(["case", "ns/call (best p50)", "ns/call (mean)", "p50 per round"], rows(report.results)));
    if (report.shared.length > 0) console.log(`\nagent-onion cases in one shared process:\n${textTable(["case", "ns/call (best p50)", "ns/call (mean)", "p50 per round"], rows(report.shared))}`);
    for (const s of report.skipped) console.log(`skipped ${s.family}: ${s.reason}`);
  }
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
