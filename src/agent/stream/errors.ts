/**
 * Errors of the streaming path.
 */
import { AgentOnionError, describe } from "../../core/errors.ts";
import type { ModelResponse } from "../types.ts";

/**
 * The provider's stream failed part-way (it threw, or sent an `error` part). `partial` is what
 * had arrived, with usage (reported or estimated), so `around`/`recover` hooks and metrics can
 * still account for it; `shown` says whether any part of it reached the consumer.
 *
 * @example
 * recover: (error) => (error instanceof ModelStreamError ? Replace(error.partial) : Continue)
 */
export class ModelStreamError extends AgentOnionError {
  override name = "ModelStreamError";
  constructor(
    override readonly cause: unknown,
    readonly partial: ModelResponse,
    /** True when the consumer was shown a part of this stream: text, or a raw part such as reasoning. */
    readonly shown = false,
  ) {
    super(`model stream failed after ${partial.text.length} characters: ${describe(cause)}`);
  }
}

/**
 * True when a streamed call failed after producing something the consumer may have seen (text,
 * a tool call, or a part it was shown such as reasoning): retrying or falling back then would
 * repeat or contradict what was shown.
 *
 * @example
 * streamStarted(new ModelStreamError(new Error("reset"), { ...partial, text: "Hel" })) // true
 */
export const streamStarted = (error: unknown): boolean =>
  error instanceof ModelStreamError && (error.shown || error.partial.text !== "" || error.partial.toolCalls.length > 0);

/**
 * What a stream that failed part-way spent: its partial response, unless it produced nothing but
 * an estimate (a call that produced nothing is refunded). `budget`, `tokenBudget`, `metrics` and
 * the agent's own usage all count failed streams by it.
 *
 * @example
 * spentPartial(new ModelStreamError(new Error("overloaded"), partial)) // partial, once it holds output
 */
export const spentPartial = (error: ModelStreamError): ModelResponse | undefined =>
  streamStarted(error) || error.partial.usage.outputTokens > 0 || error.partial.usageEstimated !== true ? error.partial : undefined;

/**
 * What failed underneath: the provider's own error for a stream failure, else the error itself.
 *
 * @example
 * providerError(new ModelStreamError(overloaded, partial)) === overloaded // true
 */
export const providerError = (error: unknown): unknown => (error instanceof ModelStreamError ? error.cause : error);

/**
 * A part transform registered by a hook threw; the stream fails and names the hook.
 *
 * @example
 * error instanceof StreamHookError && error.hook // "redact"
 */
export class StreamHookError extends AgentOnionError {
  override name = "StreamHookError";
  constructor(
    readonly hook: string,
    override readonly cause: unknown,
  ) {
    super(`stream transform of hook "${hook}" threw: ${describe(cause)}`);
  }
}

/**
 * The consumer of a stream already received text that the final answer does not start with (an
 * `around` hook retried the call and the new answer differs, or an `after` hook changed text
 * that was streamed under too little hold-back). The stream ends with this error instead of a
 * finish, since what was shown is not the answer; `response` is the answer the run settled on.
 *
 * @example
 * if (part.type === "error" && part.error instanceof StreamDivergedError) showInstead(part.error.response.text)
 */
export class StreamDivergedError extends AgentOnionError {
  override name = "StreamDivergedError";
  constructor(
    /** The text the consumer received. */
    readonly released: string,
    /** The final answer. */
    readonly response: ModelResponse,
    /** True when an `around` hook ran the call more than once. */
    readonly retried: boolean,
  ) {
    super(
      `the ${released.length} characters already streamed are not the start of the final answer ` +
        (retried
          ? "(an around hook retried the call and the new answer differs)"
          : "(an after hook changed text that was already streamed)") +
        "; the final answer is on error.response",
    );
  }
}
