/**
 * `createStack`: the immutable stack of hooks over a set of points. `use`, `without`, `disable`
 * and `enable` return new stacks; `run` checks its arguments, finds the chain for the input's
 * subject (chain.ts), and hands the run to the dispatcher (dispatch.ts), or, when nothing wraps
 * the operation and nobody watches, calls the operation directly.
 *
 * Registration is linear in the number of hooks: stacks derived one from another share one
 * append-only registry, each seeing its own prefix of it, so `use` appends in place unless the
 * stack it is called on was already extended (then it copies its prefix once). A point's order
 * (order.ts) and chains are computed on its first run and kept with the stack.
 */
import { PointChains, appliesWithoutSubject, type Chain } from "./chain.ts";
import { failedMatch } from "./call.ts";
import type { RunOptions } from "./context.ts";
import { Rec } from "./decisions.ts";
import { dispatch } from "./dispatch.ts";
import { settle } from "./settle.ts";
import { RecursionLimitError, RegistrationError, RunAbortedError, describe } from "./errors.ts";
import { compileHook, phasesOf, readHookSpec, wraps, type Hook, type Layer } from "./hook.ts";
import { MemoryStore } from "./memory-store.ts";
import { ObserverQueue, defaultObserverLimit, observerFailed } from "./observers.ts";
import { checkOrder, orderLayers } from "./order.ts";
import { Outcome } from "./outcome.ts";
import type { Point, Points } from "./point.ts";
import { knownOptions } from "./known-options.ts";
import { deepFreeze } from "./readonly.ts";
import { DeferredInput } from "./deferred.ts";
import { Run, type Op, type Pending, type Runtime, type Stats } from "./run.ts";
import { runOptionsError } from "./run-options.ts";
import { RunSignal } from "./run-signal.ts";
import { abortReason, isAbortSignal, isThenable, isTimeoutMs, neverAborted, noop, notASignal, stopListening } from "./signal.ts";
import type { ExplainOptions, Explanation, HookStack, Operation, StackOptions, StackStats } from "./stack-types.ts";

/** Every field of `StackOptions`: the compiler says when one is added to the type and not here. */
const stackOptionNames: { readonly [K in keyof Required<StackOptions>]: true } = {
  store: true,
  approval: true,
  freeze: true,
  strict: true,
  timeHooks: true,
  observerQueue: true,
  maxDepth: true,
  onFailure: true,
};

/**
 * Create an empty stack over `points`.
 *
 * @example
 * const stack = createStack({ toolCall: gate<ToolCall, ToolResult>({ name: "toolCall", subject: (c) => c.name }) })
 *   .use("toolCall", { name: "no-rm", match: "Bash(rm *)", before: () => Reject("Destructive command blocked") })
 */
export const createStack = <P extends Points>(points: P, options: StackOptions = {}): HookStack<P> => {
  if (typeof points !== "object" || points === null) throw new TypeError("createStack: points must be an object of points");
  const defs = new Map<string, Point>();
  for (const [key, point] of Object.entries(points)) {
    if (typeof point !== "object" || point === null || (point.kind !== "gate" && point.kind !== "observe"))
      throw new TypeError(`createStack: points.${key} is not a point (use gate() or observe())`);
    defs.set(key, point);
  }
  if (typeof options !== "object" || options === null)
    throw new TypeError(`createStack: options must be an object, got ${describe(options)}`);
  knownOptions("createStack", options, stackOptionNames);
  if (options.maxDepth !== undefined && !(Number.isSafeInteger(options.maxDepth) && options.maxDepth > 0))
    throw new TypeError(`createStack: maxDepth must be a positive integer, got ${String(options.maxDepth)}`);
  for (const flag of ["freeze", "strict", "timeHooks"] as const)
    if (options[flag] !== undefined && typeof options[flag] !== "boolean")
      throw new TypeError(`createStack: ${flag} must be a boolean, got ${describe(options[flag])}`);
  if (options.freeze !== undefined && options.strict !== undefined && options.freeze !== options.strict)
    throw new TypeError(
      `createStack: freeze (${options.freeze}) and strict, its former name (${options.strict}), disagree; give freeze only`,
    );
  const limit = options.observerQueue?.limit ?? defaultObserverLimit;
  if (!(Number.isSafeInteger(limit) && limit > 0))
    throw new TypeError(`createStack: observerQueue.limit must be a positive integer, got ${describe(limit)}`);
  const stats: Stats = { hookFailures: 0, failOpen: 0, observerErrors: 0, observerDrops: 0 };
  const pending: Pending = new Map();
  const runtime: Runtime = {
    store: options.store ?? new MemoryStore(),
    approval: options.approval,
    freeze: options.freeze ?? options.strict ?? true,
    timeHooks: options.timeHooks === true,
    maxDepth: options.maxDepth ?? 32,
    onFailure: options.onFailure,
    pending,
    settles: 0,
    stats,
    observers: new ObserverQueue({ stats, pending, onFailure: options.onFailure }, limit),
  };
  return new Stack<P>(points, options, runtime, defs, new Registry(), 0, new Set());
};

/**
 * Every registration of a lineage of stacks, in order. A stack sees the first `size` entries;
 * the registry grows in place for the stack that saw all of it, and is copied for any other.
 */
class Registry {
  readonly layers: Layer[] = [];
  /** Indices into `layers`, by hook name and by point. */
  private readonly byName = new Map<string, number[]>();
  private readonly byPoint = new Map<string, number[]>();
  /** Indices of layers that name other layers (`order`), by point. */
  private readonly named = new Map<string, number[]>();
  /** `point\0name` for every name some layer's order gives. */
  private readonly referenced = new Set<string>();

  static of(layers: readonly Layer[]): Registry {
    const registry = new Registry();
    for (const layer of layers) registry.add(layer);
    return registry;
  }

  add(layer: Layer): void {
    const at = this.layers.length;
    this.layers.push(layer);
    push(this.byName, layer.name, at);
    push(this.byPoint, layer.point, at);
    if (layer.order !== undefined) {
      push(this.named, layer.point, at);
      for (const name of [...layer.order.before, ...layer.order.after]) this.referenced.add(`${layer.point}\0${name}`);
    }
  }

  /** The layer named `name` on `point` among the first `size`, if any. */
  find(name: string, point: string, size: number): Layer | undefined {
    for (const at of this.byName.get(name) ?? []) {
      if (at >= size) break;
      const layer = this.layers[at] as Layer;
      if (layer.point === point) return layer;
    }
    return undefined;
  }

  /** The first layer named `name` among the first `size`, on any point. */
  first(name: string, size: number): Layer | undefined {
    const at = this.byName.get(name)?.[0];
    return at !== undefined && at < size ? this.layers[at] : undefined;
  }

  /** The layers of `point` among the first `size`, in registration order. */
  of(point: string, size: number): Layer[] {
    return this.pick(this.byPoint.get(point), size);
  }

  namedOf(point: string, size: number): Layer[] {
    return this.pick(this.named.get(point), size);
  }

  isReferenced(point: string, name: string): boolean {
    return this.referenced.has(`${point}\0${name}`);
  }

  private pick(indices: readonly number[] | undefined, size: number): Layer[] {
    const out: Layer[] = [];
    for (const at of indices ?? []) {
      if (at >= size) break;
      out.push(this.layers[at] as Layer);
    }
    return out;
  }
}

const push = (map: Map<string, number[]>, key: string, at: number): void => {
  const list = map.get(key);
  if (list === undefined) map.set(key, [at]);
  else list.push(at);
};

class Stack<P extends Points> implements HookStack<P> {
  /** Per point, once run: its chains (chain.ts), and its layers in order. */
  private readonly chains = new Map<string, PointChains>();
  private readonly ordered = new Map<string, Layer[]>();
  /** The point `chainsOf` found last, and its chains. */
  private lastPoint: string | undefined = undefined;
  private lastChains: PointChains | undefined = undefined;

  constructor(
    readonly points: P,
    readonly options: StackOptions,
    private readonly runtime: Runtime,
    private readonly defs: ReadonlyMap<string, Point>,
    private readonly registry: Registry,
    /** How many of the registry's layers this stack has. */
    private readonly size: number,
    private readonly disabled: ReadonlySet<string>,
  ) {}

  get stats(): StackStats {
    const { observerDrops, ...counters } = this.runtime.stats;
    return Object.defineProperty(counters, "observerDrops", { value: observerDrops, enumerable: false }) as StackStats;
  }

  use(point: string | readonly string[], hook: Hook<any, any, any>): HookStack<P> {
    const names = typeof point === "string" ? [point] : point;
    if (!Array.isArray(names) || names.length === 0)
      throw new RegistrationError(nameOf(hook), "point", "must be a point name or a non-empty list of point names");
    // Read once: what is checked is what is registered, on every point, and a throwing getter is a RegistrationError.
    const spec = readHookSpec(hook, String(names[0]));
    const registry = this.registry.layers.length === this.size ? this.registry : Registry.of(this.registry.layers.slice(0, this.size));
    let size = this.size;
    let disabled: Set<string> | undefined;
    for (const name of names) {
      const def = this.defs.get(name);
      if (def === undefined)
        throw new RegistrationError(
          nameOf(spec),
          "point",
          `"${String(name)}" is not a point of this stack (known: ${[...this.defs.keys()].join(", ")})`,
        );
      const layer = compileHook(spec, def.kind, size, name, def.stepType !== undefined);
      if (registry.find(layer.name, name, size) !== undefined)
        throw new RegistrationError(layer.name, "name", `is already registered on point "${name}"`);
      // A name is enabled or disabled as a whole (R12): a second registration may not flip it.
      // Without a flag of its own the layer takes on its name's state (set by disable/enable).
      const elsewhere = registry.first(layer.name, size);
      const isDisabled = (disabled ?? this.disabled).has(layer.name);
      const flagged = spec.disabled !== undefined;
      if (elsewhere !== undefined && flagged && layer.disabled !== isDisabled)
        throw new RegistrationError(
          layer.name,
          "disabled",
          `is ${layer.disabled ? "true" : "false"}, but the hook of that name on point "${elsewhere.point}" is ${isDisabled ? "disabled" : "enabled"}; a name is disabled or enabled as a whole, so give both the same flag or another name`,
        );
      checkOrder(layer, (n) => registry.find(n, name, size), registry.namedOf(name, size), registry.isReferenced(name, layer.name));
      if (layer.disabled) (disabled ??= new Set(this.disabled)).add(layer.name);
      registry.add(layer);
      size++;
    }
    return new Stack<P>(this.points, this.options, this.runtime, this.defs, registry, size, disabled ?? this.disabled);
  }

  without(name: string): HookStack<P> {
    const kept = this.registry.layers.slice(0, this.size).filter((l) => l.name !== name);
    const disabled = new Set(this.disabled);
    disabled.delete(name); // a hook registered later under the same name starts enabled
    return new Stack<P>(this.points, this.options, this.runtime, this.defs, Registry.of(kept), kept.length, disabled);
  }

  disable(name: string): HookStack<P> {
    this.assertKnown(name, "disable");
    return new Stack<P>(this.points, this.options, this.runtime, this.defs, this.registry, this.size, new Set([...this.disabled, name]));
  }

  enable(name: string): HookStack<P> {
    this.assertKnown(name, "enable");
    const disabled = new Set(this.disabled);
    disabled.delete(name);
    return new Stack<P>(this.points, this.options, this.runtime, this.defs, this.registry, this.size, disabled);
  }

  has(point: string): boolean {
    return this.registry.of(point, this.size).some((l) => !this.disabled.has(l.name));
  }

  flush(): Promise<void> {
    return this.flushUpTo(this.runtime.settles, true);
  }

  /**
   * Wait for the background work pending now (`all`), then for the work that the runs settled up
   * to number `upTo` start meanwhile (observers and onSettled may start more), until there is none.
   * Work of runs that settle later is not waited for: under a steady stream of runs, waiting until
   * nothing at all is pending would never end.
   */
  private flushUpTo(upTo: number, all: boolean): Promise<void> {
    (this.runtime.observers as ObserverQueue).deliver();
    const waiting: PromiseLike<unknown>[] = [];
    for (const [work, order] of this.runtime.pending) if (all || order <= upTo) waiting.push(work);
    if (waiting.length === 0) return Promise.resolve();
    return Promise.allSettled(waiting).then(() => this.flushUpTo(upTo, false));
  }

  explain(point: string, input: unknown, options?: ExplainOptions): readonly Explanation[] {
    const def = this.def(point);
    // As in run: when the subject function throws, a hook that decides by the subject applies if it fails closed (and does not only observe).
    let subject: string | undefined;
    let unknown = false;
    try {
      subject = def.subject?.(input);
    } catch {
      unknown = true;
    }
    return this.orderOf(point).map((l) => {
      let matches: boolean;
      try {
        if (unknown && l.matcher.needsSubject) matches = appliesWithoutSubject(l);
        // A step type is known only once a run has ended: the hook may apply if the rest of its match allows.
        else if (l.matcher.needsOutcome === true) matches = l.matcher.matchSubject(subject);
        else
          matches =
            l.matcher.matchSubject(subject) &&
            (!l.matcher.needsInput || l.matcher.test(subject, input, () => def.detail?.(input), options?.metadata));
      } catch {
        matches = l.failMode === "closed";
      }
      return {
        hook: l.name,
        priority: l.priority,
        phases: phasesOf(l),
        matches,
        match: l.matcher.source,
        disabled: this.disabled.has(l.name),
        shadow: l.shadow,
        failMode: l.failMode,
        source: l.source,
      };
    });
  }

  run(point: string, input: unknown, operation: Operation<any, any>, options?: RunOptions): Promise<Outcome<any>> {
    try {
      return this.start(point, input, operation as Op, options);
    } catch (error) {
      // Only the caller's own objects can throw here (an options getter, a Proxy): the promise says so.
      return Promise.reject(error);
    }
  }

  /** `run` up to its first await: checks the caller's arguments, then starts the run. */
  private start(point: string, input: unknown, operation: Op, options: RunOptions | undefined): Promise<Outcome<any>> {
    // Caller mistakes reject the returned promise with a TypeError; nothing hooks do ever does.
    if (typeof operation !== "function") return Promise.reject(new TypeError(`stack.run("${point}"): operation must be a function`));
    if (options !== undefined) {
      const refused = runOptionsError(point, options);
      if (refused !== undefined) return Promise.reject(refused);
    }
    // Each option is read once: what is checked is what is used, even behind a getter.
    const runTimeout = options?.timeoutMs;
    // The shared never-aborted signal (a signal-less run's, handed on to a nested run) is no signal:
    // guarding a run against it costs a RunSignal and a listener for nothing.
    const givenSignal = options?.signal;
    const callerSignal = givenSignal === neverAborted ? undefined : givenSignal;
    if (runTimeout !== undefined && !isTimeoutMs(runTimeout))
      return Promise.reject(
        new TypeError(`stack.run("${point}"): timeoutMs must be a positive number of ms up to 2147483647, got ${String(runTimeout)}`),
      );
    const onContext: unknown = options?.onContext;
    if (onContext !== undefined && onContext !== null && typeof onContext !== "function")
      return Promise.reject(new TypeError(`stack.run("${point}"): onContext must be a function, got ${typeof onContext}`));
    if (callerSignal !== undefined && !isAbortSignal(callerSignal))
      return Promise.reject(new TypeError(`stack.run("${point}"): signal must be an AbortSignal, got ${notASignal(callerSignal)}`));
    const chains = this.chainsOf(point);
    if (chains === undefined)
      return Promise.reject(
        new TypeError(`stack.run: "${String(point)}" is not a point of this stack (known: ${[...this.defs.keys()].join(", ")})`),
      );
    const def = chains.point;
    let chain = chains.any;
    let subject: string | undefined;
    let subjectError: unknown;
    if (chain === undefined) {
      try {
        subject = input instanceof DeferredInput ? input.subject : def.subject?.(input);
        chain = chains.of(subject);
      } catch (error) {
        subjectError = error;
        chain = chains.ofUnknown();
      }
    }
    // Built now unless only `around` hooks that may never read it see it (see deferred.ts).
    if (input instanceof DeferredInput && (!chain.defers || options?.trace !== undefined)) input = input.value;
    const watched = chain.layers.length > 0 || chain.observers.length > 0 || chain.unknownSubject !== undefined;
    const rec =
      options?.trace !== undefined ? Rec.exact : chain.observers.length === 0 ? Rec.none : this.runtime.timeHooks ? Rec.exact : Rec.compact;
    // Re-entry (A14): runs nested through hooks carry their nesting in `path` (the agent loop
    // extends it for sub-agents; a hook that runs the stack again passes `[...ctx.path, name]`).
    const path = options?.path;
    if (path !== undefined && path.length > this.runtime.maxDepth) {
      // Refused, and observers still see it, as they see a run refused for an aborted signal (R10).
      const refused = Outcome.failed(new RecursionLimitError(point, path.length, this.runtime.maxDepth));
      if (chain.observers.length > 0) settle(new Run(this.runtime, chain, options, input, operation, undefined, rec), refused, false);
      return Promise.resolve(refused);
    }
    const timeoutMs = runTimeout ?? def.timeoutMs;
    if (callerSignal === undefined && timeoutMs === undefined) {
      // Nothing wraps the operation and nobody watches: call it directly (Hono's shortcut).
      if (!watched) return callBare(new Run(this.runtime, chain, options, input, operation, undefined, Rec.none), input, operation);
      const step = execute(new Run(this.runtime, chain, options, input, operation, undefined, rec), chain, input, subject, subjectError);
      return isThenable(step) ? step : Promise.resolve(step);
    }
    const guard = new RunSignal();
    const run = new Run(this.runtime, chain, options, input, operation, guard, rec);
    if (callerSignal?.aborted === true) {
      const reason = abortReason(callerSignal);
      guard.abort(reason);
      const aborted = Outcome.failed(new RunAbortedError(def.name, reason, false));
      settle(run, aborted, false);
      return Promise.resolve(aborted);
    }
    return new GuardedRun(run, callerSignal).start(chain, input, subject, subjectError, timeoutMs);
  }

  private assertKnown(name: string, verb: string): void {
    if (this.registry.first(name, this.size) !== undefined) return;
    throw new RegistrationError(name, "name", `cannot ${verb}: no hook of that name is registered`);
  }

  private def(point: string): Point {
    const def = this.defs.get(point);
    if (def === undefined) throw new TypeError(`"${point}" is not a point of this stack (known: ${[...this.defs.keys()].join(", ")})`);
    return def;
  }

  /** The point's layers, enabled or not, in the order they run (order.ts). */
  private orderOf(point: string): Layer[] {
    let ordered = this.ordered.get(point);
    if (ordered === undefined) this.ordered.set(point, (ordered = orderLayers(this.registry.of(point, this.size))));
    return ordered;
  }

  /**
   * The point's chains (undefined for an unknown point): the last point's at once (runs of one
   * point tend to follow each other), else one Map lookup.
   */
  private chainsOf(point: string): PointChains | undefined {
    if (point === this.lastPoint) return this.lastChains;
    let chains = this.chains.get(point);
    if (chains === undefined) {
      const def = this.defs.get(point);
      if (def === undefined) return undefined; // an unknown point: the caller reports it
      chains = new PointChains(
        def,
        this.orderOf(point).filter((l) => !this.disabled.has(l.name)),
      );
      this.chains.set(point, chains);
    }
    this.lastPoint = point;
    this.lastChains = chains;
    return chains;
  }
}

const nameOf = (hook: unknown): string => {
  try {
    return typeof hook === "object" && hook !== null && typeof (hook as { name?: unknown }).name === "string"
      ? (hook as { name: string }).name
      : "?";
  } catch {
    return "?"; // a getter or a Proxy that throws: the error about the point still names what it can
  }
};

/**
 * A run someone can see (hooks, observers, a failed match): its subject for the context and the
 * event, its input frozen (R9), the failed matches of an unknown subject reported, then the walk.
 */
const execute = (run: Run, chain: Chain, input: unknown, subject: string | undefined, subjectError: unknown) => {
  const def = chain.point;
  if (chain.shared && def.subject !== undefined) {
    try {
      run.subject = input instanceof DeferredInput ? input.subject : def.subject(input);
    } catch {
      run.subject = undefined;
    }
  } else run.subject = subject;
  if (chain.unknownSubject !== undefined) reportUnknownSubject(run, chain.unknownSubject, subjectError);
  // A deferred input is built frozen when it is built (see deferred.ts).
  if (run.runtime.freeze && !(input instanceof DeferredInput)) {
    try {
      deepFreeze(input);
    } catch {
      // A Proxy that refuses to be frozen stays as it is; it must not crash the run.
    }
  }
  return dispatch(run);
};

/**
 * Report the failed match of each hook that needed the subject, with what the subject function
 * threw, before any hook runs; hooks that only observe are an observer's failure (see chain.ts).
 */
const reportUnknownSubject = (run: Run, layers: readonly Layer[], thrown: unknown): void => {
  const cause = new TypeError(`the subject of point "${run.point}" could not be computed: ${describe(thrown)}`, { cause: thrown });
  for (const layer of layers) {
    if (wraps(layer)) failedMatch(run, layer, cause);
    else observerFailed(run, layer, "observe", cause);
  }
};

/** A run with nothing around its operation and nobody watching: the operation, with a context, and its outcome as a promise. */
const callBare = (run: Run, input: unknown, operation: Op): Promise<Outcome> => {
  let result: unknown;
  try {
    result = operation(input, run.ctx);
  } catch (error) {
    return Promise.resolve(toFailed(error));
  }
  return isThenable(result) ? Promise.resolve(result).then(toCompleted, toFailed) : Promise.resolve(toCompleted(result));
};

const toCompleted = (value: unknown): Outcome => ({ _tag: "Completed", value });
const toFailed = (error: unknown): Outcome => ({ _tag: "Failed", error });

/** The resolve function of the promise being made: its executor runs at once (see GuardedRun.start). */
let captured: ((outcome: Outcome) => void) | undefined;
const capture = (resolve: (outcome: Outcome) => void): void => {
  captured = resolve;
};

const onDeadline = (guarded: GuardedRun): void => guarded.deadline();

/**
 * A run with a caller signal or a deadline: it settles exactly once, whichever comes first (R7).
 * It listens to the caller's signal itself, so the signal hooks and the operation see is made only
 * if one of them reads it (see RunSignal).
 */
class GuardedRun {
  declare readonly run: Run;
  /** The caller's signal, if any, and this run's listener on it (removed when the run settles). */
  declare readonly caller: AbortSignal | undefined;
  declare readonly listener: () => void;
  declare timer: ReturnType<typeof setTimeout> | undefined;
  /** Its own flag: the dispatcher marks the run settled when it ends, before this resolves. */
  declare resolved: boolean;
  declare resolve: (outcome: Outcome) => void;

  constructor(run: Run, caller: AbortSignal | undefined) {
    this.run = run;
    this.caller = caller;
    this.listener = caller === undefined ? noop : this.callerAborted.bind(this);
    this.timer = undefined;
    this.resolved = false;
    this.resolve = noop; // replaced in start
  }

  start(chain: Chain, input: unknown, subject: string | undefined, subjectError: unknown, timeoutMs: number | undefined): Promise<Outcome> {
    const promise = new Promise<Outcome>(capture);
    this.resolve = captured as (outcome: Outcome) => void;
    captured = undefined;
    this.caller?.addEventListener("abort", this.listener, once);
    if (timeoutMs !== undefined) this.timer = setTimeout(onDeadline, timeoutMs, this);
    const step =
      chain.layers.length === 0 && chain.observers.length === 0 && chain.unknownSubject === undefined
        ? callBare(this.run, input, this.run.op)
        : execute(this.run, chain, input, subject, subjectError);
    if (isThenable(step)) step.then(this.finish.bind(this), this.failed.bind(this));
    else this.finish(step);
    return promise;
  }

  finish(outcome: Outcome): void {
    if (this.resolved) return;
    this.resolved = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    stopListening(this.caller, this.listener); // a lookalike that throws keeps it; the run still settles (R7)
    settle(this.run, outcome, true); // already settled when its outermost frame ended; this covers a bare run
    this.resolve(outcome);
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
    settle(this.run, outcome, false);
    this.finish(outcome);
    this.run.guard?.abort(reason);
  }
}

const once: AddEventListenerOptions = { once: true };
