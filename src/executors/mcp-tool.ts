/**
 * `mcpToolHook`: Claude Code's `mcp_tool` hook. It calls a tool on an MCP server the caller
 * has already connected (any client with the MCP SDK's `callTool`), with arguments whose string
 * values may name fields of the event (`"${tool_input.file_path}"`), and reads the tool's text
 * the way a command hook's stdout is read. A server the caller did not give, a tool that answers
 * an error, or a call that fails is a hook failure (Claude Code's "non-blocking error").
 */
import { describe } from "../core/errors.ts";
import { readAnswerText } from "./answer.ts";
import { ExecutorError } from "./errors.ts";
import type { AgentEvent } from "./events.ts";
import {
  EXTERNAL_HOOK_FIELDS,
  claudeDefaultSeconds,
  externalHook,
  resolveTimeoutMs,
  type ExternalHook,
  type ExternalHookOptions,
  type RunnerSpec,
} from "./external.ts";
import { parseJson } from "./json.ts";
import { checkLimit } from "./limits.ts";
import { knownOptions } from "../core/known-options.ts";

/**
 * What an MCP tool hook needs of a client: the MCP SDK's `callTool` (a connected `Client`
 * satisfies it, as does a client wrapped by `wrapMcpClient`).
 *
 * @example
 * const client: McpHookClient = new Client({ name: "app", version: "1.0.0" })
 */
export interface McpHookClient {
  /** Calls a tool on the MCP server, as the MCP SDK's `Client.callTool` does. */
  callTool(
    params: { readonly name: string; readonly arguments?: Record<string, unknown> },
    resultSchema?: any,
    options?: { readonly signal?: AbortSignal; readonly timeout?: number },
  ): Promise<{ readonly content?: readonly unknown[]; readonly isError?: boolean | undefined; readonly [key: string]: unknown }>;
}

export interface McpToolHookOptions<E extends AgentEvent = AgentEvent> extends ExternalHookOptions<E> {
  /** The connected client of the server the hook names. */
  readonly client: McpHookClient;
  /** The server's name, for messages (`server` in settings). */
  readonly server?: string;
  /** The tool to call. */
  readonly tool: string;
  /** Its arguments; `${path}` in a string value is replaced with that field of the event JSON (missing: empty). */
  readonly input?: Readonly<Record<string, unknown>>;
  /** More text (UTF-8 bytes) in the tool's answer fails the hook: it could not be a meant answer. Default 1 MiB, as a command's stdout. */
  readonly maxTextBytes?: number;
}

const placeholder = /\$\{([A-Za-z0-9_.-]+)\}/g;

/** The value at a dotted path of the event, as text (objects as JSON, missing as ""). */
const lookup = (event: unknown, path: string): string => {
  let v: unknown = event;
  for (const key of path.split("."))
    v = typeof v === "object" && v !== null && Object.hasOwn(v, key) ? (v as Record<string, unknown>)[key] : undefined;
  return v === undefined || v === null ? "" : typeof v === "string" ? v : JSON.stringify(v);
};

/**
 * The tool's arguments for one event: `${path}` in every string value, at any depth, filled in.
 *
 * @example
 * fillArguments({ file: "${tool_input.file_path}" }, { tool_input: { file_path: "/repo/a.ts" } }) // { file: "/repo/a.ts" }
 */
export const fillArguments = (input: Readonly<Record<string, unknown>>, event: unknown): Record<string, unknown> => {
  const fill = (v: unknown): unknown =>
    typeof v === "string"
      ? v.replace(placeholder, (_m, path: string) => lookup(event, path))
      : Array.isArray(v)
        ? v.map(fill)
        : typeof v === "object" && v !== null
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]))
          : v;
  return fill(input) as Record<string, unknown>;
};

/** The text blocks of a tool result, joined by newlines. */
const textOf = (content: readonly unknown[] | undefined): string =>
  (content ?? [])
    .flatMap((b) =>
      typeof b === "object" && b !== null && (b as { type?: unknown }).type === "text" && typeof (b as { text?: unknown }).text === "string"
        ? [(b as { text: string }).text]
        : [],
    )
    .join("\n");

/**
 * The runner of an MCP tool hook (for a hook of its own, or one of a set).
 *
 * @example
 * const { run } = mcpToolRunner({ event: "PostToolUse", client, server: "scanner", tool: "security_scan", input: { file: "${tool_input.file_path}" } })
 */
export const mcpToolRunner = <E extends AgentEvent>(options: McpToolHookOptions<E>): RunnerSpec => {
  if (typeof options.client?.callTool !== "function")
    throw new TypeError("mcpToolHook: client must have a callTool(params, schema, options) method");
  if (typeof options.tool !== "string" || options.tool === "") throw new TypeError("mcpToolHook: tool must be a non-empty string");
  checkLimit("mcpToolHook", "maxTextBytes", options.maxTextBytes, "bytes");
  const maxTextBytes = options.maxTextBytes ?? 1024 * 1024;
  const timeoutMs = resolveTimeoutMs(options, claudeDefaultSeconds(options.event));
  const name = options.name ?? `mcp_tool:${options.server ?? "server"}/${options.tool}`;
  return {
    name,
    timeoutMs,
    backstopMs: 1500,
    run: async ({ json, signal }) => {
      const args = fillArguments(options.input ?? {}, parseJson(json));
      let result: Awaited<ReturnType<McpHookClient["callTool"]>>;
      try {
        result = await options.client.callTool({ name: options.tool, arguments: args }, undefined, { signal, timeout: timeoutMs });
      } catch (error) {
        if (signal.aborted) throw new ExecutorError("aborted", `the call to ${options.tool} was cancelled`, { cause: error });
        throw new ExecutorError("tool-error", `calling ${options.tool} failed: ${describe(error)}`, { cause: error });
      }
      const text = textOf(result.content);
      if (Buffer.byteLength(text, "utf8") > maxTextBytes)
        throw new ExecutorError("output-too-large", `${options.tool} answered more than ${maxTextBytes} bytes of text`);
      if (result.isError === true)
        throw new ExecutorError("tool-error", `${options.tool} answered an error${text ? `: ${text.slice(0, 500)}` : ""}`);
      return readAnswerText(name, options.event, text);
    },
  };
};

/** Every field of `McpToolHookOptions`: a misspelt one is refused rather than dropped. */
const MCP_TOOL_HOOK_FIELDS = {
  ...EXTERNAL_HOOK_FIELDS,
  client: true,
  server: true,
  tool: true,
  input: true,
  maxTextBytes: true,
} as const satisfies { readonly [K in keyof Required<McpToolHookOptions<AgentEvent>>]: true };

/**
 * A hook that calls a tool on a connected MCP server with Claude Code's protocol.
 *
 * @example
 * stack.use("toolCall", mcpToolHook({ event: "PostToolUse", client, server: "scanner", tool: "security_scan", input: { file_path: "${tool_input.file_path}" } }))
 */
export const mcpToolHook = <E extends AgentEvent>(options: McpToolHookOptions<E>): ExternalHook<E> => {
  knownOptions("mcpToolHook", options, MCP_TOOL_HOOK_FIELDS);
  const runner = mcpToolRunner(options);
  return externalHook({ ...options, name: runner.name }, runner.timeoutMs, runner.run, runner.backstopMs);
};
