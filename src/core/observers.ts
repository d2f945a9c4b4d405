/**
 * Observers (R10): every settled run of a point with observers is handed to them as a `RunEvent`,
 * off the run's path. A run only joins its stack's queue when it settles; the queue is delivered
 * in batches from a macrotask, after the callers got their outcomes. An event is a view of the
 * settled run: what it copies (the outcome, the decisions, see decisions.ts) is copied when an
 * observer first reads it, so an observer that reads little costs a run almost nothing.
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
import type { Interrupted, Outcome, Rejected } from "./outcome.ts";
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
/**
 * Events delivered from a microtask once this many wait (see the module comment). Small: every
 * waiting event keeps its run's input and output alive, and a few hundred 2 KB results kept
 * through a garbage collection cost more than the delivery saved by waiting for them.
 */
const batchSize = 32;

export class ObserverQueue {
  private runs: Run[] = [];
  private immediate: ReturnType<typeof setImmediate> | undefined = undefined;
  private microtask = false;
  /** Asynchronous observer calls not settled yet. */
  private running = 0;
  private readonly deliverNow = (): void => this.deliver();

  constructor(
    private readonly host: QueueHost,
    readonly limit: number,
  ) {}

  /** A run settled (its outcome is `run.settledWith`): queue it for its observers, or drop and count it when the queue is full. */
  enqueue(run: Run): void {
    const runs = this.runs;
    if (runs.length + this.running >= this.limit) {
      this.host.stats.observerDrops++;
      return;
    }
    runs.push(run);
    if (runs.length >= batchSize || runs.length >= this.limit) {
      if (!this.microtask) {
        this.microtask = true;
        queueMicrotask(this.deliverNow);
      }
    } else this.immediate ??= setImmediate(this.deliverNow);
  }

  /** Deliver every queued event now. */
  deliver(): void {
    this.microtask = false;
    if (this.immediate !== undefined) {
      clearImmediate(this.immediate);
      this.immediate = undefined;
    }
    const runs = this.runs;
    if (runs.length === 0) return;
    this.runs = [];
    for (let i = 0; i < runs.length; i++) this.notify(runs[i] as Run);
  }

  private notify(run: Run): void {
    const observers = run.chain.observers;
    // One view per observer: what one observer does to its event object, no other sees.
    const record = observers.length === 1 ? undefined : new EventRecord(run);
    for (const layer of observers) {
      if (layer.matcher.needsInput && !this.applies(run, layer, run.initial)) continue;
      const event = new SettledRun(record ?? new EventRecord(run));
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
      return layer.matcher.test(
        run.subject,
        input,
        () => run.detailOf(input),
        run.metadata,
        () => run.stepTypeOf(run.settledWith, input),
      );
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

/** What a run's event views share: the run, and what is made from it once, frozen, when first read. */
class EventRecord {
  declare readonly run: Run;
  declare outcome: Outcome | undefined;
  declare failures: readonly HookError[] | undefined;

  constructor(run: Run) {
    this.run = run;
    this.outcome = undefined;
    this.failures = undefined;
  }
}

/**
 * What observers receive. Everything is read through the run when asked (and what must be copied
 * is copied then), so an event costs an observer that reads little almost nothing, whatever the
 * number of hooks. Nothing an observer writes to it or defines on it reaches the run or another
 * observer: each gets a view of its own, with decisions of its own; what views share (the outcome
 * copy, the failures) is frozen.
 */
class SettledRun implements RunEvent {
  readonly #record: EventRecord;
  #decisions: readonly TraceEntry[] | undefined = undefined;

  constructor(record: EventRecord) {
    this.#record = record;
  }

  get point(): string {
    return this.#record.run.point;
  }
  get subject(): string | undefined {
    return this.#record.run.subject;
  }
  get sessionId(): string | undefined {
    return this.#record.run.sessionId;
  }
  get runId(): string {
    return this.#record.run.runId;
  }
  get callId(): string {
    return this.#record.run.callId;
  }
  get metadata(): Readonly<Record<string, unknown>> {
    return this.#record.run.metadata;
  }
  get path(): readonly string[] {
    return this.#record.run.path;
  }
  /** The input as the caller gave it (frozen, unless the stack opted out). */
  get input(): any {
    return this.#record.run.initial;
  }
  /** A copy, frozen: the caller holds the outcome (R10). */
  get outcome(): Outcome {
    return (this.#record.outcome ??= observed(this.#record.run.settledWith as Outcome));
  }
  /** Each hook's decision, in the order they were made: this view's own copies. */
  get decisions(): readonly TraceEntry[] {
    return (this.#decisions ??= decisionsOf(this.#record.run));
  }
  get failures(): readonly HookError[] {
    const record = this.#record;
    return (record.failures ??= record.run.failures === undefined ? noFailures : Object.freeze([...record.run.failures]));
  }
  get startedAt(): number {
    return this.#record.run.origin;
  }
  get durationMs(): number {
    return this.#record.run.ended - this.#record.run.origin;
  }

  /** The event as plain data (its fields are getters, which JSON would not see). */
  toJSON(): Record<string, unknown> {
    const { point, subject, sessionId, runId, callId, metadata, path, input, outcome, decisions, failures, startedAt, durationMs } = this;
    return { point, subject, sessionId, runId, callId, metadata, path, input, outcome, decisions, failures, startedAt, durationMs };
  }

  /** What `console.log` and `util.inspect` show: the same plain data. */
  [Symbol.for("nodejs.util.inspect.custom")](): Record<string, unknown> {
    return this.toJSON();
  }
}
// Its getters are what every event reads: no observer may redefine them for the others.
Object.freeze(SettledRun.prototype);

const noFailures: readonly HookError[] = Object.freeze([]);

/**
 * A frozen copy of an outcome for hooks that only watch; a collecting gate's `reasons` are copied
 * too. Written out field by field: V8 freezes an object literal of a known shape several times
 * faster than a spread copy.
 */
export const observed = (o: Outcome): Outcome => {
  if (o._tag === "Completed") return Object.freeze({ _tag: "Completed", value: o.value });
  if (o._tag === "Failed") return Object.freeze({ _tag: "Failed", error: o.error });
  const copy: { -readonly [K in keyof Interrupted]?: Interrupted[K] } & { -readonly [K in keyof Rejected]: Rejected[K] } = {
    _tag: "Rejected",
    reason: o.reason,
    by: o.by,
  };
  if (o.cause !== undefined) copy.cause = o.cause;
  // An interrupted run's pending approval (see approval-ask.ts).
  const approval = (o as Partial<Interrupted>).approval;
  if (approval !== undefined) copy.approval = approval;
  if (o.reasons !== undefined) copy.reasons = Object.freeze(o.reasons.map((r) => Object.freeze({ reason: r.reason, by: r.by })));
  return Object.freeze(copy);
};

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
