/**
 * RedisStore: a `StateStore` shared by every process and machine that points at one Redis. Each
 * compound operation is a single Lua script (see `redis-scripts.ts`), so budgets hold across a
 * fleet exactly as they hold in one process. It fails closed: when Redis is down or slow,
 * operations reject promptly with `StoreUnavailableError`.
 */
import type { Redis, RedisOptions } from "ioredis";
import {
  checkAmount,
  checkDelta,
  checkKey,
  checkTtl,
  encodeValue,
  settledIdsKeptMs,
  StateStoreError,
  type Admission,
  type SetOptions,
  type StateStore,
} from "../core/state.ts";
import { integerOption } from "../middleware/options.ts";
import { StoreUnavailableError } from "./errors.ts";
import { createClient, toStoreError, whenReady, withTimeout } from "./redis-connection.ts";
import { scripts, type ScriptSpec } from "./redis-scripts.ts";

export { StoreUnavailableError } from "./errors.ts";

/**
 * Options of a `RedisStore`: a client or a connection, a key prefix, and the time bound.
 *
 * @example
 * const options: RedisStoreOptions = { connection: process.env.REDIS_URL ?? "redis://127.0.0.1:6379", timeoutMs: 500 };
 */
export interface RedisStoreOptions {
  /**
   * An ioredis client to use; the store leaves it open on `close()`. Give it
   * `enableOfflineQueue: false` so that commands never wait in a queue while Redis is down.
   */
  readonly client?: Redis;
  /** A `redis://` URL or ioredis options for a client the store creates, hardens and closes. */
  readonly connection?: string | RedisOptions;
  /** Prefix of every key the store writes (default `"agent-onion:"`). */
  readonly keyPrefix?: string;
  /** Longest wait for a connection and for each command, in ms (default 1000). */
  readonly timeoutMs?: number;
}

/** What the views made by `scope()` share with the store they came from. */
interface Connection {
  readonly client: Redis;
  readonly owned: boolean;
  readonly keyPrefix: string;
  readonly timeoutMs: number;
  /** Passed-in clients may lack a `commandTimeout`; then the store bounds each command itself. */
  readonly bounded: boolean;
  closed: boolean;
}

type ScriptName = keyof typeof scripts;
type ScriptCall = (...args: (string | number)[]) => Promise<unknown>;

const defined = new WeakSet<Redis>();

/** Set by `scope()` just before it constructs a view, so the view shares its parent's connection. */
let adopting: Connection | undefined;

/** Register the scripts on a client once; ioredis then sends them by EVALSHA, falling back to EVAL. */
const defineScripts = (client: Redis): void => {
  if (defined.has(client)) return;
  for (const spec of Object.values(scripts) as ScriptSpec[]) {
    client.defineCommand(spec.name, { numberOfKeys: spec.numberOfKeys, lua: spec.lua });
  }
  defined.add(client);
};

/**
 * A `StateStore` over Redis (via ioredis). Values are JSON; counters, budgets and reservations
 * change only inside Lua scripts; reservations expire on the server's clock.
 *
 * @example
 * const store = new RedisStore({ connection: "redis://127.0.0.1:6379", keyPrefix: "myapp:" });
 * const hold = await store.reserve("budget:daily", callId, 500, 10_000, 60_000);
 * if (hold.ok) await store.settle("budget:daily", callId, actualCost);
 * await store.close();
 */
export class RedisStore implements StateStore {
  #conn: Connection;
  #scope = "";
  /** A view made by `scope()`: closing it closes only the view, never the connection it shares. */
  #view = false;
  #closed = false;

  constructor(options: RedisStoreOptions = {}) {
    if (adopting !== undefined) {
      this.#conn = adopting;
      adopting = undefined;
      return;
    }
    // Checked here, before a client exists, so a mistake names the store and the field.
    const timeoutMs = integerOption("RedisStore", "timeoutMs", options.timeoutMs ?? 1000, 1);
    const keyPrefix = options.keyPrefix ?? "agent-onion:";
    if (typeof keyPrefix !== "string") throw new TypeError(`RedisStore: keyPrefix must be a string, got ${String(keyPrefix)}`);
    const client = options.client ?? createClient(options.connection ?? {}, timeoutMs);
    defineScripts(client);
    this.#conn = {
      client,
      owned: options.client === undefined,
      keyPrefix,
      timeoutMs,
      bounded: typeof client.options.commandTimeout === "number",
      closed: false,
    };
  }

  async get<T = unknown>(key: string): Promise<T | undefined> {
    const k = this.#key(key);
    const text = await this.#run((c) => c.get(k));
    if (text === null) return undefined;
    try {
      // JSON.parse makes `__proto__` an own key of a fresh object; nothing is merged anywhere.
      return JSON.parse(text) as T;
    } catch (error) {
      throw new StateStoreError(`state key "${key}" does not hold JSON`, { cause: error });
    }
  }

  async set(key: string, value: unknown, options: SetOptions = {}): Promise<void> {
    const k = this.#key(key);
    const text = encodeValue(value);
    const ttl = options.ttlMs === undefined ? undefined : checkTtl(options.ttlMs);
    await this.#run((c) => (ttl === undefined ? c.set(k, text) : c.set(k, text, "PX", ttl)));
  }

  async delete(key: string): Promise<void> {
    const [v, h, x] = this.#keys(key);
    await this.#run((c) => c.del(v, h, x));
  }

  async incr(key: string, by = 1, options: SetOptions = {}): Promise<number> {
    const k = this.#key(key);
    checkDelta("by", by);
    const ttl = options.ttlMs === undefined ? "" : checkTtl(options.ttlMs);
    return Number(await this.#script("incr", k, by, ttl));
  }

  async incrWithin(key: string, by: number, limit: number, options: SetOptions = {}): Promise<Admission> {
    const keys = this.#keys(key);
    checkAmount("by", by);
    checkAmount("limit", limit);
    const ttl = options.ttlMs === undefined ? "" : checkTtl(options.ttlMs);
    return admission(await this.#script("incrWithin", ...keys, by, limit, ttl));
  }

  async reserve(key: string, id: string, amount: number, limit: number, ttlMs: number): Promise<Admission> {
    const keys = this.#keys(key);
    checkKey(id);
    checkAmount("amount", amount);
    checkAmount("limit", limit);
    checkTtl(ttlMs);
    return admission(await this.#script("reserve", ...keys, id, amount, limit, ttlMs));
  }

  async renew(key: string, id: string, ttlMs: number): Promise<boolean> {
    const [, h, x] = this.#keys(key);
    checkKey(id);
    checkTtl(ttlMs);
    return Number(await this.#script("renew", h, x, id, ttlMs)) === 1;
  }

  async settle(key: string, id: string, actual: number, options: SetOptions = {}): Promise<number> {
    const keys = this.#keys(key);
    checkKey(id);
    checkAmount("actual", actual);
    const ttl = options.ttlMs === undefined ? "" : checkTtl(options.ttlMs);
    return Number(await this.#script("settle", ...keys, id, actual, ttl, settledIdsKeptMs));
  }

  async release(key: string, id: string): Promise<void> {
    const [, h, x] = this.#keys(key);
    checkKey(id);
    await this.#script("release", h, x, id);
  }

  async used(key: string): Promise<number> {
    const [settled, reserved] = (await this.#script("used", ...this.#keys(key))) as [number, number];
    return Number(settled) + Number(reserved);
  }

  scope(prefix: string): RedisStore {
    const scoped = `${this.#scope}${checkKey(prefix)}:`;
    adopting = this.#conn;
    const view = new RedisStore();
    view.#scope = scoped;
    view.#view = true;
    view.#closed = this.#closed; // a view of a closed view is closed too
    return view;
  }

  /**
   * Stop using Redis: later operations reject with `StoreUnavailableError`. A client the store
   * created is quit (or dropped if Redis does not answer); a client passed in is left open.
   * On a view made by `scope()` only that view stops (and views made from it later): the store it
   * came from owns the connection, and its other views, such as other tenants', go on.
   *
   * @example
   * await store.close();
   */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#view) return;
    const conn = this.#conn;
    if (conn.closed) return;
    conn.closed = true;
    if (!conn.owned) return;
    try {
      if (conn.client.status === "ready") await withTimeout(conn.client.quit(), conn.timeoutMs);
    } catch {
      // Quitting is a courtesy; disconnect() below ends the connection either way.
    } finally {
      conn.client.disconnect();
    }
  }

  /** The Redis key of `key`: the hash tag `{...}` puts a budget's three keys in one cluster slot. */
  #key(key: string): string {
    return `${this.#conn.keyPrefix}{${this.#scope}${checkKey(key)}}`;
  }

  /** Value key, holds hash, expiries sorted set: suffixes after `}` cannot collide with a value key. */
  #keys(key: string): [string, string, string] {
    const v = this.#key(key);
    return [v, `${v}:h`, `${v}:x`];
  }

  #script(name: ScriptName, ...args: (string | number)[]): Promise<unknown> {
    const command = scripts[name].name;
    return this.#run((c) => (c as unknown as Record<string, ScriptCall>)[command]!(...args));
  }

  async #run<T>(command: (client: Redis) => Promise<T>): Promise<T> {
    const conn = this.#conn;
    if (conn.closed || this.#closed) throw new StoreUnavailableError("the RedisStore is closed");
    try {
      await whenReady(conn.client, conn.timeoutMs);
    } catch (error) {
      // Waiting for a connection that close() ended is not an outage.
      throw conn.closed ? new StoreUnavailableError("the RedisStore is closed", { cause: error }) : error;
    }
    try {
      const pending = command(conn.client);
      return await (conn.bounded ? pending : withTimeout(pending, conn.timeoutMs));
    } catch (error) {
      throw toStoreError(error);
    }
  }
}

/** Read a script's `{ admitted, settled, reserved }` answer. */
const admission = (reply: unknown): Admission => {
  const [ok, settled, reserved] = (reply as [number, number, number]).map(Number) as [number, number, number];
  return { ok: ok === 1, used: settled + reserved, settled, reserved };
};
