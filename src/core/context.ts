/**
 * What a hook can reach while it runs: the run's signal, identity, metadata, state store,
 * approval handler, and a way to add context for the model.
 */
import type { ApprovalDecision, Approver } from "./approval-types.ts";
import type { HookError } from "./errors.ts";
import type { Outcome } from "./outcome.ts";
import type { PointKind } from "./point.ts";
import type { DeepReadonly } from "./readonly.ts";
import type { StateStore } from "./state.ts";
import type { Trace, TraceEntry } from "./trace.ts";

export type {
  ApprovalAnswer,
  ApprovalDecision,
  ApprovalHandler,
  ApprovalRequest,
  Approver,
  DurableApprover,
  PendingApproval,
} from "./approval-types.ts";

/** What a hook may know about itself. */
export interface HookInfo {
  readonly name: string;
  /** True when its decisions are recorded, not enforced (R12). */
  readonly shadow: boolean;
  readonly source: string | undefined;
}

/** What a hook can reach while it runs: signal, identity, metadata, state, approvals and context. */
export interface HookContext<I = unknown> {
  /** The hook being called. */
  readonly hook: HookInfo;
  /** The point's name. */
  readonly point: string;
  readonly kind: PointKind;
  /** What matchers saw: the tool name for `toolCall`, the model id for `modelCall`... */
  readonly subject: string | undefined;
  /**
   * Aborted when the caller cancels, the run's deadline passes, or this hook's `timeoutMs` passes.
   * Made on first read, so it is a getter: a spread context (`{ ...ctx }`) does not carry it.
   */
  readonly signal: AbortSignal;
  readonly sessionId: string | undefined;
  readonly runId: string;
  /** Unique per `stack.run` call (a `runId` may span every point of an agent turn). */
  readonly callId: string;
  /** Caller-supplied data (user, tenant, roles...). */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Names of the agents from the root to this one (sub-agents extend it). */
  readonly path: readonly string[];
  /** The input as this hook's layer received it (for `around`). */
  readonly input: DeepReadonly<I>;
  /** The stack's state store; `state("session")` is scoped to this session. */
  readonly store: StateStore;
  /** The state store scoped to this session (the default) or shared by all (`"global"`). */
  state(scope?: "session" | "global"): StateStore;
  /** Extra context for the model; collected in hook order. */
  addContext(text: string): void;
  /**
   * Ask whoever answers approvals (the run's `approval`, else the stack's). The answer is read
   * strictly: anything but a well-formed approve or edit comes back as a `deny` saying why, and so
   * does no approver, a throw, or no answer before the hook gives up (`signal` joins what ends the
   * wait). An edit keeps the shape and subject of `input` (default: this hook's input), and the gate
   * hooks outside this one are asked again about it before the operation. With durable approvals
   * the answer may be a `deny` carrying `pending`: the run then ends `Interrupted` when this hook rejects.
   */
  approve(request: {
    readonly reason?: string;
    readonly hook: string;
    readonly input?: unknown;
    readonly signal?: AbortSignal;
  }): Promise<ApprovalDecision>;
  /** Keep `stack.flush()` waiting for background work this hook started (fire-and-forget HTTP, audit writes). */
  waitUntil(work: PromiseLike<unknown>): void;
  /**
   * Record a failure this hook handled itself, for a hook that runs others (a set of Claude Code
   * settings hooks, each with its own failure policy): it counts in `stack.stats.hookFailures`
   * (and `failOpen` when `failOpen`), goes to the stack's `onFailure` and the run event's
   * `failures`, as a failure of a hook of the stack would. The run's outcome is not changed.
   */
  reportFailure(error: HookError, failOpen: boolean): void;
  /**
   * This run's value for `key` (see `contextKey`): shared by every hook of this run of this
   * point, and gone when the run settles. Undefined until a hook sets it.
   */
  local<T>(key: ContextKey<T>): T | undefined;
  /** Set this run's value for `key`; returns it. Ignored once the run settled. */
  local<T>(key: ContextKey<T>, value: T): T;
}

declare const valueType: unique symbol;

/**
 * A typed slot in every run (`ctx.local(key)`), for state a middleware keeps from one phase or
 * hook to another within one run: a span opened in `before` and ended in `onSettled`, a count
 * taken in `before` and given back in `after`. Keys are compared by identity: make one per
 * middleware instance (or module), never per run.
 */
export interface ContextKey<T> {
  /** A name for people reading a debugger or an error. */
  readonly name: string;
  /** Phantom: the type of the value. Never present at run time. */
  readonly [valueType]?: T;
}

/**
 * Make a key for a per-run slot of type `T`.
 *
 * @example
 * const started = contextKey<number>("timing.started")
 * stack.use("toolCall", {
 *   name: "timing",
 *   before: (_call, ctx) => void ctx.local(started, performance.now()),
 *   onSettled: (_outcome, _call, ctx) => console.log(performance.now() - (ctx.local(started) ?? 0)),
 * })
 */
export const contextKey = <T>(name: string): ContextKey<T> => {
  if (typeof name !== "string" || name === "") throw new TypeError("contextKey: name must be a non-empty string");
  return Object.freeze({ name }) as ContextKey<T>;
};

/** Per-run options for `stack.run`. */
export interface RunOptions {
  readonly signal?: AbortSignal | undefined;
  readonly sessionId?: string | undefined;
  readonly runId?: string | undefined;
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
  readonly path?: readonly string[] | undefined;
  /** Deadline for this run in ms, combined with the point's own. */
  readonly timeoutMs?: number | undefined;
  /** Collect the decision trace of this run here (R11). */
  readonly trace?: Trace | undefined;
  /** Receives text hooks add with `ctx.addContext`, in order. */
  readonly onContext?: ((text: string, hook: string) => void) | undefined;
  /** Override the stack's store for this run. */
  readonly store?: StateStore | undefined;
  /**
   * Ask this handler, not the stack's, when a hook of this run asks for approval: whoever runs
   * the stack knows who can answer (`claude-hook` asks the person through Claude Code).
   */
  readonly approval?: Approver | undefined;
}

/** What observers receive once a run settled (R10). */
export interface RunEvent<I = unknown, O = unknown> {
  readonly point: string;
  readonly subject: string | undefined;
  readonly sessionId: string | undefined;
  readonly runId: string;
  /** Unique per `stack.run` call; the same as `ctx.callId` in that run's hooks. */
  readonly callId: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly path: readonly string[];
  /** The input as the caller gave it. */
  readonly input: DeepReadonly<I>;
  readonly outcome: Outcome<O>;
  /** Each hook's decision, in the order they were made. */
  readonly decisions: readonly TraceEntry[];
  /** Every hook failure in this run, fail-open ones included. */
  readonly failures: readonly HookError[];
  readonly startedAt: number;
  readonly durationMs: number;
}
