/**
 * Memory suite: bytes allocated per run (and per hook) for every case in `cases.ts`.
 *
 * Method: the young generation is fixed and large (`--min-semi-space-size` = `--max-semi-space-size`),
 * so no scavenge runs while a case is measured. For each case: warm up, force full collections
 * (`gc()`), read `heapUsed`, run the case K times (awaiting each), read `heapUsed` again. With no
 * collection in between, the difference is exactly what was allocated on the JS heap. A
 * `PerformanceObserver` watches for `gc` entries; a repetition that overlapped a collection is
 * dropped (and reported), and the case is retried with a smaller K. The harness loop itself
 * allocates (an `await` per call): the `bare` case measures that floor.
 *
 *   npx tsx benchmarks/memory.bench.ts [--filter onion] [--json out.json]
 *
 * Without `--expose-gc` it re-runs itself with the right flags.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { PerformanceObserver, performance } from "node:perf_hooks";
import { buildCases, input, type Case } from "./cases.ts";
import { fmt, median, parseArgs, sleep, textTable } from "./util.ts";

/** Semi-space size in MB: the young generation can take this much before a scavenge. */
export const semiSpaceMb = 256;
export const memoryNodeFlags = ["--expose-gc", `--min-semi-space-size=${semiSpaceMb}`, `--max-semi-space-size=${semiSpaceMb}`];

/** Allocation budget per measured loop: well under the semi-space, so nothing is collected. */
const budgetBytes = 32 * 1024 * 1024;
const repetitions = Number(process.env.MEM_REPS ?? 3);
/** Calls after each forced GC before measuring (capped so they cannot fill the young generation). */
const rewarmCalls = Number(process.env.MEM_REWARM ?? 20_000);

export interface MemoryResult {
  readonly id: string;
  readonly family: string;
  readonly op: string;
  readonly n: number;
  /** Median bytes allocated per run over the clean repetitions. */
  readonly bytes: number;
  readonly k: number;
  readonly clean: number;
  readonly dropped: number;
  readonly samples: number[];
}

export interface MemoryReport {
  readonly suite: "memory";
  readonly flags: string[];
  readonly repetitions: number;
  readonly results: MemoryResult[];
  /** Reference sizes: what one outcome object and one run context take. */
  readonly sizes: { outcome: number; runContext: number | undefined; promise: number; note: string };
  readonly skipped: { family: string; reason: string }[];
}

const gcEntries: { start: number; end: number }[] = [];
const observer = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcEntries.push({ start: e.startTime, end: e.startTime + e.duration });
});

const collect = (): void => {
  const gc = globalThis.gc as () => void;
  gc();
  gc();
};

const heapUsed = (): number => process.memoryUsage().heapUsed;

/** One measured loop: bytes per call, and the time window (to match against GC entries). */
const loop = async (fn: (x: typeof input) => unknown, k: number, rewarm: number): Promise<{ perRun: number; start: number; end: number }> => {
  collect();
  // A forced full GC may deoptimise code that embedded objects which died ("weak objects");
  // run again for a moment so the measured loop sees the same optimised code as before.
  for (let i = 0; i < rewarm; i++) await fn(input);
  const start = performance.now();
  const h0 = heapUsed();
  for (let i = 0; i < k; i++) await fn(input);
  const h1 = heapUsed();
  const end = performance.now();
  return { perRun: (h1 - h0) / k, start, end };
};

/** Bytes per call of a synchronous allocation, kept alive in a ring so it cannot be optimised away. */
const syncBytes = (make: (i: number) => unknown, k: number): number => {
  const ring: unknown[] = new Array(1024).fill(undefined);
  for (let i = 0; i < k; i++) ring[i & 1023] = make(i); // warm
  collect();
  const h0 = heapUsed();
  for (let i = 0; i < k; i++) ring[i & 1023] = make(i);
  const h1 = heapUsed();
  return Math.round((h1 - h0) / k);
};

/** GC entries are delivered on a later tick; wait for them before deciding which loops were clean. */
const overlapped = async (windows: readonly { start: number; end: number }[]): Promise<boolean[]> => {
  await sleep(50);
  return windows.map((w) => gcEntries.some((g) => g.end >= w.start && g.start <= w.end));
};

const measureCase = async (c: Case): Promise<MemoryResult> => {
  // Warm up so compilation and feedback allocations are not counted.
  const until = performance.now() + 400;
  while (performance.now() < until) for (let i = 0; i < 100; i++) await c.fn(input);
  const probe = await loop(c.fn, 2000, 2000);
  let k = Math.max(2000, Math.min(50_000, Math.floor(budgetBytes / Math.max(probe.perRun, 1))));
  const rewarm = Math.min(rewarmCalls, Math.floor((2 * budgetBytes) / Math.max(probe.perRun, 1)));
  let samples: number[] = [];
  let dropped = 0;
  for (let attempt = 0; attempt < 3 && samples.length < 2; attempt++) {
    const windows: { perRun: number; start: number; end: number }[] = [];
    for (let r = 0; r < repetitions; r++) windows.push(await loop(c.fn, k, rewarm));
    const dirty = await overlapped(windows);
    windows.forEach((w, i) => (dirty[i] ? dropped++ : samples.push(w.perRun)));
    if (samples.length < 2) k = Math.max(500, k >> 1);
  }
  return { id: c.id, family: c.family, op: c.op, n: c.n, bytes: median(samples), k, clean: samples.length, dropped, samples: samples.map((s) => Math.round(s * 10) / 10) };
};

const referenceSizes = async (): Promise<MemoryReport["sizes"]> => {
  const outcome = syncBytes((i) => ({ _tag: "Completed", value: i }), 50_000);
  const promise = syncBytes((i) => Promise.resolve(i), 50_000);
  let runContext: number | undefined;
  let note = "";
  try {
    // Internal module: the per-run state of the engine.
    const { Run } = await import("../src/core/run.ts");
    const { gate } = await import("../src/core/point.ts");
    const def = gate({ name: "toolCall" });
    const runtime = { store: undefined, approval: undefined, freeze: false, onFailure: undefined, pending: new Set(), stats: { hookFailures: 0, failOpen: 0, observerErrors: 0, observerDrops: 0 } };
    const chain = { point: def, layers: [], observers: [], settles: false, nests: false, exits: [], unknownSubject: undefined, shared: true };
    runContext = syncBytes(() => new Run(runtime as never, chain, undefined, input, (x: unknown) => x, undefined, 0), 50_000);
  } catch (error) {
    note = `Run not measured: ${error instanceof Error ? error.message : String(error)}`;
  }
  return { outcome, runContext, promise, note };
};

export const runMemory = async (options: { filter?: RegExp; log?: (line: string) => void }): Promise<MemoryReport> => {
  if (typeof globalThis.gc !== "function") throw new Error("memory suite needs --expose-gc");
  const log = options.log ?? (() => {});
  observer.observe({ entryTypes: ["gc"] });
  const { cases, skipped } = await buildCases(options.filter);
  for (const s of skipped) log(`skipped ${s.family}: ${s.reason}`);
  const sizes = await referenceSizes();
  const results: MemoryResult[] = [];
  const started = Date.now();
  for (const c of cases) {
    const r = await measureCase(c);
    if (r.dropped > 0) log(`memory: ${c.id}: ${r.dropped} repetition(s) overlapped a GC and were dropped`);
    results.push(r);
  }
  observer.disconnect();
  log(`memory: ${cases.length} cases in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { suite: "memory", flags: process.execArgv.filter((f) => f.startsWith("--") && !f.startsWith("--import")), repetitions, results, sizes, skipped };
};

const main = async (): Promise<void> => {
  const args = parseArgs(process.argv.slice(2));
  if (typeof globalThis.gc !== "function") {
    const self = fileURLToPath(import.meta.url);
    const child = spawnSync(process.execPath, [...memoryNodeFlags, "--import", "tsx", self, ...process.argv.slice(2)], { stdio: "inherit" });
    process.exit(child.status ?? 1);
  }
  const filter = args.get("filter");
  const report = await runMemory({ ...(filter !== undefined ? { filter: new RegExp(filter) } : {}), log: (line) => console.error(line) });
  const out = args.get("json");
  if (out !== undefined) writeFileSync(out, JSON.stringify(report, null, 2));
  else {
    console.log(`outcome object ${report.sizes.outcome} B, promise ${report.sizes.promise} B, run context ${report.sizes.runContext ?? "n/a"} B ${report.sizes.note}`);
    console.log(textTable(
      ["case", "bytes/run", "K", "clean", "samples"],
      report.results.map((r) => [r.id, fmt(r.bytes, 1), String(r.k), `${r.clean}/${r.clean + r.dropped}`, r.samples.join(" ")]),
    ));
  }
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
