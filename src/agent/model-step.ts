/**
 * The loop's model call: one `modelCall` run (generate or stream), and on failure the
 * `error` point's decision: retry, recover with a response, or fail the run.
 */
import type { RunOptions } from "../core/context.ts";
import type { Outcome } from "../core/outcome.ts";
import { OutcomeRejectedError } from "../core/outcome.ts";
import { contentText } from "./content-text.ts";
import { AgentRunError, decide } from "./decide.ts";
import type { LoopEnv } from "./env.ts";
import type { AttemptContext } from "./context-queue.ts";
import { addUsage, noUsage, type LanguageModel, type ModelCallOptions, type StreamPart } from "./model.ts";
import { ModelStreamError, spentPartial } from "./stream/errors.ts";
import { isThenable } from "./stream/parts.ts";
import type { StartStream } from "./stream/pump.ts";
import { streamThroughStack, type StreamResult } from "./stream/through-stack.ts";
import { notAResponse } from "./response-shape.ts";
import { reportedOrEstimated } from "./tokens.ts";
import type { Message, ModelRequest, ModelResponse, Usage } from "./types.ts";
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
    ...(stream !== undefined
      ? { stream: (request: ModelRequest, options: ModelCallOptions) => (context.next(), stream.call(model, request, options)) }
      : {}),
  };
};

/** Add to the turn's tally what a settled call spent (see `spent`). */
const spend = (env: LoopEnv, outcome: Outcome<ModelResponse>): void => {
  const usage = spent(outcome);
  if (usage !== undefined) env.spent.usage = addUsage(env.spent.usage, usage);
};

/**
 * The tokens a settled generated call spent: its answer's, or what a stream that failed part-way
 * had streamed (its `ModelStreamError`'s partial usage, when a hook streamed); none for a stream
 * that failed having produced nothing but an estimate, as `budget` refunds it. A streamed call's
 * come from `streamThroughStack` (`StreamResult.spent`), which sees every stream it opened.
 */
const spent = (outcome: Outcome<ModelResponse>): Usage | undefined => {
  if (outcome._tag === "Completed") return outcome.value.usage;
  const error = outcome._tag === "Failed" ? outcome.error : undefined;
  if (!(error instanceof ModelStreamError)) return undefined;
  return spentPartial(error)?.usage;
};

/**
 * One `modelCall` run, streamed when the agent streams; hooks' context goes to `context`. What it
 * spent is added to `env.spent`.
 */
const callOnce = async (env: LoopEnv, request: ModelRequest, step: number, context: AttemptContext): Promise<Outcome<ModelResponse>> => {
  const run = { ...env.run, onContext: context.push };
  const model = announcing(env.model, context);
  if (env.settings.stream === undefined) {
    const outcome = await generateThroughStack(env.stack, model, request, run);
    spend(env, outcome);
    return outcome;
  }
  // A caller's abort settles the turn at once, with what it spent by then, before this call's
  // post-phase hands back its partial answer: what the provider had streamed is counted as it aborts.
  // Only streams opened through `start`: an answer a hook gave instead (fallback's backup, a cache's
  // Replace) reaches us with the call's outcome, which an abort before the post-phase ended drops.
  const streamed: Streamed = { earlier: noUsage, messages: undefined, text: "", usage: undefined };
  let counted = false;
  const onAbort = (): void => {
    if (counted) return;
    counted = true;
    // No stream open (or the last one failed having sent nothing): only what earlier ones spent.
    const current = streamed.messages === undefined ? noUsage : reportedOrEstimated(streamed.usage, streamed.messages, streamed.text).usage;
    env.spent.usage = addUsage(env.spent.usage, addUsage(streamed.earlier, current));
  };
  if (env.signal?.aborted === false) env.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const { outcome, spent } = await streamOnce(env, request, step, noting(streamStarter(model), streamed), run);
    // Every stream the call opened, each attempt a hook made included, and a hook's own answer.
    if (!counted) env.spent.usage = addUsage(env.spent.usage, spent);
    counted = true;
    return outcome;
  } finally {
    env.signal?.removeEventListener("abort", onAbort);
  }
};

/**
 * What the provider streamed so far: what the streams an `around` hook's retry opened before the
 * current one spent, and in the current one the messages it was sent, its text, the usage it reported.
 */
interface Streamed {
  earlier: Usage;
  messages: readonly Message[] | undefined;
  text: string;
  usage: unknown;
}

/**
 * The start, noting in `streamed` what each provider stream it opens sends, as it arrives. A stream
 * that fails having sent nothing is forgotten, as `spent` and `budget` refund it: an abort after it
 * (while a retry waits, or once fallback's backup answered) must not count its estimate.
 */
const noting = (start: StartStream, streamed: Streamed): StartStream => {
  let opened = 0;
  return (request, options) => {
    let sent = false;
    const note = (r: IteratorResult<StreamPart>): IteratorResult<StreamPart> => {
      if (r.done !== true) sent = true;
      if (r.done !== true && r.value.type === "text-delta") streamed.text += r.value.text;
      else if (r.done !== true && r.value.type === "finish") streamed.usage = r.value.usage;
      return r;
    };
    // Only `next` is watched; `return` is the provider's own, so closing its stream works as before.
    const watched = (parts: AsyncIterable<StreamPart>): AsyncIterable<StreamPart> => {
      // Opened: from now on this stream spends (a start that failed spent nothing we know of). The
      // one before it, unless it failed having sent nothing, spent what it streamed.
      if (streamed.messages !== undefined)
        streamed.earlier = addUsage(streamed.earlier, reportedOrEstimated(streamed.usage, streamed.messages, streamed.text).usage);
      Object.assign(streamed, { messages: request.messages, text: "", usage: undefined });
      const stream = ++opened;
      const failed = (error: unknown): never => {
        if (!sent && stream === opened) streamed.messages = undefined;
        throw error;
      };
      return {
        [Symbol.asyncIterator]: () => {
          const iterator = parts[Symbol.asyncIterator]();
          const close = iterator.return;
          return {
            next: () => Promise.resolve(iterator.next()).then(note, failed),
            ...(close !== undefined ? { return: (value?: unknown) => close.call(iterator, value) } : {}),
          };
        },
      };
    };
    const parts = start(request, options);
    return isThenable(parts) ? Promise.resolve(parts).then(watched) : watched(parts);
  };
};

/** The streamed `modelCall` run, its parts shown to `env.onPart` as they are released. */
const streamOnce = async (
  env: LoopEnv,
  request: ModelRequest,
  step: number,
  start: StartStream,
  run: RunOptions,
): Promise<StreamResult> => {
  const call = streamThroughStack(env.stack, request, start, { ...run, holdBack: env.settings.stream });
  try {
    for await (const part of call.parts) show(env, part, step);
  } catch {
    // The consumer side ends with the caller's abort; the outcome below says what happened.
  }
  return call.done;
};

/** Show `part` to `env.onPart`. A failing display callback must not cut the model's answer short (observers never change the run). */
const show = (env: LoopEnv, part: StreamPart, step: number): void => {
  try {
    env.onPart?.(part, { path: env.path, step });
  } catch {
    // ignored, as above
  }
};

/**
 * Show a streaming consumer the answer an `error` hook recovered a call with, as a stream would
 * have delivered it: after the failed stream's error part, its text, tool calls and finish.
 */
const showRecovered = (env: LoopEnv, response: ModelResponse, step: number): void => {
  if (env.settings.stream === undefined || env.onPart === undefined) return;
  if (response.text !== "") show(env, { type: "text-delta", text: response.text }, step);
  for (const call of response.toolCalls) show(env, { type: "tool-call", call }, step);
  show(env, { type: "finish", finishReason: response.finishReason, usage: response.usage }, step);
};

/** What a `recover` decision's value becomes: a response as given, or text. */
const asResponse = (value: unknown, model: string): ModelResponse => {
  if (typeof value === "object" && value !== null && typeof (value as ModelResponse).text === "string") {
    // A field given as undefined (`usage: error.partial?.usage` with no partial) takes its default.
    const given = value as Partial<ModelResponse>;
    return {
      ...given,
      toolCalls: given.toolCalls ?? [],
      finishReason: given.finishReason ?? "stop",
      usage: given.usage ?? noUsage,
    } as ModelResponse;
  }
  return { text: contentText(value), toolCalls: [], finishReason: "stop", usage: noUsage, model };
};

/**
 * What a recovered answer adds to the turn's usage: its own, unless it is what the failed stream
 * had streamed (`error.partial`, or a copy), which that stream already counted.
 */
const recoveredSpend = (response: ModelResponse, error: unknown): Usage => {
  const partial = error instanceof ModelStreamError ? error.partial.usage : undefined;
  const same =
    partial !== undefined && partial.inputTokens === response.usage.inputTokens && partial.outputTokens === response.usage.outputTokens;
  return same ? noUsage : response.usage;
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
    // Counted (in callOnce) as soon as the model answered: a step that then fails in its tools still spent it.
    if (outcome._tag === "Completed") return outcome.value;
    // On an observation point a Rejected outcome comes from a hook that failed closed: its HookError is the cause.
    const error = outcome._tag === "Failed" ? outcome.error : new OutcomeRejectedError(outcome.reason, outcome.by, outcome.cause);
    if (env.signal?.aborted) throw error;
    const decision = await decide(env, { where: "model", error, attempt });
    if (decision.action === "retry") continue;
    if (decision.action === "recover") {
      const response = asResponse(decision.value, request.model);
      // Checked as a provider's or a hook's answer is: the loop must not read a call list that is not one.
      const malformed = notAResponse(response);
      if (malformed !== undefined) throw new AgentRunError("model", new TypeError(`the error point's recover value: ${malformed.message}`));
      env.spent.usage = addUsage(env.spent.usage, recoveredSpend(response, error));
      showRecovered(env, response, step);
      return response;
    }
    throw new AgentRunError("model", error);
  }
};
