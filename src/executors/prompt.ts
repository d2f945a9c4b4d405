/**
 * `promptHook`: one LLM call judges the event. The event goes to the model as delimited data,
 * the answer must be a `{ ok, reason }` verdict; a provider error, a refusal, prose or a
 * malformed verdict is a hook failure (R6: gates fail closed by default).
 */
import { createHash } from "node:crypto";
import type { LanguageModel } from "../agent/model.ts";
import { describe } from "../core/errors.ts";
import { deepFreeze } from "../core/readonly.ts";
import { withDeadline } from "../core/signal.ts";
import type { HookAnswer } from "./answer.ts";
import { ExecutorError } from "./errors.ts";
import type { AgentEvent } from "./events.ts";
import {
  EXTERNAL_HOOK_FIELDS,
  externalHook,
  resolveTimeoutMs,
  type ExternalHook,
  type ExternalHookOptions,
  type RunnerSpec,
} from "./external.ts";
import { evaluatorPrompt, readVerdict, verdictAnswer } from "./verdict.ts";
import { checkLimit } from "./limits.ts";
import { knownOptions } from "../core/known-options.ts";

export interface PromptHookOptions<E extends AgentEvent = AgentEvent> extends ExternalHookOptions<E> {
  /** What to check; `$ARGUMENTS` is where the event goes (appended when absent). */
  readonly prompt: string;
  /** The provider: anything with `{ id, generate(request, { signal }) }`. */
  readonly model: LanguageModel;
  /** The model id sent in the request; default `model.id`. */
  readonly modelId?: string;
  /** Longest event JSON shown to the model; default 50 000 characters. */
  readonly maxEventChars?: number;
  readonly maxOutputTokens?: number;
  /**
   * Keep each verdict for `ttlMs` and give it again for the same event (the tool call's id
   * aside), so a repeated call is not judged, nor paid for, twice (F3). Failures are not kept.
   * At most `maxEntries` verdicts (default 1,000) are kept; the oldest go first.
   */
  readonly cache?: { readonly ttlMs: number; readonly maxEntries?: number };
}

interface Kept {
  readonly answer: HookAnswer;
  readonly until: number;
}

/** The cache key of an event: its JSON without the per-call `tool_use_id`, hashed. */
const eventKey = (json: string): string => {
  const { tool_use_id: _id, ...rest } = JSON.parse(json) as Record<string, unknown>;
  return createHash("sha256").update(JSON.stringify(rest)).digest("hex");
};

const verdictCache = (name: string, options: PromptHookOptions["cache"]) => {
  if (options === undefined) return undefined;
  const { ttlMs, maxEntries = 1000 } = options;
  if (typeof ttlMs !== "number" || !Number.isFinite(ttlMs) || ttlMs <= 0)
    throw new TypeError(`promptHook "${name}": cache.ttlMs must be a positive number of ms, got ${String(ttlMs)}`);
  if (!Number.isSafeInteger(maxEntries) || maxEntries <= 0)
    throw new TypeError(`promptHook "${name}": cache.maxEntries must be a positive integer, got ${String(maxEntries)}`);
  const kept = new Map<string, Kept>();
  return {
    get(key: string): HookAnswer | undefined {
      const entry = kept.get(key);
      if (entry === undefined) return undefined;
      if (entry.until > performance.now()) return entry.answer;
      kept.delete(key);
      return undefined;
    },
    set(key: string, answer: HookAnswer): void {
      kept.delete(key);
      kept.set(key, { answer: deepFreeze(answer), until: performance.now() + ttlMs }); // shared by every run that hits it
      if (kept.size > maxEntries) kept.delete(kept.keys().next().value as string);
    },
  };
};

/**
 * The runner of a prompt hook (for a hook of its own, or one of a set).
 *
 * @example
 * const { run } = promptRunner({ event: "Stop", model, prompt: "Are all tasks done? $ARGUMENTS" })
 */
export const promptRunner = <E extends AgentEvent>(options: PromptHookOptions<E>): RunnerSpec => {
  if (typeof options.prompt !== "string" || options.prompt.trim() === "")
    throw new TypeError("promptHook: prompt must be a non-empty string");
  if (typeof options.model?.generate !== "function")
    throw new TypeError("promptHook: model must have a generate(request, { signal }) method");
  checkLimit("promptHook", "maxEventChars", options.maxEventChars, "count");
  const timeoutMs = resolveTimeoutMs(options, 30);
  const name = options.name ?? `prompt:${options.event}`;
  const cache = verdictCache(name, options.cache);
  return {
    name,
    timeoutMs,
    backstopMs: 1500,
    run: async ({ json, signal }) => {
      const key = cache === undefined ? undefined : eventKey(json);
      const known = key === undefined ? undefined : cache?.get(key);
      if (known !== undefined) return known;
      const { system, user } = evaluatorPrompt(options.prompt, json, options.maxEventChars);
      let text: string;
      const deadline = withDeadline(signal, timeoutMs);
      try {
        const response = await options.model.generate(
          {
            model: options.modelId ?? options.model.id,
            messages: [
              { role: "system", content: system },
              { role: "user", content: user },
            ],
            temperature: 0,
            ...(options.maxOutputTokens !== undefined ? { maxOutputTokens: options.maxOutputTokens } : {}),
          },
          { signal: deadline.controller.signal },
        );
        if (response.toolCalls.length > 0)
          throw new ExecutorError("invalid-json", `hook "${name}": the model called a tool instead of answering a verdict`);
        text = response.text;
      } catch (error) {
        if (error instanceof ExecutorError) throw error;
        const timedOut = error instanceof DOMException && error.name === "TimeoutError";
        throw new ExecutorError(timedOut ? "timeout" : "model", `the model call failed: ${describe(error)}`, { cause: error });
      } finally {
        deadline.dispose();
      }
      const answer = verdictAnswer(options.event, readVerdict(name, text));
      if (key !== undefined) cache?.set(key, answer);
      return answer;
    },
  };
};

/** Every field of `PromptHookOptions`: a misspelt one is refused rather than dropped. */
const PROMPT_HOOK_FIELDS = {
  ...EXTERNAL_HOOK_FIELDS,
  prompt: true,
  model: true,
  modelId: true,
  maxEventChars: true,
  maxOutputTokens: true,
  cache: true,
} as const satisfies { readonly [K in keyof Required<PromptHookOptions<AgentEvent>>]: true };

/**
 * A hook that asks a model for a verdict on each event.
 *
 * @example
 * stack.use("stop", promptHook({ event: "Stop", model, prompt: "Are all tasks done? $ARGUMENTS", timeout: 30 }))
 */
export const promptHook = <E extends AgentEvent>(options: PromptHookOptions<E>): ExternalHook<E> => {
  knownOptions("promptHook", options, PROMPT_HOOK_FIELDS);
  const runner = promptRunner(options);
  return externalHook({ ...options, name: runner.name }, runner.timeoutMs, runner.run, runner.backstopMs);
};
