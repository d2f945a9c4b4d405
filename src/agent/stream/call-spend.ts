/**
 * What one streamed `modelCall` run spent, told from the provider streams it opened and the
 * answer it settled on (see `StreamResult.spent`).
 *
 * An `around` hook may open several streams (a retry), a `recover` hook may answer in place of a
 * failed one, an `after` hook may rewrite the answer. Every stream counts what it streamed; the
 * answer settled on counts as well only when no stream already counted it:
 * 1. it carries the usage object of one of the streams (the stream's own response, `{ ...res, text }`,
 *    a `recover` hook's `error.partial`): that stream counted it;
 * 2. the last stream finished and the answer is not one of them: an `after` hook rebuilt it, and the
 *    usage it gives stands for that stream (as on `generate`, where the answer is all that is counted);
 * 3. its usage equals a failed stream's (a copy of `error.partial`): that stream counted it;
 * 4. otherwise a hook answered in the streams' place (a fallback model, a recovery): its usage counts too.
 */
import type { Outcome } from "../../core/outcome.ts";
import { addUsage, noUsage } from "../model.ts";
import type { ModelResponse, Usage } from "../types.ts";
import { ModelStreamError, spentPartial } from "./errors.ts";

interface Attempt {
  /** The usage the stream's response (or partial response) carries. */
  readonly usage: Usage;
  /** What the stream spent: its usage, or none for a failed stream refunded by `spentPartial`. */
  readonly spent: Usage;
  readonly finished: boolean;
}

const sameCounts = (a: Usage, b: unknown): boolean =>
  typeof b === "object" && b !== null && a.inputTokens === (b as Usage).inputTokens && a.outputTokens === (b as Usage).outputTokens;

/**
 * The streams of one call, in the order they were opened, and what they spent.
 *
 * @example
 * const spend = new CallSpend()
 * spend.finished(response)
 * spend.spentBy(Outcome.completed({ ...response, text: "edited" })) // response.usage, counted once
 */
export class CallSpend {
  private readonly attempts: Attempt[] = [];

  /** A stream finished with `response`. */
  finished(response: ModelResponse): void {
    this.attempts.push({ usage: response.usage, spent: response.usage, finished: true });
  }

  /** A stream failed part-way with `error`. */
  failed(error: ModelStreamError): void {
    this.attempts.push({ usage: error.partial.usage, spent: spentPartial(error)?.usage ?? noUsage, finished: false });
  }

  /** What the call spent, settling with `outcome`: every stream, and the answer when no stream counted it. */
  spentBy(outcome: Outcome<ModelResponse>): Usage {
    const streams = total(this.attempts);
    const error = outcome._tag === "Failed" && outcome.error instanceof ModelStreamError ? outcome.error : undefined;
    const answer = outcome._tag === "Completed" ? outcome.value.usage : error?.partial.usage;
    if (answer === undefined || this.attempts.some((a) => a.usage === answer)) return streams;
    const last = this.attempts.at(-1);
    if (outcome._tag === "Completed" && last?.finished === true) return addUsage(total(this.attempts.slice(0, -1)), answer);
    if (this.attempts.some((a) => !a.finished && sameCounts(a.usage, answer))) return streams;
    const own = error !== undefined ? spentPartial(error)?.usage : answer;
    return own === undefined ? streams : addUsage(streams, own);
  }
}

/** What the streams spent, summed. */
const total = (attempts: readonly Attempt[]): Usage => attempts.reduce((sum, a) => addUsage(sum, a.spent), noUsage);
