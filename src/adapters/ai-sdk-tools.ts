/**
 * `wrapAiSdkTools`: AI SDK tools whose `execute` runs through the stack's `toolCall` point.
 *
 * A rejection follows the AI SDK's own convention for a tool that did not run: `execute`
 * throws, the SDK records a `tool-error` and sends the model an error result (`error-text`)
 * whose text is the rejection ("Tool call X was rejected by H: reason"), so the model reads why
 * and the loop goes on; apps tell rejections apart by `error instanceof ToolCallError`. Pass
 * `rejected` to answer with a normal result instead. A tool's own error is rethrown unchanged,
 * so `tool-error` parts carry it. The SDK's tool-approval flow (`needsApproval`) is untouched:
 * it runs before `execute`, and a denied call never reaches the hooks.
 *
 * A tool whose `execute` streams (an async iterable of preliminary results) runs to its last
 * value inside the point: hooks see, and the SDK receives, the final output only.
 */
import type { RunOptions } from "../core/context.ts";
import { describeGiven, RunAbortedError } from "../core/errors.ts";
import type { DeepReadonly } from "../core/readonly.ts";
import { neverAborted } from "../core/signal.ts";
import { rejectedResult, ToolCallError, UnknownToolError, type ToolCallStack } from "../agent/wrap-tool.ts";
import type { ToolCall, ToolResult } from "../agent/types.ts";

/**
 * What the AI SDK passes to `execute` besides the input (the fields read here; the rest passes through).
 *
 * @example
 * await tools.bash.execute({ command: "ls" }, { toolCallId: "c1", messages: [], abortSignal })
 */
export interface AiSdkToolExecutionOptions {
  readonly toolCallId: string;
  readonly abortSignal?: AbortSignal | undefined;
}

type Execute = (input: unknown, options: AiSdkToolExecutionOptions) => unknown;

/**
 * Options of `wrapAiSdkTools`: run options per call, and how a rejection answers.
 *
 * @example
 * wrapAiSdkTools(stack, tools, { run: { sessionId }, rejected: (reason) => ({ blocked: reason }) })
 */
export interface WrapAiSdkToolsOptions {
  /** Run options for every call (session, metadata...), or a function of the call. */
  readonly run?: Omit<RunOptions, "signal"> | ((call: ToolCall) => Omit<RunOptions, "signal">);
  /** Answer a rejected call with this output instead of throwing (the model reads it as a normal result). */
  readonly rejected?: (reason: string, by: string, call: DeepReadonly<ToolCall>) => unknown;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Inputs that are not objects travel as `{ value }`, because a `ToolCall`'s input is a record. */
const boxed = Symbol("agent-onion.boxed-input");

/**
 * Wrap every tool of an AI SDK tool set so that its `execute` runs through the stack's
 * `toolCall` point (tools without `execute` are returned as they are).
 *
 * @example
 * const tools = wrapAiSdkTools(stack, { bash: tool({ inputSchema: z.object({ command: z.string() }), execute: runBash }) })
 * await generateText({ model, tools, prompt: "clean up", stopWhen: stepCountIs(5) }) // a rejected call reaches the model as a tool error
 */
export const wrapAiSdkTools = <T extends Record<string, object>>(stack: ToolCallStack, tools: T, options: WrapAiSdkToolsOptions = {}): T => {
  checkWrapped(stack, tools, options);
  const executes = new Map<string, Execute>();
  for (const [name, t] of Object.entries(tools)) {
    const execute = (t as { execute?: unknown }).execute;
    if (typeof execute === "function") executes.set(name, (execute as Execute).bind(t));
  }
  const wrapped: Record<string, object> = {};
  for (const [name, t] of Object.entries(tools)) {
    wrapped[name] = executes.has(name) ? { ...t, execute: (input: unknown, sdk: AiSdkToolExecutionOptions) => runTool(name, input, sdk) } : t;
  }

  const runTool = async (name: string, input: unknown, sdk: AiSdkToolExecutionOptions): Promise<unknown> => {
    const call: ToolCall = {
      id: sdk.toolCallId,
      name,
      // A copy: strict mode freezes what hooks see, and the SDK keeps the input in its results.
      input: isRecord(input) ? structuredClone(input) : { value: structuredClone(input), [boxed]: true },
    };
    const run = typeof options.run === "function" ? options.run(call) : options.run;
    const outcome = await stack.run("toolCall", call, async (c, ctx) => {
      // A hook may have renamed the call: run the tool of the new name, as `executeTool` does.
      const execute = executes.get(c.name);
      if (execute === undefined) throw new UnknownToolError(c.name);
      const args = (c.input as Record<string | symbol, unknown>)[boxed] === true ? c.input.value : c.input;
      const abortSignal = ctx.signal === neverAborted ? sdk.abortSignal : ctx.signal;
      return { content: await lastValue(execute(args, { ...sdk, abortSignal })) };
    }, { ...run, signal: sdk.abortSignal });
    if (outcome._tag === "Completed") {
      if (outcome.value.isError === true) throw new ToolCallError(outcome.value as ToolResult);
      return outcome.value.content;
    }
    if (outcome._tag === "Rejected") {
      if (options.rejected !== undefined) return options.rejected(outcome.reason, outcome.by, call);
      throw new ToolCallError(rejectedResult(call, outcome.reason, outcome.by));
    }
    const error = outcome.error;
    throw error instanceof RunAbortedError && !error.timedOut && sdk.abortSignal?.aborted ? sdk.abortSignal.reason : error;
  };
  return wrapped as T;
};

/**
 * Refuse a stack without `run`, a tool set that is not an object of tools, an `execute` that is
 * given but not a function, or a `rejected` that is not one, when wrapping: otherwise the mistake
 * would surface as a raw TypeError here or on the first call.
 */
const checkWrapped = (stack: unknown, tools: unknown, options: WrapAiSdkToolsOptions): void => {
  if (typeof (stack as Partial<ToolCallStack> | null)?.run !== "function")
    throw new TypeError(`wrapAiSdkTools: stack must be a stack with run (createAgentStack()), got ${describeGiven(stack)}`);
  if (typeof tools !== "object" || tools === null) throw new TypeError(`wrapAiSdkTools: tools must be an object of AI SDK tools by name, got ${describeGiven(tools)}`);
  for (const [name, t] of Object.entries(tools)) {
    if (typeof t !== "object" || t === null) throw new TypeError(`wrapAiSdkTools "${name}": the tool must be an object, got ${describeGiven(t)}`);
    const execute: unknown = (t as { execute?: unknown }).execute;
    if (execute !== undefined && typeof execute !== "function") throw new TypeError(`wrapAiSdkTools "${name}": execute must be a function when given, got ${describeGiven(execute)}`);
  }
  const rejected: unknown = options?.rejected;
  if (rejected !== undefined && typeof rejected !== "function") throw new TypeError(`wrapAiSdkTools: rejected must be a function when given, got ${describeGiven(rejected)}`);
};

/** A streaming tool's final value (its last yield), or the awaited value of any other. */
const lastValue = async (result: unknown): Promise<unknown> => {
  if (typeof result !== "object" || result === null || !(Symbol.asyncIterator in result)) return result;
  let last: unknown;
  for await (const value of result as AsyncIterable<unknown>) last = value;
  return last;
};
