/**
 * `fallback`: when the model call fails, ask the next provider in a list. Only before a stream
 * has started: once the reader was shown anything (text, a tool call, reasoning), whatever then
 * failed the call (the provider's stream, or an inner guard's block), the consumer may already
 * have read part of it, and an answer from another model glued onto it would be nonsense, so the
 * failure stands. A fallback model is called with
 * `generate` (on a streamed call its answer is released whole, as a replaced answer is), with
 * the run's signal, and is itself not retried: `retry` runs inside it by default (it names
 * `fallback`), so the primary is retried first. A stream through `aiSdkMiddleware` that sent an `error`
 * part (Anthropic's `overloaded_error`) and ended without showing anything has failed, and
 * falls back; one that showed something around its `error` part completes, as in the AI SDK.
 */
import type { HookContext } from "../core/context.ts";
import { OperationAbandonedError } from "../core/errors.ts";
import type { Hook } from "../core/hook.ts";
import { Outcome } from "../core/outcome.ts";
import { Priority } from "../core/priority.ts";
import type { LanguageModel } from "../agent/model.ts";
import { notAnAnswer } from "../agent/response-shape.ts";
import { streamShown } from "../agent/stream/control.ts";
import { providerError, streamStarted } from "../agent/stream/errors.ts";
import { withEstimatedUsage } from "../agent/tokens.ts";
import type { ModelRequest, ModelResponse } from "../agent/types.ts";
import type { Middleware } from "./apply.ts";
import { FallbackExhaustedError, LimitExceededError, RedactionBlockedError } from "./errors.ts";
import { functionOption, knownOptions, nameOption } from "./options.ts";
import { placement } from "./placement.ts";

/**
 * Options of `fallback`.
 *
 * @example
 * fallback({ models: [backupModel], when: (e) => (e as { status?: number }).status !== 400 })
 */
export interface FallbackOptions {
  /** The providers to try after the primary, in order. */
  readonly models: readonly LanguageModel[];
  /** Whether a failure should go to the next model; default: anything but a guard's refusal (`LimitExceededError`, `RedactionBlockedError`) or an abort. */
  readonly when?: (error: unknown, ctx: HookContext<ModelRequest>) => boolean;
  readonly name?: string;
  /** Default `Priority.guard`, inside `cache` and `budget` and outside `retry`, by name. */
  readonly priority?: number;
}

// A guard's refusal (a limit, a redaction block) is about this call, not the provider: another
// model would be asked the same thing, and a block's answer would go round the guard.
const isRefusal = (error: unknown): boolean => error instanceof LimitExceededError || error instanceof RedactionBlockedError;

/**
 * A backup's answer as the primary's is taken: a provider's own answer, so token totals it left
 * out are estimated (the agent and `wrapModel` do so for the primary), not refused at the end as a
 * hook's malformed response would be. One that is not an answer at all stays as it is, and fails so.
 */
const providerAnswer = (response: ModelResponse, request: ModelRequest): ModelResponse =>
  notAnAnswer(response) === undefined ? withEstimatedUsage(response, request.messages) : response;

/**
 * Switch to the next model when the call fails before any output was streamed.
 *
 * @example
 * withMiddleware(stack, fallback({ models: [anthropicHaiku, localLlama] }), retry({ attempts: 2 }))
 */
export const fallback = (options: FallbackOptions): Middleware => {
  knownOptions("fallback", options, { models: true, when: true, name: true, priority: true });
  const name = nameOption("fallback", options.name);
  if (!Array.isArray(options.models) || options.models.length === 0)
    throw new TypeError(`${name}: models must be a non-empty list of language models`);
  options.models.forEach((m, i) => {
    if (typeof m !== "object" || m === null || typeof m.id !== "string" || typeof m.generate !== "function") {
      // The AI SDK's models are the usual thing to find here: say what they are and what is wanted instead.
      const sdk = (m as { specificationVersion?: unknown } | null)?.specificationVersion;
      throw new TypeError(
        `${name}: models[${i}] must be a language model { id, generate }${
          typeof sdk === "string"
            ? `, got an AI SDK model (specificationVersion ${JSON.stringify(sdk)}): fallback takes agent-onion's LanguageModel, as createAgent does`
            : ""
        }`,
      );
    }
  });
  const models = [...options.models];
  const when = functionOption(name, "when", options.when);

  // `when` judges the provider's own error, whether the call was generated or streamed (as retry's retryOn).
  // A stream that showed anything stays failed whatever failed it (the provider, or an inner guard's block).
  // An inside the run abandoned (a hook outside answered without waiting) is not a provider's failure:
  // a backup's answer would be dropped, its cost not.
  const eligible = (error: unknown, ctx: HookContext<ModelRequest>): boolean =>
    !ctx.signal.aborted &&
    !(error instanceof OperationAbandonedError) &&
    !streamStarted(error) &&
    !streamShown(ctx) &&
    (when !== undefined ? when(providerError(error), ctx) : !isRefusal(providerError(error)));

  const hook: Hook<ModelRequest, ModelResponse, "observe"> = {
    name,
    // Inside the cache and the budget (which reserves once for the call, backups included);
    // retry and model rate limits name it to run inside it.
    ...placement(name, options.priority, Priority.guard, { after: ["cache", "budget"] }),
    around: async (ctx, next) => {
      const first = await next();
      if (first._tag !== "Failed" || !eligible(first.error, ctx)) return first;
      const errors: { model: string; error: unknown }[] = [{ model: ctx.input.model, error: first.error }];
      for (const model of models) {
        const request = { ...(ctx.input as ModelRequest), model: model.id };
        try {
          const response = await model.generate(request, { signal: ctx.signal });
          return Outcome.completed({ ...providerAnswer(response, request), model: response.model ?? model.id });
        } catch (error) {
          errors.push({ model: model.id, error });
          if (!eligible(error, ctx)) return Outcome.failed(error);
        }
      }
      return Outcome.failed(new FallbackExhaustedError(errors));
    },
  };
  return { name, hooks: { modelCall: hook } };
};
