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
 *
 * One clock reading per run. A run reads the clock as it starts (`startedAt`); its end is the
 * first reading after it settled: the start of the next observed run of the stack, or the
 * delivery of its batch (one reading for the batch), whichever comes first. In a loop of runs
 * that is the run's end to within the step to the next run; a run followed by synchronous work and
 * no other run counts that work up to the end of the event loop's turn. A stack with `timeHooks`
 * (and a run given a `Trace`) reads the clock as the run settles instead.
 */
import { now } from "./clock.ts";
import type { RunEvent } from "./context.ts";
import { decisionsOf } from "./decisions.ts";
import { HookError, type Phase } from "./errors.ts";
import type { Layer } from "./hook.ts";
import type { Interrupted, Outcome, Rejected } from "./outcome.ts";
import type { Pending, Run, Stats } from "./run.ts";
import { isThenable } from "./signal.ts";
import type { TraceEntry } from "./trace.ts";

/** What a stack's observer queue shares with the stack. */
export interface QueueHost {
  readonly stats: Stats;
  readonly pending: Pending;
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

const settledPromise: Promise<void> = Promise.resolve();

export class ObserverQueue {
  private runs: Run[] = [];
  /** `runs` before this index have their end (`run.ended`). */
  private stamped = 0;
  private immediate: ReturnType<typeof setImmediate> | undefined = undefined;
  private microtask = false;
  /** Asynchronous observer calls not settled yet. */
  private running = 0;
  private readonly fromMicrotask = (): void => {
    this.microtask = false;
    this.deliver();
  };
  /** Left scheduled when a microtask delivers first: a loop of runs then schedules one per turn of the event loop, not one per batch. */
  private readonly fromImmediate = (): void => {
    this.immediate = undefined;
    this.deliver();
  };

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
    if (run.ended !== 0 && this.stamped === runs.length - 1) this.stamped = runs.length; // timed as it settled
    if (runs.length >= batchSize || runs.length >= this.limit) {
      if (!this.microtask) {
        this.microtask = true;
        // A reaction on a settled promise: queueMicrotask makes an AsyncResource per call.
        settledPromise.then(this.fromMicrotask);
      }
    } else this.immediate ??= setImmediate(this.fromImmediate);
  }

  /** The clock read `now`: it is the end of every queued run that has none yet. */
  clockRead(now: number): void {
    const runs = this.runs;
    for (let i = this.stamped; i < runs.length; i++) {
      const run = runs[i] as Run;
      if (run.ended === 0) run.ended = now;
    }
    this.stamped = runs.length;
  }

  /** Deliver every queued event now. */
  deliver(): void {
    const runs = this.runs;
    if (runs.length === 0) return;
    if (this.stamped < runs.length) this.clockRead(now());
    this.runs = [];
    this.stamped = 0;
    for (let i = 0; i < runs.length; i++) this.notify(runs[i] as Run);
  }

  private notify(run: Run): void {
    const observers = run.chain.observers;
    // One view per observer: what one observer does to its event object, no other sees.
    const shared = observers.length === 1 ? undefined : new EventCopies();
    for (const layer of observers) {
      if (layer.matcher.needsInput && !this.applies(run, layer, run.initial)) continue;
      const event = new SettledRun(run, shared);
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
    pending.set(tracked, run.workOrder);
  }

  private settled(pending: Pending, tracked: Promise<void>): void {
    this.running--;
    pending.delete(tracked);
  }
}

/** What the event views of a run with several observers share: what is made once, frozen, when first read. */
class EventCopies {
  declare outcome: Outcome | undefined;
  declare failures: readonly HookError[] | undefined;

  constructor() {
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
  readonly #run: Run;
  /** Copies shared with the other observers' views; undefined: this view keeps its own (one observer). */
  readonly #shared: EventCopies | undefined;
  #outcome: Outcome | undefined;
  #failures: readonly HookError[] | undefined;
  #decisions: readonly TraceEntry[] | undefined;

  constructor(run: Run, shared: EventCopies | undefined) {
    this.#run = run;
    this.#shared = shared;
    this.#outcome = undefined;
    this.#failures = undefined;
    this.#decisions = undefined;
  }

  get point(): string {
    return this.#run.point;
  }
  get subject(): string | undefined {
    return this.#run.subject;
  }
  get sessionId(): string | undefined {
    return this.#run.sessionId;
  }
  get runId(): string {
    return this.#run.runId;
  }
  get callId(): string {
    return this.#run.callId;
  }
  get metadata(): Readonly<Record<string, unknown>> {
    return this.#run.metadata;
  }
  get path(): readonly string[] {
    return this.#run.path;
  }
  /** The input as the caller gave it (frozen, unless the stack opted out). */
  get input(): any {
    return this.#run.initial;
  }
  /** A copy, frozen: the caller holds the outcome (R10). */
  get outcome(): Outcome {
    const shared = this.#shared;
    if (shared !== undefined) return (shared.outcome ??= observed(this.#run.settledWith as Outcome));
    return (this.#outcome ??= observed(this.#run.settledWith as Outcome));
  }
  /** Each hook's decision, in the order they were made: this view's own copies. */
  get decisions(): readonly TraceEntry[] {
    return (this.#decisions ??= decisionsOf(this.#run));
  }
  get failures(): readonly HookError[] {
    const shared = this.#shared;
    if (shared !== undefined) return (shared.failures ??= failuresOf(this.#run));
    return (this.#failures ??= failuresOf(this.#run));
  }
  get startedAt(): number {
    return this.#run.origin;
  }
  /** From the run's start to its end: see the module comment for how the end is read. */
  get durationMs(): number {
    return this.#run.ended - this.#run.origin;
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

const failuresOf = (run: Run): readonly HookError[] => (run.failures === undefined ? noFailures : Object.freeze([...run.failures]));

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
