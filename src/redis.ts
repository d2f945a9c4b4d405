/**
 * `agent-onion/redis`: a `StateStore` on Redis, shared atomically by every process that points
 * at one server. Needs `ioredis` (an optional peer dependency).
 *
 * @module agent-onion/redis
 */
export { RedisStore, type RedisStoreOptions } from "./stores/redis.ts";
export { StoreUnavailableError } from "./stores/errors.ts";
