/**
 * Adapters: plug a stack into the Vercel AI SDK, MCP clients, Koa-style middleware and Effect.
 * None of them imports the library it adapts (the AI SDK and MCP adapters are structural), so
 * using one costs no dependency you do not already have; the MCP adapter loads the SDK's
 * `McpError` from your copy of the SDK when it must fail as the SDK does (see mcp-errors.ts).
 */
export { aiSdkMiddleware, type AiSdkCallInfo, type AiSdkMiddleware, type AiSdkMiddlewareOptions, type AiSdkStack } from "./ai-sdk.ts";
export { UnsupportedSpecificationError, type SpecVersion } from "./ai-sdk/spec.ts";
export { wrapAiSdkTools, type AiSdkToolExecutionOptions, type WrapAiSdkToolsOptions } from "./ai-sdk-tools.ts";
export {
  wrapMcpClient, type McpCallToolParams, type McpCallToolResult, type McpRequestOptions, type McpToolClient, type WrapMcpClientOptions,
} from "./mcp.ts";
export type { McpStreamMessage } from "./mcp-stream.ts";
export { fromKoa, type FromKoaOptions, type KoaContext, type KoaMiddleware } from "./koa.ts";
export { EffectInterruptedError, effectHook, runEffect, type EffectHookSpec, type EffectNext, type EffectRuntime } from "./effect.ts";
