/**
 * `agent-onion/claude-agent-sdk`: one stack guarding a Claude Agent SDK agent through the SDK's
 * `hooks` and `canUseTool` options, with approvals that pause through Claude Code's `defer` and
 * resume in any process. Needs `@anthropic-ai/claude-agent-sdk` (an optional peer dependency).
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
export { ClaudeApprovalError, type ClaudeApprovalProblem, type ClaudePausedApproval, type PausedAsk } from "./paused.ts";
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
