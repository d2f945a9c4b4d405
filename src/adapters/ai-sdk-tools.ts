/**
 * `wrapAiSdkTools`: AI SDK tools whose `execute` runs through the stack's `toolCall` point.
 *
 * A rejection follows the AI SDK's own convention for a tool that did not run: `execute`
 * throws, the SDK records a `tool-error` and sends the model an error result (`error-text`)
 * whose text is the rejection ("Tool call X was rejected by H: reason"), so the model reads why
 * and the loop goes on; apps tell rejections apart by `error instanceof ToolCallError`. Pass
 * `rejected` to answer with a normal result instead. A tool's own error is rethrown unchanged,
 * so `tool-error` parts carry it. A tool's own `needsApproval` is kept: it runs before `execute`,
 * and a call the person denied never reaches the hooks.
 *
 * With `approval: "ai-sdk"`, a hook that asks for approval (`ctx.approve`, the approval
 * middleware, a Claude Code hook answering `ask`) is asked through the SDK's own flow: the
 * wrapped tool's `needsApproval` runs the `toolCall` point, and when a hook asks, the SDK ends the
 * step with a `tool-approval-request`; the app answers with a `tool-approval-response` in the
 * next call's messages, and the hook gets that answer (approved, with the response's reason) when
 * the SDK executes the call. A call no hook asks about runs in the very run `needsApproval`
 * started: its hooks run once.
 *
 * A tool whose `execute` streams (an async iterable of preliminary results) runs to its last
 * value inside the point: hooks see, and the SDK receives, the final output only.
 */
import type { ApprovalAnswer } from "../core/approval-types.ts";
import type { RunOptions } from "../core/context.ts";
import { describeGiven, RunAbortedError } from "../core/errors.ts";
import type { Outcome } from "../core/outcome.ts";
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
  /**
   * `"ai-sdk"`: ask a person through the SDK's tool approval (`needsApproval`, answered by a
   * `tool-approval-response`) whenever a hook asks for approval. Default: hooks ask the stack's approver.
   */
  readonly approval?: "ai-sdk";
}

/** What the SDK passes to `needsApproval` besides the input (the fields read here). */
interface NeedsApprovalOptions {
  readonly toolCallId: string;
  readonly messages?: readonly unknown[];
}

type Operation = (call: DeepReadonly<ToolCall>, ctx: { readonly signal: AbortSignal }) => Promise<ToolResult>;

/** A run `needsApproval` started that reached the tool: it waits for the SDK's `execute` to run it. */
interface Held {
  readonly release: (operation: Operation) => void;
  readonly outcome: Promise<Outcome<ToolResult>>;
}

/** The reason the asking hook gets while the SDK asks the person: the run stops there. */
const askedThroughSdk = "waiting for a person's answer through the AI SDK's tool approval";

/**
 * The person's answer to a call, from the messages the SDK passes to `execute`: the
 * `tool-approval-response` to the `tool-approval-request` for that call, read as an approval answer.
 */
const sdkAnswer = (messages: readonly unknown[] | undefined, toolCallId: string): ApprovalAnswer | undefined => {
  const parts = (role: string): Record<string, unknown>[] =>
    (messages ?? []).flatMap((m) => {
      const message = m as { role?: unknown; content?: unknown };
      return message?.role === role && Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : [];
    });
  const ids = new Set(parts("assistant").filter((p) => p?.type === "tool-approval-request" && p.toolCallId === toolCallId).map((p) => p.approvalId));
  const response = parts("tool").find((p) => p?.type === "tool-approval-response" && ids.has(p.approvalId));
  if (response === undefined) return undefined;
  const reason = typeof response.reason === "string" && response.reason !== "" ? response.reason : undefined;
  const by = "ai-sdk tool approval";
  // Only `approved: true` approves; the SDK does not execute denied calls, but a malformed answer is a denial too.
  return response.approved === true ? { decision: "approve", by, ...(reason !== undefined ? { reason } : {}) } : { decision: "deny", by, reason: reason ?? "denied through the AI SDK's tool approval" };
};

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
  const throughSdk = options.approval === "ai-sdk";
  // Runs started by `needsApproval`, by tool call id, until `execute` takes them.
  const held = new Map<string, Held>();
  const wrapped: Record<string, object> = {};
  for (const [name, t] of Object.entries(tools)) {
    if (!executes.has(name)) wrapped[name] = t;
    else if (!throughSdk) wrapped[name] = { ...t, execute: (input: unknown, sdk: AiSdkToolExecutionOptions) => runTool(name, input, sdk) };
    else wrapped[name] = { ...t, needsApproval: (input: unknown, sdk: NeedsApprovalOptions) => needsApproval(name, (t as { needsApproval?: unknown }).needsApproval, input, sdk), execute: (input: unknown, sdk: AiSdkToolExecutionOptions) => runTool(name, input, sdk) };
  }

  const callOf = (name: string, input: unknown, id: string): ToolCall => ({
    id,
    name,
    // A copy: strict mode freezes what hooks see, and the SDK keeps the input in its results.
    input: isRecord(input) ? structuredClone(input) : { value: structuredClone(input), [boxed]: true },
  });
  const runOptions = (call: ToolCall) => (typeof options.run === "function" ? options.run(call) : options.run);
  /** The tool itself, for the (possibly rewritten) call a run reached. */
  const operationFor = (sdk: AiSdkToolExecutionOptions): Operation => async (c, ctx) => {
    // A hook may have renamed the call: run the tool of the new name, as `executeTool` does.
    const execute = executes.get(c.name);
    if (execute === undefined) throw new UnknownToolError(c.name);
    const args = (c.input as Record<string | symbol, unknown>)[boxed] === true ? c.input.value : c.input;
    const abortSignal = ctx.signal === neverAborted ? sdk.abortSignal : ctx.signal;
    return { content: await lastValue(execute(args, { ...sdk, abortSignal })) };
  };

  /**
   * Start the call's run with an approver that, when a hook asks, denies it for now: then the SDK
   * asks the person (true). A run that reaches the tool waits there for `execute` (false); one
   * that settles otherwise (a guard's refusal) is reported by `execute` as it is.
   */
  const needsApproval = async (name: string, own: unknown, input: unknown, sdk: NeedsApprovalOptions): Promise<boolean> => {
    // The tool's own rule asks first; the hooks then run in `execute`, with the person's answer.
    if (own === true || (typeof own === "function" && (await (own as (i: unknown, o: unknown) => unknown)(input, sdk)) === true)) return true;
    // The SDK asks again before executing an approved call (it executes it only on true): the
    // person answered, and `execute` hands the answer to the hook that asked.
    if (sdkAnswer(sdk.messages, sdk.toolCallId) !== undefined) return true;
    const call = callOf(name, input, sdk.toolCallId);
    let asked = false;
    let reached!: () => void;
    const reaching = new Promise<"reached">((resolve) => (reached = () => resolve("reached")));
    let release!: (operation: Operation) => void;
    const released = new Promise<Operation>((resolve) => (release = resolve));
    const outcome = stack.run("toolCall", call, async (c, ctx) => {
      reached();
      const operation = await untilAborted(released, ctx.signal);
      return operation(c, ctx);
    }, {
      ...runOptions(call),
      approval: () => {
        asked = true;
        return { decision: "deny", reason: askedThroughSdk };
      },
    }) as Promise<Outcome<ToolResult>>;
    const first = await Promise.race([reaching, outcome.then(() => "settled" as const)]);
    if (first === "settled" && asked && (await outcome)._tag === "Rejected") return true;
    held.set(sdk.toolCallId, { release, outcome });
    return false;
  };

  const runTool = async (name: string, input: unknown, sdk: AiSdkToolExecutionOptions & NeedsApprovalOptions): Promise<unknown> => {
    const call = callOf(name, input, sdk.toolCallId);
    const waiting = held.get(sdk.toolCallId);
    held.delete(sdk.toolCallId);
    let outcome: Outcome<ToolResult>;
    if (waiting !== undefined) {
      waiting.release(operationFor(sdk));
      outcome = await waiting.outcome;
    } else {
      // After the SDK asked the person: the asking hook gets their answer.
      const answer = throughSdk ? sdkAnswer(sdk.messages, sdk.toolCallId) : undefined;
      outcome = (await stack.run("toolCall", call, operationFor(sdk), {
        ...runOptions(call),
        signal: sdk.abortSignal,
        ...(answer !== undefined ? { approval: () => answer } : {}),
      })) as Outcome<ToolResult>;
    }
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
  const approval: unknown = options?.approval;
  if (approval !== undefined && approval !== "ai-sdk") throw new TypeError(`wrapAiSdkTools: approval must be "ai-sdk" when given, got ${describeGiven(approval)}`);
};

/** `promise`, or a rejection with the signal's reason once it aborts (a held run given up on). */
const untilAborted = <T>(promise: Promise<T>, signal: AbortSignal): Promise<T> => {
  if (signal === neverAborted) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => reject(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
};

/** A streaming tool's final value (its last yield), or the awaited value of any other. */
const lastValue = async (result: unknown): Promise<unknown> => {
  if (typeof result !== "object" || result === null || !(Symbol.asyncIterator in result)) return result;
  let last: unknown;
  for await (const value of result as AsyncIterable<unknown>) last = value;
  return last;
};
