/**
 * One measurement in this (fresh) process, printed as JSON on stdout; `run.ts` starts one process
 * per case, mode and round.
 *
 *   node --import tsx benchmarks/measure.ts --case onion-ba/20 --mode time [--ms 300]
 *   node --expose-gc --min-semi-space-size=256 --max-semi-space-size=256 --import tsx benchmarks/measure.ts --case onion-ba/20 --mode bytes
 *   node --import tsx benchmarks/measure.ts --freeze 2048
 *
 * Time: ns per call, the median of mitata samples of 32 awaited calls each, on this process's CPU
 * time (`process.cpuUsage`: on a shared machine it leaves out the time other processes held the
 * CPU; everything measured runs on the main thread without I/O).
 *
 * Bytes: the young generation is fixed and large, so no scavenge runs while K calls are made;
 * the difference in `heapUsed` is what they allocated. A loop that a GC overlapped is dropped.
 */
import { PerformanceObserver, performance } from "node:perf_hooks";
import { do_not_optimize, measure } from "mitata";
import { builtDeepFreeze, cases, input, toolCallOf } from "./cases.ts";
import { median, parseArgs, sleep } from "./util.ts";

const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1e3;
};

const warm = async (fn: (x: typeof input) => unknown, ms: number): Promise<void> => {
  const until = performance.now() + ms;
  while (performance.now() < until) for (let i = 0; i < 64; i++) await fn(input);
};

const time = async (fn: (x: typeof input) => unknown, ms: number): Promise<{ ns: number }> => {
  await warm(fn, 300);
  const stats = await measure(
    async () => {
      for (let k = 0; k < 32; k++) do_not_optimize(await fn(input));
    },
    { min_cpu_time: ms * 1e6, batch_samples: 64, min_samples: 12, now: cpuNow },
  );
  return { ns: stats.p50 / 32 };
};

const gcs: { start: number; end: number }[] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcs.push({ start: e.startTime, end: e.startTime + e.duration });
}).observe({ entryTypes: ["gc"] });

const bytes = async (fn: (x: typeof input) => unknown): Promise<{ bytes: number; clean: number }> => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("--mode bytes needs --expose-gc and a fixed young generation (see the header)");
  await warm(fn, 300);
  // As many calls as fit well inside the young generation (256 MB), so no scavenge runs among them.
  gc();
  const h = process.memoryUsage().heapUsed;
  for (let i = 0; i < 1_000; i++) await fn(input);
  const probe = Math.max(1, (process.memoryUsage().heapUsed - h) / 1_000);
  const k = Math.max(1_000, Math.min(20_000, Math.floor((64 * 1024 * 1024) / probe)));
  const samples: number[] = [];
  for (let r = 0; r < 5; r++) {
    gc();
    gc();
    for (let i = 0; i < 2_000; i++) await fn(input); // a full GC can drop optimised code: settle again
    const start = performance.now();
    const h0 = process.memoryUsage().heapUsed;
    for (let i = 0; i < k; i++) await fn(input);
    const h1 = process.memoryUsage().heapUsed;
    const end = performance.now();
    await sleep(20); // GC entries arrive on a later tick
    if (!gcs.some((g) => g.end >= start && g.start <= end)) samples.push((h1 - h0) / k);
  }
  return { bytes: median(samples), clean: samples.length };
};

/** Freezing a tool call of `size` bytes: fresh objects (cold), then the same ones again (warm). */
const freezeCost = async (size: number): Promise<{ coldUs: number; warmUs: number; nodes: number }> => {
  const deepFreeze = await builtDeepFreeze();
  const count = size > 10_000 ? 40 : 2_000;
  const nodes = JSON.stringify(toolCallOf(size)).split("{").length - 1 + JSON.stringify(toolCallOf(size)).split("[").length - 1;
  for (let r = 0; r < 3; r++) for (const v of Array.from({ length: count }, () => toolCallOf(size))) deepFreeze(v); // warm up
  const cold: number[] = [];
  const warmTimes: number[] = [];
  for (let r = 0; r < 5; r++) {
    const values = Array.from({ length: count }, () => toolCallOf(size));
    let t = performance.now();
    for (const v of values) deepFreeze(v);
    cold.push(((performance.now() - t) * 1000) / count);
    t = performance.now();
    for (let again = 0; again < 10; again++) for (const v of values) deepFreeze(v);
    warmTimes.push(((performance.now() - t) * 1000) / count / 10);
  }
  return { coldUs: median(cold), warmUs: median(warmTimes), nodes };
};

const main = async (): Promise<void> => {
  const args = parseArgs(process.argv.slice(2));
  const freeze = args.get("freeze");
  if (freeze !== undefined) {
    process.stdout.write(JSON.stringify(await freezeCost(Number(freeze))));
    return;
  }
  const def = cases.find((c) => c.id === args.get("case"));
  if (def === undefined) throw new Error(`no case ${String(args.get("case"))} (known: ${cases.map((c) => c.id).join(", ")})`);
  const fn = await def.build();
  const result = await fn(input);
  if (!def.check(result)) throw new Error(`case ${def.id} returned ${JSON.stringify(result)?.slice(0, 200)}`);
  const mode = args.get("mode") ?? "time";
  const out = mode === "bytes" ? await bytes(fn) : await time(fn, Number(args.get("ms") ?? 300));
  process.stdout.write(JSON.stringify(out));
};

await main();
