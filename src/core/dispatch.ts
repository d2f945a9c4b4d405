/**
 * The dispatcher: one run of one point's layers around its operation (R1-R7, R11, R12). Every
 * run of every chain goes through here; there is no other engine.
 *
 * Shape. Each hook was compiled once, at `use()`, into a `Layer` (hook.ts); a chain is the list of
 * layers that apply to a subject (chain.ts). A layer is entered on the way in (its matcher, then
 * its `before`), may wrap everything inside it (`around`), and is left on the way out (`after` on
 * a completed outcome, `recover` on a failed one, then `onSettled` whatever the outcome). The
 * walk is a pair of loops over a *frame*, a stretch of layers: `forward` enters layers until the
 * operation, a short-circuit or an `around`; `unwind` leaves them in reverse. The run itself is
 * the outermost frame; an `around` hook's `next()` walks the frame inside it (an `AroundCall`,
 * reused by each `next()` of a retry). So a chain of sync hooks allocates nothing per hook.
 *
 * Synchronous until a promise. Hooks are called inline and their answers read at once; the first
 * answer that is a promise (a hook's, or the operation's) ends the synchronous walk: the loop
 * returns that promise continued by a function that resumes the walk where it stopped (hookable's
 * way). The return type says so: `Outcome | Promise<Outcome>`. A point with no layers and no
 * observers never gets here (stack.ts calls its operation directly, Hono's shortcut).
 *
 * Everything else is inside the same walk, off the common path: conditions that need the input
 * (a layer flag), timeouts (call.ts times a layer that has one), recording (decisions.ts; ranges
 * of synchronous `Continue` answers cost nothing per hook), shadow hooks (their answer is recorded
 * and ignored), collecting gates (a `Reject` is gathered and the walk goes on), `recheck` gates
 * (re-asked before the operation), unknown subjects (a chain of their own, chain.ts), `onSettled`
 * (entered layers are listed only when a layer has one), and cancellation: whatever settles the
 * run first calls `settle` (settle.ts), after which the walk starts nothing more and every
 * continuation returns what is at hand. What an answer does to a frame is answers.ts's.
 */
import { now } from "./clock.ts";
import { Continue, type HookAction } from "./action.ts";
import {
  applyBefore,
  applyExit,
  collectedOutcome,
  describeOutcome,
  freeze,
  ownOutcome,
  reasonOf,
  rechecked,
  toCompleted,
  toFailed,
  vetoed,
  type Veto,
} from "./answers.ts";
import { failed, failedMatch, hookError, invoke, mark, snapshot, thrown, whenSettled, Failure } from "./call.ts";
import { Rec, RangePhase, record, recordRange } from "./decisions.ts";
import { NextMisuseError, OperationAbandonedError, RejectOnObserveError, describe, type HookFailureKind } from "./errors.ts";
import { LayerFlag, type Layer } from "./hook.ts";
import { HookCtx, noHook } from "./hook-context.ts";
import { Outcome } from "./outcome.ts";
import { abandoned, endLayer, settle, settledUnder } from "./settle.ts";
import { inputAt, type Frame, type Run } from "./run.ts";
import { interrupted, type AskState } from "./approval-ask.ts";
import { RunSignal, type AbortWatcher } from "./run-signal.ts";
import { isThenable, noop } from "./signal.ts";
import { refusal } from "./value-check.ts";

/** What walking a frame gives: the outcome now, or later. */
export type Step = Outcome | Promise<Outcome>;

/** Walk `run`'s chain around its operation. Never throws for what hooks or the operation do. */
export const dispatch = (run: Run): Step => {
  try {
    return forward(run, run);
  } catch (error) {
    // A bug guard: nothing a hook does can get here.
    const outcome = toFailed(error);
    settle(run, outcome, true);
    return outcome;
  }
};

// ---------------------------------------------------------------------------------------------
// The way in
// ---------------------------------------------------------------------------------------------

/** Enter layers from `f.i` until the operation, an `around`, a short-circuit or a promise. The hot loop. */
const forward = (run: Run, f: Frame): Step => {
  const layers = run.layers;
  const n = layers.length;
  const ctx = run.ctx;
  const compact = run.rec === Rec.compact;
  const exact = run.rec === Rec.exact;
  let i = f.i;
  /** The first layer of the current stretch of synchronous Continue answers (compact recording). */
  let from = i;
  // What `ctx.input` shows; it changes only with a Transform (set again below).
  run.input = f.payload;
  for (; i < n; i++) {
    // A hook before this one aborted the run (its caller's signal): start nothing more, not even a condition (R7).
    if (run.settled) return (compact && recordRange(run, RangePhase.before, from, i - 1), abandoned(run, f));
    const layer = layers[i] as Layer;
    const flags = layer.flags;
    if (flags !== 0) {
      if ((flags & LayerFlag.matchesInput) !== 0 && !matchesNow(run, f, layer, i)) {
        if (compact) recordRange(run, RangePhase.before, from, i - 1);
        from = i + 1;
        continue;
      }
      if ((flags & LayerFlag.settles) !== 0) (run.open ??= []).push(f, i);
    }
    const before = layer.before;
    if (before !== undefined) {
      const payload = f.payload;
      let answer: unknown;
      let started = 0;
      if (exact || (flags & LayerFlag.timed) !== 0) {
        started = mark(run, layer);
        answer = invoke(run, layer, "before", before, payload, undefined, started);
      } else {
        run.current = layer;
        try {
          answer = before(payload, ctx);
        } catch (cause) {
          answer = thrown(run, layer, "before", cause);
        }
      }
      if (answer === undefined || answer === Continue) {
        if (exact) record(run, layer, "before", "Continue", started);
      } else {
        if (compact) recordRange(run, RangePhase.before, from, i - 1);
        from = i + 1;
        f.i = i;
        if (isThenable(answer))
          return whenSettled(run, layer, "before", answer, started, laterBefore(run, f, layer, asyncStart(run, started)));
        if (applyBefore(run, f, layer, answer, started)) return shortCircuit(run, f);
        run.input = f.payload;
      }
    }
    if (flags !== 0) {
      if ((flags & LayerFlag.recheck) !== 0) approved(run, layer, f.payload);
      if ((flags & LayerFlag.around) !== 0) {
        if (compact) recordRange(run, RangePhase.before, from, i);
        f.i = i;
        return new AroundCall(run, f, layer).begin();
      }
    }
  }
  if (compact) recordRange(run, RangePhase.before, from, n - 1);
  f.i = n;
  return callOperation(run, f);
};

/**
 * When a call that went asynchronous started, for recording: the clock reading taken before it
 * when there is one, else (compact recording) the run's last reading; 0 when nothing records.
 */
const asyncStart = (run: Run, started: number): number => (started !== 0 || run.rec === Rec.none ? started : run.clock);

/*
 * Continuations are made by functions rather than inline in the loops: an inline closure would
 * capture the loop's block scope, which unoptimised code allocates on every iteration.
 */
const laterBefore =
  (run: Run, f: Frame, layer: Layer, started: number) =>
  (answer: unknown): Step => {
    if (run.settled) return abandoned(run, f); // the run was aborted: start nothing more (C2)
    if (applyBefore(run, f, layer, answer, started)) return shortCircuit(run, f);
    if (layer.recheck) approved(run, layer, f.payload);
    if (layer.around !== undefined) return new AroundCall(run, f, layer).begin();
    f.i++;
    return forward(run, f);
  };

/** Remember what a `recheck` gate approved (its own Transform included). */
const approved = (run: Run, layer: Layer, input: unknown): void => {
  (run.rechecks ??= new Map()).set(layer, input);
};

/** Test a condition that needs the input; a throwing matcher is its hook's failure, and failing closed means the hook applies. */
const matchesNow = (run: Run, f: Frame, layer: Layer, i: number): boolean => {
  let ok: boolean;
  try {
    ok = layer.matcher.test(run.subject, f.payload, run.askDetail(f.payload), run.metadata);
  } catch (cause) {
    ok = failedMatch(run, layer, cause);
  }
  if (!ok) {
    // A bit per layer, 16 to an element: a small array on the heap, where a typed array of a
    // thousand layers would be allocated off it, which costs a call more than its tests.
    const skipped = (f.skipped ??= new Array<number>((run.layers.length + 15) >> 4).fill(0));
    skipped[i >> 4]! |= 1 << (i & 15);
  }
  return ok;
};

/** The layer at `f.i` short-circuited in its `before`: it gets no `after`, but it was entered; the layers outside it unwind. */
const shortCircuit = (run: Run, f: Frame): Step => {
  f.j = f.i - 1;
  endLayer(run, f, f.i);
  return unwind(run, f);
};

// ---------------------------------------------------------------------------------------------
// The operation
// ---------------------------------------------------------------------------------------------

const callOperation = (run: Run, f: Frame): Step => {
  f.j = run.layers.length - 1;
  if (vetoed(run)) {
    // A collecting gate: everyone had their say; any rejection skips the operation.
    f.outcome = collectedOutcome(run.collected as Veto[]);
    return unwind(run, f);
  }
  if (run.asked !== undefined && run.asked.edited >= 0) return reguard(run, f);
  if (run.rechecks !== undefined) return recheck(run, f, [...run.rechecks]);
  return callOperationNow(run, f);
};

/**
 * An approver edited the input: every gate hook outside the one that asked decided on the input
 * before the edit, so each one whose matcher applies to the edited input (a condition such as
 * `Bash(rm *)` is tested again) has its `before` asked about it now, as a recheck: only a Reject
 * (or a failure that fails closed) counts. Hooks inside the asking one saw the edit already.
 */
const reguard = (run: Run, f: Frame): Step => {
  const asked = run.asked as AskState;
  const upTo = asked.edited;
  asked.edited = -1;
  const pending: [Layer, unknown][] = [];
  for (let k = 0; k < upTo; k++) {
    const layer = run.layers[k] as Layer;
    if (typeof layer.before !== "function") continue;
    if ((layer.flags & LayerFlag.matchesInput) !== 0) {
      let applies: boolean;
      try {
        applies = layer.matcher.test(run.subject, f.payload, () => run.detailOf(f.payload), run.metadata);
      } catch (cause) {
        applies = failedMatch(run, layer, cause);
      }
      if (!applies) continue;
    }
    // Never equal to the input, so each is asked; a `recheck` gate is then up to date.
    pending.push([layer, reguarding]);
  }
  asked.rechecking = true;
  const done = (step: Step): Step => {
    asked.rechecking = false;
    return step;
  };
  const step = recheck(run, f, pending, true);
  return isThenable(step) ? step.then(done) : done(step);
};

/** What `reguard` gives as the input each gate last saw: no input is it. */
const reguarding: unique symbol = Symbol("reguarding");

/**
 * Gates marked `recheck` see the input the operation will really get: each one whose view is
 * out of date (a hook inside it transformed the input) runs its `before` again (A10). Only a
 * Reject (or a fail-closed failure) counts; anything else lets the call go on.
 */
const recheck = (run: Run, f: Frame, pending: [Layer, unknown][], thenRechecks = false): Step => {
  while (pending.length > 0) {
    if (run.settled) return abandoned(run, f); // a hook inside, or the caller, aborted the run (R7)
    const [layer, seen] = pending.shift() as [Layer, unknown];
    if (seen === f.payload) continue;
    if (run.rechecks?.has(layer) === true) run.rechecks.set(layer, f.payload);
    run.input = f.payload;
    const started = mark(run, layer);
    const answer = invoke(run, layer, "before", layer.before as AnyFn, f.payload, undefined, started);
    if (isThenable(answer)) {
      const at = asyncStart(run, started);
      return whenSettled(run, layer, "before", answer, started, (a) =>
        rechecked(run, f, layer, a, at) ? unwind(run, f) : recheck(run, f, pending, thenRechecks),
      );
    }
    if (rechecked(run, f, layer, answer, started)) return unwind(run, f);
  }
  // After an edit's recheck, the `recheck` gates not asked about this input yet (inside the asking hook, changed since).
  if (thenRechecks && run.rechecks !== undefined) return recheck(run, f, [...run.rechecks]);
  return callOperationNow(run, f);
};

const callOperationNow = (run: Run, f: Frame): Step => {
  if (run.settled) return abandoned(run, f); // aborted while an around or a recheck was still deciding (R7)
  run.input = f.payload;
  // The operation is no hook: its `ctx.hook` and `addContext` are not the last hook's.
  run.current = undefined;
  const own = run.callSignal();
  if (own !== undefined && run.chain.nests) giveUpWithTimedArounds(run, f, own);
  const ctx = own === undefined ? run.ctx : new HookCtx(run, noHook, f.payload, own);
  let result: unknown;
  try {
    result = run.op(f.payload, ctx);
  } catch (error) {
    f.outcome = toFailed(error);
    return unwind(run, f);
  }
  if (isThenable(result)) return operationSettles(run, f, result, own);
  f.outcome = toCompleted(freeze(run, result));
  return unwind(run, f);
};

/**
 * The continuation of an asynchronous operation, made outside `callOperationNow`: closures there
 * would make V8 allocate a context for `run` and `f` on every call, synchronous ones too.
 */
const operationSettles = (run: Run, f: Frame, result: PromiseLike<unknown>, own: RunSignal | undefined): Promise<Outcome> => {
  if (own !== undefined) run.hold(own); // while it runs, the run settling aborts its signal
  return Promise.resolve(result).then(
    (value) => {
      if (own !== undefined) run.release(own);
      // Aborted or timed out meanwhile: a late result starts no after or recover hook (R7).
      if (run.settled) return abandoned(run, f);
      f.outcome = toCompleted(freeze(run, value));
      return unwind(run, f);
    },
    (error) => {
      if (own !== undefined) run.release(own);
      if (run.settled) return abandoned(run, f);
      f.outcome = toFailed(error);
      return unwind(run, f);
    },
  );
};

/**
 * A timed `around` that fails closed gives up on the operation call inside it at its timeout (R7):
 * the call's signal aborts with `OperationAbandonedError` then, not only when the run ends.
 */
const giveUpWithTimedArounds = (run: Run, f: Frame, own: RunSignal): void => {
  const guard = run.guard as RunSignal;
  for (let frame: Frame | undefined = f; frame.outer !== undefined; frame = frame.outer) {
    const call = frame as AroundCall;
    if (call.scope !== undefined) call.scope.watch(new GivenUpOn(own, guard, run.point, call.layer.name));
  }
};

/** Tells an operation call that a timed around hook around it gave up on it (see `giveUpWithTimedArounds`). */
class GivenUpOn implements AbortWatcher {
  constructor(
    readonly call: RunSignal,
    readonly guard: RunSignal,
    readonly point: string,
    readonly hook: string,
  ) {}

  abort(): void {
    // The run's own abort reaches the call through the run's signal, with its reason.
    if (!this.guard.aborted) this.call.abort(new OperationAbandonedError(this.point, this.hook));
  }
}

// ---------------------------------------------------------------------------------------------
// The way out
// ---------------------------------------------------------------------------------------------

/**
 * Leave layers from `f.j` down to the frame's start: `after` on Completed, `recover` on Failed
 * (none once the outcome is final), then `onSettled` for a layer that has one (R1, R3, R5). What
 * the loop reads of the frame changes only with an answer other than Continue, so it is read then.
 */
const unwind = (run: Run, f: Frame): Step => {
  const layers = run.layers;
  const start = f.start;
  const ctx = run.ctx;
  const compact = run.rec === Rec.compact;
  const exact = run.rec === Rec.exact;
  const skipped = f.skipped;
  // The input each layer received: the frame's, unless a before transformed it (then per layer).
  const same = f.transforms === undefined;
  if (same) run.input = f.initial;
  let phase = exitPhase(f);
  let value =
    phase === RangePhase.after
      ? (f.outcome as { value: unknown }).value
      : phase === RangePhase.recover
        ? (f.outcome as { error: unknown }).error
        : undefined;
  let from = f.j;
  for (let j = f.j; j >= start; j--) {
    const layer = layers[j] as Layer;
    if (skipped !== undefined && ((skipped[j >> 4]! >> (j & 15)) & 1) === 1) {
      if (compact) recordRange(run, phase, from, j + 1);
      from = j - 1;
      continue;
    }
    const fn = phase === RangePhase.after ? layer.after : phase === RangePhase.recover ? layer.recover : undefined;
    const flags = layer.flags;
    if (fn !== undefined && (flags & LayerFlag.matchesOutcome) !== 0 && !matchesOnExit(run, f, layer, j, same)) {
      // A step-type matcher said no: the hook was never entered (it has no before, around or onSettled).
      if (compact) recordRange(run, phase, from, j + 1);
      from = j - 1;
      continue;
    }
    if (fn !== undefined) {
      // A hook after this one aborted the run (its caller's signal): start nothing more (R7).
      if (run.settled) return (compact && recordRange(run, phase, from, j + 1), abandoned(run, f));
      const exit = phase === RangePhase.after ? "after" : "recover";
      const input = same ? f.initial : inputAt(f, j);
      if (!same) run.input = input;
      let answer: unknown;
      let started = 0;
      if (exact || (flags & LayerFlag.timed) !== 0) {
        started = mark(run, layer);
        answer = invoke(run, layer, exit, fn, value, input, started);
      } else {
        run.current = layer;
        try {
          answer = fn(value, input, ctx);
        } catch (cause) {
          answer = thrown(run, layer, exit, cause);
        }
      }
      if (answer === undefined || answer === Continue) {
        if (exact) record(run, layer, exit, "Continue", started);
      } else {
        if (compact) recordRange(run, phase, from, j + 1);
        from = j - 1;
        if (isThenable(answer)) {
          f.j = j;
          return whenSettled(run, layer, exit, answer, started, laterExit(run, f, layer, exit, asyncStart(run, started)));
        }
        applyExit(run, f, layer, exit, answer, started);
        phase = exitPhase(f);
        value =
          phase === RangePhase.after
            ? (f.outcome as { value: unknown }).value
            : phase === RangePhase.recover
              ? (f.outcome as { error: unknown }).error
              : undefined;
      }
    }
    if ((flags & LayerFlag.settles) !== 0) {
      if (run.settled) return abandoned(run, f);
      endLayer(run, f, j);
      if (same) run.input = f.initial; // the onSettled call pointed ctx.input at its own layer's
    }
  }
  if (compact) recordRange(run, phase, from, start);
  return ended(run, f);
};

/** Test a matcher that reads the step type, against the frame's outcome; a throwing matcher is its hook's failure, as on the way in. */
const matchesOnExit = (run: Run, f: Frame, layer: Layer, j: number, same: boolean): boolean => {
  const input = same ? f.initial : inputAt(f, j);
  try {
    return layer.matcher.test(
      run.subject,
      input,
      () => run.detailOf(input),
      run.metadata,
      () => run.stepTypeOf(f.outcome, input),
    );
  } catch (cause) {
    return failedMatch(run, layer, cause);
  }
};

/** What a stretch of Continue answers on the way out is recorded as, for the frame's outcome now (-1: no hook is called). */
const exitPhase = (f: Frame): number =>
  f.final ? -1 : f.outcome?._tag === "Completed" ? RangePhase.after : f.outcome?._tag === "Failed" ? RangePhase.recover : -1;

/** The continuation of an asynchronous `after`/`recover` (see `laterBefore`). */
const laterExit =
  (run: Run, f: Frame, layer: Layer, exit: "after" | "recover", started: number) =>
  (answer: unknown): Step => {
    if (run.settled) return abandoned(run, f);
    applyExit(run, f, layer, exit, answer, started);
    if ((layer.flags & LayerFlag.settles) !== 0) endLayer(run, f, f.j);
    f.j--;
    return unwind(run, f);
  };

/**
 * A frame ran to its end: the around call that opened it is told, or, for the outermost frame, the
 * run settles (as `Interrupted` when it waits for an approval, see approval-ask.ts).
 */
const ended = (run: Run, f: Frame): Outcome => {
  let outcome = f.outcome as Outcome;
  if (f.outer === undefined) {
    if (run.asked !== undefined) outcome = f.outcome = interrupted(run, outcome);
    settle(run, outcome, true);
  } else (f as AroundCall).done();
  return outcome;
};

// ---------------------------------------------------------------------------------------------
// Around hooks (R4)
// ---------------------------------------------------------------------------------------------

/** A rejected promise for a misused `next()`, handled so that a dangling one is never an unhandled rejection (A5). */
const rejectedMisuse = (misuse: Error): Promise<Outcome> => {
  const rejected = Promise.reject(misuse);
  rejected.catch(noop);
  return rejected;
};

/**
 * A next() its hook calls, still deciding, after the run settled under it (the caller aborted,
 * the deadline passed, a hook outside answered without waiting): nothing more starts (R7), and the
 * first such call learns how the run ended, as a next() already pending then does (`settledUnder`);
 * it is not a misuse, so no failure is recorded or counted. A later one is refused with a
 * NextMisuseError, still uncounted: a hook that retries until it succeeds would otherwise spin on
 * resolved promises and starve the process.
 */
const runSettledFirst = (run: Run, layer: Layer, first: boolean): Promise<Outcome> =>
  first
    ? Promise.resolve(settledUnder(run))
    : rejectedMisuse(new NextMisuseError(`next() called again after the run settled: hook "${layer.name}" already has the run's outcome`));

/** What `pending` holds while the inside of a next() call has not returned its first step yet. */
const inFlight: Promise<Outcome> = new Promise<Outcome>(noop);

/** `AroundCall.state` bits. */
const settled = 1;
/** It answered with next()'s own promise while that was pending: `done()` passes the outcome on. */
const tail = 2;
/** It had the settled run's outcome from a next() (see `runSettledFirst`). */
const late = 4;
/** Inside `begin`: an answer recorded now was given synchronously. */
const deciding = 8;
/** The tag of the last outcome of next(), noted when the inside ended (see `AroundCall.lastValue`). */
const completedTag = 16;
const rejectedTag = 32;
const failedTag = 48;
const tagBits = 48;

/**
 * One call of an around hook. It is also the frame of what runs inside it: `next()` calls are
 * never concurrent (R4), so one frame serves them all, reset per call, and that frame tells it
 * when it ends (`done`), so no promise is spent just to learn the inner outcome. The hook gets a
 * `HookCtx` and a bound `next`, never this object.
 */
class AroundCall implements Frame {
  // Every field is assigned in the constructor, in one order, so all instances share one shape.
  declare readonly start: number;
  declare readonly outer: Frame;
  declare i: number;
  declare j: number;
  declare payload: unknown;
  declare initial: unknown;
  declare transforms: unknown[] | undefined;
  declare skipped: number[] | undefined;
  declare outcome: Outcome | undefined;
  declare final: boolean;
  declare readonly run: Run;
  declare readonly layer: Layer;
  /** The input as this layer received it. */
  declare readonly layerInput: unknown;
  declare calls: number;
  /** The last `next()`'s inside, while it runs. */
  declare pending: Promise<Outcome> | undefined;
  /** The promise the last `next()` call gave the hook. */
  declare handed: Promise<Outcome> | undefined;
  /** The outcome of the last `next()`, and whether it was final. */
  declare last: Outcome | undefined;
  declare lastFinal: boolean;
  /**
   * The last outcome's value, reason or error when the inside ended, read before the hook could
   * see it (its tag is in `state`). The hook gets that object itself (a freeze per `next()` would
   * cost more than the layer), so it is compared with these before the engine passes it on (see
   * `tampered`).
   */
  declare lastValue: unknown;
  declare state: number;
  declare misuse: NextMisuseError | undefined;
  /** The hook's failure when it passed `next()` an input the point refuses and it fails closed: that is its answer. */
  declare refused: Failure | undefined;
  /** A clock reading when the call started (or the run's last one, compact recording); 0 when nothing records. */
  declare started: number;
  declare collectedAtStart: number;
  /**
   * The hook's own signal when it has a timeout and fails closed: its timeout abandons what runs
   * inside, so an operation called in this frame is told then (see `giveUpWithTimedArounds`).
   */
  declare scope: RunSignal | undefined;

  constructor(run: Run, outer: Frame, layer: Layer) {
    this.start = outer.i + 1;
    this.outer = outer;
    this.i = this.start;
    this.j = this.start - 1;
    this.payload = undefined;
    this.initial = undefined;
    this.transforms = undefined;
    this.skipped = undefined;
    this.outcome = undefined;
    this.final = false;
    this.run = run;
    this.layer = layer;
    this.layerInput = outer.payload;
    this.calls = 0;
    this.pending = undefined;
    this.handed = undefined;
    this.last = undefined;
    this.lastFinal = false;
    this.lastValue = undefined;
    this.state = deciding;
    this.misuse = undefined;
    this.refused = undefined;
    this.started = 0;
    this.collectedAtStart = run.collected?.length ?? 0;
    this.scope = undefined;
  }

  begin(): Step {
    const { run, layer } = this;
    const own = layer.timeoutMs === undefined ? undefined : new RunSignal();
    if (own !== undefined && layer.failMode === "closed" && !layer.shadow) this.scope = own;
    const ctx = new HookCtx(run, layer.info, this.layerInput, own);
    this.started = run.rec === Rec.exact || own !== undefined ? now() : run.clock;
    const next = this.callNext.bind(this);
    let answer: unknown;
    if (own !== undefined) answer = invoke(run, layer, "around", layer.around as AnyFn, ctx, next, this.started, own);
    else {
      try {
        answer = (layer.around as AnyFn)(ctx, next);
      } catch (cause) {
        answer = thrown(run, layer, "around", cause, this.started);
      }
    }
    let step: Step;
    // The hook answered with the promise next() gave it: its answer is the inner outcome.
    if (answer !== undefined && answer === this.handed && this.misuse === undefined) step = this.handOn();
    else if (isThenable(answer)) step = Promise.resolve(answer).then(this.settleLater.bind(this), this.failLater.bind(this));
    else step = this.settle(answer);
    this.state &= ~deciding;
    return step;
  }

  /** The `started` to record a decision with: none for one given synchronously, when only observers read it (see decisions.ts). */
  get stamp(): number {
    return this.run.rec === Rec.exact || (this.state & deciding) === 0 ? this.started : 0;
  }

  /**
   * The hook returned `next()`'s own promise, as koa-style pass-through layers do: it has
   * answered (its answer is the inner outcome), so a later `next()` is a call after it settled
   * (R4). If the inside already ended, pass its outcome on now. If nothing in the outer frame
   * waits on the way out (no exit from its start up to this layer), hand the same promise outward,
   * koa-compose's way: `done()` passes the outcome on when the inside ends, and no promise is spent
   * per layer. Otherwise pass it on when the inside ends.
   */
  handOn(): Step {
    this.state |= settled;
    if (this.pending === undefined) return this.passOn();
    if ((this.run.chain.exits[this.start - 1] as number) >= this.outer.start) return this.passOnLater(this.pending);
    this.state |= tail;
    return this.pending;
  }

  passOnLater(pending: Promise<Outcome>): Step {
    return pending.then(() => this.passOn());
  }

  /** Record the inner outcome this hook answered with (see handOn) as its decision. */
  recordPassOn(): void {
    const { run, layer } = this;
    if (run.rec !== Rec.none)
      record(
        run,
        layer,
        "around",
        layer.shadow ? "Continue" : "Outcome",
        this.stamp,
        layer.shadow ? "shadow" : describeOutcome(this.last as Outcome),
      );
  }

  /** Leave with the inner outcome this hook answered with (see handOn), recorded as its decision. */
  passOn(): Step {
    if (this.run.settled) return this.settleLater(this.last);
    if (this.tampered()) return this.editedInPlace();
    this.recordPassOn();
    this.outer.j = this.outer.i;
    return this.leave(this.last as Outcome, this.lastFinal);
  }

  /** The hook's promise rejected: that is its failure (R6). */
  failLater(cause: unknown): Step {
    return this.settleLater(thrown(this.run, this.layer, "around", cause, this.started));
  }

  /** An asynchronous answer: if the run was aborted meanwhile, start nothing more (R7). */
  settleLater(answer: unknown): Step {
    if (this.run.settled) {
      this.state |= settled;
      return this.outer.outcome ?? this.last ?? settledUnder(this.run);
    }
    return this.settle(answer);
  }

  callNext(input?: unknown): Promise<Outcome> {
    const { run, layer } = this;
    if ((this.state & settled) !== 0) {
      const misuse = new NextMisuseError(`next() called after hook "${layer.name}" settled`);
      this.misuse ??= misuse;
      run.fail(hookError(run, layer, "around", "next-misuse", misuse, 0), true);
      return rejectedMisuse(misuse);
    }
    if (run.settled) {
      const first = (this.state & late) === 0;
      this.state |= late;
      return runSettledFirst(run, layer, first);
    }
    if (this.pending !== undefined) {
      const misuse = new NextMisuseError(`next() called while a previous next() of hook "${layer.name}" is still pending`);
      this.misuse ??= misuse;
      return rejectedMisuse(misuse);
    }
    if (layer.shadow && this.calls > 0 && this.last !== undefined) return Promise.resolve(this.last);
    if (input !== undefined && !layer.shadow && run.chain.point.input !== undefined) {
      const cause = refusal(run.chain.point, "input", "next()", input);
      if (cause !== undefined) {
        const error = hookError(run, layer, "around", "invalid-action", cause, 0);
        if (layer.failMode === "closed") {
          this.refused ??= new Failure(error);
          return rejectedMisuse(error);
        }
        failed(run, layer, "around", error, 0); // open: the inside runs on the input this hook received
        input = undefined;
      }
    }
    this.calls++;
    // A shadow hook's next() cannot change the input: its decisions are recorded, never enforced (R12).
    const given = input === undefined || layer.shadow ? this.outer.payload : freeze(run, input);
    // Pending from before the inside starts: a hook inside that calls this next() again while it
    // runs synchronously is a concurrent call too (R4).
    this.pending = inFlight;
    const step = this.inner(given);
    if (!isThenable(step)) {
      this.pending = undefined;
      return (this.handed = Promise.resolve(step));
    }
    this.pending = step;
    return (this.handed = step);
  }

  /** Run what is inside this hook, reusing this object as the frame. */
  inner(input: unknown): Step {
    const run = this.run;
    // A retry starts clean: vetoes a collecting gate gathered inside the last attempt are dropped,
    // and so are the approvals of `recheck` gates inside it (they decide again, or not at all when
    // their matcher no longer applies).
    if (run.collected !== undefined) run.collected.length = this.collectedAtStart;
    if (run.rechecks !== undefined) {
      for (const layer of [...run.rechecks.keys()]) if (run.layers.indexOf(layer) >= this.start) run.rechecks.delete(layer);
      if (run.rechecks.size === 0) run.rechecks = undefined;
    }
    this.i = this.start;
    this.j = this.start - 1;
    this.payload = input;
    this.initial = input;
    this.transforms = undefined;
    this.skipped = undefined;
    this.outcome = undefined;
    this.final = false;
    return forward(run, this);
  }

  /** The inner frame ended (`ended`); a tail hook passes the outcome on at once. */
  done(): void {
    const o = this.outcome as Outcome;
    this.last = o;
    this.lastFinal = this.final;
    this.pending = undefined;
    // A tail hook answered already: the outcome is passed on before it can see it.
    if ((this.state & tail) !== 0 && !this.run.settled) return this.passOnTail();
    if (o._tag === "Completed") (this.state = (this.state & ~tagBits) | completedTag), (this.lastValue = o.value);
    else if (o._tag === "Failed") (this.state = (this.state & ~tagBits) | failedTag), (this.lastValue = o.error);
    else (this.state = (this.state & ~tagBits) | rejectedTag), (this.lastValue = o.reason);
  }

  /**
   * passOn for a tail hook: nothing from the outer frame's start up to this layer has an exit
   * (handOn checked), so unwinding the outer frame would visit no hook: end it at once.
   */
  passOnTail(): void {
    const { run, outer } = this;
    this.recordPassOn();
    outer.j = outer.i;
    outer.outcome = this.last;
    outer.final = this.lastFinal;
    ended(run, outer);
  }

  /** Turn what the hook returned into the outer frame's outcome, then leave through this layer's own `after`. */
  settle(answer: unknown): Step {
    this.state |= settled;
    const { run, layer } = this;
    this.outer.j = this.outer.i;
    if (this.last !== undefined && this.tampered()) return this.editedInPlace();
    if (this.refused !== undefined) return this.failure(this.refused, "invalid-action", undefined);
    // The common answer first: the outcome its next() gave, passed on (`async (ctx, next) => await next()`).
    if (answer === this.last && answer !== undefined && this.misuse === undefined && !layer.shadow) {
      if (run.rec !== Rec.none) record(run, layer, "around", "Outcome", this.stamp, describeOutcome(answer as Outcome));
      return this.leave(answer as Outcome, this.lastFinal);
    }
    if (this.misuse !== undefined && !Failure.is(answer)) return this.failure(answer, "next-misuse", this.misuse);
    if (Failure.is(answer)) return this.failure(answer, answer.error.kind, answer.error.cause);
    if (layer.shadow) {
      if (run.rec !== Rec.none) record(run, layer, "around", "Continue", this.stamp, "shadow");
      return this.passThrough();
    }
    if (answer === undefined) {
      if (this.calls > 0) return this.recorded("Outcome");
      return this.failure(answer, "invalid-action", new TypeError("around returned nothing and never called next(): no decision"));
    }
    if (Outcome.is(answer)) {
      // An outcome the hook made itself is read once into one of ours.
      const passed = answer === this.last;
      const outcome = passed ? answer : ownOutcome(run, answer);
      if (outcome === undefined) return this.failure(answer, "invalid-action", new TypeError("around returned an unreadable outcome"));
      if (this.lastFinal && !passed) return this.ignored();
      if (!passed && outcome._tag === "Completed") {
        const cause = refusal(run.chain.point, "output", "a Completed outcome", outcome.value);
        if (cause !== undefined) return this.failure(answer, "invalid-action", cause);
      }
      if (outcome._tag === "Rejected" && !passed && run.kind === "observe")
        return this.failure(answer, "reject-on-observe", new RejectOnObserveError(outcome.reason, run.point, true));
      if (run.rec !== Rec.none) record(run, layer, "around", "Outcome", this.stamp, describeOutcome(outcome));
      const collected = passed ? undefined : this.collecting(outcome._tag === "Rejected" ? outcome.reason : undefined);
      return collected ?? this.leave(outcome, passed && this.lastFinal);
    }
    const action = snapshot(answer);
    if (action === undefined)
      return this.failure(answer, "invalid-action", new TypeError(`expected an action or an Outcome, got ${describe(answer)}`));
    return this.apply(action);
  }

  /** An action the hook returned, read once. */
  apply(answer: HookAction): Step {
    const { run, layer } = this;
    if (answer._tag === "Reject" && run.kind === "observe")
      return this.failure(answer, "reject-on-observe", new RejectOnObserveError(answer.reason, run.point));
    if (answer._tag === "Continue") return this.recorded("Continue");
    if (this.lastFinal) return this.ignored();
    if (answer._tag !== "Reject") {
      const cause = refusal(run.chain.point, "output", answer._tag, answer.value);
      if (cause !== undefined) return this.failure(answer, "invalid-action", cause);
    }
    if (run.rec !== Rec.none) record(run, layer, "around", answer._tag, this.stamp, reasonOf(answer));
    // Without next() the hook short-circuited like a `before`: outer post-phases still run (R3).
    // After next() it overrides what came out of the inside, like an `after`: that is final.
    const final = this.calls > 0;
    const collected = this.collecting(answer._tag === "Reject" ? answer.reason : undefined);
    if (collected !== undefined) return collected;
    if (answer._tag === "Reject") return this.leave(Outcome.rejected(answer.reason, layer.name), final);
    return this.leave(toCompleted(freeze(run, answer.value)), answer._tag === "Replace" && final);
  }

  leave(outcome: Outcome, final: boolean): Step {
    const outer = this.outer;
    outer.outcome = outcome;
    outer.final = final;
    // Nothing from the outer frame's start up to this layer does anything on the way out: the
    // outer frame has ended (unwinding it would visit no hook).
    if ((this.run.chain.exits[this.start - 1] as number) < outer.start) return ended(this.run, outer);
    return unwind(this.run, outer);
  }

  /** Continue: the outcome of the pending or last `next()`, or run the inside now if it never ran. */
  passThrough(): Step {
    if (this.run.settled) return this.last ?? settledUnder(this.run);
    if (this.pending !== undefined) return this.leaveLater(this.pending);
    if (this.last !== undefined) return this.leave(this.last, this.lastFinal);
    const step = this.inner(this.layerInput);
    if (isThenable(step)) return this.leaveLater(step);
    return this.leave(step, this.lastFinal);
  }

  /** Leave when `step` settles (a method of its own, so `passThrough` allocates no closure context). */
  leaveLater(step: Promise<Outcome>): Promise<Outcome> {
    return step.then((o) => (this.tampered() ? this.editedInPlace() : this.leave(o, this.lastFinal)));
  }

  /** Whether the hook changed the last outcome in place since the inside ended (see `lastValue`). */
  tampered(): boolean {
    const o = this.last as Outcome;
    if (o === undefined) return false;
    const tag = this.state & tagBits;
    if (tag === 0) return false; // never noted: a tail hook's, passed on before it could see it
    try {
      if (o._tag === "Completed") return tag !== completedTag || o.value !== this.lastValue;
      if (o._tag === "Failed") return tag !== failedTag || o.error !== this.lastValue;
      return tag !== rejectedTag || o.reason !== this.lastValue;
    } catch {
      return true; // a getter it defined on it threw
    }
  }

  /**
   * The hook changed the outcome its next() gave in place (R9): a failure of the hook (R6). What
   * goes on, if it fails open, is the outcome as the inside made it, never the edited object.
   */
  editedInPlace(): Step {
    const tag = this.state & tagBits;
    let by = "?";
    try {
      by = String((this.last as { by?: unknown }).by); // what it says now: only the tag and reason were noted
    } catch {
      // a getter it defined threw
    }
    this.last =
      tag === completedTag
        ? toCompleted(this.lastValue)
        : tag === failedTag
          ? toFailed(this.lastValue)
          : Outcome.rejected(this.lastValue as string, by);
    return this.failure(
      undefined,
      "invalid-action",
      new TypeError("changed the outcome next() gave in place: return Transform, Replace or an Outcome of its own instead"),
    );
  }

  failure(answer: unknown, kind: HookFailureKind, cause: unknown): Step {
    const { run, layer } = this;
    const error = Failure.is(answer) ? answer.error : hookError(run, layer, "around", kind, cause, this.started);
    failed(run, layer, "around", error, this.stamp);
    if (layer.failMode === "open" || layer.shadow) return this.passThrough();
    // A collecting gate gathers a failed hook's closed "no" like any other veto (as for a `before`).
    // Final only once next() ran, as for an `after`; before it, a closed failure is a `before`'s (R3).
    return this.collecting(error.message) ?? this.leave(Outcome.rejected(error.message, layer.name, error), this.calls > 0);
  }

  /**
   * On a collecting gate an answer given before next() is a `before`'s: a rejection (`rejected`,
   * its reason) is one more veto and the rest have their say, and nothing replaces vetoes already
   * given. Undefined where none of this applies: the answer is taken as it is.
   */
  collecting(rejected: string | undefined): Step | undefined {
    if (this.calls > 0 || this.run.chain.point.collect !== true) return undefined;
    if (rejected !== undefined) return this.veto(rejected);
    return vetoed(this.run) ? this.leave(collectedOutcome(this.run.collected as Veto[]), false) : undefined;
  }

  /** A veto on a collecting gate: gathered, and the inside runs so that every hook has its say. */
  veto(reason: string): Step {
    const collected = (this.run.collected ??= []);
    collected.push({ reason, by: this.layer.name });
    // This veto was given before the inside ran: the inside's retry truncation must keep it.
    this.collectedAtStart = collected.length;
    return this.passThrough();
  }

  /** Record the decision first, so the trace keeps the order of events, then pass through. */
  recorded(action: "Outcome" | "Continue"): Step {
    if (this.run.rec !== Rec.none)
      record(this.run, this.layer, "around", action, this.stamp, this.last === undefined ? undefined : describeOutcome(this.last));
    return this.passThrough();
  }

  /** This hook tried to change a final outcome: ignored, and said so (R3). */
  ignored(): Step {
    if (this.run.rec !== Rec.none)
      record(this.run, this.layer, "around", "Ignored", this.stamp, "the inner outcome was final (Replace or Reject in an after)");
    return this.leave(this.last as Outcome, true);
  }
}

type AnyFn = (...args: any[]) => unknown;
