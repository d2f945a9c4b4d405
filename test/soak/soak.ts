/**
 * The soak (H7): many runs (SOAK_RUNS, default 100 000) through a realistic stack, 1 % of them
 * with a random hook fault of every kind the checklist names: throw (sync and async), reject with
 * a non-Error, time out, never settle (hook timeout and run deadline), answer an invalid action,
 * Reject on an observation point, call next() twice, and abort by the caller. Every outcome is
 * checked against what its fault must give. It can fail the ways that matter over time:
 * - a watchdog fails it when any run has not settled within `settleBoundMs`, naming the run, and
 *   it stops there (with every figure so far) rather than waiting forever; runs started and
 *   settled are counted;
 * - the heap is sampled after full collections and its least-squares slope over runs, in bytes per
 *   run, must stay under `heapSlopeTolerance` (default 20: a leak of 40 bytes a run fails);
 * - active handles (`process.getActiveResourcesInfo()`) and open file descriptors (/proc/self/fd)
 *   must not grow; nor may the per-run overhead (p50/p99 against calling the operation directly);
 * - zero unhandled rejections and uncaught exceptions.
 * `inject` puts a hang or a leak into the soak itself: test/reliability/soak.test.ts checks that
 * the soak fails for each.
 *
 * `npm run soak` (= `tsx test/soak/soak.ts`) runs it in full, prints its figures and writes them
 * to `SOAK_OUT` when set; it exits non-zero on any failure.
 * test/reliability/soak.test.ts runs a shortened form of the same function in the normal suite.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  Continue,
  HookError,
  type Outcome,
  Reject,
  RunAbortedError,
  Transform,
  createStack,
  gate,
  observe,
  type Hook,
} from "../../src/core/index.ts";
import { gc, sleep } from "../reliability/helpers.ts";

export const faultKinds = [
  "throw-sync",
  "throw-async",
  "reject-non-error",
  "timeout",
  "never-settles",
  "run-deadline",
  "invalid-action",
  "reject-on-observe",
  "next-twice",
  "abort",
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
  /**
   * Largest heap growth allowed, in bytes per run: the least-squares slope of the heap after full
   * collections over the samples; default 20 for 100 000 runs or more (a leak of 40 bytes a run
   * fails), and 2 MB over the soak for fewer (2 000 000 / runs): a short soak spreads the noise of
   * its samples over fewer runs.
   */
  readonly heapSlopeTolerance?: number;
  /** Longest a run may take to settle before the watchdog fails the soak, in ms; default 10 000. */
  readonly settleBoundMs?: number;
  /** Allowed growth of the active handle count; default 0. */
  readonly handleTolerance?: number;
  /** Allowed growth of open file descriptors; default 0. */
  readonly fdTolerance?: number;
  /** Faults in the soak itself, so that its own tests can see it fail. */
  readonly inject?: {
    /** The soak run with this id runs an operation that never settles, with no timeout to end it. */
    readonly hangAtRun?: number;
    /** Every soak run keeps about this many bytes reachable until the soak ends. */
    readonly leakBytesPerRun?: number;
  };
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
  /** Open file descriptors (/proc/self/fd), or undefined where there is no /proc. */
  readonly openFds: number | undefined;
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
  /** Soak runs started, and settled (with an outcome or a rejection); equal when nothing hung. */
  readonly started: number;
  readonly settled: number;
  /** Runs that never settled, settled twice, or whose promise rejected. */
  readonly lost: number;
  /** The watchdog's bound, and the first run it found unsettled past it (the soak stopped there). */
  readonly watchdog: {
    readonly boundMs: number;
    readonly stuck: { readonly id: number; readonly fault: string; readonly pendingMs: number } | undefined;
  };
  /** Observer events, one per settled run, checked after flush. */
  readonly observerEvents: number;
  readonly unhandledRejections: number;
  readonly uncaughtExceptions: number;
  readonly stackStats: { readonly hookFailures: number; readonly failOpen: number; readonly observerErrors: number };
  readonly heap: {
    readonly startBytes: number;
    readonly endBytes: number;
    readonly growthBytes: number;
    /** Least-squares slope of heap after GC over runs, and the most it may be. */
    readonly slopeBytesPerRun: number;
    readonly slopeToleranceBytesPerRun: number;
    readonly flat: boolean | "not checked";
    readonly gc: string;
  };
  readonly handles: {
    readonly start: number;
    readonly end: number;
    readonly startByType: Record<string, number>;
    readonly endByType: Record<string, number>;
    readonly flat: boolean;
  };
  readonly fds: { readonly start: number | undefined; readonly end: number | undefined; readonly flat: boolean | "not checked" };
  readonly overhead: {
    readonly p50us: number;
    readonly p99us: number;
    readonly earlyP50us: number;
    readonly lateP50us: number;
    readonly earlyP99us: number;
    readonly lateP99us: number;
    readonly runsPerSample: number;
    readonly stable: boolean | "not checked";
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

/** What a wait of the soak answers when the watchdog tripped. */
const STUCK = Symbol("stuck");

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
    name: "faulty-gate",
    priority: 20,
    before: (job, ctx) => {
      switch (job.fault) {
        case "throw-sync":
          throw new Error(`sync fault ${job.id}`);
        case "throw-async":
          return Promise.reject(new Error(`async fault ${job.id}`));
        case "reject-non-error":
          return Promise.reject(nonErrors[job.id % nonErrors.length]);
        case "invalid-action":
          return { action: "alow" } as never;
        case "run-deadline":
          return new Promise(() => {}) as never;
        // Waits on the run's signal (no timer of its own to race the caller's abort).
        case "abort":
          return sleep(10_000, ctx.signal).then(() => Continue);
        default:
          return Continue;
      }
    },
  };
  const stack = createStack(points, { strict: true })
    .use("tool", { name: "guard", priority: 10, match: "Bash", before: (job) => (job.tag === "forbidden" ? Reject("no") : Continue) })
    .use("tool", faulty)
    .use("tool", {
      name: "timed-gate",
      priority: 30,
      timeoutMs: hookTimeoutMs,
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
      name: "twice",
      priority: 50,
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
    .use("watch", {
      name: "observe-fault",
      before: (job) => (job.fault === "reject-on-observe" ? (Reject("not allowed here") as never) : Continue),
    })
    .use("watch", { name: "count-watch", observe: seen });
  return { stack, events };
};

/** What a run with `fault` must settle as. */
const check = (job: Job, outcome: Outcome<Done>, ran: number): string | undefined => {
  const okValue = `op ${job.id} ${job.id % 3 === 0 ? "Bash" : "Read"} +t|after`;
  const rejectedBy = (by: string, kind: string) =>
    outcome._tag === "Rejected" &&
    outcome.by === by &&
    outcome.cause instanceof HookError &&
    outcome.cause.kind === kind &&
    ran === (kind === "next-misuse" ? 1 : 0);
  const aborted = (timedOut: boolean) =>
    outcome._tag === "Failed" && outcome.error instanceof RunAbortedError && outcome.error.timedOut === timedOut && ran === 0;
  let good: boolean;
  switch (job.fault) {
    case undefined:
      good = outcome._tag === "Completed" && outcome.value.content === okValue && ran === 1;
      break;
    case "throw-sync":
    case "throw-async":
    case "reject-non-error":
      good = rejectedBy("faulty-gate", "threw");
      break;
    case "invalid-action":
      good = rejectedBy("faulty-gate", "invalid-action");
      break;
    case "timeout":
    case "never-settles":
      good = rejectedBy("timed-gate", "timeout");
      break;
    case "next-twice":
      good = rejectedBy("twice", "next-misuse");
      break;
    case "run-deadline":
      good = aborted(true);
      break;
    case "abort":
      good = aborted(false);
      break;
    case "reject-on-observe":
      good = outcome._tag === "Completed" && outcome.value.content === `watched ${job.id}` && ran === 1;
      break;
  }
  return good
    ? undefined
    : `run ${job.id} (${job.fault ?? "no fault"}): ${JSON.stringify(outcome, (_k, v) => (typeof v === "bigint" || typeof v === "symbol" ? String(v) : v instanceof Error ? `${v.name}: ${v.message}` : v))}, operation ran ${ran}×`;
};

const percentile = (sorted: ArrayLike<number>, p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

/**
 * The least-squares slope of `y` over `x`.
 *
 * @example
 * slope([0, 1, 2], [10, 12, 14]) // 2
 */
export const slope = (x: readonly number[], y: readonly number[]): number => {
  const n = x.length;
  const mx = x.reduce((a, b) => a + b, 0) / n;
  const my = y.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += ((x[i] as number) - mx) * ((y[i] as number) - my);
    den += ((x[i] as number) - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
};

const openFds = (): number | undefined => (existsSync("/proc/self/fd") ? readdirSync("/proc/self/fd").length : undefined);

/** Heap in use after full collections: twice, so that what the first frees through finalizers goes too. */
const heapAfterGc = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
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
  const sampleCount = Math.max(3, options.samples ?? 20);
  const overheadRuns = options.overheadRuns ?? 1000;
  const slopeTolerance = options.heapSlopeTolerance ?? Math.max(20, 2_000_000 / runs);
  const settleBoundMs = options.settleBoundMs ?? 10_000;
  const handleTolerance = options.handleTolerance ?? 0;
  const fdTolerance = options.fdTolerance ?? 0;
  const overheadTolerance = options.overheadTolerance ?? 4;
  const hangAt = options.inject?.hangAtRun;
  const leakBytes = options.inject?.leakBytesPerRun ?? 0;
  const log = options.log ?? (() => {});
  const random = prng(seed);

  let unhandled = 0;
  let uncaught = 0;
  const onUnhandled = (): void => void unhandled++;
  const onUncaught = (): void => void uncaught++;
  process.on("unhandledRejection", onUnhandled);
  process.on("uncaughtExceptionMonitor", onUncaught);

  const { stack, events } = buildStack(runs);
  const faults = Object.fromEntries(faultKinds.map((k) => [k, { injected: 0, survived: 0 }])) as Record<
    FaultKind,
    { injected: number; survived: number }
  >;
  const examples: string[] = [];
  const leaked: number[][] = [];
  let mismatches = 0;
  let lost = 0;
  let started = 0;
  let settledRuns = 0;
  let cleanRuns = 0;

  // The watchdog: every run in flight with its start, oldest first (a Map keeps insertion order,
  // so its first entry is the oldest still running). Past the bound it trips, and every wait of
  // the soak gives up: the soak ends with its figures so far instead of hanging with the run.
  const inFlight = new Map<number, { readonly fault: string; readonly at: number }>();
  let stuck: SoakFigures["watchdog"]["stuck"];
  // Waits to end when the watchdog trips; each removes itself when its work settles (a reaction
  // left on one long-lived promise per wait would keep every wait's result alive).
  const waiting = new Set<() => void>();
  const trip = (): void => {
    for (const stop of waiting) stop();
    waiting.clear();
  };
  const watchdog = setInterval(
    () => {
      const oldest = inFlight.entries().next();
      if (oldest.done === true || stuck !== undefined) return;
      const [id, { fault, at }] = oldest.value;
      const pendingMs = performance.now() - at;
      if (pendingMs <= settleBoundMs) return;
      stuck = { id, fault, pendingMs: Math.round(pendingMs) };
      log(`watchdog: run ${id} (${fault}) has not settled after ${stuck.pendingMs} ms; stopping`);
      trip();
    },
    Math.max(10, Math.min(250, settleBoundMs / 4)),
  );
  const guarded = <T>(work: Promise<T>): Promise<T | typeof STUCK> =>
    new Promise((resolve, reject) => {
      if (stuck !== undefined) return resolve(STUCK);
      const stop = (): void => resolve(STUCK);
      waiting.add(stop);
      work.then(
        (value) => {
          waiting.delete(stop);
          resolve(value);
        },
        (error: unknown) => {
          waiting.delete(stop);
          reject(error);
        },
      );
    });

  const operation = async (
    job: { readonly id: number; readonly tag: string },
    ctx: { readonly subject: string | undefined },
  ): Promise<Done> => ({ content: `op ${job.id} ${ctx.subject} ${job.tag}` });
  const never = (): Promise<Done> => new Promise(() => {});

  const runOne = async (id: number, fault: FaultKind | undefined): Promise<void> => {
    const job: Job = { id, fault, tag: "" };
    let ran = 0;
    let outcome: Outcome<Done> | undefined;
    if (id >= 0) started++;
    inFlight.set(id, { fault: fault ?? "no fault", at: performance.now() });
    // An array of its own per run: 32 bytes of object, 16 of elements header and 8 per element,
    // plus its 8-byte slot in `leaked` (a string would not do: V8 shares the parts of a padded one).
    if (leakBytes > 0 && id >= 0) leaked.push(new Array<number>(Math.max(0, Math.round((leakBytes - 56) / 8))).fill(id));
    try {
      if (fault === "reject-on-observe") {
        outcome = await stack.run("watch", job, async () => (ran++, { content: `watched ${id}` }));
      } else {
        const controller = fault === "abort" ? new AbortController() : undefined;
        if (controller) setTimeout(() => controller.abort(new Error("caller gave up")), 1);
        outcome = await stack.run("tool", job, id === hangAt ? never : (j, ctx) => (ran++, operation(j, ctx)), {
          ...(controller ? { signal: controller.signal } : {}),
          ...(fault === "run-deadline" ? { timeoutMs: runDeadlineMs } : {}),
        });
      }
    } catch (error) {
      lost++;
      if (examples.length < 10) examples.push(`run ${id} (${fault ?? "no fault"}) rejected: ${String(error)}`);
      return;
    } finally {
      inFlight.delete(id);
      if (id >= 0) settledRuns++;
    }
    if (fault === undefined) cleanRuns++;
    else faults[fault].injected++;
    const problem = check(job, outcome, ran);
    if (problem === undefined) {
      if (fault !== undefined) faults[fault].survived++;
    } else {
      mismatches++;
      if (examples.length < 10) examples.push(problem);
    }
  };

  // Every sample's overhead figures, kept in one array allocated up front: a list that grew with
  // each sample would itself show as heap growing with the runs.
  const allOverhead = new Float64Array(sampleCount * overheadRuns + overheadRuns);
  let overheadCount = 0;
  /** Sequential clean runs against the operation alone: per-run overhead of the stack, in µs. */
  const measureOverhead = async (): Promise<Float64Array | undefined> => {
    const direct = new Float64Array(overheadRuns);
    const through = new Float64Array(overheadRuns);
    const ctx = { subject: "Read" };
    for (let i = 0; i < overheadRuns; i++) {
      const job: Job = { id: -1_000_000 - i, fault: undefined, tag: "" };
      let t = performance.now();
      await operation(job, ctx);
      direct[i] = performance.now() - t;
      t = performance.now();
      if ((await guarded(stack.run("tool", job, operation))) === STUCK) return undefined;
      through[i] = performance.now() - t;
    }
    direct.sort();
    const base = percentile(direct, 0.5);
    for (let i = 0; i < overheadRuns; i++) through[i] = Math.max(0, ((through[i] as number) - base) * 1000);
    return through.sort();
  };

  const samples: Sample[] = [];
  const takeSample = async (afterRuns: number): Promise<boolean> => {
    await sleep(100); // let the last fault timers run out
    if ((await guarded(stack.flush())) === STUCK) return false;
    const heapUsedBytes = heapAfterGc();
    const handles = handleInfo();
    const fds = openFds();
    const overhead = await measureOverhead();
    if (overhead === undefined) return false;
    allOverhead.set(overhead.subarray(0, Math.min(overhead.length, allOverhead.length - overheadCount)), overheadCount);
    overheadCount = Math.min(allOverhead.length, overheadCount + overhead.length);
    const sample: Sample = {
      afterRuns,
      heapUsedBytes,
      openFds: fds,
      activeHandles: handles.total,
      handlesByType: handles.byType,
      timers: handles.byType.Timeout ?? 0,
      overheadP50us: Math.round(percentile(overhead, 0.5) * 10) / 10,
      overheadP99us: Math.round(percentile(overhead, 0.99) * 10) / 10,
    };
    samples.push(sample);
    log(
      `after ${afterRuns} runs: heap ${(heapUsedBytes / 1048576).toFixed(2)} MiB, handles ${handles.total}, fds ${fds ?? "?"}, overhead p50 ${sample.overheadP50us} µs p99 ${sample.overheadP99us} µs`,
    );
    return true;
  };

  let runMs = 0; // time spent running soak batches, sampling pauses and overhead measurements excluded
  let statsBefore = stack.stats;
  try {
    // Warm up (JIT, chain caches), then take the baseline.
    const warmup = Math.min(2000, Math.max(200, Math.floor(runs / 20)));
    let warm = true;
    for (let i = 0; i < warmup && warm; i += 50) {
      warm = (await guarded(Promise.all(Array.from({ length: 50 }, (_, k) => runOne(-1 - i - k, undefined))))) !== STUCK;
    }
    mismatches = 0;
    lost = 0;
    cleanRuns = 0;
    events.count = 0;
    examples.length = 0;
    statsBefore = stack.stats;
    if (warm && (await takeSample(0))) {
      const every = Math.ceil(runs / (sampleCount - 1));
      let next = 0;
      let stopping = false;
      while (next < runs && !stopping) {
        const end = Math.min(runs, next + every);
        let cursor = next;
        const worker = async (): Promise<void> => {
          while (cursor < end && stuck === undefined) {
            const id = cursor++;
            const fault = random() < faultRate ? faultKinds[Math.floor(random() * faultKinds.length)] : undefined;
            await runOne(id, fault);
          }
        };
        const batchStart = performance.now();
        const batch = Promise.all(Array.from({ length: Math.min(concurrency, end - next) }, worker));
        stopping = (await guarded(batch)) === STUCK;
        runMs += performance.now() - batchStart;
        // The runs in flight beside the stuck one get the watchdog's bound to settle; no new one starts.
        if (stopping) await Promise.race([batch, sleep(settleBoundMs)]);
        next = end;
        if (!stopping) stopping = !(await takeSample(next));
      }
    }
  } finally {
    clearInterval(watchdog);
  }
  if (stuck === undefined) await stack.flush();
  process.off("unhandledRejection", onUnhandled);
  process.off("uncaughtExceptionMonitor", onUncaught);

  const statsAfter = stack.stats;
  const stackStats = {
    hookFailures: statsAfter.hookFailures - statsBefore.hookFailures,
    failOpen: statsAfter.failOpen - statsBefore.failOpen,
    observerErrors: statsAfter.observerErrors - statsBefore.observerErrors,
  };
  const first = samples[0];
  const last = samples.at(-1);
  const failures: string[] = [];
  if (stuck !== undefined)
    failures.push(
      `run ${stuck.id} (${stuck.fault}) had not settled within ${settleBoundMs} ms (pending ${stuck.pendingMs} ms): the soak stopped there`,
    );
  if (started !== settledRuns) failures.push(`${started - settledRuns} of ${started} started runs never settled`);
  // Handles and fds are counted in each sample after late fault timers ran out and observers flushed.
  const startHandles = { total: first?.activeHandles ?? 0, byType: first?.handlesByType ?? {} };
  const endHandles = { total: last?.activeHandles ?? 0, byType: last?.handlesByType ?? {} };
  const handlesFlat =
    endHandles.total <= startHandles.total + handleTolerance && (endHandles.byType.Timeout ?? 0) <= (startHandles.byType.Timeout ?? 0);
  const fdsFlat =
    first?.openFds === undefined || last?.openFds === undefined ? ("not checked" as const) : last.openFds <= first.openFds + fdTolerance;
  // The slope needs a few samples to mean anything; a soak the watchdog stopped early may lack them.
  const slopeBytesPerRun =
    samples.length >= 3
      ? slope(
          samples.map((x) => x.afterRuns),
          samples.map((x) => x.heapUsedBytes),
        )
      : Number.NaN;
  const heapFlat = Number.isNaN(slopeBytesPerRun) ? ("not checked" as const) : slopeBytesPerRun <= slopeTolerance;
  const growth = (last?.heapUsedBytes ?? 0) - (first?.heapUsedBytes ?? 0);
  const half = Math.max(1, Math.floor(samples.length / 2));
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const earlyP99 = median(samples.slice(0, half).map((x) => x.overheadP99us));
  const lateP99 = median(samples.slice(half).map((x) => x.overheadP99us));
  const earlyP50 = median(samples.slice(0, half).map((x) => x.overheadP50us));
  const lateP50 = median(samples.slice(half).map((x) => x.overheadP50us));
  const stable =
    overheadTolerance === 0 || samples.length < 2
      ? ("not checked" as const)
      : lateP50 <= earlyP50 * overheadTolerance + 50 && lateP99 <= earlyP99 * overheadTolerance + 2000;
  const overheadAll = allOverhead.subarray(0, overheadCount).sort();

  const faultsInjected = faultKinds.reduce((n, k) => n + faults[k].injected, 0);
  const faultsSurvived = faultKinds.reduce((n, k) => n + faults[k].survived, 0);
  if (mismatches > 0) failures.push(`${mismatches} outcomes differed from what their fault must give`);
  if (lost > 0 || settledRuns !== runs) failures.push(`${lost} runs lost (${settledRuns} of ${runs} settled)`);
  const notOnce = events.perRun.reduce((n, c) => n + (c === 1 ? 0 : 1), 0);
  if (stuck === undefined && (events.count !== runs || notOnce > 0))
    failures.push(
      `observers saw ${events.count} events for ${runs} runs, ${notOnce} runs not exactly once (each run must settle exactly once)`,
    );
  if (unhandled > 0) failures.push(`${unhandled} unhandled rejections`);
  if (uncaught > 0) failures.push(`${uncaught} uncaught exceptions`);
  if (heapFlat === false)
    failures.push(
      `heap grew ${slopeBytesPerRun.toFixed(1)} bytes per run after GC (tolerance ${slopeTolerance}; ${(growth / 1048576).toFixed(2)} MiB from the first sample to the last)`,
    );
  if (!handlesFlat)
    failures.push(
      `active handles went from ${startHandles.total} ${JSON.stringify(startHandles.byType)} to ${endHandles.total} ${JSON.stringify(endHandles.byType)}`,
    );
  if (fdsFlat === false) failures.push(`open file descriptors went from ${first?.openFds} to ${last?.openFds}`);
  if (stable === false)
    failures.push(
      `overhead grew: p50 ${earlyP50} → ${lateP50} µs, p99 ${earlyP99} → ${lateP99} µs (medians of the early and late samples)`,
    );
  if (faultRate > 0 && runs >= 5000 && stuck === undefined && faultKinds.some((k) => faults[k].injected === 0))
    failures.push(`some fault kinds were never injected: ${faultKinds.filter((k) => faults[k].injected === 0).join(", ")}`);
  leaked.length = 0;

  return {
    runs,
    faultRate,
    concurrency,
    seed,
    durationMs: Math.round(runMs),
    runsPerSecond: Math.round(settledRuns / (runMs / 1000)),
    faults,
    faultsInjected,
    faultsSurvived,
    cleanRuns,
    mismatches,
    started,
    settled: settledRuns,
    lost,
    watchdog: { boundMs: settleBoundMs, stuck },
    observerEvents: events.count,
    unhandledRejections: unhandled,
    uncaughtExceptions: uncaught,
    stackStats,
    heap: {
      startBytes: first?.heapUsedBytes ?? 0,
      endBytes: last?.heapUsedBytes ?? 0,
      growthBytes: growth,
      slopeBytesPerRun: Math.round(slopeBytesPerRun * 10) / 10,
      slopeToleranceBytesPerRun: slopeTolerance,
      flat: heapFlat,
      gc: typeof (globalThis as { gc?: unknown }).gc === "function" ? "--expose-gc" : "v8.setFlagsFromString('--expose-gc')",
    },
    handles: {
      start: startHandles.total,
      end: endHandles.total,
      startByType: startHandles.byType,
      endByType: endHandles.byType,
      flat: handlesFlat,
    },
    fds: { start: first?.openFds, end: last?.openFds, flat: fdsFlat },
    overhead: {
      p50us: Math.round(percentile(overheadAll, 0.5) * 10) / 10,
      p99us: Math.round(percentile(overheadAll, 0.99) * 10) / 10,
      earlyP50us: earlyP50,
      lateP50us: lateP50,
      earlyP99us: earlyP99,
      lateP99us: lateP99,
      runsPerSample: overheadRuns,
      stable,
    },
    samples,
    examples,
    failures,
    ok: failures.length === 0,
  };
};

/** A positive integer from the environment, or `fallback` when unset. */
const envInt = (name: string, fallback: number | undefined): number | undefined => {
  const text = process.env[name];
  if (text === undefined || text === "") return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`${name} must be a whole number, got ${text}`);
  return n;
};

/**
 * `npm run soak`: the full soak, its figures printed and, with SOAK_OUT, written as JSON; exit code
 * 1 when a check failed. SOAK_RUNS sets the runs; SOAK_INJECT_HANG=<run id> and
 * SOAK_INJECT_LEAK=<bytes per run> put a hang or a leak into it, to see it fail.
 */
const main = async (): Promise<void> => {
  const runs = envInt("SOAK_RUNS", 100_000) as number;
  if (runs <= 0) throw new RangeError(`SOAK_RUNS must be a positive integer, got ${runs}`);
  const hangAtRun = envInt("SOAK_INJECT_HANG", undefined);
  const leakBytesPerRun = envInt("SOAK_INJECT_LEAK", undefined);
  const out = process.env.SOAK_OUT ? resolve(process.env.SOAK_OUT) : undefined;
  const command = [
    runs !== 100_000 ? `SOAK_RUNS=${runs}` : "",
    hangAtRun !== undefined ? `SOAK_INJECT_HANG=${hangAtRun}` : "",
    leakBytesPerRun !== undefined ? `SOAK_INJECT_LEAK=${leakBytesPerRun}` : "",
    "npm run soak",
  ]
    .filter(Boolean)
    .join(" ");
  console.log(`soak: ${runs} runs, 1% faults of ${faultKinds.length} kinds (${faultKinds.join(", ")})`);
  const figures = await soak({
    runs,
    log: (line) => console.log(`  ${line}`),
    ...(hangAtRun !== undefined || leakBytesPerRun !== undefined
      ? { inject: { ...(hangAtRun !== undefined ? { hangAtRun } : {}), ...(leakBytesPerRun !== undefined ? { leakBytesPerRun } : {}) } }
      : {}),
  });
  if (out !== undefined) {
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify({ ...figures, command, node: process.version }, null, 2)}\n`);
  }
  console.log(
    `soak: ${figures.settled} of ${figures.started} started runs settled in ${(figures.durationMs / 1000).toFixed(1)} s (${figures.runsPerSecond}/s); faults injected ${figures.faultsInjected}, survived ${figures.faultsSurvived}; lost ${figures.lost}; unhandled rejections ${figures.unhandledRejections}`,
  );
  console.log(
    `soak: heap ${(figures.heap.startBytes / 1048576).toFixed(2)} → ${(figures.heap.endBytes / 1048576).toFixed(2)} MiB, ${figures.heap.slopeBytesPerRun} bytes per run (tolerance ${figures.heap.slopeToleranceBytesPerRun}); handles ${figures.handles.start} → ${figures.handles.end}; fds ${figures.fds.start ?? "?"} → ${figures.fds.end ?? "?"}; overhead p50 ${figures.overhead.p50us} µs, p99 ${figures.overhead.p99us} µs`,
  );
  if (out !== undefined) console.log(`soak: figures written to ${join(out)}`);
  if (!figures.ok) {
    for (const f of figures.failures) console.error(`soak FAILED: ${f}`);
    for (const e of figures.examples) console.error(`  e.g. ${e}`);
  } else console.log("soak: ok");
  // A run the watchdog found hung may hold the event loop open: the verdict is in, so end here.
  process.exit(figures.ok ? 0 : 1);
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
