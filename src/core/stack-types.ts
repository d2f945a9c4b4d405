/**
 * The public shape of a `HookStack`: an immutable set of hooks over a set of points.
 */
import type { Approver, HookContext, RunOptions } from "./context.ts";
import type { Hook } from "./hook.ts";
import type { Outcome } from "./outcome.ts";
import type { InputOf, KindOf, OutputOf, Points } from "./point.ts";
import type { DeepReadonly, MaybePromise } from "./readonly.ts";
import type { StateStore } from "./state.ts";
import type { HookError } from "./errors.ts";

/** The real work a point wraps: the tool execution, the provider call, or the identity for event-like points. */
export type Operation<I, O> = (input: DeepReadonly<I>, ctx: HookContext<I>) => MaybePromise<O>;

/** Options of a stack: its state store, approval handler, freezing, limits and failure callback. */
export interface StackOptions {
  /** Where hooks keep shared state (R14); default a fresh `MemoryStore`. */
  readonly store?: StateStore;
  /**
   * Who answers approval requests (`ctx.approve`, Claude Code's `ask`): a handler that answers in
   * process, or `durableApprovals()`, which pauses the run until a person answers, in any process.
   * Without one they are denials that say so.
   */
  readonly approval?: Approver;
  /**
   * Freeze what hooks receive, inputs and outputs, at run time (R9). Default `true`; `false` is
   * for hot paths that trust every hook not to edit what it was given in place.
   */
  readonly freeze?: boolean;
  /** The former name of `freeze`, still read; when both are given they must agree. */
  readonly strict?: boolean;
  /**
   * Time every hook call for observers' events (a clock reading before and after each call).
   * Default `false`: observers get exact times for asynchronous and timed calls, and synchronous
   * calls are placed at the nearest reading with `ms` 0, so an observer costs a run the same
   * whatever the number of hooks. A `Trace` passed to a run always times every call.
   */
  readonly timeHooks?: boolean;
  /** The bound of the queue of events waiting for observers (see `StackStats.observerDrops`). */
  readonly observerQueue?: { readonly limit?: number };
  /**
   * How many levels of nesting (`RunOptions.path` entries: sub-agents, hooks that run the stack
   * again) a run may have before it is refused with `RecursionLimitError` (A14). Default 32.
   */
  readonly maxDepth?: number;
  /** Called for every hook failure, fail-open ones included (R6), after the run recorded it. */
  readonly onFailure?: (error: HookError) => void;
}

/**
 * What `explain` should assume of the run: its metadata, for `{ metadata }` and function matchers.
 *
 * @example
 * stack.explain("toolCall", call, { metadata: { env: "prod" } })
 */
export interface ExplainOptions {
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** One line of `stack.explain`: a hook, whether it would run for this input, and why. */
export interface Explanation {
  readonly hook: string;
  readonly priority: number;
  readonly phases: readonly ("before" | "around" | "after" | "recover" | "onSettled" | "observe")[];
  readonly matches: boolean;
  readonly match: string;
  readonly disabled: boolean;
  readonly shadow: boolean;
  readonly failMode: "open" | "closed";
  readonly source?: string | undefined;
}

/** Counters shared by a stack and every stack derived from it. */
export interface StackStats {
  /** Hook failures of any mode. */
  readonly hookFailures: number;
  /** Failures let through by `failMode: "open"`. */
  readonly failOpen: number;
  /** Observers (and `onSettled` calls) that threw or rejected. */
  readonly observerErrors: number;
  /**
   * Events dropped because the observer queue was full (`observerQueue.limit` events waiting or
   * being delivered). Not enumerable, so code comparing the other counters is not disturbed.
   */
  readonly observerDrops: number;
}

/** The name of a point of a stack. */
export type PointName<P extends Points> = keyof P & string;

/** An immutable stack of hooks over a set of points: `use` adds a hook, `run` runs a point. */
export interface HookStack<P extends Points> {
  readonly points: P;
  readonly options: StackOptions;
  /** A new stack with `hook` added on `point` (or on each of several points). */
  use<N extends PointName<P>>(point: N, hook: Hook<InputOf<P[N]>, OutputOf<P[N]>, KindOf<P[N]>>): HookStack<P>;
  /** A new stack with an observation hook added on each of `points`. */
  use(points: readonly PointName<P>[], hook: Hook<any, any, "observe">): HookStack<P>;
  /** A new stack without the hook named `name` (on every point). */
  without(name: string): HookStack<P>;
  /** A new stack in which `name` is registered but skipped (R12). */
  disable(name: string): HookStack<P>;
  /** A new stack in which `name` runs again. */
  enable(name: string): HookStack<P>;
  /** Run `operation` on `point` wrapped in the point's hooks. Never throws for what hooks or the operation do. */
  run<N extends PointName<P>>(
    point: N,
    input: InputOf<P[N]>,
    operation: Operation<InputOf<P[N]>, OutputOf<P[N]>>,
    options?: RunOptions,
  ): Promise<Outcome<OutputOf<P[N]>>>;
  /** Which hooks would run for this input, in order, and which would be skipped and why. */
  explain<N extends PointName<P>>(point: N, input: InputOf<P[N]>, options?: ExplainOptions): readonly Explanation[];
  /** Deliver the events waiting for observers, and wait for them and for background work (R10). */
  flush(): Promise<void>;
  /** Whether any hook is registered (and enabled) on `point`. */
  has(point: PointName<P>): boolean;
  readonly stats: StackStats;
}
