/**
 * `fromKoa`: Koa-style `(ctx, next) => Promise` middleware mounted as one `around` hook.
 *
 * An array is composed with `koa-compose` itself, so its classic rules hold exactly: `next()`
 * called twice rejects with "next() called multiple times", a synchronous throw becomes a
 * rejection, and the first middleware is the outermost.
 *
 * How Koa's `ctx` maps onto a point (the Koa idiom on the left):
 * - `ctx.request` → `ctx.input`: the input; assign a new one before `await next()` to rewrite it.
 * - `ctx.body` → `ctx.output`: `undefined` until `next()` completes, then the output; assigning
 *   it after `next()` transforms the output, assigning it without calling `next()` answers in
 *   place of the operation (a `Replace`).
 * - `ctx.state` → `ctx.state`: an object shared by the composed middleware of one run.
 * - `ctx.throw(403)` → `ctx.reject(reason)`: refuse (gate points only, R2). Once called, `next()`
 *   no longer reaches the operation (it resolves without running anything).
 * - errors thrown downstream → `await next()` throws the operation's error, as in Koa: catch it
 *   and assign `ctx.output` to recover; leave it uncaught and the run ends `Failed` with it.
 * - `ctx.outcome`: the `Outcome` of `next()` (Completed, Rejected or Failed), for what Koa has no word for.
 * - `ctx.hook`: the `HookContext` (signal, point, subject, metadata, state store, addContext).
 *
 * Returning without calling `next()`, setting `ctx.output` or rejecting is a hook failure (R6):
 * Koa would answer 404, here there would be no answer at all.
 *
 * A `next()` called and not awaited (`next()` for `await next()`) has started the operation: a
 * middleware that returns with one pending, and gives no answer of its own, passes on its
 * outcome once it ends, as the core does for a raw `around` (R4). Koa would answer 404 at once
 * while the downstream ran on; here that would report a refusal for a tool call that ran. A
 * second `next()` from one middleware fails the hook, awaited or not, caught or not, as the
 * core's misuse does. No promise a `next()` gives becomes an unhandled rejection.
 */
import type Compose from "koa-compose";
import { createRequire } from "node:module";
import { Reject, Replace, Transform } from "../core/action.ts";
import type { HookContext } from "../core/context.ts";
import type { AroundResult, FailMode, Hook, Next } from "../core/hook.ts";
import type { MatchSpec } from "../core/match/types.ts";
import type { Outcome } from "../core/outcome.ts";
import type { PointKind } from "../core/point.ts";
import type { DeepReadonly } from "../core/readonly.ts";
import { noop } from "../core/signal.ts";
import { knownOptions } from "../core/known-options.ts";

// Loaded on the first `fromKoa`: the root entry exports it, and `import "agent-onion"` (every
// `claude-hook` process) must not pay for a package most programs never call.
// A require made when a dependency is first loaded, not at import: createRequire costs a little
// in every process that imports this file, and most never load the dependency.
const require = (id: string): unknown => createRequire(import.meta.url)(id);
let compose: typeof Compose | undefined;

/**
 * The `ctx` a Koa-style middleware receives.
 *
 * @example
 * async (ctx, next) => { if (ctx.hook.subject === "Bash") ctx.input = { ...ctx.input, input: { command: "ls" } }; await next() }
 */
export interface KoaContext<I = any, O = any> {
  /** The input; assign before `await next()` to pass a new one inward. */
  input: DeepReadonly<I> | I;
  /** The output once `next()` completed; assign to transform it (or, without `next()`, to answer). */
  output: DeepReadonly<O> | O | undefined;
  /** Shared by the composed middleware of one run (Koa's `ctx.state`). */
  readonly state: Record<string, unknown>;
  /** What `next()` produced, once it has run. */
  readonly outcome: Outcome<O> | undefined;
  /** The hook context: signal, point, subject, metadata, store, addContext, approve. */
  readonly hook: HookContext<I>;
  /** The run's signal (`ctx.hook.signal`). */
  readonly signal: AbortSignal;
  /** Refuse with a reason (gate points only); what `ctx.throw(403, reason)` means in Koa: a later `next()` runs nothing. */
  reject(reason: string): void;
}

/**
 * A Koa-style middleware over a point's input `I` and output `O`.
 *
 * @example
 * const timing: KoaMiddleware<ToolCall, ToolResult> = async (ctx, next) => { const t = Date.now(); await next(); ctx.state.ms = Date.now() - t }
 */
export type KoaMiddleware<I = any, O = any> = (ctx: KoaContext<I, O>, next: () => Promise<void>) => unknown;

/**
 * Hook fields besides the function: name, priority, match, timeoutMs, failMode, shadow...
 *
 * @example
 * fromKoa([auth, timing], { name: "koa-chain", priority: Priority.guard, match: "Bash" })
 */
export interface FromKoaOptions<I = any> {
  readonly name?: string;
  readonly priority?: number;
  readonly match?: MatchSpec<I>;
  readonly timeoutMs?: number;
  readonly failMode?: FailMode;
  readonly shadow?: boolean;
  readonly disabled?: boolean;
  readonly source?: string;
}

/**
 * Mount Koa-style middleware (one, or a list composed with `koa-compose`) as an `around` hook.
 *
 * @example
 * stack.use("toolCall", fromKoa(async (ctx, next) => {
 *   const started = Date.now()
 *   await next()
 *   ctx.hook.addContext(`${ctx.input.name} took ${Date.now() - started} ms`)
 * }, { name: "timing" }))
 */
export const fromKoa = <I = any, O = any>(
  middleware: KoaMiddleware<I, O> | readonly KoaMiddleware<I, O>[],
  options: FromKoaOptions<I> = {},
): Hook<I, O> => {
  knownOptions("fromKoa", options, {
    name: true,
    priority: true,
    match: true,
    timeoutMs: true,
    failMode: true,
    shadow: true,
    disabled: true,
    source: true,
  });
  const list = Array.isArray(middleware) ? middleware : [middleware];
  // koa-compose's own checks, made here because it composes the wrappers: nested lists are
  // flattened, and an entry that is not a function is a TypeError at mount time.
  const flat = (list as readonly unknown[]).flat(Number.POSITIVE_INFINITY);
  for (const m of flat) if (typeof m !== "function") throw new TypeError("Middleware must be composed of functions!");
  compose ??= require("koa-compose") as typeof Compose;
  const composed = compose((flat as KoaMiddleware<I, O>[]).map(tracked) as Compose.Middleware<KoaContext<I, O>>[]);
  const names = list
    .map((m: { name?: string }) => m.name)
    .filter(Boolean)
    .join(",");
  return {
    ...options,
    name: options.name ?? `koa(${names || "anonymous"})`,
    around: (hook: HookContext<I>, next: Next<I, O>) => runKoa(composed, hook, next),
  };
};

/** The `next()` calls the middleware of one run made (see NextCalls), by its `ctx`. */
const calls = new WeakMap<object, NextCalls>();

/** What the middleware of one run did with their `next()`. */
class NextCalls {
  /** Every promise a `next()` gave, in order; each already has a handler, so none is ever unhandled. */
  readonly handed: Promise<void>[] = [];
  /** koa-compose's refusal of a second `next()` from one middleware. */
  refused: unknown;

  hand(promise: Promise<void>, again: boolean): void {
    this.handed.push(promise);
    promise.catch(again ? (error: unknown) => void (this.refused ??= error) : noop);
  }

  /** Resolves once every `next()` given has ended, those started meanwhile too (an inner middleware's). */
  async ended(): Promise<void> {
    for (let i = 0; i < this.handed.length; i++) await this.handed[i]?.then(noop, noop);
  }
}

/** `middleware` with a `next` that tells the run's NextCalls each call, and still returns koa-compose's promise. */
const tracked =
  <I, O>(middleware: KoaMiddleware<I, O>): KoaMiddleware<I, O> =>
  (ctx, next) => {
    let called = false;
    return middleware(ctx, () => {
      const promise = next();
      calls.get(ctx)?.hand(promise, called);
      called = true;
      return promise;
    });
  };

/** One run of the composed middleware: the Koa context, the innermost `next`, and the answer. */
const runKoa = async <I, O>(
  composed: Compose.ComposedMiddleware<KoaContext<I, O>>,
  hook: HookContext<I>,
  next: Next<I, O>,
): Promise<AroundResult<O, PointKind>> => {
  let outcome: Outcome<O> | undefined;
  let produced: unknown;
  let rejected: string | undefined;
  const ctx: KoaContext<I, O> = {
    input: hook.input,
    output: undefined,
    state: {},
    get outcome() {
      return outcome;
    },
    hook,
    signal: hook.signal,
    reject(reason) {
      rejected = String(reason);
    },
  };
  const made = new NextCalls();
  calls.set(ctx, made);
  try {
    await composed(ctx, async () => {
      // Koa's ctx.throw ends the request; ctx.reject does not throw, so a guard written
      // `if (bad) ctx.reject(why); await next()` must still never reach the operation.
      if (rejected !== undefined) return;
      outcome = await next(ctx.input);
      produced = outcome._tag === "Completed" ? outcome.value : undefined;
      ctx.output = produced as O | undefined;
      // Koa lets downstream errors surface from `await next()`; a middleware may catch them.
      if (outcome._tag === "Failed") throw outcome.error;
    });
    // No answer yet, but a next() may still be on its way: its outcome is the answer (R4).
    if (rejected === undefined && outcome === undefined && ctx.output === undefined) await made.ended();
    if (made.refused !== undefined) throw made.refused;
  } catch (error) {
    // The operation's own error, uncaught by any middleware: the run failed, no hook did.
    if (outcome?._tag === "Failed" && error === outcome.error) return outcome;
    throw error;
  }
  // On an observation point a Reject is a hook failure (R2), which is what it should be.
  if (rejected !== undefined) return Reject(rejected) as AroundResult<O, PointKind>;
  if (outcome === undefined) {
    if (ctx.output !== undefined) return Replace(ctx.output);
    throw new TypeError("Koa middleware returned without calling next(), setting ctx.output or calling ctx.reject()");
  }
  if (ctx.output !== produced) return Transform(ctx.output as O);
  return outcome;
};
