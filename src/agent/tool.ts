/**
 * The tool interface: a name, what the model reads about it, and an `execute` function. It is
 * what the AI SDK's tools and MCP tools look like once their transport is stripped away.
 */
import { knownOptions, show } from "../core/known-options.ts";
import type { ToolSpec } from "./types.ts";

/** What a tool's `execute` receives besides its input. */
export interface ToolExecuteOptions {
  /** Aborted when the run is cancelled or a hook's deadline passes. */
  readonly signal: AbortSignal;
  /** The id of the model's tool call this execution answers. */
  readonly toolCallId: string;
  readonly sessionId?: string | undefined;
  readonly runId?: string | undefined;
  /** Names of the agents from the root to the one calling this tool. */
  readonly path?: readonly string[] | undefined;
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
  /**
   * Variables the session's start hooks exported for later shell commands (Claude Code's
   * `CLAUDE_ENV_FILE`), when there are any: a tool that runs commands adds them to their
   * environment (`commandEnv(options)`).
   */
  readonly env?: Readonly<Record<string, string>> | undefined;
  /** The file those `export` lines were written to, for a tool that sources it before each command instead. */
  readonly envFile?: string | undefined;
}

/**
 * A tool the model may call. `execute` returns the content the model will read; throwing
 * makes the call fail (the model reads an error result).
 *
 * @example
 * const read: AgentTool = { name: "Read", inputSchema: { type: "object" }, execute: ({ path }) => fs.readFile(String(path), "utf8") }
 */
export interface AgentTool<I extends Record<string, unknown> = Record<string, unknown>> {
  readonly name: string;
  readonly description?: string;
  /** JSON Schema of the input, sent to the model. */
  readonly inputSchema?: Record<string, unknown>;
  /** Runs the tool on the model's input; what it returns becomes the tool result. */
  execute(input: I, options: ToolExecuteOptions): unknown;
}

/**
 * Define a tool with a typed input (a helper for inference; returns the tool as given).
 *
 * @example
 * const add = defineTool<{ a: number; b: number }>({ name: "add", execute: ({ a, b }) => a + b })
 */
export const defineTool = <I extends Record<string, unknown>>(tool: AgentTool<I>): AgentTool => {
  knownOptions("defineTool", tool, TOOL_FIELDS);
  if (typeof tool.name !== "string" || tool.name.trim() === "")
    throw new TypeError(`defineTool: name must be a non-empty string, got ${show(tool.name)}`);
  if (typeof tool.execute !== "function")
    throw new TypeError(`defineTool: tool "${tool.name}" needs an execute function, got ${show(tool.execute)}`);
  return tool as unknown as AgentTool;
};

/** Every field of `AgentTool`: a misspelt one is refused rather than dropped. */
const TOOL_FIELDS = { name: true, description: true, inputSchema: true, execute: true } as const satisfies {
  readonly [K in keyof Required<AgentTool>]: true;
};

/**
 * What the model is told about a tool.
 *
 * @example
 * toolSpec({ name: "Read", description: "Read a file", execute: () => "" }) // { name: "Read", description: "Read a file" }
 */
export const toolSpec = (tool: AgentTool): ToolSpec => ({
  name: tool.name,
  ...(tool.description !== undefined ? { description: tool.description } : {}),
  ...(tool.inputSchema !== undefined ? { inputSchema: tool.inputSchema } : {}),
});
