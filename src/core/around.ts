/**
 * Around hooks (R4): the raw onion. `next(input?)` runs everything inside the hook as a new
 * frame and resolves to its `Outcome`; it may be called zero times, once, or several times in
 * sequence, never concurrently and never after the hook settled.
 *
 * One `AroundCall` object per call of an around hook holds what its `next()` knows and serves
 * as the frame inside it. Methods on a class rather than closures: closures would be allocated
 * (and, under some transpilers, renamed with `Object.defineProperty`) on every call.
 */
import type { HookAction } from "./action.ts";
import { collectedOutcome, forward, vetoed } from "./chain.ts";
import { failed, snapshot } from "./decide.ts";
import { ended, freeze, mark, reasonOf, settledUnder, toCompleted, type Chain, type Frame, type Op, type Step } from "./frame.ts";
import { unwind } from "./unwind.ts";
import { NextMisuseError, RejectOnObserveError, describe, type HookFailureKind } from "./errors.ts";
import type { CompiledHook } from "./hook.ts";
import { Failure, hookError, invoke, thrown } from "./invoke.ts";
import { Outcome } from "./outcome.ts";
import { ScopedContext, type RunContext } from "./run-context.ts";
import { RunSignal } from "./run-signal.ts";
import { isThenable, noop } from "./signal.ts";

/** Call the around hook at `f.i`; what it returns becomes the frame's outcome before the frame unwinds. */
export const enterAround = (run: RunContext, f: Frame, op: Op, hook: CompiledHook): Step => new AroundCall(run, f, op, hook).begin();

export const rejectedMisuse = (misuse: NextMisuseError): Promise<Outcome> => {
  const rejected = Promise.reject(misuse);
  rejected.catch(noop); // a dangling next() must not become an unhandled rejection (A5)
  return rejected;
};

/**
 * A next() its hook calls, still deciding, after the run settled under it (the caller aborted,
 * the deadline passed, a hook outside answered without waiting): nothing more starts (R7), and the
 * first such call learns how the run ended, as a next() already pending then does (see
 * `settledUnder`); whether or not an earlier next() was awaited, it is not a misuse, so no failure
 * is recorded or counted. A later one is refused with a NextMisuseError, still uncounted: a hook
 * that retries until it succeeds would otherwise spin on resolved promises and starve the process.
 */
export const runSettledFirst = (run: RunContext, hook: CompiledHook, first: boolean): Promise<Outcome> =>
  first ? Promise.resolve(settledUnder(run)) : rejectedMisuse(new NextMisuseError(`next() called again after the run settled: hook "${hook.name}" already has the run's outcome`));

/** What `pending` holds while the inside of a next() call has not returned its first step yet. */
const inFlight: Promise<Outcome> = new Promise<Outcome>(noop);

/** Copy an outcome a hook built, reading each field once (and freezing its value in strict mode, R9); undefined when a read throws. */
export const ownOutcome = (run: RunContext, o: Outcome): Outcome | undefined => {
  try {
    if (o._tag === "Completed") return toCompleted(freeze(run, o.value));
    if (o._tag === "Failed") return Outcome.failed(o.error);
    return o.reasons === undefined ? Outcome.rejected(String(o.reason), String(o.by), o.cause) : { ...Outcome.rejected(String(o.reason), String(o.by), o.cause), reasons: o.reasons };
  } catch {
    return undefined;
  }
};

/** What the trace says about an outcome an around hook passed on: only the ones that stop something. */
const describeOutcome = (outcome: Outcome): string | undefined =>
  outcome._tag === "Rejected" ? `Rejected by ${outcome.by}: ${outcome.reason}` : outcome._tag === "Failed" ? `Failed: ${describe(outcome.error)}` : undefined;

/**
 * One call of an around hook. It is also the frame of what runs inside it (R4: `next()` calls
 * are never concurrent, so one frame object serves them all, reset per call), and that frame
 * tells it when it ends (`done`), so no promise is spent just to learn the inner outcome.
 *
 * It does not also serve as the hook's context (that is a ScopedContext) because that would mean
 * `extends`: under esbuild's `keepNames` (as tsx and vitest run our sources) a derived class's
 * constructor made each around layer 4 to 16 times as slow (`npm run bench`, 2026-11-22).
 */
class AroundCall implements Frame {
  // The inner frame (see Frame). Every field is assigned in the constructor, in one order, so all
  // instances share one shape; `nested` is a getter, so it takes no slot.
  declare readonly chain: Chain;
  declare readonly start: number;
  declare i: number;
  declare j: number;
  declare payload: unknown;
  declare initial: unknown;
  declare transforms: Map<number, unknown> | undefined;
  declare skipped: Set<number> | undefined;
  declare outcome: Outcome | undefined;
  declare final: boolean;
  // What this hook's next() knows.
  declare calls: number;
  declare pending: Promise<Outcome> | undefined;
  /** The promise the last `next()` call gave the hook. */
  declare handed: Promise<Outcome> | undefined;
  /** The hook answered with `next()`'s own promise and nothing outside it waits: pass on from `done()`. */
  declare tail: boolean;
  declare last: Outcome | undefined;
  declare lastFinal: boolean;
  declare settled: boolean;
  /** The hook had the settled run's outcome from a next() (see `runSettledFirst`). */
  declare late: boolean;
  declare misuse: NextMisuseError | undefined;
  declare started: number;
  declare readonly layerInput: unknown;
  declare collectedAtStart: number;
  declare readonly run: RunContext;
  declare readonly outer: Frame;
  declare readonly op: Op;
  declare readonly hook: CompiledHook;
  /**
   * The hook's own signal when it has a timeout and fails closed: its timeout abandons what runs
   * inside, so an operation called in this frame is told then (see `RunContext.callContext`).
   */
  declare scope: RunSignal | undefined;

  constructor(run: RunContext, outer: Frame, op: Op, hook: CompiledHook) {
    this.run = run;
    this.outer = outer;
    this.op = op;
    this.hook = hook;
    this.chain = outer.chain;
    this.start = outer.i + 1;
    // The frame's fields as restart() sets them, written out rather than called: each next() restarts it anyway.
    this.i = this.start;
    this.j = this.start - 1;
    this.payload = undefined;
    this.initial = undefined;
    this.transforms = undefined;
    this.skipped = undefined;
    this.outcome = undefined;
    this.final = false;
    this.calls = 0;
    this.pending = undefined;
    this.handed = undefined;
    this.tail = false;
    this.last = undefined;
    this.lastFinal = false;
    this.settled = false;
    this.late = false;
    this.misuse = undefined;
    this.started = 0;
    this.layerInput = outer.payload;
    this.collectedAtStart = run.collected?.length ?? 0;
    this.scope = undefined;
  }

  /** This frame is the inside of an around hook: the chain tells it when it ends (see done). */
  get nested(): boolean {
    return true;
  }

  begin(): Step {
    const { run, hook } = this;
    // A timed hook's own signal is made here rather than in invoke, so this frame knows it.
    const own = hook.timeoutMs === undefined ? undefined : new RunSignal();
    if (own !== undefined && hook.failMode === "closed" && !hook.shadow) this.scope = own;
    const ctx = new ScopedContext(run, this.layerInput, own, hook);
    this.started = mark(run, hook);
    const answer = invoke(run, hook, "around", hook.around as (...args: any[]) => unknown, ctx, this.callNext.bind(this), undefined, this.started);
    // The hook answered with the promise next() gave it: its answer is the inner outcome.
    if (answer !== undefined && answer === this.handed && this.misuse === undefined) return this.handOn();
    // Bound methods rather than arrow functions: no context object to allocate per layer.
    if (isThenable(answer)) return Promise.resolve(answer).then(this.settleLater.bind(this), this.failLater.bind(this));
    return this.settle(answer);
  }

  /**
   * The hook returned `next()`'s own promise, as koa-style pass-through layers do: it has
   * answered (its answer is the inner outcome), so a later `next()` is a call after it settled
   * (R4). If the inside already ended, pass its outcome on now. If nothing in this frame waits on
   * the way out (no `after` or `recover` from its start up to this hook), hand the same promise
   * outward, koa-compose's way: `done()` passes the outcome on when the inside ends, and no
   * promise is spent per layer. Otherwise pass it on when the inside ends.
   */
  handOn(): Step {
    this.settled = true;
    if (this.pending === undefined) return this.passOn();
    if (this.outer.chain.lastExit[this.start - 1] as number >= this.outer.start) return this.passOnLater(this.pending);
    this.tail = true;
    return this.pending;
  }

  /** Pass the outcome on when `pending` settles (a method of its own, as `leaveLater` is). */
  passOnLater(pending: Promise<Outcome>): Step {
    return pending.then(() => this.passOn());
  }

  /** Leave with the inner outcome this hook answered with (see handOn), recorded as its decision. */
  passOn(): Step {
    const { run, hook } = this;
    if (run.settled) return this.settleLater(this.last);
    if (run.recording) run.record(hook, "around", hook.shadow ? "Continue" : "Outcome", this.started, hook.shadow ? "shadow" : describeOutcome(this.last as Outcome));
    this.outer.j = this.outer.i;
    return this.leave(this.last as Outcome, this.lastFinal);
  }

  /** The hook's promise rejected: that is its failure (R6). */
  failLater(cause: unknown): Step {
    return this.settleLater(thrown(this.run, this.hook, "around", cause, this.started));
  }

  /** An asynchronous answer: if the run was aborted meanwhile, start nothing more (R7). */
  settleLater(answer: unknown): Step {
    if (this.run.settled) {
      this.settled = true;
      return this.outer.outcome ?? this.last ?? settledUnder(this.run);
    }
    return this.settle(answer);
  }

  callNext(input?: unknown): Promise<Outcome> {
    if (this.settled) {
      const misuse = new NextMisuseError(`next() called after hook "${this.hook.name}" settled`);
      this.misuse ??= misuse;
      this.run.fail(hookError(this.run, this.hook, "around", "next-misuse", misuse, 0), true);
      return rejectedMisuse(misuse);
    }
    if (this.run.settled) {
      const first = !this.late;
      this.late = true;
      return runSettledFirst(this.run, this.hook, first);
    }
    if (this.pending !== undefined) {
      const misuse = new NextMisuseError(`next() called while a previous next() of hook "${this.hook.name}" is still pending`);
      this.misuse ??= misuse;
      return rejectedMisuse(misuse);
    }
    if (this.hook.shadow && this.calls > 0 && this.last !== undefined) return Promise.resolve(this.last);
    this.calls++;
    // A shadow hook's next() cannot change the input: its decisions are recorded, never enforced (R12).
    const given = input === undefined || this.hook.shadow ? this.outer.payload : freeze(this.run, input);
    // Pending from before the inside starts: a hook inside that calls this next() again while
    // it runs synchronously is a concurrent call too (R4).
    this.pending = inFlight;
    const step = this.inner(given);
    if (!isThenable(step)) {
      this.pending = undefined;
      return (this.handed = Promise.resolve(step as Outcome));
    }
    this.pending = step as Promise<Outcome>;
    return (this.handed = this.pending);
  }

  /** Run what is inside this hook, reusing this object as the frame. */
  inner(input: unknown): Step {
    // A retry starts clean: vetoes a collecting gate gathered inside the last attempt are dropped,
    // and so are the approvals of `recheck` gates inside it (they decide again, or not at all
    // when their matcher no longer applies).
    if (this.run.collected !== undefined) this.run.collected.length = this.collectedAtStart;
    if (this.run.rechecks !== undefined) this.forgetInnerRechecks(this.run.rechecks);
    this.restart(input);
    return forward(this.run, this, this.op);
  }

  forgetInnerRechecks(rechecks: Map<CompiledHook, unknown>): void {
    const hooks = this.chain.hooks;
    for (const hook of [...rechecks.keys()]) if (hooks.indexOf(hook) >= this.start) rechecks.delete(hook);
    if (rechecks.size === 0) this.run.rechecks = undefined;
  }

  /** Put the inner frame back at its first hook, with `input`. */
  restart(input: unknown): void {
    this.i = this.start;
    this.j = this.start - 1;
    this.payload = input;
    this.initial = input;
    this.transforms = undefined;
    this.skipped = undefined;
    this.outcome = undefined;
    this.final = false;
  }

  /** Called by the chain when the inner frame ends; a tail hook passes the outcome on at once. */
  done(): void {
    this.last = this.outcome;
    this.lastFinal = this.final;
    this.pending = undefined;
    // Nothing in the outer frame leaves through a hook (see handOn): this ends it synchronously
    // with the same outcome, which is what the shared promise resolves to.
    if (this.tail && !this.run.settled) this.passOnTail();
  }

  /**
   * passOn for a tail hook: nothing from the outer frame's start up to this hook has an `after` or
   * `recover` (handOn checked), so unwinding it would visit no hook: end it at once. This holds
   * only while `unwind` does nothing for a frame but visit its exit hooks; per-frame work added
   * there must be added here too.
   */
  passOnTail(): void {
    const { run, hook, outer } = this;
    if (run.recording) run.record(hook, "around", hook.shadow ? "Continue" : "Outcome", this.started, hook.shadow ? "shadow" : describeOutcome(this.last as Outcome));
    outer.j = outer.i;
    outer.outcome = this.last;
    outer.final = this.lastFinal;
    ended(outer);
  }

  /** Turn what the hook returned into the frame's outcome, then leave through this hook's own `after`. */
  settle(answer: unknown): Step {
    this.settled = true;
    const { run, hook } = this;
    this.outer.j = this.outer.i;
    if (this.misuse !== undefined && !(answer instanceof Failure)) return this.failure(answer, "next-misuse", this.misuse);
    if (answer instanceof Failure) return this.failure(answer, answer.error.kind, answer.error.cause);
    if (hook.shadow) {
      if (run.recording) run.record(hook, "around", "Continue", this.started, "shadow");
      return this.passThrough();
    }
    if (answer === undefined) {
      if (this.calls > 0) return this.recorded("Outcome");
      return this.failure(answer, "invalid-action", new TypeError("around returned nothing and never called next(): no decision"));
    }
    if (Outcome.is(answer)) {
      // An outcome the hook made itself is read once into one of ours (see snapshot).
      const passed = answer === this.last;
      const outcome = passed ? answer : ownOutcome(run, answer);
      if (outcome === undefined) return this.failure(answer, "invalid-action", new TypeError("around returned an unreadable outcome"));
      if (this.lastFinal && !passed) return this.ignored();
      if (outcome._tag === "Rejected" && !passed && run.kind === "observe")
        return this.failure(answer, "reject-on-observe", new RejectOnObserveError(outcome.reason, run.point, true));
      if (run.recording) run.record(hook, "around", "Outcome", this.started, describeOutcome(outcome));
      const collected = passed ? undefined : this.collecting(outcome._tag === "Rejected" ? outcome.reason : undefined);
      return collected ?? this.leave(outcome, passed && this.lastFinal);
    }
    const action = snapshot(answer);
    if (action === undefined) return this.failure(answer, "invalid-action", new TypeError(`expected an action or an Outcome, got ${describe(answer)}`));
    return this.apply(action);
  }

  /** An action the hook returned, read once. */
  apply(answer: HookAction): Step {
    const { run, hook } = this;
    if (answer._tag === "Reject" && run.kind === "observe")
      return this.failure(answer, "reject-on-observe", new RejectOnObserveError(answer.reason, run.point));
    if (answer._tag === "Continue") return this.recorded("Continue");
    if (this.lastFinal) return this.ignored();
    if (run.recording) run.record(hook, "around", answer._tag, this.started, reasonOf(answer));
    // Without next() the hook short-circuited like a `before`: outer post-phases still run (R3).
    // After next() it overrides what came out of the inside, like an `after`: that is final.
    const final = this.calls > 0;
    const collected = this.collecting(answer._tag === "Reject" ? answer.reason : undefined);
    if (collected !== undefined) return collected;
    if (answer._tag === "Reject") return this.leave(Outcome.rejected(answer.reason, hook.name), final);
    return this.leave(toCompleted(freeze(run, answer.value)), answer._tag === "Replace" && final);
  }

  leave(outcome: Outcome, final: boolean): Step {
    this.outer.outcome = outcome;
    this.outer.final = final;
    return unwind(this.run, this.outer, this.op);
  }

  /** Continue: the outcome of the pending or last `next()`, or run the inside now if it never ran. */
  passThrough(): Step {
    if (this.run.settled) return this.last ?? settledUnder(this.run);
    if (this.pending !== undefined) return this.leaveLater(this.pending);
    if (this.last !== undefined) return this.leave(this.last, this.lastFinal);
    const step = this.inner(this.layerInput);
    if (isThenable(step)) return this.leaveLater(step as Promise<Outcome>);
    return this.leave(step as Outcome, this.lastFinal);
  }

  /**
   * Leave when `step` settles. A method of its own: an arrow inside `passThrough` would make every
   * call of it allocate a context for `this`, whichever way it went.
   */
  leaveLater(step: Promise<Outcome>): Promise<Outcome> {
    return step.then((o) => this.leave(o, this.lastFinal));
  }

  failure(answer: unknown, kind: HookFailureKind, cause: unknown): Step {
    const { run, hook } = this;
    const error = answer instanceof Failure ? answer.error : hookError(run, hook, "around", kind, cause, this.started);
    failed(run, hook, "around", error, this.started);
    if (hook.failMode === "open" || hook.shadow) return this.passThrough();
    // A collecting gate gathers a failed hook's closed "no" like any other veto (as for a `before`).
    // Final only once next() ran, as for an `after`; before it, a closed failure is a `before`'s (R3).
    return this.collecting(error.message) ?? this.leave(Outcome.rejected(error.message, hook.name, error), this.calls > 0);
  }

  /**
   * On a collecting gate an answer given before next() is a `before`'s: a rejection (`rejected`,
   * its reason) is one more veto and the rest have their say, and nothing replaces vetoes already
   * given. Undefined where none of this applies: the answer is taken as it is.
   */
  collecting(rejected: string | undefined): Step | undefined {
    if (this.calls > 0 || this.run.pointDef.collect !== true) return undefined;
    if (rejected !== undefined) return this.veto(rejected);
    return vetoed(this.run) ? this.leave(collectedOutcome(this.run.collected as { reason: string; by: string }[]), false) : undefined;
  }

  /** A veto on a collecting gate: gathered, and the inside runs so that every hook has its say. */
  veto(reason: string): Step {
    const collected = (this.run.collected ??= []);
    collected.push({ reason, by: this.hook.name });
    // This veto was given before the inside ran: the inside's retry truncation must keep it.
    this.collectedAtStart = collected.length;
    return this.passThrough();
  }

  /** Record the decision first, so the trace keeps the order of events, then pass through. */
  recorded(action: "Outcome" | "Continue"): Step {
    if (this.run.recording) this.run.record(this.hook, "around", action, this.started, this.last === undefined ? undefined : describeOutcome(this.last));
    return this.passThrough();
  }

  /** This hook tried to change a final outcome: ignored, and said so (R3). */
  ignored(): Step {
    if (this.run.recording) this.run.record(this.hook, "around", "Ignored", this.started, "the inner outcome was final (Replace or Reject in an after)");
    return this.leave(this.last as Outcome, true);
  }
}

