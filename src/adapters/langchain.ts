/**
 * `langchainMiddleware`: one agent-onion stack as a LangChain.js v1 agent middleware, for
 * `createAgent({ model, tools, middleware: [langchainMiddleware(stack)] })`.
 *
 * LangChain's extension points and the agent points they run:
 * - `beforeAgent` → `userPrompt` (a new prompt: rewrite it, refuse it, add context);
 * - `wrapModelCall` → `step` (its index, the conversation; a guard's stop ends the run cleanly)
 *   and, through the model it puts in the agent's model's place (`GuardedChatModel`), `modelCall`,
 *   generated or streamed (output gates and chunk hooks gate what `agent.stream` shows);
 * - `wrapToolCall` → `toolCall` (a refusal is an error `ToolMessage`, as LangChain refuses);
 * - a failure inside either → `error` (retry, recover, or fail as LangChain would);
 * - `afterAgent` → `stop` (a block feeds the reasons back and returns to the model);
 * - `ctx.approve` on `toolCall` → LangGraph's `interrupt`, answered by `Command({ resume })`.
 * Points the stack has no hook on cost nothing: their LangChain hook is left out.
 */
import type { MessageContent } from "@langchain/core/messages";
import { RunnableBinding } from "@langchain/core/runnables";
import { createMiddleware, type AgentMiddleware } from "langchain";
import type { RunOptions } from "../core/context.ts";
import { describeGiven, RunAbortedError } from "../core/errors.ts";
import { OutcomeRejectedError } from "../core/outcome.ts";
import type { DeepReadonly } from "../core/readonly.ts";
import type { StateStore } from "../core/state.ts";
import { MemoryStore } from "../core/memory-store.ts";
import type { AgentStack } from "../agent/stack.ts";
import { holdBackProblem, type HoldBack } from "../agent/stream/control.ts";
import { isStopSignal } from "../agent/stop-signal.ts";
import { noUsage } from "../agent/model.ts";
import { notAResponse } from "../agent/response-shape.ts";
import type { ModelResponse, ToolCall } from "../agent/types.ts";
import { decide } from "./langchain/decide.ts";
import { toMessage } from "./langchain/messages.ts";
import { GuardedChatModel, type ChatModelLike } from "./langchain/model.ts";
import { toAIMessage, toResponse } from "./langchain/response.ts";
import { runTool, type LangChainToolCallRequest, type ToolAnswer } from "./langchain/tools.ts";
import { checkPrompt, checkStop, guardStop, stepIndex, turnIds, type TurnRuntime } from "./langchain/turn.ts";
import { stackArgument } from "../agent/stack-argument.ts";
import { knownOptions } from "../core/known-options.ts";

/**
 * One call the middleware is about to run, for per-call run options.
 *
 * @example
 * langchainMiddleware(stack, { run: (call) => ({ metadata: { user: call.runtime?.context } }) })
 */
export interface LangChainCallInfo {
  readonly point: "userPrompt" | "step" | "modelCall" | "toolCall" | "stop";
  /** The thread (`configurable.thread_id`), when the agent runs with one. */
  readonly sessionId?: string;
  /** The turn: the thread and the id of the prompt that started it. */
  readonly runId: string;
  /** LangGraph's runtime of the call (context, configurable, signal...). */
  readonly runtime: unknown;
}

/**
 * What `langchainMiddleware` needs of a stack: running the agent points, and `has` to leave out
 * what no hook listens to.
 *
 * @example
 * const stack: LangChainStack = withMiddleware(createAgentStack(), guards(), metrics())
 */
export type LangChainStack = Pick<AgentStack, "run" | "has">;

/**
 * Options of `langchainMiddleware`.
 *
 * @example
 * langchainMiddleware(stack, { run: { metadata: { tenant: "acme" } }, holdBack: { window: 64 }, store: new RedisStore(redis) })
 */
export interface LangChainMiddlewareOptions {
  /** The middleware's name in LangChain (its errors name it); default `"AgentOnionMiddleware"`. */
  readonly name?: string;
  /** Run options for every call (metadata, timeoutMs, trace...), or a function of the call. Session and run ids default to the thread and the turn. */
  readonly run?: Omit<RunOptions, "signal"> | ((call: LangChainCallInfo) => Omit<RunOptions, "signal">);
  /** The least hold-back for streamed answers; output gates ask for more themselves. Default `"none"`. */
  readonly holdBack?: HoldBack;
  /**
   * How a hook's `ctx.approve` on `toolCall` is answered: `"interrupt"` (default) pauses the agent
   * with LangGraph's `interrupt` (a checkpointer is needed, as for LangChain's own
   * human-in-the-loop), `"handler"` asks the stack's approval handler in process.
   */
  readonly approvals?: "interrupt" | "handler";
  /**
   * Where each question's digest is kept and each resumed approval claimed once, across the
   * processes sharing it (a `RedisStore`): a second resume of the same pause is refused, and an answer
   * counts only for the question it answers. Without it, a store of this process: only the process
   * that asked can take the answer (one resumed elsewhere, or after a restart, is a denial saying so).
   */
  readonly store?: StateStore;
  /** How long a claim is kept, in ms; default 7 days. */
  readonly resumeTtlMs?: number;
  /** The content of the tool message that refuses a call; default `Tool call X was rejected by H: reason`. */
  readonly rejected?: (reason: string, by: string, call: DeepReadonly<ToolCall>) => MessageContent;
  /** The answer that ends a run whose prompt was refused; default `Prompt rejected by H: reason`. */
  readonly promptRejected?: (reason: string, by: string) => string;
  /** Retries the `error` point may ask for per call; default 3. */
  readonly maxRetries?: number;
  /** Blocks of the `stop` gate per run before the agent stops anyway (R13); default 8. */
  readonly maxStopBlocks?: number;
  /** The model's id as hooks see it (the `modelCall` subject); default its `model`/`modelName` field, or its type. */
  readonly modelId?: (model: unknown) => string;
}

const weekMs = 7 * 24 * 3_600_000;

/** The model's id: its own `model`/`modelName`, the configured one of `initChatModel`, or its type. */
const defaultModelId = (model: unknown): string => {
  const m = model as { model?: unknown; modelName?: unknown; _defaultConfig?: { model?: unknown }; _llmType?: () => unknown } | null;
  for (const id of [m?.model, m?.modelName, m?._defaultConfig?.model]) if (typeof id === "string" && id !== "") return id;
  const type = typeof m?._llmType === "function" ? m._llmType() : undefined;
  return typeof type === "string" ? type : "unknown";
};

const isChatModel = (model: unknown): model is ChatModelLike => {
  const m = model as Partial<Record<"bindTools" | "invoke" | "stream", unknown>> | null;
  return typeof m?.bindTools === "function" && typeof m.invoke === "function" && typeof m.stream === "function";
};

/** Refuse a stack without `run`, or options of the wrong type, at creation: otherwise the first call would fail with a raw TypeError. */
const checkOptions = (stack: unknown, options: LangChainMiddlewareOptions): void => {
  stackArgument("langchainMiddleware", stack);
  if (typeof options !== "object" || options === null)
    throw new TypeError(`langchainMiddleware: options must be an object, got ${describeGiven(options)}`);
  knownOptions("langchainMiddleware", options, {
    name: true,
    run: true,
    holdBack: true,
    approvals: true,
    store: true,
    resumeTtlMs: true,
    rejected: true,
    promptRejected: true,
    maxRetries: true,
    maxStopBlocks: true,
    modelId: true,
  });
  if (options.name !== undefined && (typeof options.name !== "string" || options.name === ""))
    throw new TypeError(`langchainMiddleware: name must be a non-empty string when given, got ${describeGiven(options.name)}`);
  for (const key of ["rejected", "promptRejected", "modelId"] as const) {
    const value: unknown = options[key];
    if (value !== undefined && typeof value !== "function")
      throw new TypeError(`langchainMiddleware: ${key} must be a function when given, got ${describeGiven(value)}`);
  }
  if (options.approvals !== undefined && options.approvals !== "interrupt" && options.approvals !== "handler")
    throw new TypeError(`langchainMiddleware: approvals must be "interrupt" or "handler", got ${describeGiven(options.approvals)}`);
  for (const key of ["maxRetries", "maxStopBlocks", "resumeTtlMs"] as const) {
    const value: unknown = options[key];
    if (value !== undefined && (typeof value !== "number" || !Number.isSafeInteger(value) || value < (key === "resumeTtlMs" ? 1 : 0)))
      throw new TypeError(
        `langchainMiddleware: ${key} must be a whole number ${key === "resumeTtlMs" ? "from 1" : "from 0"}, got ${describeGiven(value)}`,
      );
  }
  const store: unknown = options.store;
  if (store !== undefined && typeof (store as Partial<StateStore> | null)?.incr !== "function")
    throw new TypeError(`langchainMiddleware: store must be a StateStore (MemoryStore, RedisStore), got ${describeGiven(store)}`);
  const holdBack = holdBackProblem(options.holdBack);
  if (holdBack !== undefined) throw new TypeError(`langchainMiddleware: ${holdBack}`);
};

/**
 * A LangChain agent middleware that runs the agent's prompts, steps, model calls, tool calls and
 * stop decisions through the stack.
 *
 * @example
 * import { createAgent } from "langchain"
 * const stack = withMiddleware(createAgentStack(), guards(), toolPolicy({ deny: ["bash(rm -rf*)"] }), metrics())
 * const agent = createAgent({ model: "openai:gpt-4o", tools: [bash], middleware: [langchainMiddleware(stack)], checkpointer })
 * await agent.invoke({ messages: [{ role: "user", content: "Clean up ./build" }] }, { configurable: { thread_id: "t1" } })
 */
export const langchainMiddleware = (stack: LangChainStack, options: LangChainMiddlewareOptions = {}): AgentMiddleware => {
  checkOptions(stack, options);
  const has = (point: Parameters<LangChainStack["has"]>[0]): boolean => stack.has?.(point) !== false;
  const maxRetries = options.maxRetries ?? 3;
  const modelIdOf = options.modelId ?? defaultModelId;
  const runFor = (
    point: LangChainCallInfo["point"],
    messages: Parameters<typeof turnIds>[0],
    runtime: unknown,
  ): Omit<RunOptions, "signal"> => {
    const ids = turnIds(messages, runtime as TurnRuntime | undefined);
    const own = typeof options.run === "function" ? options.run({ point, ...ids, runtime }) : options.run;
    return own === undefined ? ids : { ...ids, ...own };
  };

  const toolScope = (run: Omit<RunOptions, "signal">) => ({
    stack,
    run,
    rejected: options.rejected,
    interrupts: options.approvals !== "handler",
    // Without a shared store, the questions of this process are kept here: an answer is bound to its
    // question all the same, and only the process that asked can take it.
    store: options.store ?? processStore(stack),
    shared: options.store !== undefined,
    resumeTtlMs: options.resumeTtlMs ?? weekMs,
    maxRetries,
  });

  /** The agent's model, with `modelCall` hooks around its calls. */
  const guarded = (model: unknown, run: Omit<RunOptions, "signal">): unknown => {
    const scope = { stack, run, holdBack: options.holdBack, modelId: modelIdOf(model) };
    if (isChatModel(model)) return new GuardedChatModel(scope, model);
    // A chat model with call options bound (`model.withConfig(...)`): guard the model, keep the binding.
    if (RunnableBinding.isRunnableBinding(model) && isChatModel(model.bound))
      return new RunnableBinding({
        bound: new GuardedChatModel({ ...scope, modelId: modelIdOf(model.bound) }, model.bound),
        config: model.config,
        ...(model.kwargs !== undefined ? { kwargs: model.kwargs } : {}),
        ...(model.configFactories !== undefined ? { configFactories: model.configFactories } : {}),
      });
    throw new TypeError(
      `langchainMiddleware: the agent's model must be a chat model (with bindTools, invoke and stream) for modelCall hooks to run, got ${describeGiven(model)}`,
    );
  };

  type LcModelRequest = Parameters<NonNullable<AgentMiddleware["wrapModelCall"]>>[0];
  type ModelHandler = Parameters<NonNullable<AgentMiddleware["wrapModelCall"]>>[1];
  type Answer = Awaited<ReturnType<ModelHandler>>;

  /** The model call with the `error` point deciding about its failures. */
  const callModel = async (request: LcModelRequest, handler: ModelHandler, run: Omit<RunOptions, "signal">): Promise<Answer> => {
    const caller = request.runtime.signal;
    for (let attempt = 1; ; attempt++) {
      try {
        return await handler(request);
      } catch (error) {
        const decision = await decide(stack, { where: "model", error, attempt }, run, maxRetries, caller);
        if (decision.action === "retry") continue;
        if (decision.action !== "recover") throw error;
        const value = decision.value as Partial<ModelResponse> | null;
        const recovered =
          typeof value === "object" && value !== null && typeof value.text === "string"
            ? ({ toolCalls: [], finishReason: "stop", usage: noUsage, ...value } as ModelResponse)
            : {
                text: typeof decision.value === "string" ? decision.value : (JSON.stringify(decision.value) ?? ""),
                toolCalls: [],
                finishReason: "stop" as const,
                usage: noUsage,
              };
        // Checked as a model's answer is: the agent must not read a tool call list that is not one.
        const malformed = notAResponse(recovered);
        if (malformed !== undefined) throw new TypeError(`the error point's recover value: ${malformed.message}`);
        return toAIMessage(recovered);
      }
    }
  };

  const modelHooks = has("modelCall");
  const stepHooks = has("step");
  const wrapModelCall = async (request: LcModelRequest, handler: ModelHandler): Promise<Answer> => {
    const messages = request.state.messages;
    const run = runFor("modelCall", messages, request.runtime);
    const next = modelHooks ? ({ ...request, model: guarded(request.model, run) } as LcModelRequest) : request;
    if (!stepHooks) return callModel(next, handler, run);
    const caller = request.runtime.signal;
    const input = { index: stepIndex(messages), messages: messages.map(toMessage) };
    let answer: Answer | undefined;
    let produced: ModelResponse | undefined;
    const modelId = modelIdOf(request.model);
    const outcome = await stack.run(
      "step",
      input,
      async () => {
        answer = await callModel(next, handler, run);
        produced = toResponse(answer, input.messages, modelId);
        return { response: produced, toolResults: [] };
      },
      { ...runFor("step", messages, request.runtime), signal: caller },
    );
    if (outcome._tag === "Completed") {
      const response = outcome.value.response;
      return answer !== undefined && produced !== undefined
        ? toAIMessage(response, { message: answer, response: produced })
        : toAIMessage(response);
    }
    if (outcome._tag === "Rejected") throw new OutcomeRejectedError(outcome.reason, outcome.by, outcome.cause);
    const error = outcome.error;
    if (isStopSignal(error)) return guardStop(error.message, (error as { middleware?: unknown }).middleware as string | undefined);
    throw error instanceof RunAbortedError && !error.timedOut && caller?.aborted ? caller.reason : error;
  };

  type ToolHook = NonNullable<AgentMiddleware["wrapToolCall"]>;
  const wrapToolCall: ToolHook = (request, handler) =>
    runTool(
      toolScope(runFor("toolCall", request.state.messages, request.runtime)),
      request as unknown as LangChainToolCallRequest,
      handler as (r: never) => Promise<ToolAnswer>,
    ) as ReturnType<ToolHook>;

  const refusal = options.promptRejected ?? ((reason: string, by: string) => `Prompt rejected by ${by}: ${reason}`);
  const maxStopBlocks = options.maxStopBlocks ?? 8;
  return createMiddleware({
    name: options.name ?? "AgentOnionMiddleware",
    ...(has("userPrompt")
      ? {
          beforeAgent: {
            canJumpTo: ["end"],
            hook: (state, runtime) => checkPrompt(stack, runFor("userPrompt", state.messages, runtime), state.messages, runtime, refusal),
          },
        }
      : {}),
    ...(modelHooks || stepHooks || has("error") ? { wrapModelCall } : {}),
    ...(has("toolCall") || has("error") ? { wrapToolCall } : {}),
    ...(has("stop")
      ? {
          afterAgent: {
            canJumpTo: ["model"],
            hook: (state, runtime) => checkStop(stack, runFor("stop", state.messages, runtime), state.messages, runtime, maxStopBlocks),
          },
        }
      : {}),
  } as Parameters<typeof createMiddleware>[0]) as AgentMiddleware;
};

export { ApprovalPendingError, ApprovalResumedError, decisionOf, hitlRequest, type HitlRequest } from "./langchain/approval.ts";
export { GuardedChatModel, type ChatModelLike, type Invokable, type ModelScope } from "./langchain/model.ts";

/** The questions of this process, per stack, for a middleware given no `store`. */
const processStores = new WeakMap<object, MemoryStore>();

const processStore = (stack: object): MemoryStore => {
  let store = processStores.get(stack);
  if (store === undefined) processStores.set(stack, (store = new MemoryStore()));
  return store;
};
