/**
 * The end of a run, and the symmetry of layers. Whatever settles a run first (its outermost
 * frame ending, the caller's abort, the deadline) calls `settle`: from then on the walk starts
 * nothing more (R7), and every continuation still in flight returns what is at hand (`abandoned`).
 *
 * Every layer entered gets exactly one `onSettled` call with the outcome it ends with: when the
 * walk leaves it (`endLayer`), or, if the run settles first (an abort, a deadline, a hook outside
 * that answered without waiting), when the run settles, innermost first.
 */
import { now } from "./clock.ts";
import { NextMisuseError, OperationAbandonedError, RunAbortedError, isInstance } from "./errors.ts";
import { Rec } from "./decisions.ts";
import type { Layer } from "./hook.ts";
import { observed, observerFailed } from "./observers.ts";
import { Outcome } from "./outcome.ts";
import { inputAt, track, type Frame, type Run } from "./run.ts";
import { isThenable } from "./signal.ts";

/**
 * The run's outcome is decided: by its outermost frame ending, or (stack.ts) by the caller's abort
 * or the deadline. From now on the walk starts nothing more. Layers entered and not yet left
 * get their `onSettled`, innermost first; with `abandon`, operation calls and timed hooks still
 * running are told through their signal that nobody will read what they return (an abort tells
 * them through the run's signal instead); observers get the run.
 */
export const settle = (run: Run, outcome: Outcome, abandon: boolean): void => {
  if (run.settled) return;
  run.settled = true;
  run.settleNumber = ++run.runtime.settles;
  run.settledWith ??= outcome;
  // Compact recording: the observer queue stamps the end with the next reading (see observers.ts).
  if (run.rec === Rec.exact) run.ended = now();
  const open = run.open;
  if (open !== undefined && open.length > 0) {
    run.open = undefined;
    // Left by the caller's abort or the deadline (the run's outcome), or abandoned inside an around
    // hook that answered without waiting (see settledUnder).
    const left = settledUnder(run);
    for (let x = open.length - 2; x >= 0; x -= 2)
      callOnSettled(run, run.layers[open[x + 1] as number] as Layer, left, inputAt(open[x] as Frame, open[x + 1] as number));
  }
  if (abandon) run.abandonRunning();
  run.dropLocals();
  if (run.chain.observers.length > 0) run.runtime.observers.enqueue(run);
};

/** Leave layer `j` of `f`: its `onSettled`, if it was entered and has one, with the frame's outcome now. */
export const endLayer = (run: Run, f: Frame, j: number): void => {
  const open = run.open;
  if (open === undefined) return;
  for (let x = open.length - 2; x >= 0; x -= 2) {
    if (open[x] !== f || open[x + 1] !== j) continue;
    open.splice(x, 2);
    callOnSettled(run, run.layers[j] as Layer, f.outcome as Outcome, inputAt(f, j));
    return;
  }
};

/** Call an `onSettled`: observation only, so its failures are an observer's (R10), and its promise is only tracked for `flush()`. */
const callOnSettled = (run: Run, layer: Layer, outcome: Outcome, input: unknown): void => {
  run.current = layer;
  run.input = input;
  let result: unknown;
  try {
    result = (layer.onSettled as (outcome: Outcome, input: unknown, ctx: unknown) => unknown)(observed(outcome), input, run.ctx);
  } catch (cause) {
    observerFailed(run, layer, "onSettled", cause);
    return;
  }
  if (isThenable(result))
    track(
      run.runtime.pending,
      Promise.resolve(result).then(undefined, (cause) => observerFailed(run, layer, "onSettled", cause)),
      run.workOrder,
    );
};

/**
 * What a step yields when the run settled under it and nothing better is at hand, which an around
 * hook whose `next()` was still pending then receives (and so does one still deciding that calls
 * `next()` only afterwards: `runSettledFirst`). When the caller aborted or the deadline passed,
 * that is the run's own `Failed(RunAbortedError)`. When a hook outside settled it without waiting
 * (it answered, or failed closed), the inside was abandoned: `Failed(OperationAbandonedError)`,
 * never the outside hook's answer, which an inner hook would take for its inside's (a cache would
 * store it). Not a NextMisuseError: R4 keeps that for a `next()` called concurrently or after its
 * hook settled.
 */
export const settledUnder = (run: Run): Outcome => {
  const settled = run.settledWith;
  if (settled === undefined) return Outcome.failed(new NextMisuseError("run already settled"));
  // A copy: the run's own outcome is the caller's, and a hook must not be able to edit it (R9).
  return settled._tag === "Failed" && isInstance(settled.error, RunAbortedError)
    ? Outcome.failed(settled.error)
    : Outcome.failed(new OperationAbandonedError(run.point));
};

/** What a frame yields when the run settled under it: its own outcome, or the run's. */
export const abandoned = (run: Run, f: Frame): Outcome => f.outcome ?? settledUnder(run);
