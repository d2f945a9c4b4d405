/**
 * `agent-onion/claude-agent-sdk`: one stack guarding a Claude Agent SDK agent through the SDK's
 * `hooks` and `canUseTool` options, with durable approvals that pause through Claude Code's `defer`
 * and resume in any process. Needs `@anthropic-ai/claude-agent-sdk` (an optional peer dependency).
 */
export {
  claudeAgentGuard,
  guardedEvents,
  type ClaudeAgentGuard,
  type ClaudeAgentSdk,
  type ClaudeAgentGuardOptions,
  type ClaudeAgentStack,
  type ClaudePauseOptions,
} from "./guard.ts";
export { claudeAgentHooks, claudeCanUseTool } from "./shortcuts.ts";
export {
  ClaudeApprovalError,
  ClaudeSessionNotWaitingError,
  type ClaudeApprovalProblem,
  type ClaudePausedApproval,
} from "./paused.ts";
export { ClaudeToolError, ClaudeToolNotRunError, ClaudeToolRerunError } from "./tool-calls.ts";
export {
  AnthropicApiError,
  claudeModelGateway,
  type ClaudeModelCallInfo,
  type ClaudeModelGateway,
  type ClaudeModelGatewayOptions,
  type GatewayStack,
} from "./gateway/gateway.ts";
export { AnthropicStreamError } from "./gateway/stream.ts";
