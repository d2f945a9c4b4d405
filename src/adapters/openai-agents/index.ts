/**
 * The OpenAI Agents SDK adapter (`@openai/agents`): one stack guards an agent built on the SDK.
 * Model calls run through `modelCall` (`guardModel`, `guardModelProvider`), function tools
 * through `toolCall` with approvals through the SDK's own interruptions (`guardTool`).
 */
export { guardModel, guardModelProvider, type GuardModelOptions, type GuardModelStack, type ModelCallInfo } from "./model.ts";
export { guardTool, type GuardToolOptions, type ToolCallInfo } from "./tool.ts";
export { ApprovalAlreadyUsedError, ApprovalPendingError, CallNotRunError } from "./parked.ts";
