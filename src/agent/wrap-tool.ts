/**
 * `wrapTool` and `runToolCall`: tool executions through the stack's `toolCall` point, for
 * use in any loop. A rejected or failed call becomes a `ToolResult` with `isError` whose text
 * explains what happened, because that is what the model needs to read to adjust (seed 000:
 * "the rejection message is fed back to the model as the tool result").
 */
import type { RunOptions } from "../core/context.ts";
import { AgentOnionError, describe, describeGiven } from "../core/errors.ts";
import type { Outcome } from "../core/outcome.ts";
import type { Operation } from "../core/stack-types.ts";
import type { AgentTool, ToolExecuteOptions } from "./tool.ts";
import { toolDurationMs } from "./tool-duration.ts";
import type { ToolCall, ToolResult } from "./types.ts";

/** Anything that can run the `toolCall` point. */
export interface ToolCallStack {
  /** Runs the `toolCall` point over a call. */
  run(point: "toolCall", input: ToolCall, operation: Operation<ToolCall, ToolResult>, options?: RunOptions): Promise<Outcome<ToolResult>>;
}

/** Finds the tool for a call by name (after hooks may have rewritten the call). */
export type ToolLookup = (name: string) => AgentTool | undefined;

/** A tool call's outcome, and the result the model reads. */
export interface ToolCallRun {
  readonly outcome: Outcome<ToolResult>;
  readonly result: ToolResult;
}

/**
 * The tool result that tells the model its call was rejected, by whom and why.
 *
 * @example
 * rejectedResult(call, "Destructive command blocked", "no-rm-rf").content
 * // 'Tool call Bash was rejected by no-rm-rf: Destructive command blocked'
 */
export const rejectedResult = (call: ToolCall, reason: string, by: string): ToolResult => ({
  content: `Tool call ${call.name} was rejected by ${by}: ${reason}`,
  isError: true,
});

/**
 * The tool result that tells the model its call failed.
 *
 * @example
 * failedResult(call, new Error("ENOENT")).content // 'Tool Read failed: ENOENT'
 */
export const failedResult = (call: ToolCall, error: unknown): ToolResult => ({
  content: `Tool ${call.name} failed: ${describe(error)}`,
  isError: true,
});

/**
 * The model asked for a tool that does not exist (or a hook renamed the call to one).
 *
 * @example
 * outcome._tag === "Failed" && outcome.error instanceof UnknownToolError // the model read: Tool X failed: unknown tool "X"
 */
export class UnknownToolError extends AgentOnionError {
  override name = "UnknownToolError";
  constructor(readonly tool: string) {
    super(`unknown tool "${tool}"`);
  }
}

/**
 * Thrown by a wrapped tool's `execute` when the call was rejected or failed; `result` is what a model should read.
 *
 * @example
 * try { await bash.execute(input, options) } catch (e) { if (e instanceof ToolCallError) return e.result }
 */
export class ToolCallError extends AgentOnionError {
  override name = "ToolCallError";
  constructor(readonly result: ToolResult) {
    super(typeof result.content === "string" ? result.content : describe(result.content));
  }
}

/**
 * The operation of a `toolCall` run: look the tool up by the (possibly rewritten) call and execute it.
 *
 * @example
 * stack.run("toolCall", call, executeTool(lookupIn(tools)), { signal })
 */
export const executeTool =
  (lookup: ToolLookup, extra: Omit<ToolExecuteOptions, "signal" | "toolCallId"> = {}): Operation<ToolCall, ToolResult> =>
  async (call, ctx) => {
    const tool = lookup(call.name);
    if (tool === undefined) throw new UnknownToolError(call.name);
    const started = performance.now();
    try {
      const content = await tool.execute(call.input as Record<string, unknown>, {
        ...extra,
        signal: ctx.signal,
        toolCallId: call.id,
        sessionId: ctx.sessionId,
        runId: ctx.runId,
        path: ctx.path,
        metadata: ctx.metadata,
      });
      return { content };
    } finally {
      ctx.local(toolDurationMs, Math.round(performance.now() - started));
    }
  };

/**
 * A lookup over a list of tools.
 *
 * @example
 * const lookup = lookupIn([read, write]); lookup("Read") // read
 */
export const lookupIn = (tools: readonly AgentTool[]): ToolLookup => {
  const byName = new Map(tools.map((t) => [t.name, t]));
  return (name) => byName.get(name);
};

/**
 * Run one tool call through the `toolCall` point; rejections and failures come back as error results.
 *
 * @example
 * const { result } = await runToolCall(stack, lookupIn(tools), { id: "1", name: "Bash", input: { command: "ls" } })
 */
export const runToolCall = async (stack: ToolCallStack, lookup: ToolLookup, call: ToolCall, options?: RunOptions): Promise<ToolCallRun> => {
  const outcome = await stack.run("toolCall", call, executeTool(lookup), options);
  return { outcome, result: resultOf(call, outcome) };
};

/**
 * The result the model reads for an outcome.
 *
 * @example
 * resultOf(call, Outcome.rejected("no", "guard")) // { content: "Tool call Bash was rejected by guard: no", isError: true }
 */
export const resultOf = (call: ToolCall, outcome: Outcome<ToolResult>): ToolResult =>
  outcome._tag === "Completed"
    ? outcome.value
    : outcome._tag === "Rejected"
      ? rejectedResult(call, outcome.reason, outcome.by)
      : failedResult(call, outcome.error);

let seq = 0;

/** A tool wrapped in a stack: `execute` throws `ToolCallError` on rejection or failure; `call` returns the result either way. */
export interface WrappedTool extends AgentTool {
  readonly inner: AgentTool;
  /** Runs the tool through the stack; throws `ToolCallError` when the call is rejected or fails. */
  execute(input: Record<string, unknown>, options: ToolExecuteOptions): Promise<unknown>;
  /** Runs a call through the stack and returns its result, an error result when rejected or failed. */
  call(call: Omit<ToolCall, "name"> & { readonly name?: string }, options?: RunOptions): Promise<ToolCallRun>;
}

/**
 * Wrap a tool so that every execution runs through the stack's `toolCall` point.
 *
 * @example
 * const bash = wrapTool(stack, bashTool, { sessionId: "s1" })
 * await bash.execute({ command: "rm -rf /" }, { signal, toolCallId: "c1" }) // throws ToolCallError: rejected by no-rm-rf
 */
export const wrapTool = (stack: ToolCallStack, tool: AgentTool, defaults: Omit<RunOptions, "signal"> = {}): WrappedTool => {
  checkWrapped(stack, tool);
  const lookup: ToolLookup = (name) => (name === tool.name ? tool : undefined);
  const call: WrappedTool["call"] = (c, options) => {
    if (typeof c !== "object" || c === null)
      return Promise.reject(
        new TypeError(`wrapTool(${tool.name}).call: the call must be an object { id, input }, got ${c === null ? "null" : typeof c}`),
      );
    try {
      return runToolCall(
        stack,
        lookup,
        { id: c.id, name: c.name ?? tool.name, input: c.input },
        { ...defaults, ...options, metadata: { ...defaults.metadata, ...options?.metadata } },
      );
    } catch (error) {
      return Promise.reject(error); // reading the caller's call or options threw (a Proxy): the promise says so, as stack.run's does
    }
  };
  return {
    name: tool.name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    ...(tool.inputSchema !== undefined ? { inputSchema: tool.inputSchema } : {}),
    inner: tool,
    call,
    async execute(input, options) {
      const { result } = await call(
        { id: options?.toolCallId ?? `call-${++seq}`, input },
        {
          signal: options?.signal,
          ...(options?.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
          ...(options?.runId !== undefined ? { runId: options.runId } : {}),
          ...(options?.path !== undefined ? { path: options.path } : {}),
          ...(options?.metadata !== undefined ? { metadata: options.metadata } : {}),
        },
      );
      if (result.isError === true) throw new ToolCallError(result);
      return result.content;
    },
  };
};

/**
 * Refuse a stack without `run`, or a tool without a name or an `execute` function, when wrapping:
 * otherwise every call would fail later with "tool.execute is not a function".
 */
const checkWrapped = (stack: unknown, tool: unknown): void => {
  if (typeof (stack as Partial<ToolCallStack> | null)?.run !== "function")
    throw new TypeError(`wrapTool: stack must be a stack with run (createAgentStack()), got ${describeGiven(stack)}`);
  if (typeof tool !== "object" || tool === null)
    throw new TypeError(`wrapTool: tool must be an object { name, execute }, got ${describeGiven(tool)}`);
  const { name, execute } = tool as Partial<AgentTool>;
  if (typeof name !== "string" || name === "")
    throw new TypeError(`wrapTool: tool.name must be a non-empty string, got ${describeGiven(name)}`);
  if (typeof execute !== "function") throw new TypeError(`wrapTool "${name}": execute must be a function, got ${describeGiven(execute)}`);
};
