/**
 * Recording decisions (R11) at the cost each reader needs.
 *
 * - Nobody reads them (no trace, no observer): nothing is recorded.
 * - A `Trace` is passed to the run (or the stack asks for `timeHooks`): every call is timed with
 *   the clock before and after it, and becomes a `TraceEntry` at once ("exact").
 * - Only observers read them: decisions go into a compact log and become `TraceEntry` objects
 *   only if an observer reads `event.decisions` ("compact"). A stretch of synchronous `Continue`
 *   answers, the common case, is one entry of two small integers however many hooks it covers, and
 *   no synchronous call reads the clock: its `ms` is 0, and its `at` is the nearest reading of
 *   the run's clock: the one before it on the way in (`before`, a condition: the run's start or
 *   the end of the last asynchronous call), the one after it on the way out (`after`, `recover`,
 *   `around`: the start of the next asynchronous call, or the run's end). A call that returned a
 *   promise is timed from the reading before it to when it settled. So an observer costs a run
 *   the same whatever the number of hooks, and a clock read only per asynchronous call.
 */
import { now } from "./clock.ts";
import type { HookError, Phase } from "./errors.ts";
import type { Layer } from "./hook.ts";
import type { Trace, TraceAction, TraceEntry } from "./trace.ts";

/** How a run records: see the module comment. */
export const Rec = { none: 0, compact: 1, exact: 2 } as const;

/** What recording reads and writes on a run (the run implements it). */
export interface Recorder {
  readonly rec: number;
  readonly point: string;
  readonly runId: string;
  readonly callId: string;
  readonly trace: Trace | undefined;
  /** The run's layers, which compact entries refer to by index. */
  readonly layers: readonly Layer[];
  /** `now()` (clock.ts) when the run started (0 when nothing records). */
  readonly origin: number;
  /** The last reading of the clock (compact recording). */
  clock: number;
  /** `now()` (clock.ts) when the run settled. */
  readonly ended: number;
  /**
   * Compact recording: ranges (two numbers each) and single decisions (objects), in order; or, for
   * a run that recorded no more than two ranges of layers under 64, those ranges packed into one
   * small integer (see `packRange`).
   */
  log: unknown[] | number | undefined;
  /** Exact recording: the entries, as the trace got them. */
  decisions: TraceEntry[] | undefined;
  failures: HookError[] | undefined;
}

/** Phases a compact range can hold, by code. */
const rangePhases = ["before", "after", "recover"] as const;
export const RangePhase = { before: 0, after: 1, recover: 2 } as const;

/** One decision in a compact log. */
interface Single {
  readonly layer: Layer;
  readonly phase: Phase;
  readonly action: TraceAction;
  readonly reason: string | undefined;
  readonly at: number;
  readonly ms: number;
  readonly failMode: "open" | "closed" | undefined;
  readonly rejected: string | undefined;
  /** The run's last clock reading once this was recorded: when the ranges after it start. */
  readonly clock: number;
}

/**
 * Compact recording: layers `from` to `to` (inclusive, descending for the way out) answered
 * `Continue` synchronously in `phase`; layers among them without that phase made no decision.
 */
export const recordRange = (run: Recorder, phase: number, from: number, to: number): void => {
  if (phase < 0 || (phase === RangePhase.before ? from > to : from < to)) return;
  // Two small integers, so the log holds no boxed number; its time is worked out when read (see decisionsOf).
  const code = from * 4 + phase;
  const log = run.log;
  // The common run records two ranges (the way in, the way out) and nothing else: packed into
  // one small integer, they cost no allocation at all.
  if (log === undefined) run.log = from < 64 && to < 64 ? packRange(code, to) : [code, to];
  else if (typeof log !== "number") log.push(code, to);
  else if (log < secondRange && from < 64 && to < 64) run.log = log + (packRange(code, to) + 1) * secondRange;
  else (run.log = unpack(log)).push(code, to);
};

/**
 * A range of layers under 64 as a 14-bit integer: its code (first layer times four plus phase)
 * in the high 8 bits, its last layer in the low 6. A packed log holds the first range as it is
 * and the second, plus one, above `secondRange`: at most 29 bits, a small integer for V8.
 */
const packRange = (code: number, to: number): number => code * 64 + to;
const secondRange = 1 << 14;

/** A packed log (see `recordRange`) as the list it stands for. */
const unpack = (packed: number): unknown[] => {
  const first = packed % secondRange;
  const second = (packed - first) / secondRange - 1;
  return second < 0 ? [first >> 6, first & 63] : [first >> 6, first & 63, second >> 6, second & 63];
};

/** Append a single decision to a compact log. */
const pushSingle = (run: Recorder, single: Single): void => {
  const log = run.log;
  if (log === undefined) run.log = [single];
  else if (typeof log === "number") (run.log = unpack(log)).push(single);
  else log.push(single);
};

/** Whether an untimed decision in `phase` is placed at the reading before it (the way in) rather than after it (the way out). */
const onTheWayIn = (phase: Phase): boolean => phase === "before" || phase === "match";

/**
 * Record a decision. `started` is the clock reading when the call started, or 0 for a synchronous
 * call that nobody timed (compact recording only: see the module comment).
 */
export const record = (
  run: Recorder,
  layer: Layer,
  phase: Phase,
  action: TraceAction,
  started: number,
  reason?: string,
  failMode?: "open" | "closed",
  rejected?: string,
): void => {
  let at: number;
  let ms: number;
  if (started > 0) {
    const time = now();
    at = started;
    ms = time - started;
    run.clock = time;
  } else {
    // Exact recording times every call; compact places this one later (see decisionsOf).
    at = run.rec === Rec.exact || onTheWayIn(phase) ? run.clock : Number.NaN;
    ms = 0;
  }
  if (run.rec === Rec.compact) {
    const single: Single = { layer, phase, action, reason, at, ms, failMode, rejected, clock: run.clock };
    pushSingle(run, single);
    return;
  }
  const entry = toEntry(run, layer, phase, action, reason, at, ms, failMode, rejected);
  (run.decisions ??= []).push(entry);
  run.trace?.record(entry);
};

/** What every entry of a run repeats (a recorder, or these read off it once for many entries). */
interface RunFields {
  readonly point: string;
  readonly runId: string;
  readonly callId: string;
  readonly origin: number;
}

const toEntry = (
  run: RunFields,
  layer: Layer,
  phase: Phase,
  action: TraceAction,
  reason: string | undefined,
  at: number,
  ms: number,
  failMode: "open" | "closed" | undefined,
  rejected: string | undefined,
): TraceEntry => ({
  point: run.point,
  runId: run.runId,
  hook: layer.name,
  phase,
  action,
  reason,
  at: at - run.origin,
  startedAt: at,
  callId: run.callId,
  ms,
  shadow: layer.shadow || undefined,
  source: layer.source,
  failMode,
  rejected,
});

/**
 * The run's decisions for one observer, in the order they were made: copies of the trace's (the
 * caller's trace keeps its own), or built from the compact log now. Each call makes new ones, so
 * what one observer does to its list reaches no one else, and nothing needs freezing (which costs
 * V8 more than making the entries).
 */
export const decisionsOf = (run: Recorder): TraceEntry[] => {
  if (run.decisions !== undefined) return run.decisions.map((d) => ({ ...d }));
  const recorded = run.log;
  if (recorded === undefined) return [];
  const log = typeof recorded === "number" ? unpack(recorded) : recorded;
  // A range on the way in is placed at the run's last reading before it (the clock after the last
  // single decision, or the run's start): walk forward. Then untimed decisions on the way out
  // (NaN) take the next reading after them: walk backward from the end.
  const times: number[] = [];
  let clock = run.origin;
  for (let x = 0; x < log.length; ) {
    const item = log[x];
    if (typeof item === "object") {
      clock = (item as Single).clock;
      x++;
    } else {
      // Numbers come two to a range: first index times four plus the phase, then last index.
      times[x] = (item as number) % 4 === RangePhase.before ? clock : Number.NaN;
      x += 2;
    }
  }
  let next = run.ended || run.clock;
  for (let x = log.length - 1; x >= 0; x--) {
    const item = log[x];
    if (typeof item === "object") {
      const at = (item as Single).at;
      times[x] = Number.isNaN(at) ? next : (next = at);
    } else {
      const at = times[x - 1] as number;
      times[x - 1] = Number.isNaN(at) ? next : (next = at);
      x -= 1;
    }
  }
  const entries: TraceEntry[] = [];
  const layers = run.layers;
  // Read once: on a run they are getters, and a run can have many decisions.
  const fields: RunFields = { point: run.point, runId: run.runId, callId: run.callId, origin: run.origin };
  for (let x = 0; x < log.length; ) {
    const item = log[x];
    if (typeof item !== "number") {
      const s = item as Single;
      entries.push(toEntry(fields, s.layer, s.phase, s.action, s.reason, times[x] as number, s.ms, s.failMode, s.rejected));
      x++;
      continue;
    }
    const phase = rangePhases[item % 4] as "before" | "after" | "recover";
    const from = (item - (item % 4)) / 4;
    const to = log[x + 1] as number;
    const at = times[x] as number;
    x += 2;
    const step = from <= to ? 1 : -1;
    for (let k = from; k !== to + step; k += step) {
      const layer = layers[k] as Layer;
      if (layer[phase] !== undefined) entries.push(toEntry(fields, layer, phase, "Continue", undefined, at, 0, undefined, undefined));
    }
  }
  return entries;
};
