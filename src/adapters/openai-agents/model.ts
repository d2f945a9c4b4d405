/**
 * `guardModel` and `guardModelProvider`: an Agents SDK `Model` whose every call runs through the
 * stack's `modelCall` point, for `getResponse` and `getStreamedResponse` alike.
 *
 * - `before` hooks see the SDK's request as a `ModelRequest`; what they change (messages, the
 *   tools offered, temperature, max tokens) reaches the model, the rest of the request untouched
 *   (request.ts). `ctx.addContext(text)` reaches this very call, after the system instructions.
 * - `after` hooks see the answer as a `ModelResponse` with the usage the model reported; what
 *   they change is written into the model's own response (response.ts), and a `Replace` in
 *   `before` (a cache) answers without calling the model at all.
 * - Streams go through the agent layer's streaming machinery (`streamThroughStack`): chunk
 *   hooks, output gates and hold-back behave exactly as in our own loop, and the `response_done`
 *   event the SDK reads the turn from carries the answer the gate let through (stream.ts).
 * - `modelCall` is an observation point: no hook can `Reject` it. A hook that fails closed, or an
 *   `around` returning `Failed`, makes the call throw (an `OutcomeRejectedError` naming the hook,
 *   or the failure's error); the model's own errors are rethrown unchanged, so the SDK's retry
 *   policy and error handlers see them, and a run the caller aborted throws the caller's reason.
 */
import {
  OpenAIChatCompletionsModel,
  type Model,
  type ModelProvider,
  type ModelRequest as SdkRequest,
  type ModelResponse as SdkResponse,
  type StreamEvent,
} from "@openai/agents";
import type { RunOptions } from "../../core/context.ts";
import { describeGiven, RunAbortedError } from "../../core/errors.ts";
import { type Outcome, OutcomeRejectedError } from "../../core/outcome.ts";
import { neverAborted } from "../../core/signal.ts";
import { CallContext } from "../call-context.ts";
import { notAResponse } from "../../agent/response-shape.ts";
import { holdBackProblem, type HoldBack } from "../../agent/stream/control.ts";
import { ModelStreamError } from "../../agent/stream/errors.ts";
import { streamThroughStack, type ModelCallStack } from "../../agent/stream/through-stack.ts";
import type { ModelRequest, ModelResponse } from "../../agent/types.ts";
import { openAiClientProvider, serverOf } from "../model-endpoint.ts";
import { fromRequest, toRequest } from "./request.ts";
import { fromResponse, toResponse } from "./response.ts";
import { fromSdkEvents, StreamMemo, toSdkEvents } from "./stream.ts";
import { stackArgument } from "../../agent/stack-argument.ts";
import { knownOptions } from "../../core/known-options.ts";

/**
 * One model call about to run, for per-call run options.
 *
 * @example
 * guardModel(stack, model, { run: (call) => ({ metadata: { streamed: call.stream } }) })
 */
export interface ModelCallInfo {
  readonly request: SdkRequest;
  readonly stream: boolean;
  /** The model id hooks see (the `modelCall` subject). */
  readonly model: string;
}

/**
 * What `guardModel` needs of a stack: running `modelCall`; `has` (every `HookStack` has it) lets a
 * stack without `modelCall` hooks skip the mapping entirely.
 *
 * @example
 * const stack: GuardModelStack = createAgentStack()
 */
export type GuardModelStack = ModelCallStack & {
  /** True when the stack has hooks on `modelCall`. */
  has?(point: "modelCall"): boolean;
};

/**
 * Options of `guardModel` and `guardModelProvider`: the model id hooks see, run options, stream hold-back.
 *
 * @example
 * guardModel(stack, model, { name: "gpt-4.1", run: { sessionId: "s1" }, holdBack: { window: 64 } })
 */
export interface GuardModelOptions {
  /** The model id hooks see as the `modelCall` subject; default the model's own (`model.model`), else `"openai-agents"`. */
  readonly name?: string;
  /** Run options for every call (session, metadata, timeoutMs, trace...), or a function of the call. */
  readonly run?: Omit<RunOptions, "signal"> | ((call: ModelCallInfo) => Omit<RunOptions, "signal">);
  /** The least hold-back for streams; output gates ask for more themselves. Default `"none"`. */
  readonly holdBack?: HoldBack;
}

/** Marks a model this adapter made, so that guarding it again does not run every call twice. */
const guarded = Symbol.for("agent-onion.openai-agents.guarded-model");

/** The model id a model reports, if any (`OpenAIResponsesModel` and `OpenAIChatCompletionsModel` keep it as `model` or `_model`). */
const nameOf = (model: Model): string => {
  const m = model as unknown as { model?: unknown; _model?: unknown };
  return typeof m.model === "string" ? m.model : typeof m._model === "string" ? m._model : "openai-agents";
};

/**
 * The provider and endpoint of a model that calls an OpenAI API with the OpenAI client. An
 * `OpenAIResponsesModel` shows its client (`_client`): an `AzureOpenAI` client is Azure OpenAI,
 * else the provider of its base URL's host. An `OpenAIChatCompletionsModel` keeps its client
 * private: it is `openai`, the API it speaks, at an endpoint it does not tell. Nothing for other models.
 */
const originOf = (model: Model): Pick<ModelRequest, "provider" | "server"> => {
  const client = (model as unknown as { _client?: { readonly baseURL?: unknown } })._client;
  if (typeof client !== "object" || client === null) return model instanceof OpenAIChatCompletionsModel ? { provider: "openai" } : {};
  const server = serverOf(client.baseURL);
  const provider = client.constructor?.name === "AzureOpenAI" ? "azure.ai.openai" : openAiClientProvider(server);
  return server === undefined ? { provider } : { provider, server };
};

/**
 * Wrap an Agents SDK model so that every call runs through the stack's `modelCall` point.
 *
 * @example
 * import { Agent, run } from "@openai/agents"
 * const agent = new Agent({ name: "helper", model: guardModel(stack, new OpenAIResponsesModel(client, "gpt-4.1")) })
 * await run(agent, "Hello") // modelCall hooks saw the request and the response, with its usage
 */
export const guardModel = (stack: GuardModelStack, model: Model, options: GuardModelOptions = {}): Model => {
  checkStack("guardModel", stack);
  if (
    typeof model !== "object" ||
    model === null ||
    typeof model.getResponse !== "function" ||
    typeof model.getStreamedResponse !== "function"
  )
    throw new TypeError(`guardModel: model must be an Agents SDK Model (getResponse and getStreamedResponse), got ${describeGiven(model)}`);
  checkModelOptions("guardModel: ", options);
  if ((model as unknown as Record<symbol, unknown>)[guarded] === stack) return model;
  // Stacks are immutable: one with no hook on `modelCall` never will have one.
  if (stack.has?.("modelCall") === false) return model;
  const name = options.name ?? nameOf(model);
  const origin = originOf(model);
  const runOptions = (request: SdkRequest, stream: boolean): Omit<RunOptions, "signal"> =>
    typeof options.run === "function" ? options.run({ request, stream, model: name }) : (options.run ?? {});

  const getResponse = async (sdk: SdkRequest): Promise<SdkResponse> => {
    const run = runOptions(sdk, false);
    const mapped = toRequest(sdk, name, false, origin);
    const context = new CallContext(run.onContext);
    const attempts = new WeakMap<object, { readonly from: SdkResponse; readonly produced: ModelResponse }>();
    const outcome = await stack.run(
      "modelCall",
      mapped.request,
      async (request, ctx) => {
        const next = fromRequest(sdk, mapped, request, context.forAttempt());
        const signal = ctx.signal === neverAborted ? sdk.signal : ctx.signal;
        const from = await model.getResponse(
          next === sdk && signal === sdk.signal ? sdk : { ...next, ...(signal !== undefined ? { signal } : {}) },
        );
        const produced = toResponse(from, name);
        const attempt = { from, produced };
        attempts.set(produced, attempt).set(produced.toolCalls, attempt).set(produced.usage, attempt);
        return produced;
      },
      { ...run, signal: sdk.signal, onContext: context.push },
    );
    if (outcome._tag !== "Completed") throw errorOf(outcome, sdk.signal);
    const malformed = notAResponse(outcome.value);
    if (malformed !== undefined) throw malformed;
    // An answer comes from a model response when it is that response's mapping, or keeps its tool call list or usage object.
    const answer = outcome.value;
    const from = attempts.get(answer) ?? attempts.get(answer.toolCalls) ?? attempts.get(answer.usage);
    return fromResponse(from?.from, from?.produced, answer);
  };

  async function* getStreamedResponse(sdk: SdkRequest): AsyncGenerator<StreamEvent> {
    const run = runOptions(sdk, true);
    const mapped = toRequest(sdk, name, true, origin);
    const context = new CallContext(run.onContext);
    const memo = new StreamMemo();
    const call = streamThroughStack(
      stack,
      mapped.request,
      (request, { signal }) => {
        const next = fromRequest(sdk, mapped, request, context.forAttempt());
        return fromSdkEvents(model.getStreamedResponse({ ...next, signal }), memo, name);
      },
      {
        ...run,
        ...(options.holdBack !== undefined ? { holdBack: options.holdBack } : {}),
        signal: sdk.signal,
        onContext: context.push,
      },
    );
    try {
      yield* toSdkEvents(call.parts, memo, call.outcome);
    } catch (error) {
      throw unwrap(error, sdk.signal);
    } finally {
      // The SDK stopped reading (an abort, a break): the provider stream ends, the post-phase still runs.
      call.cancel();
    }
  }

  const members = new Map<PropertyKey, unknown>([
    ["getResponse", getResponse],
    ["getStreamedResponse", getStreamedResponse],
    [guarded, stack],
  ]);
  // A proxy rather than a copy: the model is a class instance whose other methods (`getRetryAdvice`)
  // and getters may use private fields, which only the instance itself has.
  return new Proxy(model, {
    get(target, prop) {
      if (members.has(prop)) return members.get(prop);
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
};

/**
 * Wrap a model provider (the `Runner`'s `modelProvider`) so that every model it gives out is
 * guarded: agents whose `model` is a name ("gpt-4.1") are resolved through it.
 *
 * @example
 * import { OpenAIProvider, Runner } from "@openai/agents"
 * const runner = new Runner({ modelProvider: guardModelProvider(stack, new OpenAIProvider()) })
 * await runner.run(agent, "Hello")
 */
export const guardModelProvider = (stack: GuardModelStack, provider: ModelProvider, options: GuardModelOptions = {}): ModelProvider => {
  checkStack("guardModelProvider", stack);
  if (typeof provider !== "object" || provider === null || typeof provider.getModel !== "function")
    throw new TypeError(`guardModelProvider: provider must be an Agents SDK ModelProvider (getModel), got ${describeGiven(provider)}`);
  checkModelOptions("guardModelProvider: ", options);
  return {
    async getModel(name?: string) {
      const model = await provider.getModel(name);
      return guardModel(stack, model, { ...options, ...(options.name === undefined && name !== undefined ? { name } : {}) });
    },
  };
};

const checkStack = (fn: string, stack: unknown): void => void stackArgument(fn, stack);

/**
 * Refuse options of `guardModel` of the wrong kind; `where` starts the message ("guardModel: ", "guardAgent: model.").
 *
 * @example
 * checkModelOptions("guardModel: ", { name: "" }) // throws TypeError: guardModel: name must be a non-empty string when given, got ""
 */
export const checkModelOptions = (where: string, options: GuardModelOptions): void => {
  if (typeof options !== "object" || options === null)
    throw new TypeError(`${where}options must be an object when given, got ${describeGiven(options)}`);
  knownOptions(where.replace(/(: |\.)$/, ""), options, { name: true, run: true, holdBack: true });
  if (options.name !== undefined && (typeof options.name !== "string" || options.name === ""))
    throw new TypeError(`${where}name must be a non-empty string when given, got ${describeGiven(options.name)}`);
  const run: unknown = options.run;
  if (run !== undefined && (typeof run !== "object" || run === null) && typeof run !== "function")
    throw new TypeError(`${where}run must be run options or a function of the call, got ${describeGiven(run)}`);
  const holdBack = holdBackProblem(options.holdBack);
  if (holdBack !== undefined) throw new TypeError(`${where}${holdBack}`);
};

/** What to throw for an outcome that is not `Completed`: what the SDK's callers expect to catch. */
const errorOf = (outcome: Outcome<unknown>, callerSignal: AbortSignal | undefined): unknown => {
  if (outcome._tag === "Rejected") return new OutcomeRejectedError(outcome.reason, outcome.by, outcome.cause);
  if (outcome._tag !== "Failed") return new TypeError("not a failure");
  return unwrap(outcome.error, callerSignal);
};

/** The error the SDK should see: the model's own, or the caller's abort reason for a cancelled run. */
const unwrap = (error: unknown, callerSignal: AbortSignal | undefined): unknown => {
  if (error instanceof RunAbortedError && !error.timedOut && callerSignal?.aborted) return callerSignal.reason;
  return error instanceof ModelStreamError ? error.cause : error;
};
