/**
 * The engine's state for one run of one point: where the dispatcher is (the outermost frame of
 * the onion), what it recorded, what the run settled with. Hooks never see it: they get a
 * `HookCtx`, a view that reads what it may from here through `RunView`.
 */
import { now } from "./clock.ts";
import type { Chain } from "./chain.ts";
import { askApproval, type ApprovalRequestOf, type AskState } from "./approval-ask.ts";
import type { ApprovalDecision, Approver, ContextKey, HookInfo, RunOptions } from "./context.ts";
import { Rec, type Recorder } from "./decisions.ts";
import { OperationAbandonedError, type HookError } from "./errors.ts";
import type { Layer } from "./hook.ts";
import { HookCtx, type RunView } from "./hook-context.ts";
import type { Outcome } from "./outcome.ts";
import type { PointKind } from "./point.ts";
import { deepFreeze } from "./readonly.ts";
import { RunSignal } from "./run-signal.ts";
import { neverAborted } from "./signal.ts";
import { keyPart, type StateStore } from "./state.ts";
import type { Trace, TraceEntry } from "./trace.ts";

/** Counters shared by a stack and every stack derived from it. */
export interface Stats {
  hookFailures: number;
  failOpen: number;
  observerErrors: number;
  observerDrops: number;
}

/** Where settled runs go for their observers (see observers.ts). */
export interface ObserverSink {
  /** The run settled, with `run.settledWith`. */
  enqueue(run: Run): void;
  /** A run read the clock as it started (`now`): the end of runs settled since (see observers.ts). */
  clockRead(now: number): void;
}

/** What a stack shares with every run: counters, pending background work, failure callback. */
export interface Runtime {
  readonly store: StateStore;
  readonly approval: Approver | undefined;
  /** Freeze what hooks see (R9). */
  readonly freeze: boolean;
  /** Time every hook call for observers, not only asynchronous ones (see decisions.ts). */
  readonly timeHooks: boolean;
  /** How deep `path` may grow before a run is refused. */
  readonly maxDepth: number;
  readonly onFailure: ((error: HookError) => void) | undefined;
  /**
   * Background work `stack.flush()` waits for (observer calls, onSettled promises, waitUntil work),
   * each with the settle number of the run it belongs to (see `Run.workOrder`).
   */
  readonly pending: Pending;
  /** How many runs have settled: numbers them, so flush() can tell the runs settled before it. */
  settles: number;
  readonly stats: Stats;
  readonly observers: ObserverSink;
}

/**
 * The state of walking a stretch of a chain: the outermost stretch is the run itself, and what
 * an `around` hook's `next()` runs is an `AroundCall`. Layers `start` and up belong to it.
 */
export interface Frame {
  readonly start: number;
  /** The around call this frame is the inside of; undefined for the run's outermost frame. */
  readonly outer: Frame | undefined;
  /** Next layer to enter on the way in. */
  i: number;
  /** Next layer to leave on the way out. */
  j: number;
  /** The input as this frame's hooks have transformed it so far. */
  payload: unknown;
  /** The input the frame started with. */
  initial: unknown;
  /** Inputs after each `Transform` in a `before`: index and value, in order (for `after(output, input)`). */
  transforms: unknown[] | undefined;
  /** Layers whose input-dependent matcher said no in this pass, a bit per layer (see `matchesNow`). */
  skipped: number[] | undefined;
  outcome: Outcome | undefined;
  /** A `Replace` or `Reject` on the way out made the outcome final (R3). */
  final: boolean;
}

/** The input layer `j` received: the frame's, or the latest `Transform` made before it. */
export const inputAt = (f: Frame, j: number): unknown => {
  const transforms = f.transforms;
  if (transforms !== undefined)
    for (let x = transforms.length - 2; x >= 0; x -= 2) if ((transforms[x] as number) < j) return transforms[x + 1];
  return f.initial;
};

/** The operation the chain wraps. */
export type Op = (input: any, ctx: any) => unknown;

let runSeq = 0;
let callSeq = 0;
/**
 * This process in generated ids: its pid for people reading them, and a random part because
 * containers often start every process as the same pid, and run-scoped counters live in a
 * store those processes may share (a `callLimit` per run must not count another process's run).
 */
let tag: string | undefined;
// 32 random bits, made on first use. The ids are names, not secrets: Math.random (seeded by V8 from
// the operating system's entropy in each process) keeps them apart without loading Node's crypto,
// a few ms that every claude-hook process would pay.
const processTag = (): string =>
  (tag ??= `${process.pid}-${Math.floor(Math.random() * 2 ** 32)
    .toString(16)
    .padStart(8, "0")}`);
export const emptyMetadata: Readonly<Record<string, unknown>> = Object.freeze({});
/**
 * The metadata and path frozen last. Every hook, matcher and observer of a run reads the caller's
 * metadata and path: they are frozen like the input (R9), on their first read, so none of them can
 * change what the others see. Callers often pass the same ones run after run, and comparing with
 * these costs less than `deepFreeze`'s lookup of a value it froze before.
 */
let lastMetadata: unknown;
let lastPath: unknown;

const freezeLast = (metadata: unknown, path: unknown): void => {
  try {
    deepFreeze((lastMetadata = metadata));
    deepFreeze((lastPath = path));
  } catch {
    // A Proxy that refuses to be frozen stays as it is; it must not crash the run.
  }
};
export const emptyPath: readonly string[] = Object.freeze([]);

/** What no input is: a run that has asked for no detail yet. */
const noDetail: unknown = Symbol("no detail asked");

export class Run implements Frame, RunView, Recorder {
  // Fields are declared and assigned in the constructor, in one order, so every run has one shape.
  declare readonly runtime: Runtime;
  declare readonly chain: Chain;
  declare readonly layers: readonly Layer[];
  declare readonly options: RunOptions | undefined;
  declare readonly op: Op;
  /** The context every before/after/recover/onSettled call of this run gets. */
  declare readonly ctx: HookCtx;
  declare subject: string | undefined;
  /** The input of the call being made (what `ctx.input` shows). */
  declare input: unknown;
  /** The layer being called (what `ctx.hook` shows); undefined while the operation runs. */
  declare current: Layer | undefined;
  declare settled: boolean;
  /**
   * The outcome the run settled with, kept once: what a `next()` still pending inside then
   * receives. Not `outcome`, the outermost frame's working field, which a chain still unwinding
   * may write after the run settled.
   */
  declare settledWith: Outcome | undefined;
  /**
   * The run's signal when it has a caller signal or a deadline, or, in a chain that nests, once
   * someone reads it (see `watchable`); none (never aborted) otherwise.
   */
  declare guard: RunSignal | undefined;
  /** The own signals of operation calls and timed hooks still running, told if the run ends first. */
  declare running: RunSignal[] | undefined;
  declare readonly rec: number;
  declare readonly trace: Trace | undefined;
  declare readonly origin: number;
  /** The last reading of the clock after the start (0: none yet), see `clock`. */
  declare private reading: number;
  /**
   * `performance.now()` when the run settled (exact recording), or the first reading after it
   * (compact recording, see observers.ts); 0 until then, and when nothing records.
   */
  declare ended: number;
  declare log: unknown[] | number | undefined;
  declare decisions: TraceEntry[] | undefined;
  declare failures: HookError[] | undefined;
  /** The most recent hook failure, read right after `fail` by the dispatcher. */
  declare lastFailure: HookError | undefined;
  /** Rejections gathered on a collecting gate (`collect: true`). */
  declare collected: { reason: string; by: string }[] | undefined;
  /** Gates marked `recheck` and the input each last approved. */
  declare rechecks: Map<Layer, unknown> | undefined;
  /** Layers entered and not yet ended that have an `onSettled`: frame and index, in pairs. */
  declare open: unknown[] | undefined;
  /** What its approvals did: an edit to check again, an approval it waits for (approval-ask.ts). */
  declare asked: AskState | undefined;
  declare private id: string | undefined;
  declare private call: string | undefined;
  declare private sessionStore: StateStore | undefined;
  declare private locals: Map<ContextKey<unknown>, unknown> | undefined;
  /** The input whose detail `detail` holds (`noDetail` until one was asked for). */
  declare private detailFor: unknown;
  declare private detail: string | undefined;
  /** What `askDetail` hands out: one function per run, reading `detailAsked`. */
  declare private detailThunk: (() => string | undefined) | undefined;
  declare private detailAsked: unknown;
  // The run is the outermost frame of its chain (see Frame).
  declare readonly start: number;
  declare readonly outer: Frame | undefined;
  declare i: number;
  declare j: number;
  declare payload: unknown;
  declare initial: unknown;
  declare transforms: unknown[] | undefined;
  declare skipped: number[] | undefined;
  declare outcome: Outcome | undefined;
  declare final: boolean;
  /** The caller's metadata and path were frozen (R9), on their first read. */
  declare private optionsFrozen: boolean;
  /** Its number among the stack's settled runs (see `Runtime.settles`); 0 until it settles. */
  declare settleNumber: number;

  constructor(
    runtime: Runtime,
    chain: Chain,
    options: RunOptions | undefined,
    input: unknown,
    op: Op,
    guard: RunSignal | undefined,
    rec: number,
  ) {
    this.runtime = runtime;
    this.chain = chain;
    this.layers = chain.layers;
    this.options = options;
    this.op = op;
    this.ctx = HookCtx.following(this);
    this.subject = undefined;
    this.input = input;
    this.current = undefined;
    this.settled = false;
    this.settledWith = undefined;
    this.guard = guard;
    this.running = undefined;
    this.rec = rec;
    this.trace = options?.trace;
    this.origin = rec === Rec.none ? 0 : now();
    if (rec === Rec.compact) runtime.observers.clockRead(this.origin);
    // Not a copy of `origin`: a number field holding a fraction is a boxed number of its own.
    this.reading = 0;
    this.ended = 0;
    this.log = undefined;
    this.decisions = undefined;
    this.failures = undefined;
    this.lastFailure = undefined;
    this.collected = undefined;
    this.rechecks = undefined;
    this.open = undefined;
    this.asked = undefined;
    this.id = options?.runId;
    this.call = undefined;
    this.sessionStore = undefined;
    this.locals = undefined;
    this.detailFor = noDetail;
    this.detail = undefined;
    this.detailThunk = undefined;
    this.detailAsked = undefined;
    this.start = 0;
    this.outer = undefined;
    this.i = 0;
    this.j = -1;
    this.payload = input;
    this.initial = input;
    this.transforms = undefined;
    this.skipped = undefined;
    this.outcome = undefined;
    this.final = false;
    this.settleNumber = 0;
    this.optionsFrozen = false;
  }

  /** The last reading of the clock: the start, or the end of the last timed call (see decisions.ts). */
  get clock(): number {
    return this.reading || this.origin;
  }

  set clock(value: number) {
    this.reading = value;
  }

  get point(): string {
    return this.chain.point.name;
  }

  get kind(): PointKind {
    return this.chain.point.kind;
  }

  get sessionId(): string | undefined {
    return this.options?.sessionId;
  }

  get metadata(): Readonly<Record<string, unknown>> {
    const metadata = this.options?.metadata;
    if (metadata === undefined) return emptyMetadata;
    if (!this.optionsFrozen) this.freezeOptions();
    return metadata;
  }

  get path(): readonly string[] {
    const path = this.options?.path;
    if (path === undefined) return emptyPath;
    if (!this.optionsFrozen) this.freezeOptions();
    return path;
  }

  get store(): StateStore {
    return this.options?.store ?? this.runtime.store;
  }

  /** Made on first read (see RunSignal): most runs never read their signal. */
  get signal(): AbortSignal {
    const guard = this.watchable();
    return guard === undefined ? neverAborted : guard.signal;
  }

  /**
   * The run's `RunSignal`, made now if the run has none and its chain nests: a timed around hook
   * can settle such a run while the operation still runs, and the operation must then be told.
   */
  watchable(): RunSignal | undefined {
    if (this.guard !== undefined || !this.chain.nests) return this.guard;
    return (this.guard = new RunSignal());
  }

  /**
   * A signal of its own for an operation call, in a run that can abort: it follows the run's (the
   * caller's abort, the deadline) for as long as the run lasts, also after the call returned (a
   * streamed body reads on); only the run ending without waiting for the call aborts it. Each call
   * has its own: an attempt a retry left behind is told, the attempt whose result was kept is not.
   * Undefined in a run that cannot abort: the operation gets the run's context.
   */
  callSignal(): RunSignal | undefined {
    const guard = this.watchable();
    if (guard === undefined) return undefined;
    const own = new RunSignal();
    guard.watch(own);
    return own;
  }

  /** `own` (an operation call's or a timed hook's signal) runs until `release`: see `running`. */
  hold(own: RunSignal): void {
    (this.running ??= []).push(own);
  }

  release(own: RunSignal): void {
    const running = this.running;
    if (running === undefined) return;
    const at = running.lastIndexOf(own);
    if (at >= 0) running.splice(at, 1);
  }

  /** Abort the operation calls and timed hooks still running, whose results nobody will read. */
  abandonRunning(): void {
    const running = this.running;
    if (running === undefined) return;
    this.running = undefined;
    // Usually empty: what ran has released itself. An error's stack trace costs microseconds.
    if (running.length === 0) return;
    const reason = new OperationAbandonedError(this.point);
    for (const own of running) own.abort(reason);
  }

  /** A unique id for this `stack.run` call, made on first use. */
  get callId(): string {
    return (this.call ??= `call-${processTag()}-${++callSeq}`);
  }

  /** Run ids are made on first use: most runs never need one. */
  get runId(): string {
    return (this.id ??= `run-${processTag()}-${++runSeq}`);
  }

  /**
   * The store, or its part for this session. Ids are encoded so that one with the store's `:`
   * in it cannot reach another session's keys. Runs without a session share one part of their
   * own, apart from every session's (a session named "none" no longer reads it), so that state
   * still lasts across their calls without a part per run left behind in the store.
   */
  state(scope: "session" | "global" = "session"): StateStore {
    if (scope === "global") return this.store;
    const session = this.sessionId;
    return (this.sessionStore ??= this.store.scope(session === undefined ? "sessionless" : `session:${keyPart(session)}`));
  }

  addContextFrom(hook: string, text: string): void {
    if (typeof text !== "string" || text === "") return;
    this.options?.onContext?.(text, hook);
  }

  approve(request: ApprovalRequestOf, hook: HookInfo, own: RunSignal | undefined): Promise<ApprovalDecision> {
    return askApproval(this, request, hook, own);
  }

  /** Freeze the caller's metadata and path (see `lastMetadata`), once per run: a read then costs a field's test. */
  private freezeOptions(): void {
    this.optionsFrozen = true;
    if (!this.runtime.freeze) return;
    const metadata = this.options?.metadata;
    const path = this.options?.path;
    if (metadata !== lastMetadata || path !== lastPath) freezeLast(metadata, path);
  }

  /** What background work of this run is numbered with: its settle number, or Infinity while it is in flight. */
  get workOrder(): number {
    return this.settled && this.settleNumber > 0 ? this.settleNumber : Number.POSITIVE_INFINITY;
  }

  waitUntil(work: PromiseLike<unknown>): void {
    track(this.runtime.pending, work, this.workOrder);
  }

  getLocal(key: ContextKey<unknown>): unknown {
    return this.locals?.get(key);
  }

  setLocal(key: ContextKey<unknown>, value: unknown): void {
    if (this.settled) return; // gone with the run
    (this.locals ??= new Map()).set(key, value);
  }

  /** Drop the run's slots: the run settled. */
  dropLocals(): void {
    this.locals = undefined;
  }

  /**
   * The point's detail for `input`, for `Name(pattern)` conditions: asked of the point once per
   * input a run's hooks see, not once per hook. Kept only when inputs are frozen, so the input
   * cannot have changed in place since; a Transform is a new object, and asks again.
   */
  detailOf(input: unknown): string | undefined {
    if (input === this.detailFor) return this.detail;
    const detail = this.chain.point.detail;
    const value = detail === undefined ? undefined : detail(input);
    if (this.runtime.freeze && typeof input === "object" && input !== null) {
      this.detailFor = input;
      this.detail = value;
    }
    return value;
  }

  /**
   * A function giving `detailOf(input)`, for a matcher's `detail` argument: one per run rather
   * than one per condition tested (a call may meet a thousand conditions). Valid until the next
   * `askDetail`, as a matcher asks synchronously.
   */
  askDetail(input: unknown): () => string | undefined {
    this.detailAsked = input;
    return (this.detailThunk ??= () => this.detailOf(this.detailAsked));
  }

  /** The point's step type for a run that ended with `outcome`, for `{ stepType }` matchers. */
  stepTypeOf(outcome: Outcome | undefined, input: unknown): string | undefined {
    const stepType = this.chain.point.stepType;
    return stepType === undefined || outcome === undefined ? undefined : stepType(outcome, input);
  }

  /** Record a hook failure (always, R6) and tell the stack. */
  fail(error: HookError, failOpen: boolean): void {
    this.count(error, failOpen);
    this.lastFailure = error;
  }

  /** Count a failure and tell the stack, without making it the run's (a hook that ran others handled it). */
  reported(error: HookError, failOpen: boolean): void {
    if (!this.settled) this.count(error, failOpen); // else a hook still running after its run settled
  }

  private count(error: HookError, failOpen: boolean): void {
    (this.failures ??= []).push(error);
    const stats = this.runtime.stats;
    stats.hookFailures++;
    if (failOpen) stats.failOpen++;
    const onFailure = this.runtime.onFailure;
    if (onFailure !== undefined) {
      try {
        onFailure(error);
      } catch {
        stats.observerErrors++;
      }
    }
  }
}

/** Background work and the settle number of the run it belongs to (Infinity while that run is in flight). */
export type Pending = Map<PromiseLike<unknown>, number>;

/** Keep `work` in `pending` until it settles (for `stack.flush()`); its rejection is handled here. */
export const track = (pending: Pending, work: PromiseLike<unknown>, order: number): void => {
  const tracked = Promise.resolve(work).then(
    () => void pending.delete(tracked),
    () => void pending.delete(tracked),
  );
  pending.set(tracked, order);
};
