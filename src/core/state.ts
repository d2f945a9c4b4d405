/**
 * StateStore (R14): where hooks keep state across calls, sessions and processes. Budgets and
 * rate limits go through it, never through module-level variables, so the same limits hold
 * for one process (`MemoryStore`) and for a fleet (`RedisStore`).
 *
 * Amounts are integers (micro-units for money): floats, NaN, negatives and infinities are
 * refused at the boundary with a `RangeError`.
 */

export interface SetOptions {
  /** Time to live in ms; omitted means no expiry. */
  readonly ttlMs?: number;
}

/** The answer of an atomic, bounded increment or reservation. */
export interface Admission {
  /** True when the amount was admitted without passing the limit. */
  readonly ok: boolean;
  /** The total counted against the limit after the call (settled plus live reservations). */
  readonly used: number;
}

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
   * `ttlMs`, so a crashed worker's hold is returned by itself.
   */
  reserve(key: string, id: string, amount: number, limit: number, ttlMs: number): Promise<Admission>;
  /** Turn reservation `id` into settled spend of `actual` (which may differ from what was reserved); returns settled spend. */
  settle(key: string, id: string, actual: number): Promise<number>;
  /** Drop reservation `id` without spending (refund on failure). */
  release(key: string, id: string): Promise<void>;
  /** Settled spend plus live reservations under `key`. */
  used(key: string): Promise<number>;
  /** A view of this store whose keys are prefixed with `prefix + ":"`. */
  scope(prefix: string): StateStore;
}

/** Refuse non-integer or negative amounts (H5). */
export const checkAmount = (what: string, n: number): number => {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${what} must be a non-negative safe integer, got ${String(n)}`);
  return n;
};

/** Refuse keys that are not non-empty strings. */
export const checkKey = (key: string): string => {
  if (typeof key !== "string" || key.length === 0) throw new TypeError(`state key must be a non-empty string`);
  return key;
};
