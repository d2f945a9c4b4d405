/**
 * `agent-onion/claude`: Claude Code's hook protocol. The settings loader (`fromClaudeSettings`),
 * the executors that run command, HTTP, prompt and agent hooks in the onion, and the bridge that
 * answers Claude Code as one of its hooks (what `agent-onion claude-hook` and `serve` run).
 *
 * @module agent-onion/claude
 */
export * from "./executors/index.ts";
