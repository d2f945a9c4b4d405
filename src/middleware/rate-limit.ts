/**
 * `rateLimit` and `callLimit`: how many calls of a tool (or model) may happen per window, per
 * scope, across every process that shares the store. Each admission is one atomic store
 * operation (H4), so parallel calls cannot both take the last slot:
 * - `sliding` (default): each call is a reservation of 1 that expires after the window and is
 *   never settled; the store counts the live ones. Exact, on the store's clock (Redis `TIME`,
 *   so a fleet agrees); it keeps at most `limit` entries per key (the store keeps their count, so
 *   an admission does not read them).
 * - `fixed`: a counter created with a TTL of one window; the window starts when the first call
 *   in it is counted. Calls under way are reservations until then: fewer entries for large limits,
 *   but allows a burst of `2 × limit` across a boundary.
 * - no window: a plain count for the scope's lifetime (`callLimit`, "at most 5 Bash calls per run").
 * A call counts when it reaches the tool or the provider, whether it then succeeds or fails. On
 * `toolCall` that takes two hooks: an early check refuses a call once the limit is used up (so
 * `approval` never asks a person about it), and the count is taken innermost, right before the
 * tool, so each attempt `retry` makes is counted and a call refused further in (`approval`,
 * `toolPolicy`'s recheck of a rewritten call, a hook of yours at `Priority.innermost`) is not.
 *
 * Two limits on one point (a per-minute and a burst limit; `callLimit` and `rateLimit`) nest: the
 * outer one has taken its slot when the inner one refuses. So a slot is taken as a reservation
 * (`reserve`, atomic against the limit like any admission) and kept only if the attempt got past
 * every limit inside: a sliding window keeps the reservation as its entry, a counter `settle`s it;
 * when a limit inside refused, `release` gives it back. A slot counted by a counter is held as a
 * lease renewed while the call runs; a reserve, settle or release whose answer was lost is released
 * or retried (reservation.ts), so a store fault leaves no slot taken by a call that never happened.
 * Counts of `scope: "run"` are deleted when the run ends (run-state.ts); a sub-agent's call counts
 * in its own run and in every run it is part of (scope.ts), and is admitted only if all admit it. The count hooks of one call keep a
 * `Tally` (below) of refusals and of attempts that got through, and each compares it before and
 * after its own next(): with a `retry` between two limits, a slot is given back only for an
 * attempt that was refused inside, never for one that reached the model, before or after.
 */
import { randomUUID } from "node:crypto";
import type { Reject } from "../core/action.ts";
import { contextKey, type HookContext } from "../core/context.ts";
import type { Hook } from "../core/hook.ts";
import type { MatchSpec } from "../core/match/types.ts";
import type { Outcome } from "../core/outcome.ts";
import { Priority } from "../core/priority.ts";
import { keyPart } from "../core/state.ts";
import type { Middleware } from "./apply.ts";
import { LimitExceededError } from "./errors.ts";
import { choiceOption, integerOption, knownOptions, nameOption } from "./options.ts";
import { placement, type Placement } from "./placement.ts";
import { refuse } from "./refuse.ts";
import { enclosingRunIds } from "../agent/run-links.ts";
import { defaultLeaseMs, defaultRetryMs, endOpen, type Holds, openHolds, Reservation, type ReservationSettings } from "./reservation.ts";
import { forget, leftByRunEnd } from "./run-state.ts";
import { missingScope, scopeKeys, scopeOption, type Scope, tenantOption } from "./scope.ts";

/** The points a rate limit can sit on (`"toolCall"` or `"modelCall"`). */
export type LimitedPoint = "toolCall" | "modelCall";

/**
 * Options of `rateLimit`.
 *
 * @example
 * rateLimit({ match: "WebFetch", limit: 10, windowMs: 60_000, scope: "tenant" })
 */
export interface RateLimitOptions {
  /** Calls admitted per window (an integer >= 1). */
  readonly limit: number;
  /** The window in ms; omitted: count for the lifetime of the scope (kept `retentionMs`). */
  readonly windowMs?: number;
  /** Default `"sliding"`. */
  readonly algorithm?: "fixed" | "sliding";
  /** Who shares the count (default `"global"`: every caller of every process on the store). */
  readonly scope?: Scope;
  /** The metadata field holding the tenant id, for `scope: "tenant"` (default `"tenant"`). */
  readonly tenantKey?: string;
  /** Default `"toolCall"`. */
  readonly point?: LimitedPoint;
  /** Which tools (models) are limited, in the core's matcher grammar; default all. */
  readonly match?: MatchSpec<any>;
  /** Count each tool (model) separately (`"subject"`, default) or all matching calls together (`"all"`). */
  readonly per?: "subject" | "all";
  /** How long a count without window is kept, in ms (default 7 days), so forgotten runs do not pile up in Redis. */
  readonly retentionMs?: number;
  readonly name?: string;
  /**
   * Default `Priority.guard`. On `toolCall` it places the early check, by name inside `toolPolicy`
   * and `cache` and outside `approval` (the count itself is always taken innermost, as
   * `${name}:count`, at `Priority.innermost`); on `modelCall`, by name inside `cache`, `budget`,
   * `fallback` and `retry`, so that every attempt `retry` makes is admitted and counted (a refused
   * one ends the retries). The models `fallback` turns to are called directly and not counted.
   */
  readonly priority?: number;
}

const week = 7 * 24 * 3_600_000;

/**
 * Limit calls per window, per scope, across processes; a refused tool call is rejected with a
 * reason the model reads, a refused model call fails with `LimitExceededError`.
 *
 * @example
 * withMiddleware(stack,
 *   rateLimit({ match: "WebFetch", limit: 10, windowMs: 60_000, scope: "tenant" }),
 *   rateLimit({ name: "llm-rpm", point: "modelCall", limit: 500, windowMs: 60_000, per: "all" }),
 * )
 */
export const rateLimit = (options: RateLimitOptions): Middleware =>
  limiter("rateLimit", knownOptions("rateLimit", options, RATE_LIMIT_FIELDS));

/** Every field of `RateLimitOptions`, for the unknown-option check. */
const RATE_LIMIT_FIELDS: { readonly [K in keyof Required<RateLimitOptions>]: true } = {
  limit: true,
  windowMs: true,
  algorithm: true,
  scope: true,
  tenantKey: true,
  point: true,
  match: true,
  per: true,
  retentionMs: true,
  name: true,
  priority: true,
};

/**
 * Options of `callLimit`: those of `rateLimit` without a window, `max` for `limit`, per run by default.
 *
 * @example
 * callLimit({ match: "Bash", max: 5, scope: "session" })
 */
export interface CallLimitOptions extends Omit<RateLimitOptions, "limit" | "windowMs" | "algorithm"> {
  /** Calls admitted per scope (an integer >= 1). */
  readonly max: number;
}

/** Every field of `CallLimitOptions`: rateLimit's without its window, and `max`. */
const { limit: _limit, windowMs: _windowMs, algorithm: _algorithm, ...SHARED_FIELDS } = RATE_LIMIT_FIELDS;
const CALL_LIMIT_FIELDS: { readonly [K in keyof Required<CallLimitOptions>]: true } = { max: true, ...SHARED_FIELDS };

/**
 * Cap the number of calls of each tool per run (or session, tenant...), like seed 000's
 * rate-limit hook but in the store, so it holds across processes.
 *
 * @example
 * withMiddleware(stack, callLimit({ match: "Bash", max: 5 })) // at most 5 Bash calls per run
 */
export const callLimit = (options: CallLimitOptions): Middleware => {
  knownOptions("callLimit", options, CALL_LIMIT_FIELDS);
  const { max, ...rest } = options;
  return limiter("callLimit", { ...rest, limit: integerOption(options.name ?? "callLimit", "max", max, 1), scope: options.scope ?? "run" });
};

/**
 * What the count hooks of one `stack.run` tell each other: how many times a limit refused an
 * attempt (or failed closed), and how many times a count hook kept its slot because the attempt
 * got past every limit inside it. Counts, not flags: a `retry` between limits makes several
 * attempts in one call, and each hook reads only what changed during its own next(). It gives its
 * slot back when a refusal was added and no kept slot was: the attempt it admitted was refused
 * inside and nothing it wrapped got through. One kept slot (even of an earlier attempt a retry
 * inside made) keeps the outer ones.
 */
interface Tally {
  refusals: number;
  reached: number;
}

/** The tally of one `stack.run`, in its slot: shared by the count hooks of every limit on the point, gone with the run. */
const tallyOf = contextKey<Tally>("rateLimit.tally");

/**
 * Whether the attempt a count hook admitted was refused inside it, so it never reached the tool
 * (model): no attempt got through meanwhile, and its own answer is a rejection (on toolCall the
 * tool cannot reject, only a hook inside: another limit's count, a store failure of one, the
 * policy's recheck right before the tool) or, on modelCall, a limit's `LimitExceededError` while
 * a limit inside refused during this attempt. That last condition matters when one call runs two
 * attempts at once (a timed hook gave up on one, a retry outside started another): a sibling's
 * refusal is not ours. An inside the run abandoned, or the tool's own failure, is no refusal.
 */
const refusedInside = (answer: Outcome<unknown> | undefined, tally: Tally, refusals: number, reached: number): boolean =>
  answer !== undefined &&
  tally.reached === reached &&
  (answer._tag === "Rejected" || (answer._tag === "Failed" && answer.error instanceof LimitExceededError && tally.refusals > refusals));

// Reservation ids: unique across the processes sharing a store (a random part per process, made
// on first use: crypto is not loaded for a process that never limits), and cheaper than a UUID per call.
let prefix: string | undefined;
const idPrefix = (): string => (prefix ??= `${randomUUID()}:`);
let idSeq = 0;

const limiter = (kind: string, options: RateLimitOptions): Middleware => {
  const name = nameOption(kind, options.name);
  const limit = integerOption(name, kind === "callLimit" ? "max" : "limit", options.limit, 1);
  const windowMs = options.windowMs === undefined ? undefined : integerOption(name, "windowMs", options.windowMs, 1);
  const algorithm = choiceOption(name, "algorithm", options.algorithm ?? "sliding", ["fixed", "sliding"]);
  const scope = scopeOption(name, options.scope, "global");
  const point = choiceOption(name, "point", options.point ?? "toolCall", ["toolCall", "modelCall"]);
  const per = choiceOption(name, "per", options.per ?? "subject", ["subject", "all"]);
  const retentionMs = integerOption(name, "retentionMs", options.retentionMs ?? week, 1);
  const at =
    point === "modelCall"
      ? placement(name, options.priority, Priority.guard, { after: ["cache", "budget", "fallback", "retry"] })
      : placement(name, options.priority, Priority.guard, { after: ["toolPolicy", "cache"], before: ["approval"] });
  const tenant = tenantOption(name, options.tenantKey);
  const span = windowMs === undefined ? "" : ` per ${windowMs % 1000 === 0 ? `${windowMs / 1000} s` : `${windowMs} ms`}`;
  const where = typeof scope === "function" ? "" : scope === "global" ? "" : ` in this ${scope}`;

  // A sliding window's entries are the reservations themselves, kept for one window from their
  // start; a counter's reservation is a lease renewed while its call runs, until it is counted.
  const counted = windowMs === undefined || algorithm === "fixed";
  const settleOptions = { ttlMs: windowMs ?? retentionMs };
  const settings: ReservationSettings = {
    leaseMs: counted ? defaultLeaseMs : (windowMs as number),
    retryMs: defaultRetryMs,
    // A slot whose release or count was given up stays taken until its lease or window ends: the safe way to be wrong.
    onGiveUp: () => {},
    renew: counted,
  };
  const holds = openHolds(`${name}:count`);

  /** Take this attempt's slot, run the inside, then keep the slot or give it back (see `Tally`). */
  const countAttempt = async (
    ctx: HookContext<any>,
    next: () => Promise<Outcome<unknown>>,
    tally: Tally,
  ): Promise<Reject | Outcome<unknown>> => {
    const keys = keysOf(ctx);
    if (keys === undefined) {
      tally.refusals++;
      return refuse(ctx, name, `${name} cannot count this call: ${missingScope(scope, tenant)}`);
    }
    const id = `${idPrefix()}${++idSeq}`;
    let slot: Holds | undefined;
    try {
      // A sub-agent's call takes a slot in the runs it is part of too (scope "run"): admitted only if all admit it.
      slot = (await Reservation.takeAll(ctx, keys, id, 1, limit, settings, counted ? holds : undefined)).holds;
    } catch (error) {
      tally.refusals++; // a store that fails refuses (closed) as surely as a limit used up
      throw error;
    }
    if (slot === undefined) {
      tally.refusals++;
      return refuse(
        ctx,
        name,
        refusal.replace("%WHAT%", () => what(ctx)),
      );
    }
    // Each run deletes the keys counted in its name when it ends, a parent's those its sub-agents counted in too.
    if (scope === "run")
      for (const [i, key] of keys.entries()) runKeys.get(i === keys.length - 1 ? ctx.runId : (runIdsOf(ctx)[i] as string))?.add(key);
    const { refusals, reached } = tally;
    let answer: Outcome<unknown> | undefined;
    try {
      return (answer = await next());
    } finally {
      // Refused inside, the attempt never reached the tool (model), so it takes no slot; otherwise it
      // is counted in the counter (a sliding window's entry already counts). Bookkeeping that fails
      // is retried in the background and never turns the call, which ran, into a failure.
      if (refusedInside(answer, tally, refusals, reached)) await slot.release();
      else {
        tally.reached++;
        if (counted) await slot.settle(1, settleOptions);
      }
    }
  };

  const refusal = `Rate limit: %WHAT% may be called at most ${limit} time${limit === 1 ? "" : "s"}${span}${where}; this call was refused (${name})`;
  const what = (ctx: HookContext<any>): string =>
    per === "all" ? (point === "toolCall" ? "matching tools" : "model calls") : `"${ctx.subject ?? "?"}"`;
  /** The keys a call counts in: for `scope: "run"`, those of the runs it is part of first, then its own (see `scopeKeys`). */
  const keysOf = (ctx: HookContext<any>): string[] | undefined => {
    const partitions = scopeKeys(ctx, scope, tenant);
    const subject = per === "all" ? "*" : keyPart(ctx.subject ?? "");
    return partitions?.map((partition) => `${name}:${partition}:${subject}`);
  };
  /** The enclosing run ids, in the order of `scopeKeys`'s parents. */
  const runIdsOf = (ctx: HookContext<any>): readonly string[] => enclosingRunIds(ctx.metadata).filter((id) => id !== ctx.runId);
  const shared = {
    // A store that fails must not let calls through unlimited (H3): the hooks fail closed everywhere.
    failMode: "closed" as const,
    ...(options.match !== undefined ? { match: options.match } : {}),
  };
  /** Count with the tally the count hooks of this call share (the first one makes it). */
  const countInCall = (ctx: HookContext<any>, next: () => Promise<Outcome<unknown>>): Promise<Reject | Outcome<unknown>> =>
    countAttempt(ctx, next, ctx.local(tallyOf) ?? ctx.local(tallyOf, { refusals: 0, reached: 0 }));
  const count = (hookName: string, where: Placement): Hook<any, any, any> => ({
    name: hookName,
    ...where,
    ...shared,
    around: countInCall,
    // A counter's slot is a lease renewed while its call runs. A run that ends while the call hangs
    // (the caller aborted, the deadline passed) never returns to the around: the slot of an attempt
    // that got that far is counted here. A sliding window's entry needs nothing: it ends with its window.
    ...(counted
      ? {
          onSettled: (outcome: Outcome<unknown>, _input: unknown, ctx: HookContext<any>) =>
            leftByRunEnd(outcome) ? endOpen(ctx, holds, (slot) => slot.settle(1, settleOptions)) : undefined,
        }
      : {}),
  });
  // The keys a run-scoped limit counted in, by run id while a run of that id is under way, so that
  // its `run` hook can delete them when the run ends: the tool calls that count are runs of their
  // own (their slots end with them), and this is how they reach the run around them.
  const runKeys = new Map<string, Set<string>>();
  const ownKeys = contextKey<Set<string>>(`${name}.runKeys`);
  const forgetRun: Hook<any, any, "gate"> = {
    name,
    ...placement(name, options.priority, Priority.guard),
    before: (_input, ctx) => {
      if (runKeys.has(ctx.runId)) return; // a run nested under the same id: the outer one deletes
      const keys = new Set<string>();
      runKeys.set(ctx.runId, keys);
      ctx.local(ownKeys, keys);
    },
    onSettled: (_outcome, _input, ctx) => {
      const keys = ctx.local(ownKeys);
      if (keys === undefined) return undefined;
      runKeys.delete(ctx.runId);
      return forget(ctx, keys);
    },
  };
  const onRun = scope === "run" ? { run: forgetRun } : {};
  if (point === "modelCall") return { name, hooks: { modelCall: count(name, at), ...onRun } };
  // On toolCall, a check that takes nothing: the count is taken innermost (see the module doc).
  const check: Hook<any, any, any> = {
    name,
    ...at,
    ...shared,
    around: async (ctx, next) => {
      const keys = keysOf(ctx);
      if (keys === undefined) return refuse(ctx, name, `${name} cannot count this call: ${missingScope(scope, tenant)}`);
      const used = await Promise.all(keys.map((key) => ctx.store.used(key)));
      if (used.every((n) => n < limit)) return next();
      return refuse(
        ctx,
        name,
        refusal.replace("%WHAT%", () => what(ctx)),
      );
    },
  };
  // Inside every other hook: a tool call is counted once per attempt that reaches the tool.
  return { name, hooks: { toolCall: [check, count(`${name}:count`, { priority: Priority.innermost })], ...onRun } };
};
