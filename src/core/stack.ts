/**
 * `createStack`: the immutable stack of hooks over a set of points. `use`, `without`,
 * `disable` and `enable` return new stacks; chains are compiled lazily per point and subject
 * and cached on the stack, so a hook whose matcher does not match costs nothing per run.
 */
import { runAroundOnly } from "./around-only.ts";
import { forward } from "./chain.ts";
import { compileChain, freeze, toCompleted, toFailed, type Chain } from "./frame.ts";
import type { HookContext, RunEvent, RunOptions } from "./context.ts";
import { HookError, RecursionLimitError, RegistrationError, RunAbortedError, type Phase } from "./errors.ts";
import { byPriority, compileHook, wraps, type CompiledHook, type Hook } from "./hook.ts";
import { MemoryStore } from "./memory-store.ts";
import { Outcome } from "./outcome.ts";
import type { Point, Points } from "./point.ts";
import { deepFreeze } from "./readonly.ts";
import { BareContext } from "./bare-context.ts";
import { RunContext, type Runtime } from "./run-context.ts";
import { abortReason, isAbortSignal, isThenable, isTimeoutMs, noop, notASignal, stopListening } from "./signal.ts";
import { RunSignal } from "./run-signal.ts";
import { appliesWithoutSubject, compileUnknownSubject, reportUnknownSubject } from "./unknown-subject.ts";
import type { Explanation, HookStack, Operation, StackOptions, StackStats } from "./stack-types.ts";

/** Subjects are caller data; cap the per-point chain cache so hostile subjects cannot grow it without bound. */
const maxCachedSubjects = 1024;

/** What a stack caches per point: its definition, its hooks, and its compiled chains. */
interface PointCache {
  readonly def: Point;
  readonly table: PointTable;
  /** The one chain of a point whose hooks all match every subject. */
  readonly shared: Chain | undefined;
  readonly bySubject: Map<string | undefined, Chain>;
  /** The chain for inputs whose subject function throws (see unknown-subject.ts), made on first use. */
  unknown: Chain | undefined;
}

interface PointTable {
  readonly point: Point;
  /** All hooks of the point, enabled or not, in R1 order. */
  readonly hooks: readonly CompiledHook[];
}

const defaultStrict = (): boolean =>
  typeof process !== "undefined" && (process.env.AGENT_ONION_STRICT === "1" || process.env.NODE_ENV === "test");

/**
 * Create an empty stack over `points`.
 *
 * @example
 * const stack = createStack({ toolCall: gate<ToolCall, ToolResult>({ name: "toolCall", subject: (c) => c.name }) })
 *   .use("toolCall", { name: "no-rm", match: "Bash(rm *)", before: () => Reject("Destructive command blocked") })
 */
export const createStack = <P extends Points>(points: P, options: StackOptions = {}): HookStack<P> => {
  if (typeof points !== "object" || points === null) throw new TypeError("createStack: points must be an object of points");
  const tables = new Map<string, PointTable>();
  for (const [key, point] of Object.entries(points)) {
    if (typeof point !== "object" || point === null || (point.kind !== "gate" && point.kind !== "observe"))
      throw new TypeError(`createStack: points.${key} is not a point (use gate() or observe())`);
    tables.set(key, { point, hooks: [] });
  }
  if (options.maxDepth !== undefined && !(Number.isSafeInteger(options.maxDepth) && options.maxDepth > 0))
    throw new TypeError(`createStack: maxDepth must be a positive integer, got ${String(options.maxDepth)}`);
  const runtime: Runtime = {
    store: options.store ?? new MemoryStore(),
    approval: options.approval,
    strict: options.strict ?? defaultStrict(),
    maxDepth: options.maxDepth ?? 32,
    onFailure: options.onFailure,
    pending: new Set(),
    stats: { hookFailures: 0, failOpen: 0, observerErrors: 0 },
  };
  return new Stack<P>(points, options, runtime, tables, new Set(), 0);
};

class Stack<P extends Points> implements HookStack<P> {
  private readonly chains = new Map<string, PointCache>();
  /** What the subject function threw when `chainFor` last returned a point's unknown-subject chain; `start` reads it at once. */
  private subjectThrew: unknown = undefined;

  constructor(
    readonly points: P,
    readonly options: StackOptions,
    private readonly runtime: Runtime,
    private readonly tables: ReadonlyMap<string, PointTable>,
    private readonly disabled: ReadonlySet<string>,
    private readonly seq: number,
  ) {}

  get stats(): StackStats {
    return { ...this.runtime.stats };
  }

  use(point: string | readonly string[], hook: Hook<any, any, any>): HookStack<P> {
    const names = typeof point === "string" ? [point] : point;
    if (!Array.isArray(names) || names.length === 0) throw new RegistrationError(nameOf(hook), "point", "must be a point name or a non-empty list of point names");
    const tables = new Map(this.tables);
    let seq = this.seq;
    let disabled: Set<string> | undefined;
    for (const name of names) {
      const table = tables.get(name);
      if (table === undefined) throw new RegistrationError(nameOf(hook), "point", `"${String(name)}" is not a point of this stack (known: ${[...tables.keys()].join(", ")})`);
      const compiled = compileHook(hook, table.point.kind, seq++, name);
      if (table.hooks.some((h) => h.name === compiled.name)) throw new RegistrationError(compiled.name, "name", `is already registered on point "${name}"`);
      // A name is enabled or disabled as a whole (R12): a second registration may not flip it.
      // Without a flag of its own the hook takes on its name's state (set by disable/enable).
      const elsewhere = [...tables.entries()].find(([, t]) => t.hooks.some((h) => h.name === compiled.name));
      const isDisabled = (disabled ?? this.disabled).has(compiled.name);
      const flagged = typeof hook === "object" && hook !== null && (hook as { disabled?: unknown }).disabled !== undefined;
      if (elsewhere !== undefined && flagged && compiled.disabled !== isDisabled)
        throw new RegistrationError(compiled.name, "disabled", `is ${compiled.disabled ? "true" : "false"}, but the hook of that name on point "${elsewhere[0]}" is ${isDisabled ? "disabled" : "enabled"}; a name is disabled or enabled as a whole, so give both the same flag or another name`);
      if (compiled.disabled) (disabled ??= new Set(this.disabled)).add(compiled.name);
      tables.set(name, { point: table.point, hooks: insertSorted(table.hooks, compiled) });
    }
    return new Stack<P>(this.points, this.options, this.runtime, tables, disabled ?? this.disabled, seq);
  }

  without(name: string): HookStack<P> {
    const tables = new Map<string, PointTable>();
    for (const [key, table] of this.tables) tables.set(key, { point: table.point, hooks: table.hooks.filter((h) => h.name !== name) });
    const disabled = new Set(this.disabled);
    disabled.delete(name); // a hook registered later under the same name starts enabled
    return new Stack<P>(this.points, this.options, this.runtime, tables, disabled, this.seq);
  }

  disable(name: string): HookStack<P> {
    this.assertKnown(name, "disable");
    return new Stack<P>(this.points, this.options, this.runtime, this.tables, new Set([...this.disabled, name]), this.seq);
  }

  enable(name: string): HookStack<P> {
    this.assertKnown(name, "enable");
    const disabled = new Set(this.disabled);
    disabled.delete(name);
    return new Stack<P>(this.points, this.options, this.runtime, this.tables, disabled, this.seq);
  }

  has(point: string): boolean {
    const table = this.tables.get(point);
    return table !== undefined && table.hooks.some((h) => !this.disabled.has(h.name));
  }

  flush(): Promise<void> {
    const pending = this.runtime.pending;
    if (pending.size === 0) return Promise.resolve();
    // Observers may start more work while we wait: loop until nothing is pending.
    return Promise.allSettled([...pending]).then(() => this.flush());
  }

  explain(point: string, input: unknown): readonly Explanation[] {
    const table = this.table(point);
    // As in run: when the subject function throws, a hook that decides by the subject applies if it fails closed (and does not only observe).
    let subject: string | undefined;
    let unknown = false;
    try {
      subject = table.point.subject?.(input);
    } catch {
      unknown = true;
    }
    return table.hooks.map((h) => {
      let matches: boolean;
      try {
        if (unknown && h.matcher.needsSubject) matches = appliesWithoutSubject(h);
        else matches = h.matcher.matchSubject(subject) && (!h.matcher.needsInput || h.matcher.test(subject, input, () => table.point.detail?.(input)));
      } catch {
        matches = h.failMode === "closed";
      }
      return {
        hook: h.name,
        priority: h.priority,
        phases: (["before", "around", "after", "recover", "observe"] as const).filter((p) => h[p] !== undefined),
        matches,
        match: h.matcher.source,
        disabled: this.disabled.has(h.name),
        shadow: h.shadow,
        failMode: h.failMode,
        source: h.source,
      };
    });
  }

  run(point: string, input: unknown, operation: Operation<any, any>, options?: RunOptions): Promise<Outcome<any>> {
    try {
      return this.start(point, input, operation, options);
    } catch (error) {
      // Only the caller's own objects can throw here (an options getter, a Proxy): the promise says so.
      return Promise.reject(error);
    }
  }

  /** `run` up to its first await: checks the caller's arguments, then starts the run. */
  private start(point: string, input: unknown, operation: Operation<any, any>, options: RunOptions | undefined): Promise<Outcome<any>> {
    // Caller mistakes reject the returned promise with a TypeError; nothing hooks do ever does.
    if (typeof operation !== "function") return Promise.reject(new TypeError(`stack.run("${point}"): operation must be a function`));
    // Each option is read once: what is checked is what is used, even behind a getter.
    const runTimeout = options?.timeoutMs;
    const callerSignal = options?.signal;
    if (runTimeout !== undefined && !isTimeoutMs(runTimeout))
      return Promise.reject(new TypeError(`stack.run("${point}"): timeoutMs must be a positive number of ms up to 2147483647, got ${String(runTimeout)}`));
    const onContext: unknown = options?.onContext;
    if (onContext !== undefined && onContext !== null && typeof onContext !== "function")
      return Promise.reject(new TypeError(`stack.run("${point}"): onContext must be a function, got ${typeof onContext}`));
    if (callerSignal !== undefined && !isAbortSignal(callerSignal))
      return Promise.reject(new TypeError(`stack.run("${point}"): signal must be an AbortSignal, got ${notASignal(callerSignal)}`));
    const chain = this.chainFor(point, input);
    if (chain === undefined) return Promise.reject(new TypeError(`stack.run: "${String(point)}" is not a point of this stack (known: ${[...this.tables.keys()].join(", ")})`));
    // Read before anything else can run (an option's getter could start another run).
    const thrown = chain.unknownSubject === undefined ? undefined : this.subjectThrew;
    // Re-entry (A14): runs nested through hooks carry their nesting in `path` (the agent loop
    // extends it for sub-agents; a hook that runs the stack again passes `[...ctx.path, name]`).
    const path = options?.path;
    const recording = options?.trace !== undefined || chain.observers.length > 0;
    if (path !== undefined && path.length > this.runtime.maxDepth) {
      // Refused, and observers still see it, as they see a run refused for an aborted signal (R10).
      const refused = Outcome.failed(new RecursionLimitError(point, path.length, this.runtime.maxDepth));
      return chain.observers.length === 0 ? Promise.resolve(refused) : settle(new RunContext(this.runtime, chain, options, input, undefined, recording), chain, refused);
    }
    const def = chain.point;
    const timeoutMs = runTimeout ?? def.timeoutMs;
    const guarded = callerSignal !== undefined || timeoutMs !== undefined;
    if (!guarded) {
      // Nothing to wrap and nobody to tell: the operation alone, its context made on demand (T1).
      if (chain.hooks.length === 0 && chain.observers.length === 0 && chain.unknownSubject === undefined) return callBare(new BareContext(this.runtime, chain, options, input), input, operation);
      const run = new RunContext(this.runtime, chain, options, input, undefined, recording);
      return settle(run, chain, execute(run, chain, input, operation, thrown));
    }
    return this.runGuarded(def, chain, input, operation, options, callerSignal, timeoutMs, recording, thrown);
  }

  /** A run with a caller signal or a deadline (see GuardedRun). */
  private runGuarded(
    def: Point, chain: Chain, input: unknown, operation: Operation<any, any>, options: RunOptions | undefined,
    callerSignal: AbortSignal | undefined, timeoutMs: number | undefined, recording: boolean, thrown: unknown,
  ): Promise<Outcome> {
    const guard = new RunSignal();
    const run = new RunContext(this.runtime, chain, options, input, guard, recording);
    if (callerSignal?.aborted === true) {
      const reason = abortReason(callerSignal);
      guard.abort(reason);
      return settle(run, chain, Outcome.failed(new RunAbortedError(def.name, reason, false)));
    }
    return new GuardedRun(run, callerSignal).start(input, operation, thrown, timeoutMs);
  }

  private assertKnown(name: string, verb: string): void {
    for (const table of this.tables.values()) if (table.hooks.some((h) => h.name === name)) return;
    throw new RegistrationError(name, "name", `cannot ${verb}: no hook of that name is registered`);
  }

  private table(point: string): PointTable {
    const table = this.tables.get(point);
    if (table === undefined) throw new TypeError(`"${point}" is not a point of this stack (known: ${[...this.tables.keys()].join(", ")})`);
    return table;
  }

  /** The compiled chain for this point and the input's subject (undefined for an unknown point); cached per subject, one Map lookup on the hot path. */
  private chainFor(point: string, input: unknown): Chain | undefined {
    let cache = this.chains.get(point);
    if (cache === undefined) {
      const table = this.tables.get(point);
      if (table === undefined) return undefined; // an unknown point: the caller reports it
      // With no subject-dependent matcher the subject is never computed, and one chain serves all.
      const shared = table.hooks.every((h) => h.matcher.all || this.disabled.has(h.name)) ? this.compile(table, undefined, true) : undefined;
      cache = { def: table.point, table, shared, bySubject: new Map(), unknown: undefined };
      this.chains.set(point, cache);
    }
    if (cache.shared !== undefined) return cache.shared;
    let subject: string | undefined;
    try {
      subject = cache.def.subject?.(input);
    } catch (error) {
      this.subjectThrew = error;
      return (cache.unknown ??= compileUnknownSubject(cache.def, cache.table.hooks.filter((h) => !this.disabled.has(h.name))));
    }
    let chain = cache.bySubject.get(subject);
    if (chain === undefined) {
      if (cache.bySubject.size >= maxCachedSubjects) cache.bySubject.clear();
      chain = this.compile(cache.table, subject, false);
      cache.bySubject.set(subject, chain);
    }
    return chain;
  }

  private compile(table: PointTable, subject: string | undefined, all: boolean): Chain {
    const live = table.hooks.filter((h) => !this.disabled.has(h.name) && (all || h.matcher.matchSubject(subject)));
    return compileChain(
      table.point,
      live.filter(wraps),
      live.filter((h) => h.observe !== undefined),
      all ? noSubject : subject,
    );
  }
}

/** Insert in R1 order without re-sorting: the new hook has the highest `seq`, so it goes after its equals. */
const insertSorted = (hooks: readonly CompiledHook[], hook: CompiledHook): CompiledHook[] => {
  let lo = 0;
  let hi = hooks.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (byPriority(hooks[mid] as CompiledHook, hook) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return [...hooks.slice(0, lo), hook, ...hooks.slice(lo)];
};

/** Marks a chain shared by all subjects: the subject is computed per run, and only when hooks exist. */
const noSubject = Symbol("subject computed per run");

const nameOf = (hook: unknown): string =>
  typeof hook === "object" && hook !== null && typeof (hook as { name?: unknown }).name === "string" ? (hook as { name: string }).name : "?";

/** Start the chain (or call the operation directly when there are no hooks); `thrown` is what the subject function threw, for an unknown-subject chain. */
const execute = (run: RunContext, chain: Chain, input: unknown, operation: Operation<any, any>, thrown: unknown): Outcome | Promise<Outcome> => {
  if (chain.unknownSubject !== undefined) reportUnknown(run, chain.unknownSubject, thrown);
  // Fast path: nothing to wrap, the operation with next to nothing around it.
  if (chain.hooks.length === 0 && chain.observers.length === 0) return callDirect(run, input, operation);
  const subject = (chain as { subject?: unknown }).subject;
  run.subject = subject === noSubject ? subjectOf(run, input) : (subject as string | undefined);
  if (chain.hooks.length === 0) return run.runtime.strict ? callObserved(run, input, operation) : callDirect(run, input, operation);
  try {
    if (run.runtime.strict) deepFreeze(input);
    // A chain of plain around hooks that nobody records runs as a lean onion (around-only.ts).
    return chain.aroundOnly && !run.recording ? runAroundOnly(run, input, operation) : forward(run, run, operation);
  } catch (error) {
    // The chain never throws for what hooks or the operation do; this is a bug guard.
    return toFailed(error);
  }
};

/**
 * Report the hooks an unknown subject affects. Its own function because of the closure: a
 * closure that captures `run` inside `execute` would make every call of `execute` allocate a
 * context for it (40 bytes a run), whether or not the subject was unknown.
 */
const reportUnknown = (run: RunContext, hooks: readonly CompiledHook[], thrown: unknown): void =>
  reportUnknownSubject(run, hooks, thrown, (hook, cause) => observerFailed(run, run.runtime, hook, cause));

/** A run with nothing around its operation (see BareContext): its outcome, always as a promise. */
const callBare = (ctx: BareContext, input: unknown, operation: Operation<any, any>): Promise<Outcome> => {
  const step = callDirect(ctx, input, operation);
  return isThenable(step) ? (step as Promise<Outcome>) : Promise.resolve(step as Outcome);
};

/** An operation with no wrapping hooks (observers may listen). */
const callDirect = (run: HookContext, input: unknown, operation: Operation<any, any>): Outcome | Promise<Outcome> => {
  let result: unknown;
  try {
    result = operation(input as never, run);
  } catch (error) {
    return toFailed(error);
  }
  return isThenable(result) ? Promise.resolve(result).then(toCompleted, toFailed) : toCompleted(result);
};

/** Observers only, in strict mode: what they will see is frozen as a hook would see it (R9, R10). */
const callObserved = (run: RunContext, input: unknown, operation: Operation<any, any>): Outcome | Promise<Outcome> => {
  freeze(run, input);
  const frozen = (o: Outcome): Outcome => (o._tag === "Completed" ? toCompleted(freeze(run, o.value)) : o);
  const step = callDirect(run, input, operation);
  return isThenable(step) ? (step as Promise<Outcome>).then(frozen) : frozen(step as Outcome);
};

/** The resolve function of the promise being made: its executor runs at once (see GuardedRun.start). */
let captured: ((outcome: Outcome) => void) | undefined;
const capture = (resolve: (outcome: Outcome) => void): void => {
  captured = resolve;
};

const onDeadline = (guarded: GuardedRun): void => guarded.deadline();

/**
 * A run with a caller signal or a deadline: it settles exactly once, whichever comes first
 * (R7). It listens to the caller's signal itself, so the signal hooks and the operation see is
 * made only if one of them reads it (see RunSignal). Bound methods and a timer argument rather
 * than closures: tsx and vitest compile with esbuild's `keepNames`, which names each arrow
 * function assigned to a variable (a `defineProperty`) every time it is made.
 */
class GuardedRun {
  // Declared and assigned in the constructor, for the reason given on RunContext.
  declare readonly run: RunContext;
  /** The caller's signal, if any, and this run's listener on it (removed when the run settles). */
  declare readonly caller: AbortSignal | undefined;
  declare readonly listener: () => void;
  declare timer: ReturnType<typeof setTimeout> | undefined;
  /** Its own flag: the chain marks the run settled when it ends (see `ended`), before this resolves. */
  declare resolved: boolean;
  declare resolve: (outcome: Outcome) => void;

  constructor(run: RunContext, caller: AbortSignal | undefined) {
    this.run = run;
    this.caller = caller;
    this.listener = caller === undefined ? noop : this.callerAborted.bind(this);
    this.timer = undefined;
    this.resolved = false;
    this.resolve = noop; // replaced in start
  }

  start(input: unknown, operation: Operation<any, any>, thrown: unknown, timeoutMs: number | undefined): Promise<Outcome> {
    const promise = new Promise<Outcome>(capture);
    this.resolve = captured as (outcome: Outcome) => void;
    captured = undefined;
    this.caller?.addEventListener("abort", this.listener, once);
    if (timeoutMs !== undefined) this.timer = setTimeout(onDeadline, timeoutMs, this);
    const step = execute(this.run, this.run.chain, input, operation, thrown);
    if (isThenable(step)) (step as Promise<Outcome>).then(this.finish.bind(this), this.failed.bind(this));
    else this.finish(step as Outcome);
    return promise;
  }

  finish(outcome: Outcome): void {
    if (this.resolved) return;
    this.resolved = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    stopListening(this.caller, this.listener); // a lookalike that throws keeps it; the run still settles (R7)
    this.resolve(finished(this.run, this.run.chain, outcome));
  }

  failed(error: unknown): void {
    this.finish(Outcome.failed(error));
  }

  callerAborted(): void {
    let reason: unknown;
    try {
      reason = abortReason(this.caller as AbortSignal);
    } catch (error) {
      reason = error; // a lookalike whose reason throws: the run still settles, with what it threw
    }
    this.abort(reason, false);
  }

  deadline(): void {
    this.abort(new RunAbortedError(this.run.point, undefined, true), true);
  }

  /** The run settles first, then its signal aborts: what listens to it sees a settled run. */
  abort(reason: unknown, timedOut: boolean): void {
    if (this.resolved) return; // a listener a lookalike signal would not let go of: the run is over
    const outcome = Outcome.failed(new RunAbortedError(this.run.point, reason, timedOut));
    this.run.settledWith = outcome; // what the caller gets, so a next() still pending inside gets it too (frame.ts)
    this.finish(outcome);
    this.run.guard?.abort(reason);
  }
}

const once: AddEventListenerOptions = { once: true };

const subjectOf = (run: RunContext, input: unknown): string | undefined => {
  const subject = run.pointDef.subject;
  if (subject === undefined) return undefined;
  try {
    return subject(input);
  } catch {
    return undefined;
  }
};

/** Mark the run settled and hand its event to observers, after the caller got the outcome (R10). */
const settle = (run: RunContext, chain: Chain, step: Outcome | Promise<Outcome>): Promise<Outcome> => {
  if (isThenable(step)) {
    // Without observers nobody waits for the end of an unguarded run: `settled` matters to
    // aborts (guarded runs mark it themselves) and each around hook guards its own next().
    if (chain.observers.length === 0) return step as Promise<Outcome>;
    return finishLater(run, chain, step as Promise<Outcome>);
  }
  return Promise.resolve(finished(run, chain, step as Outcome));
};

/** `settle` for a step still pending; apart, so that `settle` has no closure over its arguments (see `reportUnknown`). */
const finishLater = (run: RunContext, chain: Chain, step: Promise<Outcome>): Promise<Outcome> =>
  step.then((o) => finished(run, chain, o), (error) => finished(run, chain, Outcome.failed(error)));

const finished = (run: RunContext, chain: Chain, outcome: Outcome): Outcome => {
  run.settled = true;
  if (chain.observers.length > 0) notify(run, chain, outcome);
  return outcome;
};

/** A frozen copy of an outcome for observers; a collecting gate's `reasons` are copied too. */
const observedOutcome = (outcome: Outcome): Outcome =>
  Object.freeze(outcome._tag === "Rejected" && outcome.reasons !== undefined
    ? { ...outcome, reasons: Object.freeze(outcome.reasons.map((r) => Object.freeze({ ...r }))) }
    : { ...outcome }) as Outcome;

const notify = (run: RunContext, chain: Chain, outcome: Outcome): void => {
  const runtime = run.runtime;
  const event: RunEvent = Object.freeze({
    point: run.point,
    subject: run.subject,
    sessionId: run.sessionId,
    runId: run.runId,
    callId: run.callId,
    metadata: run.metadata,
    path: run.path,
    input: run.initial,
    // Copies, frozen: the caller holds the outcome and the trace holds the entries (R10).
    outcome: observedOutcome(outcome),
    decisions: Object.freeze((run.decisions ?? []).map((d) => Object.freeze({ ...d }))),
    failures: Object.freeze([...(run.failures ?? [])]),
    startedAt: run.origin,
    durationMs: performance.now() - run.origin,
  }) as RunEvent;
  // A macrotask, not a microtask: the caller's continuation runs first, so observers never delay it.
  const task = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
    for (const hook of chain.observers) {
      if (hook.matcher.needsInput && !safeTest(hook, run, event.input)) continue;
      try {
        const result = hook.observe?.(event);
        if (isThenable(result)) run.waitUntil(Promise.resolve(result).then(undefined, (cause) => observerFailed(run, runtime, hook, cause)));
      } catch (cause) {
        observerFailed(run, runtime, hook, cause);
      }
    }
  });
  run.waitUntil(task);
};

const safeTest = (hook: CompiledHook, run: RunContext, input: unknown): boolean => {
  try {
    return hook.matcher.test(run.subject, input, () => run.detailOf(input), run.metadata);
  } catch (cause) {
    observerFailed(run, run.runtime, hook, cause); // a matcher that throws is an observer failure, counted (R10)
    return false;
  }
};

const observerFailed = (run: RunContext, runtime: Runtime, hook: CompiledHook, cause: unknown): void => {
  runtime.stats.observerErrors++;
  const phase: Phase = "observe";
  const error = new HookError(hook.name, run.point, phase, "threw", 0, cause, hook.source);
  try {
    runtime.onFailure?.(error);
  } catch {
    // onFailure itself failing must not escape an observer (R10).
  }
};
