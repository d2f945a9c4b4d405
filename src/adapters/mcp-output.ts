/**
 * A tool result checked against the tool's declared `outputSchema` the way the MCP SDK's client
 * checks a server's (`Client.callTool` and `experimental.tasks.callToolStream`, SDK v1): with the
 * client's own validator for that tool, which `listTools()` compiled and cached (so, as in the
 * SDK, nothing is checked before the client listed its tools), and with the SDK's errors.
 */
import { isMcpError, mcpError, McpErrorCode } from "./mcp-errors.ts";

/** What the SDK's JSON Schema validators answer. */
interface ValidatorResult {
  readonly valid: boolean;
  readonly errorMessage?: string | undefined;
}

/**
 * A compiled output schema, as the SDK's client caches one per tool.
 *
 * @example
 * const check: OutputValidator = (value) => ({ valid: typeof value === "object" })
 */
export type OutputValidator = (value: unknown) => ValidatorResult;

/**
 * The client's validator for a tool's output schema, if the client has one for it: the SDK's
 * `Client` keeps them by tool name (its task API reads them the same way); any other client has none.
 *
 * @example
 * outputValidator(client, "get_weather") // undefined until client.listTools() saw an outputSchema for it
 */
export const outputValidator = (client: object, tool: string): OutputValidator | undefined => {
  const lookup = (client as { getToolOutputValidator?: unknown }).getToolOutputValidator;
  if (typeof lookup !== "function") return undefined;
  const validator: unknown = lookup.call(client, tool);
  return typeof validator === "function" ? (validator as OutputValidator) : undefined;
};

/**
 * The error the SDK's client fails with for this result of a tool with an output schema, or
 * undefined when the result passes: a result that is not an error must carry
 * `structuredContent`, and `structuredContent`, when present, must match the schema.
 *
 * @example
 * await outputProblem(validator, "get_weather", { content: [] }) // McpError -32600: Tool get_weather has an output schema but did not return structured content
 */
export const outputProblem = async (
  validator: OutputValidator,
  tool: string,
  result: { readonly structuredContent?: unknown; readonly isError?: unknown },
): Promise<Error | undefined> => {
  if (!result.structuredContent && !result.isError)
    return mcpError(McpErrorCode.InvalidRequest, `Tool ${tool} has an output schema but did not return structured content`);
  if (!result.structuredContent) return undefined;
  try {
    const verdict = validator(result.structuredContent);
    if (verdict.valid) return undefined;
    return mcpError(McpErrorCode.InvalidParams, `Structured content does not match the tool's output schema: ${verdict.errorMessage}`);
  } catch (error) {
    if (isMcpError(error)) return error;
    return mcpError(
      McpErrorCode.InvalidParams,
      `Failed to validate structured content: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
};
