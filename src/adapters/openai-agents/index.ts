/**
 * The OpenAI Agents SDK adapter (`@openai/agents`): one stack guards an agent built on the SDK.
 * Model calls run through `modelCall` (`guardModel`, `guardModelProvider`), function tools
 * through `toolCall` with approvals through the SDK's own interruptions (`guardTool`), the user
 * prompt through `userPrompt` as an input guardrail; `guardAgent` does all of it for an agent.
 */
export { guardAgent, promptGuardrailName, type GuardAgentOptions, type GuardAgentStack } from "./agent.ts";
export { guardModel, guardModelProvider, type GuardModelOptions, type GuardModelStack, type ModelCallInfo } from "./model.ts";
export { guardTool, type GuardToolOptions, type ToolCallInfo } from "./tool.ts";
export { ApprovalAlreadyUsedError, ApprovalNotAskedError, ApprovalPendingError, CallNotRunError, pendingApprovalReason } from "./parked.ts";
