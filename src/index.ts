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
 *
 * @module agent-onion
 */
export * from "./core/index.ts";
export * from "./agent/index.ts";
export * from "./middleware/index.ts";
// The adapters that need no other package, named here rather than through their entry files
// (src/ai-sdk.ts, ...), so the root loads their code without also loading those files.
export {
  aiSdkMiddleware,
  type AiSdkCallInfo,
  type AiSdkMiddleware,
  type AiSdkMiddlewareOptions,
  type AiSdkStack,
} from "./adapters/ai-sdk.ts";
export {
  UnsupportedSpecificationError,
  type SdkCallOptions,
  type SdkFinishReason,
  type SdkGenerateResult,
  type SdkMessage,
  type SdkModel,
  type SdkPart,
  type SdkStreamResult,
  type SdkTool,
  type SdkUsage,
  type SdkWrapOptions,
  type SpecVersion,
} from "./adapters/ai-sdk/spec.ts";
export { wrapAiSdkTools, type AiSdkToolExecutionOptions, type WrapAiSdkToolsOptions } from "./adapters/ai-sdk-tools.ts";
export { aiSdkRun, aiSdkStopWhen, type AiSdkRun, type AiSdkRunOptions, type AiSdkRunStack } from "./adapters/ai-sdk-run.ts";
export { StepNotTakenError, type StepStack, type StoppedBy } from "./adapters/ai-sdk/steps.ts";
export {
  wrapMcpClient,
  type McpCallToolParams,
  type McpCallToolResult,
  type McpRequestOptions,
  type McpToolClient,
  type WrapMcpClientOptions,
} from "./adapters/mcp.ts";
export type { McpStreamMessage } from "./adapters/mcp-stream.ts";
export { fromKoa, type FromKoaOptions, type KoaContext, type KoaMiddleware } from "./adapters/koa.ts";
