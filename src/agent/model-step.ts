/**
 * The loop's model call: one `modelCall` run (generate or stream), and on failure the
 * `error` point's decision: retry, recover with a response, or fail the run.
 */
import type { Outcome } from "../core/outcome.ts";
import { OutcomeRejectedError } from "../core/outcome.ts";
import { contentText } from "./content-text.ts";
import { AgentRunError, decide } from "./decide.ts";
import type { LoopEnv } from "./env.ts";
import { addUsage, noUsage } from "./model.ts";
import { streamThroughStack } from "./stream/through-stack.ts";
import type { ModelRequest, ModelResponse } from "./types.ts";
import { generateThroughStack, streamStarter } from "./wrap-model.ts";

/** One `modelCall` run, streamed when the agent streams. */
const callOnce = async (env: LoopEnv, request: ModelRequest, step: number): Promise<Outcome<ModelResponse>> => {
  if (env.settings.stream === undefined) return generateThroughStack(env.stack, env.model, request, env.run);
  const call = streamThroughStack(env.stack, request, streamStarter(env.model), { ...env.run, holdBack: env.settings.stream });
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
  for (let attempt = 1; ; attempt++) {
    const outcome = await callOnce(env, request, step);
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
