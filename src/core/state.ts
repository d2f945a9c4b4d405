/**
 * StateStore (R14): where hooks keep state across calls, sessions and processes. Budgets and
 * rate limits go through it, never through module-level variables, so the same limits hold
 * for one process (`MemoryStore`) and for a fleet (`RedisStore`).
 *
 * Amounts are integers (micro-units for money): floats, NaN, negatives and infinities are
 * refused at the boundary with a `RangeError`.
 */

import { AgentOnionError } from "./errors.ts";

/** Options of `StateStore.set`. */
export interface SetOptions {
  /** Time to live in ms; omitted means no expiry. */
  readonly ttlMs?: number;
}

/** The answer of an atomic, bounded increment or reservation. */
export interface Admission {
  /** True when the amount was admitted without passing the limit. */
  readonly ok: boolean;
  /** The total counted against the limit after the call: `settled + reserved`. */
  readonly used: number;
  /** Settled spend (the counter) after the call. */
  readonly settled: number;
  /** Live reservations after the call, this one included when it was admitted. */
  readonly reserved: number;
}

/**
 * How long a store remembers that a reservation id was settled, in ms: a `settle` repeated within
 * this time (a retry after a timeout, whose first attempt may have run) counts once.
 */
export const settledIdsKeptMs = 60_000;

/** Where hooks keep state across calls, sessions and processes: atomic, JSON values, TTLs in ms (R14). */
export interface StateStore {
  /** Read a JSON value. */
  get<T = unknown>(key: string): Promise<T | undefined>;
  /** Write a JSON value. */
  set(key: string, value: unknown, options?: SetOptions): Promise<void>;
  /** Remove a key (and any reservations under it). */
  delete(key: string): Promise<void>;
  /** Atomically add `by` (default 1) and return the new value; the TTL applies when the key is created. */
  incr(key: string, by?: number, options?: SetOptions): Promise<number>;
  /** Atomically add `by` only if the result stays at or under `limit`. */
  incrWithin(key: string, by: number, limit: number, options?: SetOptions): Promise<Admission>;
  /**
   * Reserve `amount` against `limit` under reservation `id`: admitted only if settled spend plus
   * live reservations plus `amount` stays at or under `limit`. The reservation expires after
   * `ttlMs` unless `renew` extends it, so the hold of a worker that crashed or gave up is returned
   * by itself. Reserving again under a live id replaces its hold. Costs O(1) in the number of
   * reservations, live or past: the store keeps their sum.
   */
  reserve(key: string, id: string, amount: number, limit: number, ttlMs: number): Promise<Admission>;
  /**
   * Make the live reservation `id` expire `ttlMs` from now (a lease kept while its call runs);
   * false, and nothing changes, when it is not live (settled, released or expired).
   */
  renew(key: string, id: string, ttlMs: number): Promise<boolean>;
  /**
   * Turn reservation `id` into settled spend of `actual` (which may differ from what was reserved);
   * returns settled spend. An unknown or expired `id` still records `actual`: the call happened and
   * its cost is real, so forgetting it would let spend pass the limit unseen. Settling the same id
   * again within `settledIdsKeptMs` counts nothing more, so a settle whose answer was lost can be
   * retried. `options.ttlMs` applies when this creates the counter (its earlier window expired
   * while the call ran), as with `incr`.
   */
  settle(key: string, id: string, actual: number, options?: SetOptions): Promise<number>;
  /** Drop reservation `id` without spending (refund on failure); nothing for an id not live. */
  release(key: string, id: string): Promise<void>;
  /** Settled spend plus live reservations under `key`, in O(1). */
  used(key: string): Promise<number>;
  /** A view of this store whose keys are prefixed with `prefix + ":"`. */
  scope(prefix: string): StateStore;
}

/**
 * Refuse non-integer or negative amounts (H5).
 *
 * @example
 * checkAmount("cost", 1.5) // throws RangeError: cost must be a non-negative safe integer, got 1.5
 */
export const checkAmount = (what: string, n: number): number => {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${what} must be a non-negative safe integer, got ${String(n)}`);
  return n;
};

/**
 * Refuse increments that are not safe integers; unlike amounts they may be negative.
 *
 * @example
 * checkDelta("by", -3) // -3
 * checkDelta("by", 0.5) // throws RangeError
 */
export const checkDelta = (what: string, n: number): number => {
  if (!Number.isSafeInteger(n)) throw new RangeError(`${what} must be a safe integer, got ${String(n)}`);
  return n;
};

/**
 * Refuse TTLs that are not positive safe integers (ms).
 *
 * @example
 * checkTtl(60_000) // 60000
 * checkTtl(0)      // throws RangeError
 */
export const checkTtl = (ttlMs: number): number => {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) throw new RangeError(`ttlMs must be a positive safe integer, got ${String(ttlMs)}`);
  return ttlMs;
};

/**
 * Encode a state value as JSON text. Every store keeps values as JSON so that a value reads back
 * the same from memory and from Redis (a `Date` becomes a string in both, never only in one).
 *
 * @example
 * encodeValue({ a: 1 }) // '{"a":1}'
 * encodeValue(undefined) // throws TypeError
 */
export const encodeValue = (value: unknown): string => {
  const text = JSON.stringify(value) as string | undefined;
  if (text === undefined) throw new TypeError(`state value must be JSON-serialisable, got ${typeof value}`);
  return text;
};

/**
 * A state store could not do what was asked (the base of the stores' own errors, such as
 * `StoreUnavailableError`); hooks that gate on state should treat it as a reason to refuse.
 *
 * @example
 * const admitted = await store.reserve(key, id, cost, limit, 60_000).catch((e) => {
 *   if (e instanceof StateStoreError) return { ok: false, used: Number.NaN };
 *   throw e;
 * });
 */
export class StateStoreError extends AgentOnionError {
  override name = "StateStoreError";
  /**
   * True when the operation may have run in the store although no answer came (a timeout, a
   * connection lost after the command was sent); false when it certainly did not run.
   */
  readonly mayHaveRun: boolean;

  constructor(message: string, options?: ErrorOptions & { readonly mayHaveRun?: boolean }) {
    super(message, options);
    this.mayHaveRun = options?.mayHaveRun ?? false;
  }
}

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const loneSurrogates = new RegExp(loneSurrogate.source, "g");

/**
 * Refuse keys that are not non-empty, well-formed strings. A lone surrogate (text cut through an
 * emoji) would be one key in memory and U+FFFD in Redis, where it merges with others.
 *
 * @example
 * checkKey("budget:tenant-a") // "budget:tenant-a"
 */
export const checkKey = (key: string): string => {
  if (typeof key !== "string" || key.length === 0) throw new TypeError(`state key must be a non-empty string`);
  if (loneSurrogate.test(key)) throw new TypeError(`state key must be well-formed UTF-16, got ${JSON.stringify(key)} (a lone surrogate)`);
  return key;
};

/**
 * An id (a session, run or tenant) as one part of a key: the store's `:` and anything else
 * `encodeURIComponent` escapes are escaped, so one id cannot reach another's keys; a lone
 * surrogate, which `encodeURIComponent` throws on, becomes `%uD83D` (its output never holds `%u`).
 *
 * @example
 * keyPart("alice:prompts") // "alice%3Aprompts"
 */
export const keyPart = (id: string): string => {
  if (!loneSurrogate.test(id)) return encodeURIComponent(id);
  let out = "";
  let from = 0;
  for (const m of id.matchAll(loneSurrogates)) {
    out += `${encodeURIComponent(id.slice(from, m.index))}%u${m[0].charCodeAt(0).toString(16).toUpperCase()}`;
    from = m.index + 1;
  }
  return out + encodeURIComponent(id.slice(from));
};
