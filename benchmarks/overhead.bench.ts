/**
 * Overhead suite (time): ns per call for every case in `cases.ts`, measured with mitata's
 * `measure`. Each sample calls the case `inner` times, awaiting each result, so the harness
 * cost is spread out; the whole list is measured `rounds` times (alternating order). The figure
 * kept is the lowest round median: on a shared machine, interference only ever adds time.
 *
 *   npx tsx benchmarks/overhead.bench.ts [--rounds 3] [--time-ms 300] [--filter onion] [--json out.json]
 *
 * `npm run bench` runs it through `run.ts` (with `--expose-gc`, so mitata collects between cases).
 */
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { do_not_optimize, measure } from "mitata";
import { buildCases, input, type Case } from "./cases.ts";
import { fmt, median, parseArgs, textTable } from "./util.ts";

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
  readonly gcExposed: boolean;
  /** `os.loadavg()` before and after: a loaded machine makes every number suspect. */
  readonly load: { before: number[]; after: number[] };
  readonly results: OverheadResult[];
  readonly skipped: { family: string; reason: string }[];
}

const inner = 32;

const measureCase = async (c: Case, timeMs: number): Promise<{ avg: number; p50: number }> => {
  const fn = c.fn;
  const x = input;
  const stats = await measure(
    async () => {
      for (let k = 0; k < inner; k++) do_not_optimize(await fn(x));
    },
    { min_cpu_time: timeMs * 1e6, batch_samples: 64, min_samples: 12 },
  );
  return { avg: stats.avg / inner, p50: stats.p50 / inner };
};

export const runOverhead = async (options: { rounds: number; timeMs: number; filter?: RegExp; log?: (line: string) => void }): Promise<OverheadReport> => {
  const log = options.log ?? (() => {});
  const before = loadavg();
  const { cases, skipped } = await buildCases(options.filter);
  for (const s of skipped) log(`skipped ${s.family}: ${s.reason}`);
  const avgs = new Map<string, number[]>();
  const p50s = new Map<string, number[]>();
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? cases : [...cases].reverse();
    const started = Date.now();
    for (const c of order) {
      const { avg, p50 } = await measureCase(c, options.timeMs);
      (avgs.get(c.id) ?? avgs.set(c.id, []).get(c.id) as number[]).push(avg);
      (p50s.get(c.id) ?? p50s.set(c.id, []).get(c.id) as number[]).push(p50);
    }
    log(`overhead: round ${round + 1}/${options.rounds} done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const results = cases.map((c) => ({
    id: c.id, family: c.family, op: c.op, n: c.n,
    ns: Math.min(...(p50s.get(c.id) ?? [Number.NaN])), mean: median(avgs.get(c.id) ?? []), rounds: p50s.get(c.id) ?? [],
  }));
  return {
    suite: "overhead", rounds: options.rounds, timeMs: options.timeMs, inner, node: process.version,
    gcExposed: typeof globalThis.gc === "function", load: { before, after: loadavg() }, results, skipped,
  };
};

const main = async (): Promise<void> => {
  const args = parseArgs(process.argv.slice(2));
  const filter = args.get("filter");
  const report = await runOverhead({
    rounds: Number(args.get("rounds") ?? 3),
    timeMs: Number(args.get("time-ms") ?? 300),
    ...(filter !== undefined ? { filter: new RegExp(filter) } : {}),
    log: (line) => console.error(line),
  });
  const out = args.get("json");
  if (out !== undefined) writeFileSync(out, JSON.stringify(report, null, 2));
  else
    console.log(textTable(
      ["case", "ns/call (best p50)", "ns/call (mean)", "p50 per round"],
      report.results.map((r) => [r.id, fmt(r.ns, 1), fmt(r.mean, 1), r.rounds.map((v) => fmt(v, 0)).join(" ")]),
    ));
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
