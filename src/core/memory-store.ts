/**
 * MemoryStore: the default `StateStore`, for one process. It keeps the same rules as `RedisStore`
 * (JSON values, integer counters, TTLs, reservations that expire) so a hook tested against memory
 * behaves the same against Redis.
 */
import { describeGiven } from "./errors.ts";
import {
  checkAmount,
  checkDelta,
  checkKey,
  checkTtl,
  encodeValue,
  settledIdsKeptMs,
  type Admission,
  type SetOptions,
  type StateStore,
} from "./state.ts";

/**
 * Options of a `MemoryStore`.
 *
 * @example
 * let t = 0;
 * const store = new MemoryStore({ now: () => t, sweepIntervalMs: 5_000 });
 */
export interface MemoryStoreOptions {
  /** The clock, in ms (default `Date.now`); tests pass a fake one to step over TTLs. */
  readonly now?: () => number;
  /** How often, at most, a write sweeps expired keys out of memory (default 30 000 ms). */
  readonly sweepIntervalMs?: number;
}

interface Entry {
  /** JSON text: values are stored encoded so no caller can alias what the store holds. */
  text: string;
  expiresAt: number | undefined;
}

/** A reservation, or the mark a settled one leaves so that settling it again counts once. */
interface Hold {
  /** The amount held; `undefined` for a settled id. */
  readonly amount: number | undefined;
  readonly expiresAt: number;
}

/** The reservations under one key, their sum, and their expiries in order. */
interface Holds {
  readonly byId: Map<string, Hold>;
  /** Sum of the live amounts: reading a budget never walks its reservations. */
  sum: number;
  /** A min-heap of [expiresAt, id]; an entry whose hold was renewed or replaced since is skipped. */
  readonly queue: [number, string][];
}

/** Everything the scoped views of one store share. */
interface Shared {
  readonly now: () => number;
  readonly sweepIntervalMs: number;
  readonly values: Map<string, Entry>;
  readonly holds: Map<string, Holds>;
  lastSweep: number;
}

/**
 * An in-process `StateStore`. Every operation runs synchronously inside its promise, so each one
 * is atomic against every other. Expired entries are dropped when touched, and a write sweeps all
 * of them at most once per `sweepIntervalMs`; there is no timer, so nothing keeps the process alive.
 *
 * @example
 * const store = new MemoryStore();
 * await store.reserve("budget", "call-1", 500, 10_000, 60_000); // { ok: true, used: 500 }
 * await store.settle("budget", "call-1", 420);                  // 420
 */
export class MemoryStore implements StateStore {
  #shared: Shared;
  #prefix = "";

  constructor(options: MemoryStoreOptions = {}) {
    const now = options.now ?? Date.now;
    // Checked here, not on the first read of the clock, where it would fail as a bare "now is not a function".
    if (typeof now !== "function") throw new TypeError(`MemoryStore: now must be a function, got ${describeGiven(now)}`);
    const sweep = options.sweepIntervalMs ?? 30_000;
    // NaN or a negative interval would sweep the whole map on every write; Infinity never would.
    if (typeof sweep !== "number" || !Number.isFinite(sweep) || sweep < 0)
      throw new RangeError(`MemoryStore: sweepIntervalMs must be a finite number of ms, 0 or more, got ${String(sweep)}`);
    this.#shared = {
      now,
      sweepIntervalMs: sweep,
      values: new Map(),
      holds: new Map(),
      lastSweep: now(),
    };
  }

  async get<T = unknown>(key: string): Promise<T | undefined> {
    const entry = this.#entry(this.#key(key));
    // A fresh parse per read: the caller gets its own copy, and `__proto__` stays an own key.
    return entry === undefined ? undefined : (JSON.parse(entry.text) as T);
  }

  async set(key: string, value: unknown, options: SetOptions = {}): Promise<void> {
    const k = this.#key(key);
    const text = encodeValue(value);
    const expiresAt = options.ttlMs === undefined ? undefined : this.#shared.now() + checkTtl(options.ttlMs);
    this.#write(k, text, expiresAt);
  }

  async delete(key: string): Promise<void> {
    const k = this.#key(key);
    this.#shared.values.delete(k);
    this.#shared.holds.delete(k);
  }

  async incr(key: string, by = 1, options: SetOptions = {}): Promise<number> {
    const k = this.#key(key);
    checkDelta("by", by);
    const ttl = options.ttlMs === undefined ? undefined : checkTtl(options.ttlMs);
    return this.#add(k, by, ttl);
  }

  async incrWithin(key: string, by: number, limit: number, options: SetOptions = {}): Promise<Admission> {
    const k = this.#key(key);
    checkAmount("by", by);
    checkAmount("limit", limit);
    const ttl = options.ttlMs === undefined ? undefined : checkTtl(options.ttlMs);
    const settled = this.#counter(k);
    const reserved = this.#live(k);
    if (settled + reserved + by > limit) return { ok: false, used: settled + reserved, settled, reserved };
    this.#add(k, by, ttl);
    return { ok: true, used: settled + by + reserved, settled: settled + by, reserved };
  }

  async reserve(key: string, id: string, amount: number, limit: number, ttlMs: number): Promise<Admission> {
    const k = this.#key(key);
    checkKey(id);
    checkAmount("amount", amount);
    checkAmount("limit", limit);
    checkTtl(ttlMs);
    const settled = this.#counter(k);
    const holds = this.#holds(k);
    // Reserving again under a live id replaces that hold, so a retried reserve never counts twice.
    const own = holds?.byId.get(id)?.amount ?? 0;
    const reserved = holds?.sum ?? 0;
    if (settled + reserved - own + amount > limit) return { ok: false, used: settled + reserved, settled, reserved };
    this.#sweep();
    this.#hold(k, id, amount, this.#shared.now() + ttlMs);
    return { ok: true, used: settled + reserved - own + amount, settled, reserved: reserved - own + amount };
  }

  async renew(key: string, id: string, ttlMs: number): Promise<boolean> {
    const k = this.#key(key);
    checkKey(id);
    checkTtl(ttlMs);
    const amount = this.#holds(k)?.byId.get(id)?.amount;
    if (amount === undefined) return false;
    this.#hold(k, id, amount, this.#shared.now() + ttlMs);
    return true;
  }

  async settle(key: string, id: string, actual: number, options: SetOptions = {}): Promise<number> {
    const k = this.#key(key);
    checkKey(id);
    checkAmount("actual", actual);
    const ttl = options.ttlMs === undefined ? undefined : checkTtl(options.ttlMs);
    const prior = this.#holds(k)?.byId.get(id);
    // Settled already (a retry whose first attempt ran): counted once.
    if (prior !== undefined && prior.amount === undefined) return this.#counter(k);
    const next = this.#add(k, actual, ttl);
    this.#hold(k, id, undefined, this.#shared.now() + settledIdsKeptMs);
    return next;
  }

  async release(key: string, id: string): Promise<void> {
    const k = this.#key(key);
    checkKey(id);
    const holds = this.#holds(k);
    const prior = holds?.byId.get(id);
    if (holds === undefined || prior?.amount === undefined) return;
    holds.byId.delete(id);
    holds.sum -= prior.amount;
    if (holds.byId.size === 0) this.#shared.holds.delete(k);
  }

  async used(key: string): Promise<number> {
    const k = this.#key(key);
    return this.#counter(k) + this.#live(k);
  }

  /**
   * How many keys the store holds in memory (values and reservation sets, across all scopes),
   * counting expired ones not yet swept: a way to check that memory does not grow.
   *
   * @example
   * new MemoryStore().size // 0
   */
  get size(): number {
    return this.#shared.values.size + this.#shared.holds.size;
  }

  scope(prefix: string): MemoryStore {
    const view = new MemoryStore({ now: this.#shared.now });
    view.#shared = this.#shared;
    view.#prefix = `${this.#prefix}${checkKey(prefix)}:`;
    return view;
  }

  #key(key: string): string {
    return this.#prefix + checkKey(key);
  }

  /** The live entry under `k`, dropping it if it has expired. */
  #entry(k: string): Entry | undefined {
    const entry = this.#shared.values.get(k);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= this.#shared.now()) {
      this.#shared.values.delete(k);
      return undefined;
    }
    return entry;
  }

  #write(k: string, text: string, expiresAt: number | undefined): void {
    this.#sweep();
    this.#shared.values.set(k, { text, expiresAt });
  }

  /** The integer under `k` (0 when absent); a non-integer value is a caller's mistake. */
  #counter(k: string): number {
    const entry = this.#entry(k);
    if (entry === undefined) return 0;
    const n: unknown = JSON.parse(entry.text);
    if (typeof n !== "number" || !Number.isSafeInteger(n)) {
      throw new TypeError(`state key "${k}" does not hold an integer`);
    }
    return n;
  }

  /** Add `by` to the counter under `k`; the TTL applies only when this creates the key. */
  #add(k: string, by: number, ttlMs: number | undefined): number {
    const existing = this.#entry(k);
    const next = this.#counter(k) + by;
    if (!Number.isSafeInteger(next)) throw new RangeError(`state key "${k}" would pass the safe integer range`);
    if (existing === undefined) {
      this.#write(k, String(next), ttlMs === undefined ? undefined : this.#shared.now() + ttlMs);
    } else {
      existing.text = String(next);
    }
    return next;
  }

  /** The holds under `k`, with expired ones removed: each expiry is handled once, in order. */
  #holds(k: string): Holds | undefined {
    const holds = this.#shared.holds.get(k);
    if (holds === undefined) return undefined;
    const now = this.#shared.now();
    const { queue, byId } = holds;
    while (queue.length > 0 && (queue[0] as [number, string])[0] <= now) {
      const [at, id] = popMin(queue);
      const hold = byId.get(id);
      if (hold === undefined || hold.expiresAt !== at) continue;
      byId.delete(id);
      if (hold.amount !== undefined) holds.sum -= hold.amount;
    }
    if (byId.size === 0) {
      this.#shared.holds.delete(k);
      return undefined;
    }
    return holds;
  }

  /** Set hold `id` under `k` (replacing one there): its amount, or a settled mark, until `expiresAt`. */
  #hold(k: string, id: string, amount: number | undefined, expiresAt: number): void {
    let holds = this.#shared.holds.get(k);
    if (holds === undefined) {
      holds = { byId: new Map(), sum: 0, queue: [] };
      this.#shared.holds.set(k, holds);
    }
    const prior = holds.byId.get(id);
    holds.sum += (amount ?? 0) - (prior?.amount ?? 0);
    holds.byId.set(id, { amount, expiresAt });
    // A renewed hold that keeps its expiry already has its entry.
    if (prior?.expiresAt !== expiresAt) pushMin(holds.queue, [expiresAt, id]);
  }

  #live(k: string): number {
    return this.#holds(k)?.sum ?? 0;
  }

  /** Drop every expired value and hold, at most once per interval, so forgotten keys do not pile up. */
  #sweep(): void {
    const shared = this.#shared;
    const now = shared.now();
    if (now - shared.lastSweep < shared.sweepIntervalMs) return;
    shared.lastSweep = now;
    for (const [k, entry] of shared.values) if (entry.expiresAt !== undefined && entry.expiresAt <= now) shared.values.delete(k);
    for (const k of [...shared.holds.keys()]) this.#holds(k);
  }
}

/** Add `entry` to the min-heap `queue` (ordered by expiry). */
const pushMin = (queue: [number, string][], entry: [number, string]): void => {
  let i = queue.push(entry) - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if ((queue[parent] as [number, string])[0] <= entry[0]) break;
    queue[i] = queue[parent] as [number, string];
    i = parent;
  }
  queue[i] = entry;
};

/** Remove and return the earliest entry of the non-empty min-heap `queue`. */
const popMin = (queue: [number, string][]): [number, string] => {
  const top = queue[0] as [number, string];
  const last = queue.pop() as [number, string];
  if (queue.length === 0) return top;
  let i = 0;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= queue.length) break;
    const right = left + 1;
    const child = right < queue.length && (queue[right] as [number, string])[0] < (queue[left] as [number, string])[0] ? right : left;
    if ((queue[child] as [number, string])[0] >= last[0]) break;
    queue[i] = queue[child] as [number, string];
    i = child;
  }
  queue[i] = last;
  return top;
};
