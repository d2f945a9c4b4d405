/**
 * The loop's model call: one `modelCall` run (generate or stream), and on failure the
 * `error` point's decision: retry, recover with a response, or fail the run.
 */
import type { Outcome } from "../core/outcome.ts";
import { OutcomeRejectedError } from "../core/outcome.ts";
import { contentText } from "./content-text.ts";
import { AgentRunError, decide } from "./decide.ts";
import type { LoopEnv } from "./env.ts";
import type { AttemptContext } from "./context-queue.ts";
import { addUsage, noUsage, type LanguageModel, type ModelCallOptions } from "./model.ts";
import { streamThroughStack } from "./stream/through-stack.ts";
import type { ModelRequest, ModelResponse } from "./types.ts";
import { generateThroughStack, streamStarter } from "./wrap-model.ts";

/** The model, telling `context` each time it is called: a new attempt of the call begins. */
const announcing = (model: LanguageModel, context: AttemptContext): LanguageModel => {
  const stream = model.stream;
  return {
    id: model.id,
    generate: (request, options) => {
      context.next();
      return model.generate(request, options);
    },
    ...(stream !== undefined ? { stream: (request: ModelRequest, options: ModelCallOptions) => (context.next(), stream.call(model, request, options)) } : {}),
  };
};

/** One `modelCall` run, streamed when the agent streams; hooks' context goes to `context`. */
const callOnce = async (env: LoopEnv, request: ModelRequest, step: number, context: AttemptContext): Promise<Outcome<ModelResponse>> => {
  const run = { ...env.run, onContext: context.push };
  const model = announcing(env.model, context);
  if (env.settings.stream === undefined) return generateThroughStack(env.stack, model, request, run);
  const call = streamThroughStack(env.stack, request, streamStarter(model), { ...run, holdBack: env.settings.stream });
  const info = { path: env.path, step };
  try {
    for await (const part of call.parts) {
      try {
        env.onPart?.(part, info);
      } catch {
        // A failing display callback must not cut the model's answer short (observers never change the run).
      }
    }
  } catch {
    // The consumer side ends with the caller's abort; the outcome below says what happened.
  }
  return call.outcome;
};

/** What a `recover` decision's value becomes: a response as given, or text. */
const asResponse = (value: unknown, model: string): ModelResponse => {
  if (typeof value === "object" && value !== null && typeof (value as ModelResponse).text === "string")
    return { toolCalls: [], finishReason: "stop", usage: noUsage, ...(value as Partial<ModelResponse>) } as ModelResponse;
  return { text: contentText(value), toolCalls: [], finishReason: "stop", usage: noUsage, model };
};

/**
 * Call the model for one step, with the `error` point deciding about failures.
 *
 * @example
 * const response = await callModel(env, request, 0)
 */
export const callModel = async (env: LoopEnv, request: ModelRequest, step: number): Promise<ModelResponse> => {
  // Every attempt's hooks add their context again: the queue keeps the attempt that answered.
  const context = env.pending.attempts();
  for (let attempt = 1; ; attempt++) {
    if (attempt > 1) context.next();
    const outcome = await callOnce(env, request, step, context);
    if (outcome._tag === "Completed") {
      // Counted as soon as the model answered: a step that then fails in its tools still spent it.
      env.spent.usage = addUsage(env.spent.usage, outcome.value.usage);
      return outcome.value;
    }
    // On an observation point a Rejected outcome comes from a hook that failed closed.
    const error = outcome._tag === "Failed" ? outcome.error : new OutcomeRejectedError(outcome.reason, outcome.by);
    if (env.signal?.aborted) throw error;
    const decision = await decide(env, { where: "model", error, attempt });
    if (decision.action === "retry") continue;
    if (decision.action === "recover") return asResponse(decision.value, request.model);
    throw new AgentRunError("model", error);
  }
};
