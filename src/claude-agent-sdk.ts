/**
 * `agent-onion/claude-agent-sdk`: one stack guarding a Claude Agent SDK agent through the SDK's
 * `hooks` and `canUseTool` options, and its model calls through a local gateway.
 * Structural: it imports only types from `@anthropic-ai/claude-agent-sdk` (an optional peer).
 *
 * @module agent-onion/claude-agent-sdk
 */
export * from "./adapters/claude-agent-sdk/index.ts";
