/**
 * agent-onion: Koa-style onion hooks for every lifecycle point of an AI agent.
 *
 * The root is the engine, the agent layer, the built-in middleware and the adapters that need
 * no other package (AI SDK, MCP, Koa). What needs another package or a heavy load has its own
 * subpath: `agent-onion/claude` (Claude Code settings and hooks), `agent-onion/otel`,
 * `agent-onion/redis`, `agent-onion/effect`.
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
export * from "./middleware/index.ts";
export * from "./ai-sdk.ts";
export * from "./mcp.ts";
export * from "./koa.ts";
