/**
 * `wrapModel`: a language model whose every call runs through the stack's `modelCall` point,
 * for use in any loop. `generate` runs the point around `model.generate`; `stream` runs it
 * around the provider stream (see `streamThroughStack`).
 */
import type { RunOptions } from "../core/context.ts";
import { describeGiven } from "../core/errors.ts";
import { Outcome } from "../core/outcome.ts";
import type { LanguageModel, ModelCallOptions, StreamPart } from "./model.ts";
import { responseParts } from "./model.ts";
import { notAnAnswer, notAResponse } from "./response-shape.ts";
import type { HoldBack } from "./stream/control.ts";
import type { StartStream } from "./stream/pump.ts";
import { holdBackProblem } from "./stream/control.ts";
import { failedStream, streamThroughStack, type ModelCallStack, type StackStream } from "./stream/through-stack.ts";
import { withEstimatedUsage } from "./tokens.ts";
import type { ModelRequest, ModelResponse } from "./types.ts";

/** Per-call options of a wrapped model: the provider's, plus the run's identity and hold-back. */
export interface WrappedCallOptions extends ModelCallOptions, Omit<RunOptions, "signal"> {
  readonly holdBack?: HoldBack | undefined;
}

/** A model wrapped in a stack. `stream` is always there: models without one are streamed from `generate`. */
export interface WrappedModel extends LanguageModel {
  /** The model inside. */
  readonly inner: LanguageModel;
  /** Runs a `generate` call through the stack's `modelCall` point. */
  generate(request: ModelRequest, options?: WrappedCallOptions): Promise<ModelResponse>;
  /** Runs a streamed call through the stack's `modelCall` point. */
  stream(request: ModelRequest, options?: WrappedCallOptions): AsyncIterable<StreamPart>;
  /** The stream with its outcome (usage, verdicts) once the post-phase ran. */
  streamWithOutcome(request: ModelRequest, options?: WrappedCallOptions): StackStream;
}

/**
 * Run one `generate` call through the `modelCall` point; never throws for what hooks or the model do.
 * The answer settled on is checked as a stream's is: one that is not a response is a Failed outcome.
 *
 * @example
 * const outcome = await generateThroughStack(stack, model, request, { sessionId })
 */
export const generateThroughStack = async (
  stack: ModelCallStack,
  model: LanguageModel,
  request: ModelRequest,
  options?: RunOptions,
): Promise<Outcome<ModelResponse>> => {
  const outcome = await stack.run(
    "modelCall",
    request,
    async (req, ctx) => providerAnswer(await model.generate(req as ModelRequest, { signal: ctx.signal }), req as ModelRequest),
    options,
  );
  const malformed = outcome._tag === "Completed" ? notAResponse(outcome.value) : undefined;
  return malformed === undefined ? outcome : Outcome.failed(malformed);
};

/**
 * A provider's `generate` answer as hooks see it: usage it left out estimated, as on a stream; one
 * that is not a response at all fails the operation, so `recover` hooks and the `error` point hear of it.
 */
const providerAnswer = (answer: ModelResponse, request: ModelRequest): ModelResponse => {
  const malformed = notAnAnswer(answer);
  if (malformed !== undefined) throw malformed;
  return withEstimatedUsage(answer, request.messages);
};

/**
 * How to start a stream from a model: its own `stream`, or `generate` replayed as parts.
 *
 * @example
 * streamThroughStack(stack, request, streamStarter(model))
 */
export const streamStarter = (model: LanguageModel): StartStream =>
  model.stream !== undefined
    ? (req, options) => (model.stream as NonNullable<LanguageModel["stream"]>).call(model, req as ModelRequest, options)
    : async (req, options) => {
        const response = await model.generate(req as ModelRequest, options);
        // Usage it left out is the stream's to estimate; the rest must already be a response's.
        const malformed = notAnAnswer(response);
        if (malformed !== undefined) throw malformed;
        return (async function* () {
          yield* responseParts(response);
        })();
      };

/**
 * Wrap a model so that every call runs through the stack's `modelCall` point.
 *
 * @example
 * const guarded = wrapModel(stack, openaiModel, { sessionId: "s1" })
 * const response = await guarded.generate({ model: guarded.id, messages }) // throws if a hook failed closed
 * for await (const part of guarded.stream({ model: guarded.id, messages })) render(part)
 */
export const wrapModel = (stack: ModelCallStack, model: LanguageModel, defaults: Omit<WrappedCallOptions, "signal"> = {}): WrappedModel => {
  checkWrapped(stack, model);
  const holdBack = holdBackProblem(defaults.holdBack);
  if (holdBack !== undefined) throw new TypeError(`wrapModel: ${holdBack}`);
  const start = streamStarter(model);
  const merge = (options: WrappedCallOptions | undefined): WrappedCallOptions => ({
    ...defaults,
    ...options,
    metadata: { ...defaults.metadata, ...options?.metadata },
  });
  const streamWithOutcome = (request: ModelRequest, options?: WrappedCallOptions): StackStream => {
    let merged: WrappedCallOptions;
    try {
      merged = merge(options);
    } catch (error) {
      return failedStream(error); // the caller's options threw when read: the stream says so
    }
    return streamThroughStack(stack, request, start, merged);
  };
  return {
    id: model.id,
    inner: model,
    async generate(request, options) {
      const { holdBack: _ignored, ...run } = merge(options);
      return Outcome.getOrThrow(await generateThroughStack(stack, model, request, run));
    },
    stream: (request, options) => streamWithOutcome(request, options).parts,
    streamWithOutcome,
  };
};

/**
 * Refuse a stack without `run`, or a model that is not a `LanguageModel`, when wrapping: otherwise
 * the first call would fail with a raw "Cannot read properties of null". A model without `stream`
 * is one: it is streamed from `generate`.
 */
const checkWrapped = (stack: unknown, model: unknown): void => {
  if (typeof (stack as Partial<ModelCallStack> | null)?.run !== "function")
    throw new TypeError(`wrapModel: stack must be a stack with run (createAgentStack()), got ${describeGiven(stack)}`);
  if (typeof model !== "object" || model === null)
    throw new TypeError(`wrapModel: model must be a LanguageModel object ({ id, generate, stream? }), got ${describeGiven(model)}`);
  const { id, generate, stream } = model as Partial<LanguageModel>;
  if (typeof id !== "string") throw new TypeError(`wrapModel: model.id must be a string, got ${describeGiven(id)}`);
  if (typeof generate !== "function") throw new TypeError(`wrapModel "${id}": generate must be a function, got ${describeGiven(generate)}`);
  if (stream !== undefined && typeof stream !== "function")
    throw new TypeError(`wrapModel "${id}": stream must be a function when given, got ${describeGiven(stream)}`);
};
