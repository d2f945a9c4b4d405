/**
 * `budget`: a token or cost budget shared through the `StateStore`, so it holds across calls,
 * sessions and processes (H1, H2). Each model call:
 * 1. reserves its worst case before it starts (`store.reserve`: admitted only if settled spend plus
 *    live reservations plus this one stays within the limit, atomically);
 * 2. settles the actual usage after it (`store.settle`), streams cut short included (partial usage);
 * 3. releases the reservation when the call fails or is refused further in (refund, `store.release`),
 *    unless it failed as a stream that had produced something: that part is settled, as providers bill it;
 *    a call that ran but whose charge cannot be computed is charged its reservation and fails closed.
 * A reservation is a lease of `holdTtlMs`, renewed while its call runs, so the hold of a worker that
 * died or gave up is returned within a lease; a settle or refund whose answer was lost is retried
 * (see reservation.ts). Amounts are integers: tokens, or micro-dollars (µ$) for cost. Spend passes
 * the limit only by what calls used beyond their reservation: the default input estimate (about four
 * characters a token, tools' definitions not counted) is not a bound, and a `charge` above its
 * `reserve` overshoots by that call's difference.
 */
import { randomUUID } from "node:crypto";
import { Continue, Reject } from "../core/action.ts";
import { Outcome } from "../core/outcome.ts";
import type { HookContext } from "../core/context.ts";
import type { Hook } from "../core/hook.ts";
import { Priority } from "../core/priority.ts";
import type { DeepReadonly } from "../core/readonly.ts";
import type { ModelRequest, ModelResponse } from "../agent/types.ts";
import { ModelStreamError, spentPartial } from "../agent/stream/errors.ts";
import { estimateMessageTokens } from "../agent/tokens.ts";
import type { Middleware } from "./apply.ts";
import { choiceOption, functionOption, integerOption, knownOptions, nameOption } from "./options.ts";
import { placement } from "./placement.ts";
import { LimitExceededError } from "./errors.ts";
import { defaultLeaseMs, defaultRetryMs, endOpen, openHolds, Reservation, type ReservationSettings } from "./reservation.ts";
import { forget, leftByRunEnd } from "./run-state.ts";
import { missingScope, scopeKey, scopeKeys, scopeOption, type Scope, tenantOption } from "./scope.ts";

/** Prices in micro-dollars (µ$) per million tokens: `$3 / MTok` is `3_000_000`. */
export interface TokenPrice {
  readonly input: number;
  readonly output: number;
}

/**
 * Options of `budget`: the limit in integer units, who shares it, and how a call is priced.
 *
 * @example
 * budget({ unit: "cost", limit: 5_000_000, price: { input: 3_000_000, output: 15_000_000 }, scope: "tenant" })
 */
export interface BudgetOptions {
  /** The limit, an integer: tokens, or µ$ for `unit: "cost"` (`5_000_000` is $5). */
  readonly limit: number;
  /** Default `"tokens"`. */
  readonly unit?: "tokens" | "cost";
  /** For `unit: "cost"`: one price, or prices by model id (`"*"` for the rest). A model without a price is refused. */
  readonly price?: TokenPrice | Readonly<Record<string, TokenPrice>>;
  /** Who shares the budget (default `"global"`; `"run"`: a run with the sub-agents it starts). */
  readonly scope?: Scope;
  readonly tenantKey?: string;
  /** The budget resets this many ms after its first use (a daily budget: 86_400_000); omitted: never. */
  readonly windowMs?: number;
  /** Output tokens assumed for the reservation when the request sets no `maxOutputTokens` (default 4096). */
  readonly maxOutputTokens?: number;
  /**
   * The lease of a reservation, in ms (default 10 000): renewed every third of it while the call
   * runs, so a worker that dies or gives up holds nothing for longer than this.
   */
  readonly holdTtlMs?: number;
  /** How long a settle or refund whose answer was lost (the store failed) is retried, in ms (default 30 000; 0: once). */
  readonly retryAccountingMs?: number;
  /** Override the reservation (integer units) for a request. */
  readonly reserve?: (request: DeepReadonly<ModelRequest>, ctx: HookContext<ModelRequest>) => number;
  /** Override the actual charge (integer units) for a response. */
  readonly charge?: (response: DeepReadonly<ModelResponse>, request: DeepReadonly<ModelRequest>) => number;
  /** Told when settling or refunding failed after the call and its retries (the hold then expires with its lease); default `process.emitWarning`. */
  readonly onAccountingError?: (error: unknown, what: "settle" | "release") => void;
  readonly name?: string;
  /** Default `Priority.guard`, inside `cache` and outside `fallback`, `retry` and rate limits on `modelCall`, by name. */
  readonly priority?: number;
}

/**
 * Reserve, settle and refund a token or cost budget around every model call; a run that starts
 * with the budget already spent is rejected at once.
 *
 * @example
 * withMiddleware(stack,
 *   budget({ name: "tenant-tokens", limit: 1_000_000, scope: "tenant", windowMs: 86_400_000 }),
 *   budget({ name: "spend", unit: "cost", limit: 20_000_000, price: { "gpt-4o": { input: 2_500_000, output: 10_000_000 } } }),
 * )
 */
export const budget = (options: BudgetOptions): Middleware => {
  knownOptions("budget", options, {
    limit: true,
    unit: true,
    price: true,
    scope: true,
    tenantKey: true,
    windowMs: true,
    maxOutputTokens: true,
    holdTtlMs: true,
    retryAccountingMs: true,
    reserve: true,
    charge: true,
    onAccountingError: true,
    name: true,
    priority: true,
  });
  const name = nameOption("budget", options.name);
  const limit = integerOption(name, "limit", options.limit, 0);
  const unit = choiceOption(name, "unit", options.unit ?? "tokens", ["tokens", "cost"]);
  const scope = scopeOption(name, options.scope, "global");
  const tenant = tenantOption(name, options.tenantKey);
  const windowMs = options.windowMs === undefined ? undefined : integerOption(name, "windowMs", options.windowMs, 1);
  const windowOptions = windowMs === undefined ? {} : { ttlMs: windowMs };
  const maxOutput = integerOption(name, "maxOutputTokens", options.maxOutputTokens ?? 4096, 0);
  const holdTtlMs = integerOption(name, "holdTtlMs", options.holdTtlMs ?? defaultLeaseMs, 1);
  const retryMs = integerOption(name, "retryAccountingMs", options.retryAccountingMs ?? defaultRetryMs, 0);
  const reserveFn = functionOption(name, "reserve", options.reserve);
  const chargeFn = functionOption(name, "charge", options.charge);
  const onAccountingError =
    functionOption(name, "onAccountingError", options.onAccountingError) ??
    ((error: unknown, what: string) =>
      process.emitWarning(
        `${name}: could not ${what} a reservation; it expires with its lease (${error instanceof Error ? error.message : String(error)})`,
        "AgentOnionBudgetWarning",
      ));
  const settings: ReservationSettings = { leaseMs: holdTtlMs, retryMs, onGiveUp: onAccountingError };
  const priceOf = unit === "cost" ? prices(name, options.price, reserveFn !== undefined && chargeFn !== undefined) : undefined;
  const label = unit === "tokens" ? "tokens" : "µ$";

  const units = (model: string, input: number, output: number): number => {
    if (priceOf === undefined) return input + output;
    const price = priceOf(model);
    if (price === undefined) throw new TypeError(`${name}: no price for model "${model}" (add it to price, or a "*" entry)`);
    // Round up: a budget must never under-count a fraction of a micro-dollar.
    return Math.ceil((input * price.input + output * price.output) / 1_000_000);
  };
  const amount = (what: string, n: number): number => {
    if (!Number.isSafeInteger(n) || n < 0)
      throw new TypeError(`${name}: ${what} must be a non-negative integer number of ${label}, got ${String(n)}`);
    return n;
  };
  const hold = (request: DeepReadonly<ModelRequest>, ctx: HookContext<ModelRequest>): number =>
    amount(
      "reserve",
      reserveFn !== undefined
        ? reserveFn(request, ctx)
        : units(request.model, estimateMessageTokens(request.messages as ModelRequest["messages"]), request.maxOutputTokens ?? maxOutput),
    );
  const actual = (response: DeepReadonly<ModelResponse>, request: DeepReadonly<ModelRequest>): number =>
    amount(
      "charge",
      chargeFn !== undefined
        ? chargeFn(response, request)
        : units(response.model ?? request.model, response.usage.inputTokens, response.usage.outputTokens),
    );

  /**
   * The budget's store keys for this run (for `scope: "run"`, those of the runs it is part of
   * first, then its own), or a reason it has none; the window is started on first use.
   */
  const keysFor = async (ctx: HookContext<any>): Promise<string[] | Reject> => {
    const partitions = scopeKeys(ctx, scope, tenant);
    if (partitions === undefined) return Reject(`${name} cannot account for this call: ${missingScope(scope, tenant)}`);
    const keys = partitions.map((partition) => `${name}:${partition}`);
    // Create the counter with the window's TTL (a no-op once it exists): the budget resets when it expires.
    if (windowMs !== undefined) await Promise.all(keys.map((key) => ctx.store.incr(key, 0, { ttlMs: windowMs })));
    return keys;
  };
  // What was really spent, and apart from it what calls under way hold, never one sum called "used".
  const exhausted = (settled: number, reserved: number, need?: number): string =>
    `Budget exhausted (${name}): ${settled} of ${limit} ${label} spent${reserved > 0 ? `, ${reserved} reserved by calls under way` : ""}${need === undefined ? "" : `, and this call may need up to ${need}`}`;

  // The holds of this run's calls still under way: a run that ends while its call hangs (the caller
  // aborted, the deadline passed) never returns to the around, so its onSettled refunds them, as a
  // call that failed is refunded.
  const holds = openHolds(name);
  const modelHook: Hook<ModelRequest, ModelResponse, "observe"> = {
    name,
    // Inside the cache (a hit spends nothing); fallback, retry and rate limits name it to run inside it.
    ...placement(name, options.priority, Priority.guard, { after: ["cache"] }),
    // A budget whose store fails must refuse, not spend unaccounted (H3).
    failMode: "closed",
    around: async (ctx, next) => {
      const keys = await keysFor(ctx);
      // modelCall is an observation point: no Reject there, a typed failure instead.
      if (!Array.isArray(keys)) return Outcome.failed(new LimitExceededError(name, keys.reason));
      const need = hold(ctx.input, ctx);
      // A sub-agent's call reserves in the runs it is part of too (scope "run"): admitted only if all admit it.
      const { admission, holds: reservation } = await Reservation.takeAll(ctx, keys, randomUUID(), need, limit, settings, holds);
      if (reservation === undefined)
        return Outcome.failed(new LimitExceededError(name, exhausted(admission.settled, admission.reserved, need)));
      let settled = false;
      try {
        const outcome = await next();
        const response = outcome._tag === "Completed" ? outcome.value : outcome._tag === "Failed" ? spentBy(outcome.error) : undefined;
        if (response !== undefined) {
          let spent = need;
          try {
            spent = actual(response as DeepReadonly<ModelResponse>, ctx.input);
          } finally {
            // The call ran and spent: when its charge cannot be computed (a fallback model without a
            // price, a bad custom charge) it is charged the worst case it was admitted for, never refunded.
            settled = true;
            // With the window's TTL: if the window ran out while the call ran, settling starts the next one.
            await reservation.settle(spent, windowOptions);
          }
        }
        return outcome;
      } finally {
        if (!settled) await reservation.release();
      }
    },
    onSettled: (outcome, _request, ctx) => (leftByRunEnd(outcome) ? endOpen(ctx, holds, (hold) => hold.release()) : undefined),
  };
  // Refuse a run whose budget is already spent before any work starts (a gate, so a clear Reject).
  // Only settled spend counts here: what calls under way reserve may yet be refunded.
  const runHook: Hook<any, any, "gate"> = {
    name,
    ...placement(name, options.priority, Priority.guard),
    before: async (_input, ctx) => {
      const keys = await keysFor(ctx);
      if (!Array.isArray(keys)) return keys;
      const spent = await Promise.all(keys.map((key) => ctx.store.get<number>(key)));
      const settled = Math.max(...spent.map((n) => Number(n ?? 0)));
      return settled >= limit ? Reject(exhausted(settled, 0)) : Continue;
    },
    // A budget per run ends with its run (see run-state.ts).
    ...(scope === "run" ? { onSettled: (_outcome, _input, ctx) => forget(ctx, [`${name}:${scopeKey(ctx, scope) as string}`]) } : {}),
  };
  return { name, hooks: { run: runHook, modelCall: modelHook } };
};

/**
 * What a failed model call spent: the partial response of a stream that failed after the provider
 * sent something (output, or usage it reported), found among the error's causes (a step's failure
 * wraps it); undefined for a call that produced nothing, which is refunded. tokenBudget and metrics
 * count failed calls by it too.
 *
 * @example
 * spentBy(new ModelStreamError(new Error("overloaded"), partial)) // partial, once it holds output
 */
export const spentBy = (error: unknown): ModelResponse | undefined => {
  // A few levels at most: a cause chain can loop.
  for (let e = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (!(e instanceof ModelStreamError)) continue;
    return spentPartial(e);
  }
  return undefined;
};

/** Check prices at configuration: integers (µ$ per MTok), one price or a table by model. */
const prices = (name: string, price: BudgetOptions["price"], custom: boolean): ((model: string) => TokenPrice | undefined) | undefined => {
  if (price === undefined) {
    if (custom) return undefined;
    throw new TypeError(`${name}: unit "cost" needs price (µ$ per million tokens), or both reserve and charge`);
  }
  const check = (p: unknown, where: string): TokenPrice => {
    if (typeof p !== "object" || p === null) throw new TypeError(`${name}: ${where} must be { input, output } in µ$ per million tokens`);
    integerOption(name, `${where}.input`, (p as TokenPrice).input, 0);
    integerOption(name, `${where}.output`, (p as TokenPrice).output, 0);
    return p as TokenPrice;
  };
  if (typeof price !== "object" || price === null)
    throw new TypeError(`${name}: price must be { input, output } or a table of them by model`);
  // An empty table prices nothing: every call would fail as unpriced, long after start-up.
  if (Object.keys(price).length === 0)
    throw new TypeError(`${name}: price must give { input, output } or price at least one model (or "*"), got {}`);
  if ("input" in price || "output" in price) {
    const one = check(price, "price");
    return () => one;
  }
  const table = new Map(Object.entries(price).map(([model, p]) => [model, check(p, `price["${model}"]`)]));
  return (model) => table.get(model) ?? table.get("*");
};
