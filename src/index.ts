/**
 * agent-onion: Koa-style onion hooks for every lifecycle point of an AI agent.
 *
 * @example
 * import { createAgentStack, Reject, Priority } from "agent-onion"
 * const stack = createAgentStack().use("toolCall", {
 *   name: "no-rm-rf", priority: Priority.guard, match: "Bash(rm -rf*)",
 *   before: () => Reject("Destructive command blocked"),
 * })
 */
export * from "./core/index.ts";
export * from "./agent/index.ts";
export * from "./executors/index.ts";
export * from "./middleware/index.ts";
export * from "./adapters/index.ts";
export { RedisStore, StoreUnavailableError, type RedisStoreOptions } from "./stores/redis.ts";
