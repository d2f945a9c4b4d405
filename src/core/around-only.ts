/**
 * Chains of nothing but plain `around` hooks (koa-style middleware), run as a lean onion (R4).
 *
 * `around.ts` runs an around hook as a frame of the general chain, which may also hold `before`,
 * `after` and `recover` phases, conditions, timeouts, shadow hooks and a trace. A chain of around
 * hooks that use none of these (`Chain.aroundOnly`) runs here when nobody records the run. Each
 * layer is one small object, and a layer whose hook answers with `next()`'s own promise hands
 * that promise outward: a koa-style layer costs that object, the hook's context and a bound
 * `next`, and no promise. The rules are around.ts's, answer for answer (minus what such a
 * chain cannot hold); test/core/around-only.test.ts runs random onions through both and compares
 * everything they do.
 */
import type { HookAction } from "./action.ts";
import { ownOutcome, rejectedMisuse, runSettledFirst } from "./around.ts";
import { failed, snapshot } from "./decide.ts";
import { NextMisuseError, RejectOnObserveError, describe, type HookFailureKind } from "./errors.ts";
import { freeze, settledUnder, toCompleted, toFailed, type AnyFn, type Op, type Step } from "./frame.ts";
import type { CompiledHook } from "./hook.ts";
import { Failure, hookError, thrown } from "./invoke.ts";
import { Outcome } from "./outcome.ts";
import { ScopedContext, type RunContext } from "./run-context.ts";
import type { RunSignal } from "./run-signal.ts";
import { isThenable } from "./signal.ts";

/** Run an around-only chain (see `Chain.aroundOnly`) around `op`. */
export const runAroundOnly = (run: RunContext, input: unknown, op: Op): Step => {
  run.op = op;
  return enter(run, undefined, 0, input);
};

/**
 * Enter the layer at `index` with `input`: call its hook with a `next()` that enters the layer
 * inside, or, past the last hook, call the operation.
 */
const enter = (run: RunContext, outer: Layer | undefined, index: number, input: unknown): Step => {
  const hooks = run.chain.hooks;
  if (index === hooks.length) return callOperation(run, outer, input);
  const layer = new Layer(run, outer, index, input);
  const hook = hooks[index] as CompiledHook;
  // The hook's context is its own object, as on the general path: the layer's state is out of a
  // hook's reach (a hook may write to, freeze or spread its context). `run.current` is left as it
  // is: only the run's own context reads it, and the operation's names no hook.
  const ctx = new ScopedContext(run, input, undefined, hook);
  let answer: unknown;
  try {
    answer = (hook.around as AnyFn)(ctx, layer.next.bind(layer));
  } catch (cause) {
    answer = thrown(run, hook, "around", cause);
  }
  if (answer !== undefined && answer === layer.handed && (layer.state & misused) === 0) return layer.handOn();
  // Bound methods rather than arrow functions: no context object to allocate per layer.
  if (isThenable(answer)) return Promise.resolve(answer).then(layer.settleLater.bind(layer), layer.failLater.bind(layer));
  return layer.settle(answer);
};

const callOperation = (run: RunContext, outer: Layer | undefined, input: unknown): Step => {
  // No check of run.settled here: next() and passThrough(), the only ways in, have just made it (R7).
  run.input = input;
  const ctx = run.callContext(input);
  let result: unknown;
  try {
    result = (run.op as Op)(input, ctx);
  } catch (error) {
    return ended(run, outer, toFailed(error));
  }
  if (isThenable(result)) return whenOperationSettles(run, outer, result, ctx === run ? undefined : (ctx as ScopedContext).own);
  return ended(run, outer, toCompleted(freeze(run, result)));
};

/** The continuation of an asynchronous operation, made outside `callOperation` (see chain.ts's). */
const whenOperationSettles = (run: RunContext, outer: Layer | undefined, result: PromiseLike<unknown>, own: RunSignal | undefined): Promise<Outcome> => {
  if (own !== undefined) run.hold(own); // while it runs, the run settling aborts its signal (RunContext.end)
  return Promise.resolve(result).then(
    (value) => (own !== undefined && run.release(own), run.settled ? settledUnder(run) : ended(run, outer, toCompleted(freeze(run, value)))),
    (error) => (own !== undefined && run.release(own), run.settled ? settledUnder(run) : ended(run, outer, toFailed(error))),
  );
};

/**
 * The inside of `layer`'s hook ended with `outcome`. A tail layer (its hook answered with
 * next()'s own promise, see `handOn`) has settled and passes the outcome on unchanged, so the
 * first layer out that is not a tail is the one told. Past the outermost layer the run itself
 * has ended, which settles it (as frame.ts's `ended` does for the general chain).
 */
const ended = (run: RunContext, inner: Layer | undefined, outcome: Outcome): Outcome => {
  let layer = inner;
  while (layer !== undefined && (layer.state & stage) === tail) layer = layer.outer;
  if (layer !== undefined) {
    layer.last = outcome;
    layer.state &= ~pending;
  } else {
    // The run keeps the outcome it settled with: a next() still pending inside (a hook answered
    // without waiting for it) resolves to it (see settledUnder).
    run.end(outcome);
  }
  return outcome;
};

/**
 * Outcomes that are final (R3): made by an answer after next() (Replace, Reject) or by a failure
 * closed after next(). Being final is fixed when an outcome is made and travels with it when a
 * layer passes it on, so a set of them serves instead of a flag on every layer; most runs never
 * add to it.
 */
const finalOutcomes = new WeakSet<Outcome>();
const isFinal = (outcome: Outcome | undefined): boolean => outcome !== undefined && finalOutcomes.has(outcome);
const final = (outcome: Outcome): Outcome => (finalOutcomes.add(outcome), outcome);

/**
 * A layer's `state`, one small integer rather than four fields (every field of a layer is paid
 * for on every call). Its low two bits say where the hook is: deciding, settled, or a tail (it
 * answered with `next()`'s own promise while that was pending, so `ended` passes the outcome on).
 * Three bits say whether its last `next()` is still pending, whether the hook misused `next()`
 * (the error itself is kept in `misuses`) and whether it already had the settled run's outcome
 * from a `next()` (see `lateNext`). The hook's index in the chain is above them.
 */
const deciding = 0;
const settled = 1;
const tail = 2;
const stage = 3;
const pending = 4;
const misused = 8;
const late = 16;
const indexShift = 5;

/** The first misuse of each layer's `next()`: rare, so kept aside rather than in a field of every layer. */
const misuses = new WeakMap<Layer, NextMisuseError>();

/** One call of an around hook: what its `next()` knows. Hooks never see it, only its bound `next`. */
class Layer {
  // Every field is assigned in the constructor, in one order, so all instances share one shape.
  declare readonly run: RunContext;
  /** The layer whose `next()` made this one; undefined for the outermost. */
  declare readonly outer: Layer | undefined;
  /** The input as this layer received it. */
  declare readonly input: unknown;
  /** The promise the last `next()` call gave the hook; undefined until the hook calls it. */
  declare handed: Promise<Outcome> | undefined;
  /** The outcome of the last `next()`. */
  declare last: Outcome | undefined;
  /** The hook's index and its stage and bits: see `deciding` to `indexShift` above. */
  declare state: number;

  constructor(run: RunContext, outer: Layer | undefined, index: number, input: unknown) {
    this.run = run;
    this.outer = outer;
    this.input = input;
    this.handed = undefined;
    this.last = undefined;
    this.state = (index << indexShift) | deciding;
  }

  /** This hook's index in the chain. */
  get index(): number {
    return this.state >>> indexShift;
  }

  get hook(): CompiledHook {
    return this.run.chain.hooks[this.index] as CompiledHook;
  }

  next(input?: unknown): Promise<Outcome> {
    const run = this.run;
    if ((this.state & stage) !== deciding) {
      const misuse = new NextMisuseError(`next() called after hook "${this.hook.name}" settled`);
      this.keepMisuse(misuse);
      run.fail(hookError(run, this.hook, "around", "next-misuse", misuse, 0), true);
      return rejectedMisuse(misuse);
    }
    if (run.settled) return this.lateNext();
    if ((this.state & pending) !== 0) {
      const misuse = new NextMisuseError(`next() called while a previous next() of hook "${this.hook.name}" is still pending`);
      this.keepMisuse(misuse);
      return rejectedMisuse(misuse);
    }
    // Pending from before the inside starts: a hook inside that calls this next() again while
    // it runs synchronously is a concurrent call too (R4).
    this.state |= pending;
    const step = enter(run, this, this.index + 1, input === undefined ? this.input : freeze(run, input));
    if (isThenable(step)) return (this.handed = step as Promise<Outcome>);
    this.state &= ~pending;
    return (this.handed = Promise.resolve(step as Outcome));
  }

  /** A next() after the run settled, while the hook still decides: see around.ts's `runSettledFirst`. */
  lateNext(): Promise<Outcome> {
    const first = (this.state & late) === 0;
    this.state |= late;
    return runSettledFirst(this.run, this.hook, first);
  }

  /** Keep the first misuse of this layer's `next()`: the hook's answer becomes that failure (R4). */
  keepMisuse(misuse: NextMisuseError): void {
    if ((this.state & misused) !== 0) return;
    this.state |= misused;
    misuses.set(this, misuse);
  }

  /**
   * The hook answered with `next()`'s own promise: its answer is the inner outcome, and a later
   * `next()` is a call after it settled (R4). If the inside already ended, pass its outcome on
   * now; otherwise hand the same promise outward and let `ended` pass the outcome on.
   */
  handOn(): Step {
    // Only a layer that never misused next() hands on, so what is left is its shifted index.
    const shifted = this.state & ~(stage | pending);
    if ((this.state & pending) === 0) {
      this.state = shifted | settled;
      return this.passOn();
    }
    this.state = shifted | tail;
    return this.handed as Promise<Outcome>;
  }

  /** Leave with the inner outcome the hook answered with (see handOn). */
  passOn(): Step {
    if (this.run.settled) return this.settleLater(this.last);
    return this.leave(this.last as Outcome);
  }

  /** The hook's promise rejected: that is its failure (R6). */
  failLater(cause: unknown): Step {
    return this.settleLater(thrown(this.run, this.hook, "around", cause));
  }

  /** An asynchronous answer: if the run was aborted meanwhile, start nothing more (R7). */
  settleLater(answer: unknown): Step {
    if (this.run.settled) {
      this.state = (this.state & ~stage) | settled;
      return this.last ?? settledUnder(this.run);
    }
    return this.settle(answer);
  }

  /** Turn what the hook returned into this layer's outcome (around.ts's `settle`, minus shadow and tracing). */
  settle(answer: unknown): Step {
    this.state = (this.state & ~stage) | settled;
    const { run } = this;
    if ((this.state & misused) !== 0 && !(answer instanceof Failure)) return this.failure(answer, "next-misuse", misuses.get(this));
    if (answer instanceof Failure) return this.failure(answer, answer.error.kind, answer.error.cause);
    if (answer === undefined) {
      if (this.handed !== undefined) return this.passThrough();
      return this.failure(answer, "invalid-action", new TypeError("around returned nothing and never called next(): no decision"));
    }
    if (Outcome.is(answer)) {
      const passed = answer === this.last;
      const outcome = passed ? answer : ownOutcome(run, answer);
      if (outcome === undefined) return this.failure(answer, "invalid-action", new TypeError("around returned an unreadable outcome"));
      if (!passed && isFinal(this.last)) return this.leave(this.last as Outcome); // ignored (R3)
      if (outcome._tag === "Rejected" && !passed && run.kind === "observe")
        return this.failure(answer, "reject-on-observe", new RejectOnObserveError(outcome.reason, run.point, true));
      return this.leave(outcome);
    }
    const action = snapshot(answer);
    if (action === undefined) return this.failure(answer, "invalid-action", new TypeError(`expected an action or an Outcome, got ${describe(answer)}`));
    return this.apply(action);
  }

  /** An action the hook returned, read once (around.ts's `apply`). */
  apply(answer: HookAction): Step {
    const { run } = this;
    if (answer._tag === "Reject" && run.kind === "observe")
      return this.failure(answer, "reject-on-observe", new RejectOnObserveError(answer.reason, run.point));
    if (answer._tag === "Continue") return this.passThrough();
    if (isFinal(this.last)) return this.leave(this.last as Outcome); // ignored (R3)
    // After next() the hook overrides what came out of the inside, like an `after`: that is final.
    const after = this.handed !== undefined;
    if (answer._tag === "Reject") {
      const rejected = Outcome.rejected(answer.reason, this.hook.name);
      return this.leave(after ? final(rejected) : rejected);
    }
    const completed = toCompleted(freeze(run, answer.value));
    return this.leave(answer._tag === "Replace" && after ? final(completed) : completed);
  }

  failure(answer: unknown, kind: HookFailureKind, cause: unknown): Step {
    const { run } = this;
    const hook = this.hook;
    const error = answer instanceof Failure ? answer.error : hookError(run, hook, "around", kind, cause, 0);
    failed(run, hook, "around", error, 0);
    if (hook.failMode === "open") return this.passThrough();
    // Final only once next() ran, as for an `after`; before it, a closed failure is a `before`'s (R3).
    const rejected = Outcome.rejected(error.message, hook.name, error);
    return this.leave(this.handed !== undefined ? final(rejected) : rejected);
  }

  /** Continue: the outcome of the pending or last `next()`, or run the inside now if it never ran. */
  passThrough(): Step {
    if (this.run.settled) return this.last ?? settledUnder(this.run);
    if ((this.state & pending) !== 0) return this.leaveLater(this.handed as Promise<Outcome>);
    if (this.last !== undefined) return this.leave(this.last);
    const step = enter(this.run, this, this.index + 1, this.input);
    if (isThenable(step)) return this.leaveLater(step as Promise<Outcome>);
    return this.leave(step as Outcome);
  }

  /**
   * Leave when `step` settles. A method of its own: an arrow inside `passThrough` would make every
   * call of it allocate a context for `this`, whichever way it went.
   */
  leaveLater(step: Promise<Outcome>): Promise<Outcome> {
    return step.then((o) => this.leave(o));
  }

  /** This layer's hook settled with `outcome`: the layer outside learns it (see `ended`). */
  leave(outcome: Outcome): Outcome {
    return ended(this.run, this.outer, outcome);
  }
}
