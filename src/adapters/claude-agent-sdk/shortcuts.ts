/**
 * The guard's two options on their own, for code that sets the SDK's options field by field.
 */
import type { CanUseTool, HookCallbackMatcher, HookEvent } from "@anthropic-ai/claude-agent-sdk";
import { claudeAgentGuard, type ClaudeAgentGuardOptions, type ClaudeAgentStack } from "./guard.ts";

/**
 * The SDK's `hooks` option running `stack` (`claudeAgentGuard(stack, options).hooks`). Tool calls
 * that reach Claude Code's permission prompt are answered by Claude Code's own rules then, not by
 * the stack: pass `claudeCanUseTool` from the same guard for that, or use `claudeAgentGuard`.
 *
 * @example
 * query({ prompt, options: { hooks: claudeAgentHooks(stack), allowedTools: ["Read", "Bash"] } })
 */
export const claudeAgentHooks = (
  stack: ClaudeAgentStack,
  options?: ClaudeAgentGuardOptions,
): Partial<Record<HookEvent, HookCallbackMatcher[]>> => claudeAgentGuard(stack, options).hooks;

/**
 * The SDK's `canUseTool` option running `stack`'s `permissionRequest` point, then its approval
 * handler (`claudeAgentGuard(stack, options).canUseTool`).
 *
 * @example
 * query({ prompt, options: { canUseTool: claudeCanUseTool(createAgentStack({ approval: askInTerminal })) } })
 */
export const claudeCanUseTool = (stack: ClaudeAgentStack, options?: ClaudeAgentGuardOptions): CanUseTool =>
  claudeAgentGuard(stack, options).canUseTool;
