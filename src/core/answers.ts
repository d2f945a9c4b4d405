/**
 * Reading what hooks said into the walk's state: a `before`'s answer into the frame's input or a
 * short-circuit, an `after`'s or `recover`'s into its outcome (R2, R3, R5, R6), a recheck's into a
 * veto; a collecting gate's vetoes (`collect: true`); and what hooks see frozen (R9).
 */
import { Continue, type HookAction } from "./action.ts";
import { checkAction, failed, hookError } from "./call.ts";
import { Rec, record } from "./decisions.ts";
import { describe, type HookError } from "./errors.ts";
import type { Layer } from "./hook.ts";
import { Outcome } from "./outcome.ts";
import { deepFreeze } from "./readonly.ts";
import type { Frame, Run } from "./run.ts";
import { refusal } from "./value-check.ts";

/** Apply a `before` answer other than a synchronous Continue. True when the layer short-circuits (Reject, Replace, fail closed). */
export const applyBefore = (run: Run, f: Frame, layer: Layer, answer: unknown, started: number): boolean => {
  if (answer === undefined || answer === Continue) {
    if (run.rec !== Rec.none) record(run, layer, "before", "Continue", started);
    return false;
  }
  const action = checkAction(run, layer, "before", answer, started);
  if (action === undefined || refused(run, layer, "before", action, started)) return failClosedBefore(run, f, layer);
  if (run.rec !== Rec.none) record(run, layer, "before", action._tag, started, reasonOf(action));
  if (layer.shadow || action._tag === "Continue") return false;
  if (action._tag === "Transform") {
    f.payload = freeze(run, action.value);
    (f.transforms ??= []).push(f.i, f.payload);
    return false;
  }
  if (action._tag === "Reject" && run.chain.point.collect === true) {
    (run.collected ??= []).push({ reason: action.reason, by: layer.name });
    return false;
  }
  // On a collecting gate a veto already given outranks a later Replace.
  f.outcome = vetoed(run)
    ? collectedOutcome(run.collected as Veto[])
    : action._tag === "Reject"
      ? Outcome.rejected(action.reason, layer.name)
      : toCompleted(freeze(run, action.value));
  return true;
};

/**
 * A `Transform` or `Replace` whose value the point's check refuses (a before's Transform is an
 * input, anything else an output): recorded as the hook's `invalid-action` failure; true then.
 */
const refused = (run: Run, layer: Layer, phase: "before" | "after" | "recover", action: HookAction, started: number): boolean => {
  if (action._tag === "Continue" || action._tag === "Reject") return false;
  const side = phase === "before" && action._tag === "Transform" ? "input" : "output";
  const cause = refusal(run.chain.point, side, action._tag, action.value);
  if (cause === undefined) return false;
  failed(run, layer, phase, hookError(run, layer, phase, "invalid-action", cause, started), started);
  return true;
};

/** After a failure in `before`: closed rejects and short-circuits, open (or shadow) goes on. */
const failClosedBefore = (run: Run, f: Frame, layer: Layer): boolean => {
  if (layer.failMode === "open" || layer.shadow) return false;
  const error = run.lastFailure as HookError;
  if (run.chain.point.collect === true) {
    // A collecting gate gathers a failed hook's closed "no" like any other veto.
    (run.collected ??= []).push({ reason: error.message, by: layer.name });
    return false;
  }
  f.outcome = Outcome.rejected(error.message, layer.name, error);
  return true;
};

export type Veto = { reason: string; by: string };

/** True when a collecting gate holds a veto (a retry may have emptied the list). */
export const vetoed = (run: Run): boolean => run.collected !== undefined && run.collected.length > 0;

/** The joined rejection of a collecting gate. */
export const collectedOutcome = (reasons: Veto[]): Outcome => ({
  _tag: "Rejected",
  reason: reasons.map((r) => r.reason).join("\n"),
  by: reasons.map((r) => r.by).join(", "),
  reasons: [...reasons],
});

/** Apply a recheck answer; true when it rejected. */
export const rechecked = (run: Run, f: Frame, layer: Layer, answer: unknown, started: number): boolean => {
  if (answer === undefined || answer === Continue) {
    if (run.rec !== Rec.none) record(run, layer, "before", "Continue", started, "recheck"); // every call is in the trace (R11)
    return false;
  }
  const action = checkAction(run, layer, "before", answer, started);
  if (action === undefined) {
    if (layer.failMode === "open" || layer.shadow) return false;
    const error = run.lastFailure as HookError;
    f.outcome = Outcome.rejected(error.message, layer.name, error);
    return true;
  }
  if (run.rec !== Rec.none)
    record(
      run,
      layer,
      "before",
      action._tag === "Reject" ? "Reject" : "Ignored",
      started,
      action._tag === "Reject" ? action.reason : "a recheck may only confirm or reject",
    );
  if (action._tag !== "Reject" || layer.shadow) return false;
  f.outcome = Outcome.rejected(action.reason, layer.name);
  return true;
};

/** Apply an `after` or `recover` answer to the frame's outcome. */
export const applyExit = (run: Run, f: Frame, layer: Layer, phase: "after" | "recover", answer: unknown, started: number): void => {
  if (answer === undefined || answer === Continue) {
    if (run.rec !== Rec.none) record(run, layer, phase, "Continue", started);
    return;
  }
  const action = checkAction(run, layer, phase, answer, started);
  if (action === undefined) return failClosedExit(run, f, layer);
  if (phase === "recover" && (action._tag === "Transform" || action._tag === "Reject")) {
    const error = hookError(
      run,
      layer,
      phase,
      "invalid-action",
      new TypeError(`recover may return Replace or Continue, got ${action._tag}`),
      started,
    );
    failed(run, layer, phase, error, started);
    return failClosedExit(run, f, layer);
  }
  if (refused(run, layer, phase, action, started)) return failClosedExit(run, f, layer);
  if (run.rec !== Rec.none) record(run, layer, phase, action._tag, started, reasonOf(action));
  if (layer.shadow || action._tag === "Continue") return;
  if (action._tag === "Reject") {
    f.outcome = Outcome.rejected(action.reason, layer.name);
    f.final = true;
    return;
  }
  f.outcome = toCompleted(freeze(run, action.value));
  // A recovered value flows outward like an operation result; Replace in `after` is final (R3).
  if (phase === "after" && action._tag === "Replace") f.final = true;
};

/** After a failure in `after` or `recover`: closed makes it the final outcome; open (or shadow) loses nothing already computed (R6). */
const failClosedExit = (run: Run, f: Frame, layer: Layer): void => {
  if (layer.failMode === "open" || layer.shadow) return;
  const error = run.lastFailure as HookError;
  f.outcome = Outcome.rejected(error.message, layer.name, error);
  f.final = true;
};

/** Copy an outcome a hook built, reading each field once (and freezing its value, R9); undefined when a read throws. */
export const ownOutcome = (run: Run, o: Outcome): Outcome | undefined => {
  try {
    if (o._tag === "Completed") return toCompleted(freeze(run, o.value));
    if (o._tag === "Failed") return Outcome.failed(o.error);
    const reasons = o.reasons;
    return reasons === undefined
      ? Outcome.rejected(String(o.reason), String(o.by), o.cause)
      : {
          ...Outcome.rejected(String(o.reason), String(o.by), o.cause),
          // Copied field by field, as the caller's type says: a hook's list may be anything.
          reasons: Object.freeze(Array.from(reasons, (r) => Object.freeze({ reason: String(r.reason), by: String(r.by) }))),
        };
  } catch {
    return undefined;
  }
};

/** What the trace says about an outcome an around hook passed on: only the ones that stop something. */
export const describeOutcome = (outcome: Outcome): string | undefined =>
  outcome._tag === "Rejected"
    ? `Rejected by ${outcome.by}: ${outcome.reason}`
    : outcome._tag === "Failed"
      ? `Failed: ${describe(outcome.error)}`
      : undefined;

export const toCompleted = (value: unknown): Outcome => ({ _tag: "Completed", value });
export const toFailed = (error: unknown): Outcome => ({ _tag: "Failed", error });

/** The reason of a Reject, for the trace. */
export const reasonOf = (action: HookAction): string | undefined => (action._tag === "Reject" ? action.reason : undefined);

/** Freeze what hooks will see (R9), unless the stack opted out; a value that refuses to be frozen is left as it is. */
export const freeze = <T>(run: Run, value: T): T => {
  if (!run.runtime.freeze || value === run.initial) return value;
  try {
    return deepFreeze(value);
  } catch {
    return value; // a Proxy that refuses to be frozen stays as it is; it must not crash the run
  }
};
