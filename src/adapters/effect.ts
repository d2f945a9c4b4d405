/**
 * Hooks written as Effect programs (Effect 3). Each phase returns an `Effect` instead of a
 * promise; `effectHook` turns the spec into an ordinary hook, so priority, matchers, timeouts
 * and traces work as for any other.
 *
 * Interruption and the `AbortSignal` map both ways:
 * - the run's signal (caller cancel, run deadline, the hook's own `timeoutMs`) interrupts the
 *   fiber, so finalizers run and `Effect.tryPromise((signal) => ...)` sees its signal abort;
 * - a fiber interrupted from inside (`Effect.interrupt`, a lost race) is a hook failure whose
 *   cause is an `EffectInterruptedError`, never a silent `Continue`.
 * A typed failure (`Effect.fail(e)`) is a hook failure (R6) with `e` itself as the cause; a
 * defect (`Effect.die`) likewise with the defect.
 *
 * `effect` is loaded on the first run of an Effect hook, not when this module loads: Effect
 * takes most of a second to import, and only those who write Effect hooks (and so import it
 * themselves) should pay for it.
 */
import type { Cause, Effect, Exit, Runtime } from "effect";
import type { HookContext, RunEvent } from "../core/context.ts";
import { AgentOnionError } from "../core/errors.ts";
import type { AfterAction, AroundResult, BeforeAction, Hook } from "../core/hook.ts";
import type { Continue, Replace } from "../core/action.ts";
import type { Outcome } from "../core/outcome.ts";
import type { PointKind } from "../core/point.ts";
import type { DeepReadonly } from "../core/readonly.ts";
import { knownOptions } from "../core/known-options.ts";

/**
 * A fiber running a hook was interrupted by something other than the run's signal.
 *
 * @example
 * outcome._tag === "Rejected" && outcome.cause?.cause instanceof EffectInterruptedError
 */
export class EffectInterruptedError extends AgentOnionError {
  override name = "EffectInterruptedError";
  constructor(
    readonly effectCause: Cause.Cause<unknown>,
    detail = "interrupted",
  ) {
    super(`the hook's Effect was interrupted: ${detail}`);
  }
}

type EffectModule = typeof import("effect");
let loading: Promise<EffectModule> | undefined;
/** The `effect` package, imported once, on first use. */
const load = (): Promise<EffectModule> => (loading ??= import("effect"));

/**
 * What runs the effects: a `Runtime` (for services in `R`), a `ManagedRuntime`, or the default runtime.
 *
 * @example
 * effectHook({ name: "policy", runtime: ManagedRuntime.make(PolicyLive), before: (call) => checkPolicy(call) })
 */
export type EffectRuntime<R> =
  | Runtime.Runtime<R>
  | {
      /** Runs an effect to its `Exit`, as a `ManagedRuntime` does. */
      runPromiseExit<A, E>(
        effect: Effect.Effect<A, E, R>,
        options?: { readonly signal?: AbortSignal | undefined },
      ): Promise<Exit.Exit<A, unknown>>;
    };

/**
 * An `around`'s `next`, as an Effect that never fails: it yields the `Outcome` of the inside.
 *
 * @example
 * around: (_ctx, next) => next().pipe(Effect.flatMap((o) => (o._tag === "Failed" ? next() : Effect.succeed(o))))
 */
export type EffectNext<I, O> = (input?: I | DeepReadonly<I>) => Effect.Effect<Outcome<O>>;

/**
 * A hook whose phases are Effect programs; the other fields are those of any hook.
 *
 * @example
 * const spec: EffectHookSpec<ToolCall, ToolResult, "gate"> = { name: "no-rm", before: (c) => Effect.succeed(c.name === "rm" ? Reject("no") : Continue) }
 */
export interface EffectHookSpec<I, O, K extends PointKind, R = never>
  extends Omit<Hook<I, O, K>, "before" | "after" | "around" | "recover" | "observe"> {
  /** The phase on the way in, as an Effect that yields the hook's action. */
  readonly before?: (input: DeepReadonly<I>, ctx: HookContext<I>) => Effect.Effect<BeforeAction<I, O, K>, unknown, R>;
  /** The phase on the way out on a completed outcome, as an Effect that yields the hook's action. */
  readonly after?: (output: DeepReadonly<O>, input: DeepReadonly<I>, ctx: HookContext<I>) => Effect.Effect<AfterAction<O, K>, unknown, R>;
  /** Wraps the inside of the onion; `next` runs it and yields its `Outcome`. */
  readonly around?: (ctx: HookContext<I>, next: EffectNext<I, O>) => Effect.Effect<AroundResult<O, K>, unknown, R>;
  /** Runs when the inside failed; may replace the failure with an output. */
  readonly recover?: (
    error: unknown,
    input: DeepReadonly<I>,
    ctx: HookContext<I>,
  ) => Effect.Effect<Replace<O | DeepReadonly<O>> | Continue | void, unknown, R>;
  /** Runs after the run settled, with no signal: observers never delay a run (R10). */
  readonly observe?: (event: RunEvent<I, O>) => Effect.Effect<unknown, unknown, R>;
  /** Where the effects run; required when they need services (`R`). */
  readonly runtime?: EffectRuntime<R>;
}

/**
 * Run an effect as a promise under a signal: the signal interrupts the fiber; a typed failure
 * or defect rejects with itself; an interruption not caused by the signal rejects with an
 * `EffectInterruptedError`.
 *
 * @example
 * const action = await runEffect(Effect.succeed(Continue), ctx.signal)
 */
export const runEffect = async <A, E, R = never>(
  effect: Effect.Effect<A, E, R>,
  signal?: AbortSignal,
  runtime?: EffectRuntime<R>,
): Promise<A> => {
  const m = await load();
  const options = signal === undefined ? undefined : { signal };
  const exit: Exit.Exit<A, unknown> =
    runtime === undefined
      ? await m.Effect.runPromiseExit(effect as Effect.Effect<A, E>, options)
      : hasRunner(runtime)
        ? await runtime.runPromiseExit(effect, options)
        : await m.Runtime.runPromiseExit(runtime, effect, options);
  if (m.Exit.isSuccess(exit)) return exit.value;
  throw failureOf(m, exit.cause, signal);
};

/** The one value a failed fiber is best described by. */
const failureOf = ({ Cause, Option }: EffectModule, cause: Cause.Cause<unknown>, signal: AbortSignal | undefined): unknown => {
  if (Cause.isInterruptedOnly(cause)) {
    // Interrupted because the run was cancelled or timed out: the core already knows why.
    if (signal?.aborted) return signal.reason;
    return new EffectInterruptedError(cause, Cause.pretty(cause).split("\n")[0]);
  }
  const failure = Cause.failureOption(cause);
  if (Option.isSome(failure)) return failure.value;
  const defect = Cause.dieOption(cause);
  if (Option.isSome(defect)) return defect.value;
  return Cause.squash(cause);
};

/** A `ManagedRuntime` (or anything like it) runs effects itself; a plain `Runtime` is data for `Runtime.runPromiseExit`. */
const hasRunner = <R>(runtime: EffectRuntime<R>): runtime is Exclude<EffectRuntime<R>, Runtime.Runtime<R>> =>
  typeof (runtime as { runPromiseExit?: unknown }).runPromiseExit === "function";

/** Every field of `EffectHookSpec`: a misspelt phase (`befor`) would otherwise leave the hook doing nothing. */
const EFFECT_HOOK_FIELDS = {
  before: true,
  after: true,
  around: true,
  recover: true,
  observe: true,
  runtime: true,
  name: true,
  priority: true,
  order: true,
  match: true,
  timeoutMs: true,
  failMode: true,
  shadow: true,
  recheck: true,
  disabled: true,
  source: true,
  onSettled: true,
} as const satisfies { readonly [K in keyof Required<EffectHookSpec<unknown, unknown, PointKind>>]: true };

/**
 * Build a hook whose phases are Effect programs.
 *
 * @example
 * stack.use("toolCall", effectHook({
 *   name: "policy",
 *   before: (call) => Effect.gen(function* () {
 *     const allowed = yield* checkPolicy(call) // Effect<boolean, PolicyError>
 *     return allowed ? Continue : Reject(`${call.name} is not allowed`)
 *   }),
 * }))
 */
export const effectHook = <I = any, O = any, K extends PointKind = PointKind, R = never>(
  spec: EffectHookSpec<I, O, K, R>,
): Hook<I, O, K> => {
  knownOptions("effectHook", spec, EFFECT_HOOK_FIELDS);
  const { before, after, around, recover, observe, runtime, ...fields } = spec;
  const run = <A>(effect: Effect.Effect<A, unknown, R>, signal?: AbortSignal): Promise<A> => runEffect(effect, signal, runtime);
  return {
    ...fields,
    ...(before && { before: (input, ctx) => run(before(input, ctx), ctx.signal) }),
    ...(after && { after: (output, input, ctx) => run(after(output, input, ctx), ctx.signal) }),
    ...(recover && { recover: (error, input, ctx) => run(recover(error, input, ctx), ctx.signal) }),
    ...(around && {
      around: async (ctx, next) => {
        const { Effect } = await load();
        return run(
          around(ctx, (input) => Effect.promise(() => next(input))),
          ctx.signal,
        );
      },
    }),
    ...(observe && { observe: (event) => run(observe(event)).then(() => undefined) }),
  } as Hook<I, O, K>;
};
