/**
 * Runs as a timeline: the decision traces of settled runs in the Chrome trace event format
 * (the JSON that chrome://tracing, Perfetto and speedscope open). Each run is a complete event
 * (`ph: "X"`) on a lane of its point, and each hook decision a complete event nested inside it.
 * A session is a process (`pid`), a point a thread (`tid`); runs of one point that overlap in
 * time (parallel tool calls) get lanes of their own, since events on one thread must nest.
 */
import { writeFile } from "node:fs/promises";
import type { RunEvent } from "../core/context.ts";
import type { TraceEntry } from "../core/trace.ts";
import type { Middleware } from "./apply.ts";
import { allAgentPoints, observer, onEveryPoint } from "./every-point.ts";
import { integerOption, knownOptions, nameOption } from "./options.ts";
import { createRedactor, type Redactor, type RedactorOptions } from "./redactor.ts";
import { redactOption, scrubbedNamesOf } from "./telemetry-attrs.ts";
import { wallClockAt } from "./wall-clock.ts";

/** One event of the Chrome trace event format (the subset written here). */
export type ChromeTraceEvent =
  | {
      readonly name: string;
      readonly cat: "point" | "hook";
      readonly ph: "X";
      /** Start, in microseconds since the first run. */
      readonly ts: number;
      /** Duration in microseconds. */
      readonly dur: number;
      readonly pid: number;
      readonly tid: number;
      readonly args: Readonly<Record<string, unknown>>;
    }
  | {
      readonly name: "process_name" | "thread_name" | "thread_sort_index";
      readonly ph: "M";
      readonly pid: number;
      readonly tid?: number;
      readonly args: Readonly<Record<string, unknown>>;
    };

/** A trace file: open it in https://ui.perfetto.dev (Open trace file) or chrome://tracing. */
export interface ChromeTrace {
  readonly traceEvents: readonly ChromeTraceEvent[];
  readonly displayTimeUnit: "ms";
  readonly otherData: { readonly generator: "agent-onion"; readonly startTime: string | undefined };
}

/** What the timeline needs of a settled run (a `RunEvent` without its input and output). */
export interface TimelineRun {
  readonly point: string;
  readonly subject: string | undefined;
  readonly sessionId: string | undefined;
  readonly runId: string;
  readonly outcome: string;
  readonly by?: string | undefined;
  readonly reason?: string | undefined;
  /** `performance.now()` at the start of the run, and its duration, in ms. */
  readonly startedAt: number;
  readonly durationMs: number;
  readonly decisions: readonly TraceEntry[];
}

/**
 * The timeline facts of a run event (drops input and output, which may be large or sensitive).
 *
 * @example
 * const runs: TimelineRun[] = []
 * stack.use("toolCall", { name: "rec", observe: (e) => void runs.push(timelineRun(e)) })
 */
export const timelineRun = (event: RunEvent<any, any>): TimelineRun => ({
  point: event.point,
  subject: event.subject,
  sessionId: event.sessionId,
  runId: event.runId,
  outcome: event.outcome._tag,
  by: event.outcome._tag === "Rejected" ? event.outcome.by : undefined,
  reason: event.outcome._tag === "Rejected" ? event.outcome.reason : undefined,
  startedAt: event.startedAt,
  durationMs: event.durationMs,
  decisions: event.decisions,
});

/** Options of `toChromeTrace`: which events to include and how to scrub them. */
export interface ChromeTraceOptions {
  /** Include one event per hook decision; default true. */
  readonly hooks?: boolean;
  /** How to scrub subjects, hook names and reasons (the file is made to be shared); default the default detectors, `false` for none. */
  readonly redact?: Redactor | RedactorOptions | false;
}

const us = (ms: number): number => Math.round(ms * 1000 * 1000) / 1000;

/**
 * Build a Chrome trace from settled runs (`RunEvent`s or `TimelineRun`s), in any order.
 *
 * @example
 * const json = JSON.stringify(toChromeTrace(runs))
 * await writeFile("run.trace.json", json) // then open it in https://ui.perfetto.dev
 */
export const toChromeTrace = (runs: readonly (TimelineRun | RunEvent<any, any>)[], options: ChromeTraceOptions = {}): ChromeTrace => {
  knownOptions("toChromeTrace", options, { hooks: true, redact: true });
  const redactor = redactorOf(options);
  return traceOf(runs, options.hooks !== false, redactor, scrubbedNamesOf(redactor));
};

/** The trace of `runs`, hook names scrubbed by `hookName`: a recorder's remembers them across the traces it writes. */
const traceOf = (
  runs: readonly (TimelineRun | RunEvent<any, any>)[],
  hooks: boolean,
  redactor: Redactor | undefined,
  hookName: (hook: string) => string,
): ChromeTrace => {
  const scrub = (text: string | undefined): string | undefined =>
    text === undefined || redactor === undefined ? text : redactor.scrub(text);
  const list = runs
    .map((r) => ("outcome" in r && typeof r.outcome === "object" ? timelineRun(r as RunEvent) : (r as TimelineRun)))
    .sort((a, b) => a.startedAt - b.startedAt);
  const origin = list[0]?.startedAt ?? 0;
  const events: ChromeTraceEvent[] = [];
  const pids = new Map<string, number>();
  // Per process and point: the end time of each lane, to put overlapping runs on separate lanes.
  const lanes = new Map<string, number[]>();
  const tids = new Map<string, number>();

  for (const run of list) {
    const session = run.sessionId ?? "no session";
    let pid = pids.get(session);
    if (pid === undefined) {
      pid = pids.size + 1;
      pids.set(session, pid);
      events.push({ name: "process_name", ph: "M", pid, args: { name: `session ${scrub(session)}` } });
    }
    const start = run.startedAt - origin;
    const end = start + run.durationMs;
    const laneKey = `${pid}\u0000${run.point}`;
    const ends = lanes.get(laneKey) ?? [];
    lanes.set(laneKey, ends);
    let lane = ends.findIndex((e) => e <= start);
    if (lane === -1) lane = ends.push(end) - 1;
    else ends[lane] = end;
    const threadKey = `${laneKey}\u0000${lane}`;
    let tid = tids.get(threadKey);
    if (tid === undefined) {
      tid = tids.size + 1;
      tids.set(threadKey, tid);
      const order = allAgentPoints.indexOf(run.point as never);
      events.push({ name: "thread_name", ph: "M", pid, tid, args: { name: lane === 0 ? run.point : `${run.point} #${lane + 1}` } });
      events.push({
        name: "thread_sort_index",
        ph: "M",
        pid,
        tid,
        args: { sort_index: (order === -1 ? allAgentPoints.length : order) * 100 + lane },
      });
    }
    const subject = scrub(run.subject);
    events.push({
      name: subject === undefined ? run.point : `${run.point} ${subject}`,
      cat: "point",
      ph: "X",
      ts: us(start),
      dur: us(run.durationMs),
      pid,
      tid,
      // A default run id begins with the session id, scrubbed above as the process name.
      args: compact({
        runId: scrub(run.runId),
        outcome: run.outcome,
        by: run.by === undefined ? undefined : hookName(run.by),
        reason: scrub(run.reason),
      }),
    });
    if (!hooks) continue;
    for (const d of run.decisions)
      events.push({
        // A hook's name may carry a credential (a webhook URL's path), as its reasons may.
        name: `${hookName(d.hook)} ${d.phase}`,
        cat: "hook",
        ph: "X",
        // Clamped into the run, so events on a thread always nest (clock reads may differ by a rounding).
        ts: us(start + Math.min(Math.max(0, d.at), run.durationMs)),
        dur: us(Math.max(0, Math.min(d.ms, run.durationMs - Math.max(0, d.at)))),
        pid,
        tid,
        args: compact({ action: d.action, reason: scrub(d.reason), shadow: d.shadow, failMode: d.failMode, source: d.source }),
      });
  }
  return {
    traceEvents: events,
    displayTimeUnit: "ms",
    otherData: {
      generator: "agent-onion",
      startTime: list.length === 0 ? undefined : new Date(wallClockAt(origin)).toISOString(),
    },
  };
};

/** The redactor of a redact option: none for `false`, a redactor as given, else one made of the options. */
const redactorOf = (options: ChromeTraceOptions): Redactor | undefined =>
  options.redact === false
    ? undefined
    : typeof (options.redact as Redactor | undefined)?.scrub === "function"
      ? (options.redact as Redactor)
      : createRedactor((options.redact as RedactorOptions | undefined) ?? {});

const compact = (args: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) if (v !== undefined) out[k] = v;
  return out;
};

/** Options of `chromeTraceRecorder`: the trace's options, the points recorded and how many runs are kept. */
export interface ChromeTraceRecorderOptions extends ChromeTraceOptions {
  /** Hook name; default `chrome-trace`. */
  readonly name?: string;
  /** Which points to record; default all standard agent points. */
  readonly points?: readonly string[];
  /** Runs kept; the oldest are dropped past it. Default 100 000. */
  readonly maxRuns?: number;
}

/** A middleware that records settled runs, and writes them as a Chrome trace. */
export interface ChromeTraceRecorder extends Middleware {
  readonly runs: readonly TimelineRun[];
  /** The trace of the runs recorded so far. */
  toJSON(): ChromeTrace;
  /** Write the trace to `path` (after `stack.flush()`, so every run is in). */
  write(path: string): Promise<void>;
  /** Forgets the runs recorded so far. */
  clear(): void;
}

/**
 * Record runs for a timeline in Perfetto.
 *
 * @example
 * const timeline = chromeTraceRecorder()
 * const stack = withMiddleware(createAgentStack(), timeline)
 * await createAgent({ model, stack }).run("hello")
 * await stack.flush()
 * await timeline.write("run.trace.json") // open in https://ui.perfetto.dev
 */
export const chromeTraceRecorder = (options: ChromeTraceRecorderOptions = {}): ChromeTraceRecorder => {
  knownOptions("chromeTraceRecorder", options, { name: true, points: true, maxRuns: true, hooks: true, redact: true });
  const name = nameOption("chrome-trace", options.name);
  const maxRuns = integerOption(name, "maxRuns", options.maxRuns ?? 100_000, 1);
  // Made here, so that a bad redact option throws when the recorder is made, not when the trace is written.
  redactOption(name, options.redact);
  const redact = redactorOf(options);
  const hookName = scrubbedNamesOf(redact);
  let runs: TimelineRun[] = [];
  const latest = (): TimelineRun[] => (runs.length > maxRuns ? runs.slice(runs.length - maxRuns) : runs);
  const toJSON = (): ChromeTrace => traceOf(latest(), options.hooks !== false, redact, hookName);
  return {
    name,
    hooks: onEveryPoint(
      observer(name, (event) => {
        runs.push(timelineRun(event));
        // Trimmed in batches: trimming on every run past the cap would copy the whole list each time.
        if (runs.length >= 2 * maxRuns) runs = runs.slice(runs.length - maxRuns);
      }),
      options.points ?? allAgentPoints,
    ),
    get runs() {
      return latest();
    },
    toJSON,
    write: (path) => writeFile(path, JSON.stringify(toJSON())),
    clear: () => void (runs = []),
  };
};
