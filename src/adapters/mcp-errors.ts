/**
 * The MCP SDK's own errors, for the places where `wrapMcpClient` must fail as the SDK fails
 * but the SDK did not make the error itself (a hook's result that breaks a tool's output
 * schema, a caller's abort noticed outside a request). The adapter does not import the SDK, so
 * its `McpError` class is loaded when first needed, from where this module is installed (the
 * application's copy of `@modelcontextprotocol/sdk`, an optional peer dependency). Where it
 * cannot be loaded (no SDK installed, a bundle without it), the error is a lookalike: the same
 * `name`, `code` and message, but not an `instanceof McpError`.
 */

/** The JSON-RPC and MCP error codes the adapter uses, as the SDK's `ErrorCode` numbers them. */
export const McpErrorCode = {
  RequestTimeout: -32001,
  InvalidRequest: -32600,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

type McpErrorClass = new (code: number, message: string, data?: unknown) => Error;

// A variable, so that bundlers leave the import alone rather than fail on a package that is not there.
const sdkTypes = "@modelcontextprotocol/sdk/types.js";
let loadingTypes: Promise<Readonly<Record<string, unknown>> | undefined> | undefined;

/**
 * The SDK's `types.js` module from the application's copy of the SDK, or undefined where it cannot be loaded.
 *
 * @example
 * const schema = (await sdkTypesModule())?.ListToolsResultSchema
 */
export const sdkTypesModule = (): Promise<Readonly<Record<string, unknown>> | undefined> =>
  (loadingTypes ??= import(/* webpackIgnore: true */ /* @vite-ignore */ sdkTypes).then(
    (types: Record<string, unknown>) => types,
    () => undefined,
  ));

const load = (): Promise<McpErrorClass | undefined> =>
  sdkTypesModule().then((types) => (typeof types?.McpError === "function" ? (types.McpError as McpErrorClass) : undefined));

/**
 * An `McpError` as the SDK makes it: message `MCP error <code>: <message>`, `name` "McpError", `code`.
 *
 * @example
 * throw await mcpError(McpErrorCode.InvalidParams, "Structured content does not match the tool's output schema: data/n must be number")
 */
export const mcpError = async (code: number, message: string): Promise<Error> => {
  const McpError = await load();
  return McpError !== undefined ? new McpError(code, message) : mcpErrorLookalike(code, message);
};

/**
 * What `mcpError` makes when the SDK cannot be loaded: an `Error` with the `name`, `code`, `data`
 * and message of the SDK's `McpError`, which only `instanceof McpError` tells apart.
 *
 * @example
 * mcpErrorLookalike(-32602, "bad output").message // "MCP error -32602: bad output"
 */
export const mcpErrorLookalike = (code: number, message: string): Error =>
  Object.assign(new Error(`MCP error ${code}: ${message}`), { name: "McpError", code, data: undefined });

/**
 * True for an error the SDK would pass on as it is: its own `McpError` (or a lookalike from `mcpError`).
 *
 * @example
 * isMcpError(await mcpError(McpErrorCode.InternalError, "x")) // true
 */
export const isMcpError = (error: unknown): error is Error & { readonly code: number } =>
  error instanceof Error && error.name === "McpError" && typeof (error as { code?: unknown }).code === "number";
