/**
 * The per-run object. It is both the `HookContext` hooks see and the engine's bookkeeping for
 * the run, so that a run allocates one object for all of it (the outcome aside).
 */
import type { ApprovalDecision, ApprovalHandler, HookContext, HookInfo, RunOptions } from "./context.ts";
import { HookError, OperationAbandonedError } from "./errors.ts";
import type { CompiledHook } from "./hook.ts";
import type { Chain, Frame, Op } from "./frame.ts";
import type { Outcome } from "./outcome.ts";
import type { Point, PointKind } from "./point.ts";
import { keyPart, type StateStore } from "./state.ts";
import type { Trace, TraceAction, TraceEntry } from "./trace.ts";
import type { Phase } from "./errors.ts";
import { neverAborted } from "./signal.ts";
import { RunSignal, type AbortWatcher } from "./run-signal.ts";

/** What a stack shares with every run: counters, pending background work, failure callback. */
export interface Runtime {
  readonly store: StateStore;
  readonly approval: ApprovalHandler | undefined;
  readonly strict: boolean;
  /** How deep `path` may grow before a run is refused (A14). */
  readonly maxDepth: number;
  readonly onFailure: ((error: HookError) => void) | undefined;
  readonly pending: Set<PromiseLike<unknown>>;
  readonly stats: { hookFailures: number; failOpen: number; observerErrors: number };
}

let runSeq = 0;
let callSeq = 0;
/**
 * This process in generated ids: its pid for people reading them, and a random part because
 * containers often start every process as the same pid, and run-scoped counters live in a
 * store those processes may share (a `callLimit` per run must not count another process's run).
 */
const processTag = `${process.pid}-${globalThis.crypto.randomUUID().slice(0, 8)}`;
const noHook: HookInfo = Object.freeze({ name: "?", shadow: false, source: undefined });
export const emptyMetadata: Readonly<Record<string, unknown>> = Object.freeze({});
export const emptyPath: readonly string[] = Object.freeze([]);

export class RunContext<I = unknown> implements HookContext<I>, Frame {
  // Fields are declared and assigned in the constructor, in one order, rather than given
  // initializers: class-field definitions would run before the constructor body, one define per
  // field, on every run.
  declare readonly runtime: Runtime;
  declare readonly options: RunOptions | undefined;
  declare readonly point: string;
  declare readonly pointDef: Point;
  declare subject: string | undefined;
  /**
   * The run's signal when it has a caller signal or a deadline, or, in a chain that nests, once
   * someone reads it (see `watchable`); none (never aborted) otherwise.
   */
  declare guard: RunSignal | undefined;
  declare readonly sessionId: string | undefined;
  declare readonly metadata: Readonly<Record<string, unknown>>;
  declare readonly path: readonly string[];
  declare input: any;
  /** The input as the caller gave it. */
  declare readonly initial: unknown;
  declare readonly store: StateStore;
  /** The hook being called, for `addContext` and `approve` attribution. */
  declare current: CompiledHook | undefined;
  /** Decisions are recorded when someone will read them (a trace or observers). */
  declare readonly recording: boolean;
  declare readonly trace: Trace | undefined;
  declare decisions: TraceEntry[] | undefined;
  declare failures: HookError[] | undefined;
  declare readonly origin: number;
  declare settled: boolean;
  /** Rejections gathered on a collecting gate (`collect: true`). */
  declare collected: { reason: string; by: string }[] | undefined;
  /** Gates marked `recheck` and the input each last approved (A10); only allocated when such gates exist. */
  declare rechecks: Map<CompiledHook, unknown> | undefined;
  /** The most recent hook failure, read right after `fail` by the chain. */
  declare lastFailure: HookError | undefined;
  declare private id: string | undefined;
  declare private call: string | undefined;
  declare private sessionStore: StateStore | undefined;
  // The run is the outermost frame of its chain (see Frame): entering a chain allocates nothing.
  declare readonly chain: Chain;
  /** The operation, for a chain run by around-only.ts (the general chain passes it along instead). */
  declare op: Op | undefined;
  declare i: number;
  declare j: number;
  declare payload: unknown;
  declare transforms: Map<number, unknown> | undefined;
  declare skipped: Set<number> | undefined;
  declare outcome: Outcome | undefined;
  declare final: boolean;
  /**
   * The own signals of operation calls and timed hooks still running, in a run that can abort
   * (it has a guard): told if the run ends first, since nothing will read what they return.
   */
  declare running: RunSignal[] | undefined;
  /**
   * The outcome the run settled with, kept once (`end`, or the caller's abort or the deadline in
   * stack.ts): what a `next()` still pending inside then receives. Not `outcome`, the outermost
   * frame's working field, which a chain still unwinding may write after the run settled.
   */
  declare settledWith: Outcome | undefined;

  constructor(runtime: Runtime, chain: Chain, options: RunOptions | undefined, input: unknown, guard: RunSignal | undefined, recording: boolean) {
    const pointDef = chain.point;
    this.runtime = runtime;
    this.options = options;
    this.point = pointDef.name;
    this.pointDef = pointDef;
    this.subject = undefined;
    this.guard = guard;
    this.sessionId = options?.sessionId;
    this.metadata = options?.metadata ?? emptyMetadata;
    this.path = options?.path ?? emptyPath;
    this.input = input;
    this.initial = input;
    this.store = options?.store ?? runtime.store;
    this.current = undefined;
    this.recording = recording;
    this.trace = options?.trace;
    this.decisions = undefined;
    this.failures = undefined;
    this.origin = recording ? performance.now() : 0;
    this.settled = false;
    this.collected = undefined;
    this.rechecks = undefined;
    this.lastFailure = undefined;
    this.id = options?.runId;
    this.call = undefined;
    this.sessionStore = undefined;
    this.chain = chain;
    this.op = undefined;
    this.i = 0;
    this.j = -1;
    this.payload = input;
    this.transforms = undefined;
    this.skipped = undefined;
    this.outcome = undefined;
    this.final = false;
    this.running = undefined;
    this.settledWith = undefined;
  }

  /** Made on first read (see RunSignal): most runs never read their signal. */
  get signal(): AbortSignal {
    const guard = this.watchable();
    return guard === undefined ? neverAborted : guard.signal;
  }

  /**
   * The run's `RunSignal`, made now if the run has none and its chain nests: a timed around
   * hook can settle such a run while the operation still runs, and the operation must then be
   * told (see `end` and `Chain.nests`). Other runs get `neverAborted` for free.
   */
  watchable(): RunSignal | undefined {
    if (this.guard !== undefined || !this.chain.nests) return this.guard;
    return (this.guard = new RunSignal());
  }

  /**
   * What an operation call gets as its context: the run itself, or, in a run that can abort, a
   * view with a signal of the call's own. That signal follows the run's (the caller's abort, the
   * deadline) for as long as the run lasts, also after the call returned (a streamed body reads
   * on); only the call's own end without a reader aborts it (see `end`). Each call has its own:
   * an attempt a retry left behind is told, and the attempt whose result was kept is not.
   */
  callContext(input: unknown, frame?: Frame): HookContext<I> {
    const guard = this.watchable();
    if (guard === undefined) return this;
    const own = new RunSignal();
    guard.watch(own);
    // R7: a timed around hook around the call that fails closed gives up on it at its timeout.
    if (this.chain.nests && frame !== undefined)
      for (let f: Frame = frame; f.nested; f = (f as unknown as { outer: Frame }).outer) {
        const around = f as unknown as { scope: RunSignal | undefined; hook: CompiledHook };
        if (around.scope !== undefined) around.scope.watch(new GivenUpOn(own, guard, this.point, around.hook.name));
      }
    return new ScopedContext(this, input, own, undefined);
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

  /**
   * The run's outcome is decided (its outermost frame ended): start nothing more (R7), and abort
   * the operation calls and timed hooks still running, whose results nobody will read. What
   * already finished keeps its signal as it is.
   */
  end(outcome: Outcome | undefined = this.outcome): void {
    this.settled = true;
    this.settledWith ??= outcome;
    const running = this.running;
    if (running === undefined) return;
    this.running = undefined;
    // Usually empty: what ran has released itself. An error's stack trace costs microseconds.
    if (running.length === 0) return;
    const reason = new OperationAbandonedError(this.point);
    for (const own of running) own.abort(reason);
  }

  /** A getter, not a field: only rejections read it, and every field is paid for on every run. */
  get kind(): PointKind {
    return this.pointDef.kind;
  }

  /** The outermost frame starts at the first hook and is nobody's inner frame. */
  get start(): number {
    return 0;
  }

  get nested(): boolean {
    return false;
  }

  /** The hook being called: its name, whether it runs in shadow mode, where it came from (its frozen view, never its record). */
  get hook(): HookInfo {
    const current = this.current;
    return current === undefined ? noHook : current.info;
  }

  /** A unique id for this `stack.run` call, made on first use. */
  get callId(): string {
    return (this.call ??= `call-${processTag}-${++callSeq}`);
  }

  /** Run ids are made on first use: most runs never need one. */
  get runId(): string {
    return (this.id ??= `run-${processTag}-${++runSeq}`);
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

  addContext(text: string): void {
    this.addContextFrom(this.current, text);
  }

  addContextFrom(hook: CompiledHook | undefined, text: string): void {
    if (typeof text !== "string" || text === "") return;
    this.options?.onContext?.(text, hook?.name ?? "?");
  }

  async approve(request: { readonly reason?: string; readonly hook: string; readonly input?: unknown; readonly signal?: AbortSignal }): Promise<ApprovalDecision> {
    // Read here, where it is used, not at the start of every run: few runs ask.
    const own: unknown = this.options?.approval;
    if (own !== undefined && typeof own !== "function") throw new TypeError(`stack.run("${this.point}"): approval must be a function, got ${typeof own}`);
    const handler = (own as ApprovalHandler | undefined) ?? this.runtime.approval;
    if (handler === undefined)
      return { decision: "deny", reason: `approval required by ${request.hook}${request.reason ? ` (${request.reason})` : ""}, but no approval handler is configured, so no one could approve` };
    return handler({
      point: this.point,
      hook: request.hook,
      subject: this.subject,
      input: request.input ?? this.input,
      signal: request.signal ?? this.signal,
      ...(request.reason !== undefined ? { reason: request.reason } : {}),
    });
  }

  waitUntil(work: PromiseLike<unknown>): void {
    const pending = this.runtime.pending;
    const tracked = Promise.resolve(work).then(
      () => void pending.delete(tracked),
      () => void pending.delete(tracked),
    );
    pending.add(tracked);
  }

  /** The point's detail for `input`, for `Name(pattern)` conditions. */
  detailOf(input: unknown): string | undefined {
    const detail = this.pointDef.detail;
    return detail === undefined ? undefined : detail(input);
  }

  /** Record a decision (only called when `recording`). */
  record(hook: CompiledHook, phase: Phase, action: TraceAction, started: number, reason?: string, failMode?: "open" | "closed", rejected?: string): void {
    const now = performance.now();
    const entry: TraceEntry = {
      point: this.point,
      runId: this.runId,
      hook: hook.name,
      phase,
      action,
      reason,
      at: started - this.origin,
      startedAt: started,
      callId: this.callId,
      ms: now - started,
      shadow: hook.shadow || undefined,
      source: hook.source,
      failMode,
      rejected,
    };
    (this.decisions ??= []).push(entry);
    this.trace?.record(entry);
  }

  /** Record a hook failure (always, R6) and tell the stack. */
  fail(error: HookError, failOpen: boolean): void {
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

/**
 * The context of an `around` hook or of a hook with its own timeout: the run's context with
 * this layer's input, this hook's signal, and this hook named in `addContext`. A small class
 * rather than `Object.create(run)`: making every run object a prototype would deoptimise
 * every property access on runs.
 */
/**
 * Tells an operation call that a timed around hook around it timed out, and so gave up on it: its
 * signal aborts with `OperationAbandonedError` then, not when the run ends. The hook's signal also
 * aborts when the run's does; the call hears that from the run's signal, with its reason.
 */
class GivenUpOn implements AbortWatcher {
  constructor(
    readonly call: RunSignal,
    readonly guard: RunSignal,
    readonly point: string,
    readonly hook: string,
  ) {}

  abort(): void {
    if (!this.guard.aborted) this.call.abort(new OperationAbandonedError(this.point, this.hook));
  }
}

export class ScopedContext<I = unknown> implements HookContext<I> {
  // Declared and assigned, not parameter properties, for the reason given on RunContext.
  declare readonly run: RunContext<I>;
  declare readonly input: any;
  /** The hook's own signal (it has a timeout) or an operation call's, or undefined for the run's. */
  declare readonly own: RunSignal | undefined;
  /** The hook this context is for, the engine's record of it; undefined for an operation call's. Hooks see `hook`. */
  declare readonly owner: CompiledHook | undefined;
  constructor(run: RunContext<I>, input: any, own: RunSignal | undefined, owner: CompiledHook | undefined) {
    this.run = run;
    this.input = input;
    this.own = own;
    this.owner = owner;
  }
  /** The hook's frozen view of itself (see `CompiledHook.info`): a getter, so that it costs this object no field. */
  get hook(): HookInfo {
    const owner = this.owner;
    return owner === undefined ? noHook : owner.info;
  }
  /** The hook's own signal if it has a timeout, else the run's; either is made on first read (see RunSignal). */
  get signal(): AbortSignal { return this.own === undefined ? this.run.signal : this.own.signal; }
  get point(): string { return this.run.point; }
  get kind(): PointKind { return this.run.kind; }
  get subject(): string | undefined { return this.run.subject; }
  get sessionId(): string | undefined { return this.run.sessionId; }
  get runId(): string { return this.run.runId; }
  get callId(): string { return this.run.callId; }
  get metadata(): Readonly<Record<string, unknown>> { return this.run.metadata; }
  get path(): readonly string[] { return this.run.path; }
  get store(): StateStore { return this.run.store; }
  state(scope?: "session" | "global"): StateStore { return this.run.state(scope); }
  addContext(text: string): void { this.run.addContextFrom(this.owner, text); }
  approve(request: { readonly reason?: string; readonly hook: string; readonly input?: unknown; readonly signal?: AbortSignal }): Promise<ApprovalDecision> { return this.run.approve(request); }
  waitUntil(work: PromiseLike<unknown>): void { this.run.waitUntil(work); }
}
