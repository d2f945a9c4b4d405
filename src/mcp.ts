/**
 * `agent-onion/mcp`: an MCP client's tool calls through the stack's `toolCall` point.
 * Structural: it imports nothing from the MCP SDK.
 *
 * @module agent-onion/mcp
 */
export {
  wrapMcpClient,
  type McpCallToolParams,
  type McpCallToolResult,
  type McpRequestOptions,
  type McpToolClient,
  type WrapMcpClientOptions,
} from "./adapters/mcp.ts";
export type { McpStreamMessage } from "./adapters/mcp-stream.ts";
