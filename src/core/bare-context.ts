/**
 * The context of a run with nothing to wrap: no hook matched and no observer listens, and the
 * caller gave no signal or deadline. Its operation still gets a full `HookContext`, but the
 * engine's bookkeeping for the run (`RunContext`, about 300 bytes and forty fields) is only built
 * if the operation asks for its ids, its hook, its session state, or approval, context or
 * background work. That keeps such a run as cheap as a hand-written `await` wrapper (T1).
 */
import type { ApprovalDecision, HookContext, HookInfo, RunOptions } from "./context.ts";
import type { Chain } from "./frame.ts";
import type { PointKind } from "./point.ts";
import { RunContext, emptyMetadata, emptyPath, type Runtime } from "./run-context.ts";
import { neverAborted } from "./signal.ts";
import type { StateStore } from "./state.ts";

export class BareContext<I = unknown> implements HookContext<I> {
  declare readonly input: any;
  declare private readonly runtime: Runtime;
  declare private readonly chain: Chain;
  declare private readonly options: RunOptions | undefined;
  declare private full: RunContext<I> | undefined;

  constructor(runtime: Runtime, chain: Chain, options: RunOptions | undefined, input: unknown) {
    this.input = input;
    this.runtime = runtime;
    this.chain = chain;
    this.options = options;
    this.full = undefined;
  }

  /** The run's full context, made the first time the operation reads beyond the basics. */
  private get run(): RunContext<I> {
    return (this.full ??= new RunContext<I>(this.runtime, this.chain, this.options, this.input, undefined, false));
  }

  get point(): string { return this.chain.point.name; }
  get kind(): PointKind { return this.chain.point.kind; }
  /** Never computed: no matcher asked for it (as in any run where no hook matched). */
  get subject(): string | undefined { return undefined; }
  get signal(): AbortSignal { return neverAborted; }
  get sessionId(): string | undefined { return this.options?.sessionId; }
  get hook(): HookInfo { return this.run.hook; }
  get runId(): string { return this.run.runId; }
  get callId(): string { return this.run.callId; }
  get metadata(): Readonly<Record<string, unknown>> { return this.options?.metadata ?? emptyMetadata; }
  get path(): readonly string[] { return this.options?.path ?? emptyPath; }
  get store(): StateStore { return this.options?.store ?? this.runtime.store; }
  state(scope?: "session" | "global"): StateStore { return this.run.state(scope); }
  addContext(text: string): void { this.run.addContext(text); }
  approve(request: { readonly reason?: string; readonly hook: string; readonly input?: unknown; readonly signal?: AbortSignal }): Promise<ApprovalDecision> { return this.run.approve(request); }
  waitUntil(work: PromiseLike<unknown>): void { this.run.waitUntil(work); }
}
