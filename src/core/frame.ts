/**
 * Chains and frames: the compiled onion of one point for one subject, and the state of walking
 * a stretch of it. Shared by the way in (`chain.ts`), the way out (`unwind.ts`) and `around.ts`.
 */
import type { HookAction } from "./action.ts";
import { NextMisuseError, OperationAbandonedError, RunAbortedError } from "./errors.ts";
import type { CompiledHook } from "./hook.ts";
import { Outcome } from "./outcome.ts";
import type { Point } from "./point.ts";
import { deepFreeze } from "./readonly.ts";
import type { RunContext } from "./run-context.ts";

/** The hooks of one point for one subject, compiled once and cached (R8). */
export interface Chain {
  /** The point this chain belongs to. */
  readonly point: Point;
  /**
   * Enabled hooks whose matcher accepts the subject, in R1 order (observe-only hooks excluded).
   * In an unknown-subject chain, the hooks that fail closed appear as copies that match everything.
   */
  readonly hooks: readonly CompiledHook[];
  /** Hooks with an `observe` function, in R1 order. */
  readonly observers: readonly CompiledHook[];
  /** Each hook's `before` and `after` (or undefined), by index: what the plain loops call. */
  readonly befores: readonly (AnyFn | undefined)[];
  readonly afters: readonly (AnyFn | undefined)[];
  /** No input-dependent matcher, no timeout, no around: the plain loops apply when nobody records. */
  readonly plain: boolean;
  /**
   * Only around hooks, with no other phase, condition on the input, timeout, recheck or shadow,
   * on a point that does not collect rejections: `around-only.ts` runs it when nobody records.
   */
  readonly aroundOnly: boolean;
  /**
   * Holds an `around` hook with a `timeoutMs`, whose deadline can settle the run while the
   * operation inside still runs (R7 combines each hook's timeout into the signal the operation
   * gets): that signal must be one that can abort then (see `RunContext.end`). Other around
   * hooks wait for what they started, unless they answer without waiting for `next()`; paying
   * for an `AbortSignal` (about 3 µs on Node 20) on every run for that would be the rare case
   * taxing the common one, so such an operation is told only when its run has a signal anyway.
   */
  readonly nests: boolean;
  /**
   * By index: the highest index up to it whose hook has an `after` or `recover` (-1 if none).
   * An around hook whose frame has nothing to leave through on the way out can hand its inner
   * outcome straight on (see `AroundCall.handOn`).
   */
  readonly lastExit: readonly number[];
  /** For a chain made because the point's subject function threw: the hooks whose match failed (see unknown-subject.ts). */
  readonly unknownSubject: readonly CompiledHook[] | undefined;
}

export type AnyFn = (...args: any[]) => unknown;

/**
 * Compile the per-run view of `hooks` (already filtered and ordered). Not frozen: V8 (Node 20)
 * reads frozen arrays far slower in optimised loops, and chains never leave the stack.
 */
export const compileChain = (point: Point, hooks: CompiledHook[], observers: CompiledHook[], subject: unknown, unknownSubject?: readonly CompiledHook[]): Chain => ({
  point,
  hooks,
  observers,
  befores: hooks.map((h) => h.before),
  afters: hooks.map((h) => h.after),
  plain: hooks.every((h) => !h.matcher.needsInput && h.timeoutMs === undefined && h.around === undefined && !h.recheck),
  aroundOnly: hooks.length > 0 && point.collect !== true && hooks.every(plainAround),
  nests: hooks.some((h) => h.around !== undefined && h.timeoutMs !== undefined),
  lastExit: lastExits(hooks),
  unknownSubject,
  subject,
} as Chain);

const plainAround = (h: CompiledHook): boolean =>
  h.around !== undefined && h.before === undefined && h.after === undefined && h.recover === undefined &&
  !h.matcher.needsInput && h.timeoutMs === undefined && !h.recheck && !h.shadow;

const lastExits = (hooks: readonly CompiledHook[]): number[] => {
  let last = -1;
  return hooks.map((h, i) => (h.after !== undefined || h.recover !== undefined ? (last = i) : last));
};

/**
 * The state of one frame. The outermost frame of a run is the run itself (`RunContext`), so
 * entering a chain allocates nothing; each `around` call is the frame inside it (`AroundCall`).
 */
export interface Frame {
  chain: Chain;
  /** Index of the first hook of this frame. */
  readonly start: number;
  /** Next hook to enter on the way in. */
  i: number;
  /** Next hook to leave on the way out. */
  j: number;
  /** The input as this frame's hooks have transformed it so far (hooks see it as `input`). */
  payload: unknown;
  /** The input the frame started with. */
  readonly initial: unknown;
  /** Inputs after each `Transform`, by hook index, so `after(output, input)` sees what that hook saw. */
  transforms: Map<number, unknown> | undefined;
  /** Hooks whose input-dependent matcher said no in this run. */
  skipped: Set<number> | undefined;
  outcome: Outcome | undefined;
  /** A `Replace` or `Reject` from an `after` made the outcome final (R3). */
  final: boolean;
  /** True for the frame inside an `around` hook (an `AroundCall`), which is told when it ends. */
  readonly nested: boolean;
}

/** What walking a frame gives: the outcome now, or later. */
export type Step = Outcome | Promise<Outcome>;

/**
 * A frame ran to its end: its outcome is settled; the around hook that opened it is told at once.
 * The outermost frame is the run itself: its end settles the run, so whatever a hook left running
 * inside (a `next()` it did not await) starts nothing more (R7), with or without a signal, and
 * an operation still running is told through its signal (`RunContext.end`).
 */
export const ended = (f: Frame): Outcome => {
  if (f.nested) (f as unknown as { done(): void }).done();
  else (f as unknown as { end(): void }).end();
  return f.outcome as Outcome;
};

/** The operation the chain wraps, with the run context it receives. */
export type Op = (input: any, ctx: any) => unknown;

export const toCompleted = (value: unknown): Outcome => ({ _tag: "Completed", value });
export const toFailed = (error: unknown): Outcome => ({ _tag: "Failed", error });

export const mark = (run: RunContext, hook: CompiledHook): number => (run.recording || hook.timeoutMs !== undefined ? performance.now() : 0);


/**
 * What a step yields when the run settled under it and nothing better is at hand, which an around
 * hook whose `next()` was still pending then receives (and so does one still deciding that calls
 * `next()` only afterwards: around.ts's `runSettledFirst`). When the caller aborted or the deadline
 * passed, that is the run's own `Failed(RunAbortedError)`. When a hook outside settled it without
 * waiting (it answered, or failed closed), the inside was abandoned: `Failed(OperationAbandonedError)`,
 * never the outside hook's answer, which an inner hook would take for its inside's (a cache would
 * store it). Not a NextMisuseError: R4 keeps that for a `next()` called concurrently or after its
 * hook settled. The run keeps its outcome, once, in `run.settledWith` (`RunContext.end`, and
 * stack.ts for the caller's abort and the deadline); whatever else settles a run must put its
 * outcome there first, or such a `next()` gets the misuse below.
 */
export const settledUnder = (run: RunContext): Outcome => {
  const settled = run.settledWith;
  if (settled === undefined) return Outcome.failed(new NextMisuseError("run already settled"));
  return settled._tag === "Failed" && settled.error instanceof RunAbortedError ? settled : Outcome.failed(new OperationAbandonedError(run.point));
};

/** What a frame yields when the run settled under it: its own outcome, or the run's (the outermost frame is the run). */
export const abandoned = (f: Frame): Outcome =>
  f.outcome ?? settledUnder(f.nested ? (f as unknown as { run: RunContext }).run : (f as unknown as RunContext));

/** The reason of a Reject, for the trace. */
export const reasonOf = (action: HookAction): string | undefined => (action._tag === "Reject" ? action.reason : undefined);

/** Freeze a value in strict mode (R9). */
export const freeze = <T>(run: RunContext, value: T): T => {
  if (!run.runtime.strict) return value;
  try {
    return deepFreeze(value);
  } catch {
    return value; // a Proxy that refuses to be frozen stays as it is; it must not crash the run
  }
};
