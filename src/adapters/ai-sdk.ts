/**
 * `aiSdkMiddleware`: the stack's `modelCall` point as Vercel AI SDK language model middleware,
 * for `wrapLanguageModel` in ai 6 (specification V3) and ai 7 (V4).
 *
 * - `before` hooks see the SDK's call options as a `ModelRequest`; what they change (messages,
 *   tools, temperature, max tokens) goes to the provider, the rest of the options untouched.
 * - `after` hooks see the result as a `ModelResponse`; what they change is written back into
 *   the provider's own result (see `ai-sdk/response.ts`), and a `Replace` in `before` (a cache)
 *   answers without calling the provider at all. An answer that did not come from the provider's
 *   result (a `fallback` model's, a recovery's) gets a fresh result of its own.
 * - Streams go through the agent layer's streaming machinery (`streamThroughStack`): chunk
 *   hooks, output gates and hold-back behave exactly as in our own loop, `after` hooks see the
 *   assembled response with usage and time to first chunk, an aborted stream still runs them.
 * - `modelCall` is an observation point, so no hook can `Reject` it; what can still stop a call
 *   is a hook failing closed, or an `around` returning `Failed`. `generate` then throws (an
 *   `OutcomeRejectedError` naming the hook, or the failure's error) as a provider error would;
 *   a stream throws the same from `doStream` before any part, or ends with an `error` part.
 *   The provider's own errors are rethrown unchanged, so the SDK's retries still see them. A
 *   response hooks settled on that is not one (a cache's `Replace` without usage) makes `generate`
 *   throw the `TypeError` a stream ends with for it (one check, `agent/response-shape.ts`).
 * - `ctx.addContext(text)` in a `before` reaches this very call, as a system message after the
 *   leading ones (mid-conversation system messages are refused by some providers).
 * - Inside `aiSdkRun` a call takes the run's options and signal, and on a stack with `step` hooks
 *   is the run's next step (see `ai-sdk-run.ts`); outside any run it warns once when the stack
 *   has hooks that only a run makes work (see `run-scope.ts`).
 */
import type { RunOptions } from "../core/context.ts";
import { Outcome, OutcomeRejectedError } from "../core/outcome.ts";
import { RunAbortedError } from "../core/errors.ts";
import { neverAborted } from "../core/signal.ts";
import { notAResponse } from "../agent/response-shape.ts";
import { holdBackProblem, type HoldBack } from "../agent/stream/control.ts";
import { ModelStreamError } from "../agent/stream/errors.ts";
import type { StartStream } from "../agent/stream/pump.ts";
import type { Message, ModelRequest, ModelResponse, ModelServer } from "../agent/types.ts";
import { fromReadableStream } from "../agent/stream/readable.ts";
import { streamThroughStack, type ModelCallStack } from "../agent/stream/through-stack.ts";
import { askedCalls } from "./ai-sdk/approvals.ts";
import { Attempts } from "./ai-sdk/attempts.ts";
import { CallContext } from "./call-context.ts";
import { stepsOfScope } from "./ai-sdk/steps.ts";
import { currentRun, joinSignals, type RunScope, scopedOptions, scopedSignal, warnUnscoped } from "./run-scope.ts";
import { serverOf } from "./model-endpoint.ts";
import { DeferredRequest, fromRequest, toRequest } from "./ai-sdk/prompt.ts";
import { fromResponse, toResponse } from "./ai-sdk/response.ts";
import {
  specOf,
  type SdkCallOptions,
  type SdkGenerateResult,
  type SdkStreamResult,
  type SdkWrapOptions,
  type SpecVersion,
} from "./ai-sdk/spec.ts";
import { fromSdkParts, StreamMemo, toSdkStream } from "./ai-sdk/stream.ts";
import { stackArgument } from "../agent/stack-argument.ts";
import { knownOptions } from "../core/known-options.ts";

/**
 * One call the middleware is about to run, for per-call run options.
 *
 * @example
 * aiSdkMiddleware(stack, { run: (call) => ({ metadata: { mode: call.type, provider: call.provider } }) })
 */
export interface AiSdkCallInfo {
  readonly type: "generate" | "stream";
  readonly params: SdkCallOptions;
  readonly modelId: string;
  readonly provider: string;
  readonly version: SpecVersion;
}

/**
 * What `aiSdkMiddleware` needs of a stack: running `modelCall`; `has` (every `HookStack` has
 * it) lets a stack without `modelCall` hooks skip the work entirely.
 *
 * @example
 * const stack: AiSdkStack = createAgentStack()
 */
export type AiSdkStack = ModelCallStack & {
  /** True when the stack has hooks on `modelCall`. */
  has?(point: "modelCall"): boolean;
  /** The stack's options: whether it freezes what hooks see (every `HookStack` has them). */
  readonly options?: { readonly freeze?: boolean; readonly strict?: boolean };
};

/**
 * Options of `aiSdkMiddleware`: the declared version, run options, and stream hold-back.
 *
 * @example
 * aiSdkMiddleware(stack, { specificationVersion: "v4", run: { sessionId: "s1" }, holdBack: { window: 64 } })
 */
export interface AiSdkMiddlewareOptions<V extends SpecVersion = "v3"> {
  /** The middleware's declared version; default `"v3"`, which ai 6 requires and ai 7 accepts. */
  readonly specificationVersion?: V;
  /** Run options for every call (session, metadata, timeoutMs, trace...), or a function of the call. */
  readonly run?: Omit<RunOptions, "signal"> | ((call: AiSdkCallInfo) => Omit<RunOptions, "signal">);
  /** The least hold-back for streams; output gates ask for more themselves. Default `"none"`. */
  readonly holdBack?: HoldBack;
}

/**
 * Language model middleware for `wrapLanguageModel`, typed structurally for both V3 and V4.
 *
 * @example
 * const middleware: LanguageModelV3Middleware = aiSdkMiddleware(stack) // ai 6; ai 7 takes it as is
 */
export interface AiSdkMiddleware<V extends SpecVersion = "v3"> {
  readonly specificationVersion: V;
  /** Runs a `generate` call of the AI SDK through the stack's `modelCall` point. */
  readonly wrapGenerate: <P extends SdkCallOptions, R extends SdkGenerateResult, S extends SdkStreamResult>(
    options: SdkWrapOptions<P, R, S>,
  ) => Promise<R>;
  /** Runs a `stream` call of the AI SDK through the stack's `modelCall` point, the stream included. */
  readonly wrapStream: <P extends SdkCallOptions, R extends SdkGenerateResult, S extends SdkStreamResult>(
    options: SdkWrapOptions<P, R, S>,
  ) => Promise<S>;
}

/**
 * The endpoint of an AI SDK model, read once per model from its provider's configuration, which
 * the providers keep on the model as `config`: a `url({ path, modelId })` function (`@ai-sdk/openai`)
 * or a `baseURL` (`@ai-sdk/gateway`). Undefined for a model without either.
 */
const serverOfModel = (model: object): ModelServer | undefined => {
  if (servers.has(model)) return servers.get(model);
  let server: ModelServer | undefined;
  try {
    const config = (model as { readonly config?: { readonly url?: unknown; readonly baseURL?: unknown } }).config;
    const modelId = (model as { readonly modelId?: unknown }).modelId;
    server =
      typeof config?.url === "function"
        ? serverOf((config.url as (o: object) => unknown)({ path: "", modelId }))
        : serverOf(config?.baseURL);
  } catch {
    server = undefined; // a provider's url() that needs more than a path and a model id
  }
  // Frozen once here, so that a request that freezes what hooks see shares it rather than copying it per call.
  if (server !== undefined) Object.freeze(server);
  servers.set(model, server);
  return server;
};

const servers = new WeakMap<object, ModelServer | undefined>();

/**
 * AI SDK middleware that runs every provider call through the stack's `modelCall` point.
 *
 * @example
 * import { generateText, wrapLanguageModel } from "ai"
 * const model = wrapLanguageModel({ model: openai("gpt-4o"), middleware: aiSdkMiddleware(stack, { run: { sessionId } }) })
 * const { text } = await generateText({ model, prompt: "Hello" }) // hooks on modelCall saw the request and the response
 */
export const aiSdkMiddleware = <V extends SpecVersion = "v3">(
  stack: AiSdkStack,
  options: AiSdkMiddlewareOptions<V> = {},
): AiSdkMiddleware<V> => {
  stackArgument("aiSdkMiddleware", stack);
  knownOptions("aiSdkMiddleware", options, { specificationVersion: true, run: true, holdBack: true });
  const holdBack = holdBackProblem(options.holdBack);
  if (holdBack !== undefined) throw new TypeError(`aiSdkMiddleware: ${holdBack}`);
  // Stacks are immutable: one with no hook on `modelCall` never will have one, so its calls skip the mapping.
  const idle = stack.has?.("modelCall") === false;
  // A stack that freezes what hooks see gets requests and responses made frozen as they are built,
  // which its freeze then finds frozen in one check (see `frozenNode`); one that opted out gets them as before.
  const frozen = (stack.options?.freeze ?? stack.options?.strict) !== false;
  const fixed = typeof options.run === "function" ? undefined : (options.run ?? noRunOptions);
  // Questions `wrapAiSdkTools` asked through the SDK's tool approval on this stack: a denial shows
  // up first in the prompt of the next provider call (see `ai-sdk/approvals.ts`).
  const asked = askedCalls(stack);
  // Whether a call outside any run has been checked for the warning: the check looks the stack up
  // in a shared table, which is more than a provider call should pay every time.
  let toldUnscoped = false;
  const tellUnscoped = (hasRunId: boolean): void => {
    toldUnscoped = true;
    warnUnscoped("aiSdkMiddleware", stack, hasRunId);
  };

  const runOptions = (
    type: AiSdkCallInfo["type"],
    params: SdkCallOptions,
    model: { readonly modelId: string; readonly provider: string; readonly specificationVersion: string },
  ) => {
    // First thing on every call: a model of another specification (V2) fails here, before any hook runs.
    const version = specOf(model);
    return (
      fixed ??
      (options.run as (call: AiSdkCallInfo) => Omit<RunOptions, "signal">)({
        type,
        params,
        modelId: model.modelId,
        provider: model.provider,
        version,
      })
    );
  };

  /** The conversation of a provider call (its run's `sessionId`): only its prompt answers that conversation's questions. */
  const sessionOfCall = (
    type: AiSdkCallInfo["type"],
    params: SdkCallOptions,
    model: { readonly modelId: string; readonly provider: string; readonly specificationVersion: string },
  ): string | undefined => scopedOptions(runOptions(type, params, model), currentRun())?.sessionId;

  // Promise chains rather than `async` functions on this path: each `async` level costs a promise
  // and a resumption, and this path runs on every provider call (see benchmarks/ai-sdk.bench.ts).
  function wrapGenerate<P extends SdkCallOptions, R extends SdkGenerateResult, S extends SdkStreamResult>(
    wrap: SdkWrapOptions<P, R, S>,
  ): Promise<R> {
    try {
      // A denial this prompt holds is given to the asking hook first (awaited only when something reads it).
      const reading = asked.active
        ? asked.answerFromPrompt(wrap.params.prompt, () => sessionOfCall("generate", wrap.params, wrap.model))
        : undefined;
      return reading === undefined ? generate(wrap) : reading.then(() => generate(wrap));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * The provider call through `modelCall` under `signal` (the SDK's, or joined with the run's and
   * the step's); `seen` is told the response hooks settled on (a step's result).
   */
  function callModel<R extends SdkGenerateResult>(
    params: SdkCallOptions,
    model: SdkWrapOptions<SdkCallOptions, R, SdkStreamResult>["model"],
    run: Omit<RunOptions, "signal">,
    deferred: DeferredRequest,
    signal: AbortSignal | undefined,
    seen: ((response: ModelResponse) => void) | undefined,
  ): Promise<R> {
    const context = new CallContext(run.onContext);
    const attempts = new Attempts<R>();
    return stack
      .run(
        "modelCall",
        // Mapped only if a hook reads it: one that only calls `next()` never does (see `DeferredInput`).
        deferred as unknown as ModelRequest,
        (given: ModelRequest | DeferredRequest, ctx) => {
          const texts = context.forAttempt();
          // The request as mapped, which nobody read: the params as given.
          const next =
            given === deferred && !deferred.read && texts.length === 0
              ? params
              : fromRequest(params, deferred.mapping(), given === deferred ? deferred.value : (given as ModelRequest), texts);
          const sent = ctx.signal === neverAborted ? signal : ctx.signal;
          // The model directly, with the params as given when nothing changed.
          const result = model.doGenerate(next === params && sent === params.abortSignal ? params : { ...next, abortSignal: sent });
          return result.then((r) => {
            const produced = toResponse(r as R, given, frozen);
            attempts.add(r as R, produced);
            return produced;
          });
        },
        callOptions(run, signal, context.push),
      )
      .then((outcome) => {
        if (outcome._tag !== "Completed") throw errorOf(outcome, params.abortSignal);
        seen?.(outcome.value);
        // Only an answer that came from a provider result is written into it (see `ai-sdk/attempts.ts`).
        const from = attempts.of(outcome.value);
        // The provider's response, left alone: its own result. A response made here needs no check either.
        if (from !== undefined && from.produced === outcome.value) return from.result;
        const malformed = notAResponse(outcome.value);
        if (malformed !== undefined) throw malformed;
        return fromResponse(from?.result, from?.produced, outcome.value) as R;
      });
  }

  function generate<P extends SdkCallOptions, R extends SdkGenerateResult, S extends SdkStreamResult>({
    params,
    model,
  }: SdkWrapOptions<P, R, S>): Promise<R> {
    const own = runOptions("generate", params, model);
    const scope = currentRun();
    if (scope === undefined) {
      if (!toldUnscoped) tellUnscoped(own.runId !== undefined);
      // The model directly, as the SDK's `doGenerate` calls it, without that function's own `async` level.
      if (idle) return Promise.resolve(model.doGenerate(params));
      const deferred = new DeferredRequest(params, model, serverOfModel, frozen);
      return callModel(params, model, own, deferred, params.abortSignal, undefined);
    }
    return generateInRun<R>(params, model, own, scope);
  }

  /** A provider call inside `aiSdkRun`: its own function, so that calls outside a run stay a small one. */
  function generateInRun<R extends SdkGenerateResult>(
    params: SdkCallOptions,
    model: SdkWrapOptions<SdkCallOptions, R, SdkStreamResult>["model"],
    own: Omit<RunOptions, "signal">,
    scope: RunScope,
  ): Promise<R> {
    // Inside a run: its options over the adapter's, its signal joined with the SDK's.
    const steps = stepsOfScope.get(scope);
    const signal = scopedSignal(params.abortSignal, scope);
    if (idle && steps === undefined)
      return Promise.resolve(model.doGenerate(signal === params.abortSignal ? params : { ...params, abortSignal: signal }));
    const run = scopedOptions(own, scope) as Omit<RunOptions, "signal">;
    const deferred = new DeferredRequest(params, model, serverOfModel, frozen);
    if (steps === undefined) return callModel(params, model, run, deferred, signal, undefined);
    // With step hooks, the call is the run's next step (see `ai-sdk/steps.ts`).
    let answer: R | undefined;
    const stepped = steps.run(deferred.value.messages as readonly Message[], (stepSignal) => {
      let response: ModelResponse | undefined;
      return callModel<R>(params, model, run, deferred, joinSignals(stepSignal, params.abortSignal), (r) => (response = r)).then((r) => {
        answer = r;
        return response as ModelResponse;
      });
    });
    // A provider call made while a step's call is under way is part of that step.
    if (stepped === undefined) return callModel(params, model, run, deferred, signal, undefined);
    return stepped.then((outcome) => {
      Outcome.getOrThrow(outcome);
      if (answer === undefined) throw new TypeError("aiSdkMiddleware: a step hook answered in place of the provider call");
      return answer;
    });
  }

  async function wrapStream<P extends SdkCallOptions, R extends SdkGenerateResult, S extends SdkStreamResult>({
    doStream,
    params,
    model,
  }: SdkWrapOptions<P, R, S>): Promise<S> {
    const own = runOptions("stream", params, model);
    const scope = currentRun();
    if (scope === undefined && !toldUnscoped) tellUnscoped(own.runId !== undefined);
    if (asked.active) await asked.answerFromPrompt(params.prompt, () => scopedOptions(own, scope)?.sessionId);
    const steps = stepsOfScope.get(scope as RunScope);
    if (idle && steps === undefined) {
      const signal = scopedSignal(params.abortSignal, scope);
      return signal === params.abortSignal ? doStream() : (model.doStream({ ...params, abortSignal: signal }) as PromiseLike<S>);
    }
    const run = scopedOptions(own, scope) as Omit<RunOptions, "signal">;
    const mapped = toRequest(params, model.modelId, true, model.provider, serverOfModel(model), frozen);
    const context = new CallContext(run.onContext);
    const memo = new StreamMemo();
    // The provider's stream result (request body, response headers) once it exists.
    let opened: (result: Omit<S, "stream"> | undefined) => void = () => {};
    const started = new Promise<Omit<S, "stream"> | undefined>((resolve) => (opened = resolve));
    // An attempt that fails to open settles nothing: a `retry` may open the next one, which must
    // still stream (with its headers); only a run that ends with none open settles `started` empty.
    const start: StartStream = async (request, { signal }) => {
      const { stream, ...rest } = await model.doStream({
        ...fromRequest(params, mapped, request, context.forAttempt()),
        abortSignal: signal,
      });
      opened(rest as Omit<S, "stream">);
      return fromSdkParts(fromReadableStream(stream), memo);
    };
    const begin = (signal: AbortSignal | undefined) => {
      const call = streamThroughStack(stack, mapped.request, start, {
        ...run,
        ...(options.holdBack !== undefined ? { holdBack: options.holdBack } : {}),
        signal,
        onContext: context.push,
      });
      void call.done.then(() => opened(undefined));
      return call;
    };
    let call: ReturnType<typeof begin> | undefined;
    // Inside a run with step hooks, the stream is the run's next step, which ends with it (see `ai-sdk/steps.ts`).
    const stepped = steps?.run(mapped.request.messages as readonly Message[], (stepSignal) => {
      call = begin(joinSignals(stepSignal, params.abortSignal));
      return call.outcome.then((outcome) => {
        if (outcome._tag !== "Completed") throw errorOf(outcome, params.abortSignal);
        return outcome.value;
      });
    });
    if (stepped === undefined) call = begin(scopedSignal(params.abortSignal, scope));
    else {
      // A step its hooks refused never starts the stream: the call fails as `doStream` would.
      const refused = stepped.then((outcome) => (call === undefined ? outcome : undefined));
      const first = await Promise.race([started.then(() => undefined), refused]);
      if (first !== undefined) {
        opened(undefined);
        Outcome.getOrThrow(first);
        throw new TypeError("aiSdkMiddleware: a step hook answered in place of the provider call");
      }
    }
    const running = call as ReturnType<typeof begin>;
    const provider = await started;
    if (provider === undefined) {
      // Settled before any part: fail as `doStream` would, unless a hook answered in its place.
      const outcome = await running.outcome;
      if (outcome._tag !== "Completed") {
        running.cancel();
        throw errorOf(outcome, params.abortSignal);
      }
    }
    return { ...provider, stream: toSdkStream(running.parts, memo, (reason) => running.cancel(reason)) } as unknown as S;
  }

  return { specificationVersion: options.specificationVersion ?? ("v3" as V), wrapGenerate, wrapStream };
};

const noRunOptions: Omit<RunOptions, "signal"> = Object.freeze({});

/** The run options of one call: the caller's, with the SDK's signal and the call's context collector. */
const callOptions = (run: Omit<RunOptions, "signal">, signal: AbortSignal | undefined, onContext: RunOptions["onContext"]): RunOptions =>
  run === noRunOptions ? { signal, onContext } : { ...run, signal, onContext };

/** What to throw for an outcome that is not `Completed`: what the SDK's callers expect to catch. */
const errorOf = (outcome: Outcome<unknown>, callerSignal: AbortSignal | undefined): unknown => {
  if (outcome._tag === "Rejected") return new OutcomeRejectedError(outcome.reason, outcome.by, outcome.cause);
  if (outcome._tag !== "Failed") return new TypeError("not a failure");
  const error = outcome.error;
  // The caller aborted: throw their reason (an `AbortError`), which the SDK and apps recognise.
  if (error instanceof RunAbortedError && !error.timedOut && callerSignal?.aborted) return callerSignal.reason;
  return error instanceof ModelStreamError ? error.cause : error;
};

export { UnsupportedSpecificationError, type SpecVersion } from "./ai-sdk/spec.ts";
