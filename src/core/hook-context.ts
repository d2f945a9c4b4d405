/**
 * The context hooks and operations receive: a view of their run, never the engine's state. Its
 * only fields are private (`#`), so a hook may freeze, seal, spread or write to its context without
 * touching anything the engine reads or writes, and cannot reach the run's bookkeeping through it.
 *
 * One object serves every `before`, `after`, `recover` and `onSettled` call of a run (its `hook`
 * and `input` follow the call being made, as the run knows them); an `around` hook, a timed hook
 * and an operation call with a signal of its own each get one of their own.
 */
import type { ApprovalDecision, ContextKey, HookContext, HookInfo } from "./context.ts";
import type { HookError } from "./errors.ts";
import type { PointKind } from "./point.ts";
import type { RunSignal } from "./run-signal.ts";
import type { StateStore } from "./state.ts";
import { DeferredInput } from "./deferred.ts";

/** What a context reads from its run (the run implements it). */
export interface RunView {
  readonly point: string;
  readonly kind: PointKind;
  readonly subject: string | undefined;
  readonly sessionId: string | undefined;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly path: readonly string[];
  readonly store: StateStore;
  readonly runId: string;
  readonly callId: string;
  /** The run's signal (made on first read). */
  readonly signal: AbortSignal;
  /** The hook being called now, for contexts that follow the run. */
  readonly current: { readonly info: HookInfo } | undefined;
  /** The input as the hook being called now received it. */
  readonly input: unknown;
  state(scope?: "session" | "global"): StateStore;
  addContextFrom(hook: string, text: string): void;
  /** Ask for approval for `hook`, whose own signal (a timed hook's) is `own`. */
  approve(request: ApprovalRequestOf, hook: HookInfo, own: RunSignal | undefined): Promise<ApprovalDecision>;
  waitUntil(work: PromiseLike<unknown>): void;
  /** Record a failure a hook handled itself (see `HookContext.reportFailure`). */
  reported(error: HookError, failOpen: boolean): void;
  getLocal(key: ContextKey<unknown>): unknown;
  setLocal(key: ContextKey<unknown>, value: unknown): void;
}

type ApprovalRequestOf = { readonly reason?: string; readonly hook: string; readonly input?: unknown; readonly signal?: AbortSignal };

/** What `ctx.hook` is where no hook is being called (the operation). */
export const noHook: HookInfo = Object.freeze({ name: "?", shadow: false, source: undefined });

/** Marks a context whose input is the run's current one. */
const follows: unique symbol = Symbol("follows the run");

export class HookCtx<I = unknown> implements HookContext<I> {
  readonly #run: RunView;
  /** The hook this context is for; undefined: whichever the run is calling. */
  readonly #hook: HookInfo | undefined;
  readonly #input: unknown;
  /** A signal of this context's own (a timed hook's, an operation call's); undefined: the run's. */
  readonly #own: RunSignal | undefined;

  constructor(run: RunView, hook: HookInfo | undefined, input: unknown, own: RunSignal | undefined) {
    this.#run = run;
    this.#hook = hook;
    this.#input = input;
    this.#own = own;
  }

  /** The context a run's before/after/recover/onSettled calls share: its hook and input follow the call. */
  static following<I>(run: RunView): HookCtx<I> {
    return new HookCtx<I>(run, undefined, follows, undefined);
  }

  /** The hook being called: its name, whether it runs in shadow mode, where it came from (a frozen view). */
  get hook(): HookInfo {
    const hook = this.#hook;
    if (hook !== undefined) return hook;
    const current = this.#run.current;
    return current === undefined ? noHook : current.info;
  }
  get input(): any {
    const input = this.#input === follows ? this.#run.input : this.#input;
    return input instanceof DeferredInput ? input.value : input;
  }
  /** The hook's own signal if it has a timeout, else the run's; either is made on first read (see RunSignal). */
  get signal(): AbortSignal {
    const own = this.#own;
    return own === undefined ? this.#run.signal : own.signal;
  }
  get point(): string {
    return this.#run.point;
  }
  get kind(): PointKind {
    return this.#run.kind;
  }
  get subject(): string | undefined {
    return this.#run.subject;
  }
  get sessionId(): string | undefined {
    return this.#run.sessionId;
  }
  get runId(): string {
    return this.#run.runId;
  }
  get callId(): string {
    return this.#run.callId;
  }
  get metadata(): Readonly<Record<string, unknown>> {
    return this.#run.metadata;
  }
  get path(): readonly string[] {
    return this.#run.path;
  }
  get store(): StateStore {
    return this.#run.store;
  }
  state(scope?: "session" | "global"): StateStore {
    return this.#run.state(scope);
  }
  addContext(text: string): void {
    this.#run.addContextFrom(this.hook.name, text);
  }
  approve(request: ApprovalRequestOf): Promise<ApprovalDecision> {
    // Checked here, so a hook that passes nothing gets a TypeError it can read, not a crash inside.
    if (typeof request !== "object" || request === null)
      return Promise.reject(
        new TypeError(
          `ctx.approve: request must be an object { hook, reason?, input?, signal? }, got ${request === null ? "null" : typeof request}`,
        ),
      );
    return this.#run.approve(request, this.hook, this.#own);
  }
  waitUntil(work: PromiseLike<unknown>): void {
    this.#run.waitUntil(work);
  }
  reportFailure(error: HookError, failOpen: boolean): void {
    this.#run.reported(error, failOpen);
  }
  local<T>(key: ContextKey<T>): T | undefined;
  local<T>(key: ContextKey<T>, value: T): T;
  local<T>(key: ContextKey<T>, value?: T): T | undefined {
    // The number of arguments, not the value, says which: `local(key, undefined)` clears the slot.
    // biome-ignore lint/complexity/noArguments: a rest parameter would allocate an array on every read.
    if (arguments.length < 2) return this.#run.getLocal(key) as T | undefined;
    this.#run.setLocal(key, value);
    return value;
  }
}
