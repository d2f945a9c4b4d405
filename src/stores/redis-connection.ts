/**
 * How `RedisStore` talks to Redis without ever waiting unboundedly: the client it creates fails
 * fast instead of queueing, and every operation first waits (briefly) for a ready connection.
 */
import { createRequire } from "node:module";
import type { Redis, RedisOptions } from "ioredis";
import { describe } from "../core/errors.ts";
import { StateStoreError } from "../core/state.ts";
import { StoreUnavailableError } from "./errors.ts";

/**
 * Create an ioredis client that never queues commands while disconnected, never resends a command
 * after a reconnect (a resent `settle` could count twice) and bounds each command by `timeoutMs`.
 * ioredis is loaded here, on demand, so that it stays an optional peer dependency.
 *
 * @example
 * const client = createClient({ host: "127.0.0.1", port: 6379 }, 1000);
 */
export const createClient = (connection: string | RedisOptions, timeoutMs: number): Redis => {
  let ioredis: typeof import("ioredis");
  try {
    ioredis = createRequire(import.meta.url)("ioredis") as typeof import("ioredis");
  } catch (error) {
    throw new StateStoreError("RedisStore needs the optional peer dependency ioredis: npm install ioredis", { cause: error });
  }
  const safety: RedisOptions = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: timeoutMs,
  };
  // So that admission recovers within a second of the server returning (options passed in win):
  // try to reconnect at least every half second (ioredis waits up to 2 s by default), and check
  // again every 100 ms whether a server still loading its data is ready (ioredis waits its whole
  // loading estimate, a second or more).
  const defaults: RedisOptions = {
    connectTimeout: timeoutMs,
    retryStrategy: (times: number) => Math.min(times * 50, 500),
    maxLoadingRetryTime: 100,
  };
  const client =
    typeof connection === "string"
      ? new ioredis.Redis(connection, { ...defaults, ...safety })
      : new ioredis.Redis({ ...defaults, ...connection, ...safety });
  // Errors surface through the operations that fail; without a listener ioredis prints each one.
  // ioredis reports a failed SELECT only here and goes on in database 0: remember it, so that
  // operations refuse that connection rather than read and write another database's keys.
  const seen: Seen = { wrongDb: undefined, last: undefined };
  client.on("error", (error: unknown) => {
    seen.last = error;
    if ((error as { command?: { name?: unknown } } | null)?.command?.name === "select") seen.wrongDb = error;
  });
  // Each connection selects its database anew; once one is ready, earlier errors no longer explain anything.
  client.on("connect", () => {
    seen.wrongDb = undefined;
  });
  client.on("ready", () => {
    seen.last = undefined;
  });
  health.set(client, seen);
  return client;
};

/** What the `error` events of a client the store created said about its current connection. */
interface Seen {
  /** The SELECT of the configured database failed: the connection is in database 0. */
  wrongDb: unknown;
  /** The last error since the client was last ready: why it is down (a refused password, a refused connection). */
  last: unknown;
}

const health = new WeakMap<Redis, Seen>();

/** A ready connection that is not in the configured database, as an error; undefined when it is. */
const wrongDatabase = (client: Redis): StateStoreError | undefined => {
  const cause = health.get(client)?.wrongDb;
  return cause === undefined
    ? undefined
    : new StateStoreError(`Redis could not select database ${String(client.options.db)}: ${describe(cause)}`, { cause });
};

/**
 * Resolve once `client` is ready, or reject with `StoreUnavailableError`: at once if the connection
 * is closed or known to be down (reconnecting), else after `timeoutMs` at most. A ready connection
 * that could not select the configured database is refused with `StateStoreError` (fail closed).
 *
 * @example
 * await whenReady(client, 1000);
 */
export const whenReady = (client: Redis, timeoutMs: number): Promise<void> => {
  const status = client.status;
  if (status === "ready") {
    const wrong = wrongDatabase(client);
    return wrong === undefined ? Promise.resolve() : Promise.reject(wrong);
  }
  if (status === "end") return Promise.reject(new StoreUnavailableError("the Redis connection is closed"));
  if (status === "reconnecting" || status === "close") {
    const cause = health.get(client)?.last;
    return Promise.reject(
      new StoreUnavailableError(`Redis is unreachable (reconnecting)${cause === undefined ? "" : `: ${describe(cause)}`}`, { cause }),
    );
  }
  // Operations that arrive while connecting share one wait, so they add no listeners each.
  let wait = waits.get(client);
  if (wait === undefined) {
    wait = waitForReady(client, timeoutMs).finally(() => waits.delete(client));
    waits.set(client, wait);
  }
  return wait;
};

const waits = new WeakMap<Redis, Promise<void>>();

const waitForReady = (client: Redis, timeoutMs: number): Promise<void> => {
  if (client.status === "wait") client.connect().catch(() => {});
  return new Promise<void>((resolve, reject) => {
    let cause: unknown;
    const onError = (error: unknown): void => {
      cause = error;
    };
    const onReady = (): void => finish(wrongDatabase(client));
    const onDown = (): void => {
      const why = cause ?? health.get(client)?.last;
      if (why !== undefined) finish(new StoreUnavailableError(`Redis is unreachable: ${describe(why)}`, { cause: why }));
      else finish(new StoreUnavailableError(client.status === "end" ? "the Redis connection is closed" : "Redis is unreachable"));
    };
    const timer = setTimeout(() => finish(new StoreUnavailableError(`Redis was not ready within ${timeoutMs} ms`)), timeoutMs);
    const finish = (error: StateStoreError | undefined): void => {
      clearTimeout(timer);
      client.off("ready", onReady).off("close", onDown).off("end", onDown).off("error", onError);
      if (error === undefined) resolve();
      else reject(error);
    };
    client.once("ready", onReady).once("close", onDown).once("end", onDown).on("error", onError);
  });
};

/**
 * Bound `promise` by `timeoutMs`, for clients that were passed in without a `commandTimeout`.
 *
 * @example
 * await withTimeout(client.get("k"), 1000);
 */
export const withTimeout = <T>(promise: Promise<T>, timeoutMs: number): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("Command timed out")), timeoutMs);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });

/** Reply errors that mean "the server cannot serve now", not "the request was wrong". */
const transient = /^(LOADING|BUSY|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|OOM|NOREPLICAS|MISCONF)\b/;

/** What ioredis says when it refuses to send a command because the connection is not up. */
const notSent = /Stream isn't writeable|enableOfflineQueue/;

/**
 * Map what ioredis threw to the store's contract: our scripts' own refusals become `TypeError` or
 * `RangeError`, other server replies `StateStoreError`, everything else (refused connection,
 * timeout, closed stream) `StoreUnavailableError`. A command that was sent and got no answer (a
 * timeout, a connection lost meanwhile) may have run: its error says so (`mayHaveRun`).
 *
 * @example
 * try { await client.get("k"); } catch (error) { throw toStoreError(error); }
 */
export const toStoreError = (error: unknown): Error => {
  if (error instanceof StateStoreError) return error;
  const message = error instanceof Error ? error.message : describe(error);
  const name = error instanceof Error ? error.name : "";
  if (name === "ReplyError") {
    const text = message.replace(/ script: .*$/s, "");
    if (text.startsWith("AONOTINT ")) return new TypeError(text.slice(9));
    if (text.startsWith("AORANGE ")) return new RangeError(text.slice(8));
    if (transient.test(text)) return new StoreUnavailableError(`Redis cannot serve now: ${text}`, { cause: error });
    return new StateStoreError(`Redis refused the command: ${text}`, { cause: error });
  }
  return new StoreUnavailableError(`Redis is unavailable: ${message}`, { cause: error, mayHaveRun: !notSent.test(message) });
};
