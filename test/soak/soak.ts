/**
 * The soak (H7): many runs (SOAK_RUNS, default 100 000) through a realistic stack, 1 % of them
 * with a random hook fault of every kind the checklist names: throw (sync and async), reject with
 * a non-Error, time out, never settle (hook timeout and run deadline), answer an invalid action,
 * Reject on an observation point, call next() twice, and abort by the caller. Every outcome is
 * checked against what its fault must give. Along the way it samples the heap (after a full GC),
 * the active handles and the per-run overhead (p50/p99 against calling the operation directly);
 * at the end the heap and handle counts must be flat, with zero unhandled rejections.
 *
 * `npm run soak` (= `tsx test/soak/soak.ts`) runs it in full and writes its figures to
 * `SOAK_OUT` (default scripts/reliability/out/soak.json); it exits non-zero on any failure.
 * test/reliability/soak.test.ts runs a shortened form of the same function in the normal suite.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  Continue, HookError, Outcome, Reject, RunAbortedError, Transform, createStack, gate, observe, type Hook,
} from "../../src/core/index.ts";
import { gc, sleep } from "../reliability/helpers.ts";

export const faultKinds = [
  "throw-sync", "throw-async", "reject-non-error", "timeout", "never-settles", "run-deadline",
  "invalid-action", "reject-on-observe", "next-twice", "abort",
] as const;
export type FaultKind = (typeof faultKinds)[number];

interface Job {
  readonly id: number;
  readonly fault: FaultKind | undefined;
  readonly tag: string;
}
interface Done {
  readonly content: string;
}

export interface SoakOptions {
  readonly runs?: number;
  /** Share of runs with a fault, 0..1; default 0.01. */
  readonly faultRate?: number;
  /** Runs in flight at once; default 200. */
  readonly concurrency?: number;
  /** Seed of the fault schedule; default 20260101. */
  readonly seed?: number;
  /** How many times to sample heap, handles and overhead; default 20. */
  readonly samples?: number;
  /** Sequential clean runs timed per overhead sample; default 1 000. */
  readonly overheadRuns?: number;
  /** Allowed heap growth between the first and the last sample, bytes; default 6 MiB. */
  readonly heapToleranceBytes?: number;
  /** Allowed growth of the active handle count; default 0. */
  readonly handleTolerance?: number;
  /**
   * Fail when the late median p50 overhead exceeds this multiple of the early one (plus 50 µs),
   * or the late median p99 this multiple (plus 2 ms, for a shared machine); default 4, 0 = do not check.
   */
  readonly overheadTolerance?: number;
  readonly log?: (line: string) => void;
}

export interface Sample {
  readonly afterRuns: number;
  readonly heapUsedBytes: number;
  readonly activeHandles: number;
  readonly handlesByType: Record<string, number>;
  readonly timers: number;
  readonly overheadP50us: number;
  readonly overheadP99us: number;
}

export interface SoakFigures {
  readonly runs: number;
  readonly faultRate: number;
  readonly concurrency: number;
  readonly seed: number;
  readonly durationMs: number;
  readonly runsPerSecond: number;
  readonly faults: Record<FaultKind, { readonly injected: number; readonly survived: number }>;
  readonly faultsInjected: number;
  readonly faultsSurvived: number;
  readonly cleanRuns: number;
  /** Outcomes that were not exactly what the run's fault must give. */
  readonly mismatches: number;
  /** Runs that never settled, settled twice, or whose promise rejected. */
  readonly lost: number;
  /** Observer events, one per settled run, checked after flush. */
  readonly observerEvents: number;
  readonly unhandledRejections: number;
  readonly uncaughtExceptions: number;
  readonly stackStats: { readonly hookFailures: number; readonly failOpen: number; readonly observerErrors: number };
  readonly heap: { readonly startBytes: number; readonly endBytes: number; readonly growthBytes: number; readonly toleranceBytes: number; readonly flat: boolean; readonly gc: string };
  readonly handles: { readonly start: number; readonly end: number; readonly startByType: Record<string, number>; readonly endByType: Record<string, number>; readonly flat: boolean };
  readonly overhead: {
    readonly p50us: number; readonly p99us: number; readonly earlyP50us: number; readonly lateP50us: number;
    readonly earlyP99us: number; readonly lateP99us: number; readonly runsPerSample: number; readonly stable: boolean | "not checked";
  };
  readonly samples: readonly Sample[];
  readonly examples: readonly string[];
  readonly failures: readonly string[];
  readonly ok: boolean;
}

/** mulberry32: a small seeded PRNG, so a soak's fault schedule can be replayed. */
const prng = (seed: number) => () => {
  seed |= 0;
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};


const nonErrors: readonly unknown[] = [undefined, null, "a string", 42, Symbol("s"), { code: "E" }, ["x"], 10n];
// Generous against event-loop lag: a hook's deadline counts wall time, and 200 runs in flight on a
// shared machine can hold an answer back for tens of ms.
const hookTimeoutMs = 500;
const runDeadlineMs = 50;

/** The stack under soak: a realistic mix of hooks, plus the hooks that carry the faults. */
const buildStack = (runs: number) => {
  const points = {
    tool: gate<Job, Done>({ name: "tool", subject: (j) => (j.id % 3 === 0 ? "Bash" : "Read") }),
    watch: observe<Job, Done>({ name: "watch" }),
  };
  // Observer events of soak runs (ids 0..runs-1; warm-up and overhead runs use negative ids), per run.
  const events = { count: 0, perRun: new Uint8Array(runs) };
  const seen = (e: { readonly input: { readonly id: number } }): void => {
    if (e.input.id < 0) return;
    events.count++;
    events.perRun[e.input.id] = Math.min(255, (events.perRun[e.input.id] ?? 0) + 1);
  };
  const faulty: Hook<Job, Done, "gate"> = {
    name: "faulty-gate", priority: 20,
    before: (job, ctx) => {
      switch (job.fault) {
        case "throw-sync": throw new Error(`sync fault ${job.id}`);
        case "throw-async": return Promise.reject(new Error(`async fault ${job.id}`));
        case "reject-non-error": return Promise.reject(nonErrors[job.id % nonErrors.length]);
        case "invalid-action": return { action: "alow" } as never;
        case "run-deadline": return new Promise(() => {}) as never;
        // Waits on the run's signal (no timer of its own to race the caller's abort).
        case "abort": return sleep(10_000, ctx.signal).then(() => Continue);
        default: return Continue;
      }
    },
  };
  const stack = createStack(points, { strict: true })
    .use("tool", { name: "guard", priority: 10, match: "Bash", before: (job) => (job.tag === "forbidden" ? Reject("no") : Continue) })
    .use("tool", faulty)
    .use("tool", {
      name: "timed-gate", priority: 30, timeoutMs: hookTimeoutMs,
      before: async (job, ctx) => {
        // "timeout" answers only once its own timeout aborted its signal: that late answer must be
        // dropped. (A timer of its own would race the timeout timer under event-loop lag; see
        // docs/reliability.md, "timeouts are timers".)
        if (job.fault === "timeout") await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
        else if (job.fault === "never-settles") await new Promise(() => {});
        return Continue;
      },
    })
    .use("tool", { name: "tagger", priority: 40, before: async (job) => Transform({ ...job, tag: `${job.tag}+t` }) })
    .use("tool", {
      name: "twice", priority: 50,
      around: async (ctx, next) => {
        if (ctx.input.fault !== "next-twice") return next();
        const first = next();
        const second = next(); // concurrent: rejected, never runs the operation again
        await second.catch(() => undefined);
        return first;
      },
    })
    .use("tool", { name: "stamp", priority: 60, after: (out) => Transform({ content: `${out.content}|after` }) })
    .use("tool", { name: "count", observe: seen })
    .use("watch", { name: "observe-fault", before: (job) => (job.fault === "reject-on-observe" ? (Reject("not allowed here") as never) : Continue) })
    .use("watch", { name: "count-watch", observe: seen });
  return { stack, events };
};

/** What a run with `fault` must settle as. */
const check = (job: Job, outcome: Outcome<Done>, ran: number): string | undefined => {
  const okValue = `op ${job.id} ${job.id % 3 === 0 ? "Bash" : "Read"} +t|after`;
  const rejectedBy = (by: string, kind: string) =>
    outcome._tag === "Rejected" && outcome.by === by && outcome.cause instanceof HookError && outcome.cause.kind === kind && ran === (kind === "next-misuse" ? 1 : 0);
  const aborted = (timedOut: boolean) => outcome._tag === "Failed" && outcome.error instanceof RunAbortedError && outcome.error.timedOut === timedOut && ran === 0;
  let good: boolean;
  switch (job.fault) {
    case undefined: good = outcome._tag === "Completed" && outcome.value.content === okValue && ran === 1; break;
    case "throw-sync":
    case "throw-async":
    case "reject-non-error": good = rejectedBy("faulty-gate", "threw"); break;
    case "invalid-action": good = rejectedBy("faulty-gate", "invalid-action"); break;
    case "timeout":
    case "never-settles": good = rejectedBy("timed-gate", "timeout"); break;
    case "next-twice": good = rejectedBy("twice", "next-misuse"); break;
    case "run-deadline": good = aborted(true); break;
    case "abort": good = aborted(false); break;
    case "reject-on-observe": good = outcome._tag === "Completed" && outcome.value.content === `watched ${job.id}` && ran === 1; break;
  }
  return good ? undefined : `run ${job.id} (${job.fault ?? "no fault"}): ${JSON.stringify(outcome, (_k, v) => (typeof v === "bigint" || typeof v === "symbol" ? String(v) : v instanceof Error ? `${v.name}: ${v.message}` : v))}, operation ran ${ran}×`;
};

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
const handleInfo = (): { total: number; byType: Record<string, number> } => {
  const byType: Record<string, number> = {};
  for (const r of process.getActiveResourcesInfo()) byType[r] = (byType[r] ?? 0) + 1;
  return { total: Object.values(byType).reduce((a, b) => a + b, 0), byType };
};

/** Run the soak and return its figures (`ok` says whether every check held). */
export const soak = async (options: SoakOptions = {}): Promise<SoakFigures> => {
  const runs = options.runs ?? 100_000;
  const faultRate = options.faultRate ?? 0.01;
  const concurrency = options.concurrency ?? 200;
  const seed = options.seed ?? 20260101;
  const sampleCount = Math.max(2, options.samples ?? 20);
  const overheadRuns = options.overheadRuns ?? 1000;
  const heapTolerance = options.heapToleranceBytes ?? 6 * 1024 * 1024;
  const handleTolerance = options.handleTolerance ?? 0;
  const overheadTolerance = options.overheadTolerance ?? 4;
  const log = options.log ?? (() => {});
  const random = prng(seed);

  let unhandled = 0;
  let uncaught = 0;
  const onUnhandled = (): void => void unhandled++;
  const onUncaught = (): void => void uncaught++;
  process.on("unhandledRejection", onUnhandled);
  process.on("uncaughtExceptionMonitor", onUncaught);

  const { stack, events } = buildStack(runs);
  const faults = Object.fromEntries(faultKinds.map((k) => [k, { injected: 0, survived: 0 }])) as Record<FaultKind, { injected: number; survived: number }>;
  const examples: string[] = [];
  let mismatches = 0;
  let lost = 0;
  let settledRuns = 0;
  let cleanRuns = 0;

  const operation = async (job: { readonly id: number; readonly tag: string }, ctx: { readonly subject: string | undefined }): Promise<Done> => ({ content: `op ${job.id} ${ctx.subject} ${job.tag}` });

  const runOne = async (id: number, fault: FaultKind | undefined): Promise<void> => {
    const job: Job = { id, fault, tag: "" };
    let ran = 0;
    let outcome: Outcome<Done> | undefined;
    let settlements = 0;
    try {
      if (fault === "reject-on-observe") {
        outcome = await stack.run("watch", job, async () => ((ran++), { content: `watched ${id}` }));
      } else {
        const controller = fault === "abort" ? new AbortController() : undefined;
        if (controller) setTimeout(() => controller.abort(new Error("caller gave up")), 1);
        const promise = stack.run("tool", job, (j, ctx) => ((ran++), operation(j, ctx)), {
          ...(controller ? { signal: controller.signal } : {}),
          ...(fault === "run-deadline" ? { timeoutMs: runDeadlineMs } : {}),
        });
        promise.then(() => void settlements++, () => void settlements++);
        outcome = await promise;
      }
    } catch (error) {
      lost++;
      if (examples.length < 10) examples.push(`run ${id} (${fault ?? "no fault"}) rejected: ${String(error)}`);
      return;
    }
    settledRuns++;
    if (fault === undefined) cleanRuns++;
    else faults[fault].injected++;
    const problem = check(job, outcome, ran);
    if (problem === undefined) {
      if (fault !== undefined) faults[fault].survived++;
    } else {
      mismatches++;
      if (examples.length < 10) examples.push(problem);
    }
    void settlements;
  };

  /** Sequential clean runs against the operation alone: per-run overhead of the stack, in µs. */
  const measureOverhead = async (): Promise<number[]> => {
    const direct: number[] = [];
    const through: number[] = [];
    const ctx = { subject: "Read" };
    for (let i = 0; i < overheadRuns; i++) {
      const job: Job = { id: -1_000_000 - i, fault: undefined, tag: "" };
      let t = performance.now();
      await operation(job, ctx);
      direct.push(performance.now() - t);
      t = performance.now();
      await stack.run("tool", job, operation);
      through.push(performance.now() - t);
    }
    direct.sort((a, b) => a - b);
    const base = percentile(direct, 0.5);
    return through.map((ms) => Math.max(0, (ms - base) * 1000)).sort((a, b) => a - b);
  };

  const samples: Sample[] = [];
  const allOverhead: number[] = [];
  const takeSample = async (afterRuns: number): Promise<void> => {
    await sleep(100); // let the last fault timers run out
    await stack.flush();
    gc();
    const heapUsedBytes = process.memoryUsage().heapUsed;
    const handles = handleInfo();
    const overhead = await measureOverhead();
    allOverhead.push(...overhead);
    const sample: Sample = {
      afterRuns, heapUsedBytes, activeHandles: handles.total, handlesByType: handles.byType, timers: handles.byType.Timeout ?? 0,
      overheadP50us: Math.round(percentile(overhead, 0.5) * 10) / 10, overheadP99us: Math.round(percentile(overhead, 0.99) * 10) / 10,
    };
    samples.push(sample);
    log(`after ${afterRuns} runs: heap ${(heapUsedBytes / 1048576).toFixed(1)} MiB, handles ${handles.total}, overhead p50 ${sample.overheadP50us} µs p99 ${sample.overheadP99us} µs`);
  };

  // Warm up (JIT, chain caches), then take the baseline.
  const warmup = Math.min(2000, Math.max(200, Math.floor(runs / 20)));
  for (let i = 0; i < warmup; i += 50) await Promise.all(Array.from({ length: 50 }, (_, k) => runOne(-1 - i - k, undefined)));
  mismatches = 0;
  lost = 0;
  cleanRuns = 0;
  settledRuns = 0;
  events.count = 0;
  examples.length = 0;
  const statsBefore = stack.stats;
  await takeSample(0);

  let runMs = 0; // time spent running soak batches, sampling pauses and overhead measurements excluded
  const every = Math.ceil(runs / (sampleCount - 1));
  let next = 0;
  while (next < runs) {
    const end = Math.min(runs, next + every);
    let cursor = next;
    const worker = async (): Promise<void> => {
      while (cursor < end) {
        const id = cursor++;
        const fault = random() < faultRate ? faultKinds[Math.floor(random() * faultKinds.length)] : undefined;
        await runOne(id, fault);
      }
    };
    const batchStart = performance.now();
    await Promise.all(Array.from({ length: Math.min(concurrency, end - next) }, worker));
    runMs += performance.now() - batchStart;
    next = end;
    await takeSample(next);
  }
  const durationMs = runMs;
  await stack.flush();
  process.off("unhandledRejection", onUnhandled);
  process.off("uncaughtExceptionMonitor", onUncaught);

  const statsAfter = stack.stats;
  const stackStats = {
    hookFailures: statsAfter.hookFailures - statsBefore.hookFailures,
    failOpen: statsAfter.failOpen - statsBefore.failOpen,
    observerErrors: statsAfter.observerErrors - statsBefore.observerErrors,
  };
  const first = samples[0] as Sample;
  const last = samples.at(-1) as Sample;
  // Handles are counted in each sample after late fault timers ran out and observers flushed.
  const startHandles = { total: first.activeHandles, byType: first.handlesByType };
  const endHandles = { total: last.activeHandles, byType: last.handlesByType };
  const growth = last.heapUsedBytes - first.heapUsedBytes;
  const heapFlat = growth <= heapTolerance;
  const handlesFlat = endHandles.total <= startHandles.total + handleTolerance && (endHandles.byType.Timeout ?? 0) <= (startHandles.byType.Timeout ?? 0);
  const half = Math.max(1, Math.floor(samples.length / 2));
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const earlyP99 = median(samples.slice(0, half).map((s) => s.overheadP99us));
  const lateP99 = median(samples.slice(half).map((s) => s.overheadP99us));
  const earlyP50 = median(samples.slice(0, half).map((s) => s.overheadP50us));
  const lateP50 = median(samples.slice(half).map((s) => s.overheadP50us));
  const stable = overheadTolerance === 0 ? "not checked" as const :
    lateP50 <= earlyP50 * overheadTolerance + 50 && lateP99 <= earlyP99 * overheadTolerance + 2000;
  allOverhead.sort((a, b) => a - b);

  const faultsInjected = faultKinds.reduce((n, k) => n + faults[k].injected, 0);
  const faultsSurvived = faultKinds.reduce((n, k) => n + faults[k].survived, 0);
  const failures: string[] = [];
  if (mismatches > 0) failures.push(`${mismatches} outcomes differed from what their fault must give`);
  if (lost > 0 || settledRuns !== runs) failures.push(`${lost} runs lost (${settledRuns} of ${runs} settled)`);
  const notOnce = events.perRun.reduce((n, c) => n + (c === 1 ? 0 : 1), 0);
  if (events.count !== runs || notOnce > 0) failures.push(`observers saw ${events.count} events for ${runs} runs, ${notOnce} runs not exactly once (each run must settle exactly once)`);
  if (unhandled > 0) failures.push(`${unhandled} unhandled rejections`);
  if (uncaught > 0) failures.push(`${uncaught} uncaught exceptions`);
  if (!heapFlat) failures.push(`heap grew ${(growth / 1048576).toFixed(1)} MiB (tolerance ${(heapTolerance / 1048576).toFixed(1)} MiB)`);
  if (!handlesFlat) failures.push(`active handles went from ${startHandles.total} ${JSON.stringify(startHandles.byType)} to ${endHandles.total} ${JSON.stringify(endHandles.byType)}`);
  if (stable === false) failures.push(`overhead grew: p50 ${earlyP50} → ${lateP50} µs, p99 ${earlyP99} → ${lateP99} µs (medians of the early and late samples)`);
  if (faultRate > 0 && runs >= 5000 && faultKinds.some((k) => faults[k].injected === 0)) failures.push(`some fault kinds were never injected: ${faultKinds.filter((k) => faults[k].injected === 0).join(", ")}`);

  return {
    runs, faultRate, concurrency, seed, durationMs: Math.round(durationMs), runsPerSecond: Math.round(runs / (durationMs / 1000)),
    faults, faultsInjected, faultsSurvived, cleanRuns, mismatches, lost, observerEvents: events.count,
    unhandledRejections: unhandled, uncaughtExceptions: uncaught, stackStats,
    heap: {
      startBytes: first.heapUsedBytes, endBytes: last.heapUsedBytes, growthBytes: growth, toleranceBytes: heapTolerance, flat: heapFlat,
      gc: typeof (globalThis as { gc?: unknown }).gc === "function" ? "--expose-gc" : "v8.setFlagsFromString('--expose-gc')",
    },
    handles: { start: startHandles.total, end: endHandles.total, startByType: startHandles.byType, endByType: endHandles.byType, flat: handlesFlat },
    overhead: {
      p50us: Math.round(percentile(allOverhead, 0.5) * 10) / 10, p99us: Math.round(percentile(allOverhead, 0.99) * 10) / 10,
      earlyP50us: earlyP50, lateP50us: lateP50, earlyP99us: earlyP99, lateP99us: lateP99, runsPerSample: overheadRuns, stable,
    },
    samples, examples, failures, ok: failures.length === 0,
  };
};

const here = dirname(fileURLToPath(import.meta.url));
export const defaultSoakOut = resolve(here, "..", "..", "scripts", "reliability", "out", "soak.json");

/** `npm run soak`: the full soak, its figures written as JSON; exit code 1 when a check failed. */
const main = async (): Promise<void> => {
  const runs = Number(process.env.SOAK_RUNS ?? 100_000);
  if (!Number.isInteger(runs) || runs <= 0) throw new RangeError(`SOAK_RUNS must be a positive integer, got ${process.env.SOAK_RUNS}`);
  const out = process.env.SOAK_OUT ? resolve(process.env.SOAK_OUT) : defaultSoakOut;
  console.log(`soak: ${runs} runs, 1% faults of ${faultKinds.length} kinds (${faultKinds.join(", ")})`);
  const figures = await soak({ runs, log: (line) => console.log(`  ${line}`) });
  const record = { ...figures, date: new Date().toISOString(), command: `SOAK_RUNS=${runs} npm run soak`, node: process.version };
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(record, null, 2)}\n`);
  console.log(`soak: ${figures.runs} runs in ${(figures.durationMs / 1000).toFixed(1)} s (${figures.runsPerSecond}/s); faults injected ${figures.faultsInjected}, survived ${figures.faultsSurvived}; lost ${figures.lost}; unhandled rejections ${figures.unhandledRejections}`);
  console.log(`soak: heap ${(figures.heap.startBytes / 1048576).toFixed(1)} → ${(figures.heap.endBytes / 1048576).toFixed(1)} MiB; handles ${figures.handles.start} → ${figures.handles.end}; overhead p50 ${figures.overhead.p50us} µs, p99 ${figures.overhead.p99us} µs`);
  console.log(`soak: figures written to ${join(out)}`);
  if (!figures.ok) {
    for (const f of figures.failures) console.error(`soak FAILED: ${f}`);
    for (const e of figures.examples) console.error(`  e.g. ${e}`);
    process.exitCode = 1;
  } else console.log("soak: ok");
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
