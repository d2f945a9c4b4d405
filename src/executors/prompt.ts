/**
 * `promptHook`: one LLM call judges the event. The event goes to the model as delimited data,
 * the answer must be a `{ ok, reason }` verdict; a provider error, a refusal, prose or a
 * malformed verdict is a hook failure (R6: gates fail closed by default).
 */
import type { LanguageModel } from "../agent/model.ts";
import { describe } from "../core/errors.ts";
import { withDeadline } from "../core/signal.ts";
import { ExecutorError } from "./errors.ts";
import type { ClaudeEvent } from "./events.ts";
import { externalHook, resolveTimeoutMs, type ExternalHook, type ExternalHookOptions } from "./external.ts";
import { evaluatorPrompt, readVerdict, verdictAnswer } from "./verdict.ts";

export interface PromptHookOptions<E extends ClaudeEvent = ClaudeEvent> extends ExternalHookOptions<E> {
  /** What to check; `$ARGUMENTS` is where the event goes (appended when absent). */
  readonly prompt: string;
  /** The provider: anything with `{ id, generate(request, { signal }) }`. */
  readonly model: LanguageModel;
  /** The model id sent in the request; default `model.id`. */
  readonly modelId?: string;
  /** Longest event JSON shown to the model; default 50 000 characters. */
  readonly maxEventChars?: number;
  readonly maxOutputTokens?: number;
}

/**
 * A hook that asks a model for a verdict on each event.
 *
 * @example
 * stack.use("stop", promptHook({ event: "Stop", model, prompt: "Are all tasks done? $ARGUMENTS", timeout: 30 }))
 */
export const promptHook = <E extends ClaudeEvent>(options: PromptHookOptions<E>): ExternalHook<E> => {
  if (typeof options.prompt !== "string" || options.prompt.trim() === "") throw new TypeError("promptHook: prompt must be a non-empty string");
  if (typeof options.model?.generate !== "function") throw new TypeError("promptHook: model must have a generate(request, { signal }) method");
  const timeoutMs = resolveTimeoutMs(options, 30);
  const name = options.name ?? `prompt:${options.event}`;
  return externalHook({ ...options, name }, timeoutMs, async ({ json, signal }) => {
    const { system, user } = evaluatorPrompt(options.prompt, json, options.maxEventChars);
    let text: string;
    const deadline = withDeadline(signal, timeoutMs);
    try {
      const response = await options.model.generate(
        {
          model: options.modelId ?? options.model.id,
          messages: [{ role: "system", content: system }, { role: "user", content: user }],
          temperature: 0,
          ...(options.maxOutputTokens !== undefined ? { maxOutputTokens: options.maxOutputTokens } : {}),
        },
        { signal: deadline.controller.signal },
      );
      if (response.toolCalls.length > 0) throw new ExecutorError("invalid-json", `hook "${name}": the model called a tool instead of answering a verdict`);
      text = response.text;
    } catch (error) {
      if (error instanceof ExecutorError) throw error;
      const timedOut = error instanceof DOMException && error.name === "TimeoutError";
      throw new ExecutorError(timedOut ? "timeout" : "model", `the model call failed: ${describe(error)}`, { cause: error });
    } finally {
      deadline.dispose();
    }
    return verdictAnswer(options.event, readVerdict(name, text));
  });
};
