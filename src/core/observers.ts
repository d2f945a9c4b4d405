/**
 * Observers (R10): every settled run of a point with observers is handed to them as a `RunEvent`,
 * off the run's path. A run only joins its stack's queue when it settles; the queue is delivered
 * in batches from a macrotask, after the callers got their outcomes, and each event is built once,
 * when it is delivered, its decisions only when an observer reads them (see decisions.ts).
 *
 * The queue is bounded: at most `limit` events wait or are being delivered (an event counts until
 * every asynchronous observer call for it settled). Past that, new events are dropped and counted
 * in `stack.stats.observerDrops`; nothing grows without bound. A program that never yields to the
 * event loop (a tight loop of awaited runs) would never reach the macrotask: once `batch` events
 * wait, they are delivered from a microtask instead, so such a loop costs a bounded queue too.
 */
import type { RunEvent } from "./context.ts";
import { decisionsOf } from "./decisions.ts";
import { HookError, type Phase } from "./errors.ts";
import type { Layer } from "./hook.ts";
import type { Outcome } from "./outcome.ts";
import type { Run, Stats } from "./run.ts";
import { isThenable } from "./signal.ts";
import type { TraceEntry } from "./trace.ts";

/** What a stack's observer queue shares with the stack. */
export interface QueueHost {
  readonly stats: Stats;
  readonly pending: Set<PromiseLike<unknown>>;
  readonly onFailure: ((error: HookError) => void) | undefined;
}

/** Events waiting for observers, per stack: the default `StackOptions.observerQueue.limit`. */
export const defaultObserverLimit = 10_000;
/** Events delivered from a microtask once this many wait (see the module comment). */
const batchSize = 256;

export class ObserverQueue {
  private runs: Run[] = [];
  private outcomes: Outcome[] = [];
  private immediate: ReturnType<typeof setImmediate> | undefined = undefined;
  private microtask = false;
  /** Asynchronous observer calls not settled yet. */
  private running = 0;
  private readonly deliverNow = (): void => this.deliver();

  constructor(
    private readonly host: QueueHost,
    readonly limit: number,
  ) {}

  /** A run settled: queue it for its observers, or drop and count it when the queue is full. */
  enqueue(run: Run, outcome: Outcome): void {
    if (this.runs.length + this.running >= this.limit) {
      this.host.stats.observerDrops++;
      return;
    }
    this.runs.push(run);
    this.outcomes.push(outcome);
    if (this.runs.length >= Math.min(batchSize, this.limit)) {
      if (!this.microtask) {
        this.microtask = true;
        queueMicrotask(this.deliverNow);
      }
    } else this.immediate ??= setImmediate(this.deliverNow);
  }

  /** Whether events wait for delivery. */
  get waiting(): boolean {
    return this.runs.length > 0;
  }

  /** Deliver every queued event now. */
  deliver(): void {
    this.microtask = false;
    if (this.immediate !== undefined) {
      clearImmediate(this.immediate);
      this.immediate = undefined;
    }
    const runs = this.runs;
    const outcomes = this.outcomes;
    if (runs.length === 0) return;
    this.runs = [];
    this.outcomes = [];
    for (let i = 0; i < runs.length; i++) this.notify(runs[i] as Run, outcomes[i] as Outcome);
  }

  private notify(run: Run, outcome: Outcome): void {
    const event = new SettledRun(run, outcome);
    for (const layer of run.chain.observers) {
      if (layer.matcher.needsInput && !this.applies(run, layer, event.input)) continue;
      let result: unknown;
      try {
        result = (layer.observe as (event: RunEvent) => unknown)(event);
      } catch (cause) {
        observerFailed(run, layer, "observe", cause);
        continue;
      }
      if (isThenable(result)) this.wait(run, layer, result);
    }
  }

  /** An observer's condition on the input; one that throws is that observer's failure, counted (R10). */
  private applies(run: Run, layer: Layer, input: unknown): boolean {
    try {
      return layer.matcher.test(run.subject, input, () => run.detailOf(input));
    } catch (cause) {
      observerFailed(run, layer, "observe", cause);
      return false;
    }
  }

  private wait(run: Run, layer: Layer, result: PromiseLike<unknown>): void {
    this.running++;
    const pending = this.host.pending;
    const tracked: Promise<void> = Promise.resolve(result).then(
      () => this.settled(pending, tracked),
      (cause) => (observerFailed(run, layer, "observe", cause), this.settled(pending, tracked)),
    );
    pending.add(tracked);
  }

  private settled(pending: Set<PromiseLike<unknown>>, tracked: Promise<void>): void {
    this.running--;
    pending.delete(tracked);
  }
}

/**
 * What observers receive: a frozen event, made once per run when it is delivered. Its decisions
 * are built from the run's record the first time they are read.
 */
class SettledRun implements RunEvent {
  declare readonly point: string;
  declare readonly subject: string | undefined;
  declare readonly sessionId: string | undefined;
  declare readonly runId: string;
  declare readonly callId: string;
  declare readonly metadata: Readonly<Record<string, unknown>>;
  declare readonly path: readonly string[];
  declare readonly input: unknown;
  declare readonly outcome: Outcome;
  declare readonly failures: readonly HookError[];
  declare readonly startedAt: number;
  declare readonly durationMs: number;
  readonly #run: Run;
  #decisions: readonly TraceEntry[] | undefined = undefined;

  constructor(run: Run, outcome: Outcome) {
    this.point = run.point;
    this.subject = run.subject;
    this.sessionId = run.sessionId;
    this.runId = run.runId;
    this.callId = run.callId;
    this.metadata = run.metadata;
    this.path = run.path;
    this.input = run.initial;
    // A copy, frozen: the caller holds the outcome (R10).
    this.outcome = observed(outcome);
    this.failures = run.failures === undefined ? noFailures : Object.freeze([...run.failures]);
    this.startedAt = run.origin;
    this.durationMs = run.ended - run.origin;
    this.#run = run;
    Object.freeze(this);
  }

  /** Each hook's decision, in the order they were made (frozen copies). */
  get decisions(): readonly TraceEntry[] {
    return (this.#decisions ??= decisionsOf(this.#run));
  }

  /** The event as plain data, decisions included (they are read through a getter). */
  toJSON(): Record<string, unknown> {
    return { ...(this as object), decisions: this.decisions };
  }
}

const noFailures: readonly HookError[] = Object.freeze([]);

/** A frozen copy of an outcome for hooks that only watch; a collecting gate's `reasons` are copied too. */
export const observed = (outcome: Outcome): Outcome =>
  Object.freeze(outcome._tag === "Rejected" && outcome.reasons !== undefined
    ? { ...outcome, reasons: Object.freeze(outcome.reasons.map((r) => Object.freeze({ ...r }))) }
    : { ...outcome }) as Outcome;

/** An observer, an observer's condition or an `onSettled` failed: counted and reported, never in the way (R10). */
export const observerFailed = (run: Run, layer: Layer, phase: Phase, cause: unknown): void => {
  const stats = run.runtime.stats;
  stats.observerErrors++;
  const error = new HookError(layer.name, run.point, phase, "threw", 0, cause, layer.source);
  // An onSettled runs within its run: the run's event lists its failure, as it lists every hook failure.
  if (phase === "onSettled") (run.failures ??= []).push(error);
  try {
    run.runtime.onFailure?.(error);
  } catch {
    // onFailure itself failing must not escape an observer (R10).
  }
};
