/**
 * The provider results of one generate call, to tell which of them (if any) the answer the hooks
 * settled on came from. `retry` calls the provider more than once; `fallback`, a `recover` hook
 * or an `around` may answer in place of a result an inner hook rejected. Writing such an answer
 * into that result would hand the SDK the rejected answer's reasoning, sources, warnings and
 * response data (and a card number a guard blocked), so it gets a fresh result instead.
 *
 * An answer comes from an attempt when it is that attempt's response, or keeps the response's
 * tool call list or usage object, as an `after` hook's `{ ...res, text }` does. A fallback
 * model's answer, a recovery's `Replace` or a response built afresh keeps neither, whatever its
 * `model` says (the backup may be the same model through another provider).
 */
import type { ModelResponse } from "../../agent/types.ts";
import type { DeepReadonly } from "../../core/readonly.ts";
import { noToolCalls } from "./response.ts";
import type { SdkGenerateResult } from "./spec.ts";

/** One provider result and the response hooks were shown for it. */
export interface Attempt<R extends SdkGenerateResult = SdkGenerateResult> {
  readonly result: R;
  readonly produced: ModelResponse;
}

/**
 * See the top of this file. A class, not an object of arrows: one is made per call. Most calls
 * have one attempt, kept in a field; the answer is found by identity, first the response, then
 * its tool call list, then its usage object, as the answer keeps them.
 *
 * @example
 * const attempts = new Attempts(); attempts.add(result, produced); attempts.of(produced)?.result === result // true
 */
export class Attempts<R extends SdkGenerateResult = SdkGenerateResult> {
  declare private first: Attempt<R> | undefined;
  /** Every attempt, once there is more than one. */
  declare private all: Attempt<R>[] | undefined;
  constructor() {
    this.first = undefined;
    this.all = undefined;
  }

  /** Remember a provider result and the response made of it. */
  add(result: R, produced: ModelResponse): void {
    const attempt = { result, produced };
    if (this.first === undefined) this.first = attempt;
    else (this.all ??= [this.first]).push(attempt);
  }

  /** The attempt `answer` came from, or undefined when it came from elsewhere. */
  of(answer: DeepReadonly<ModelResponse>): Attempt<R> | undefined {
    const all = this.all;
    if (all === undefined) {
      const first = this.first;
      if (first === undefined) return undefined;
      const p = first.produced;
      return p === answer || sameCalls(p, answer) || p.usage === answer.usage ? first : undefined;
    }
    // The latest first: a retry's answer is its own, not an earlier attempt's.
    return (
      findLast(all, (p) => p === answer) ?? findLast(all, (p) => sameCalls(p, answer)) ?? findLast(all, (p) => p.usage === answer.usage)
    );
  }
}

/** The answer keeps the response's own tool call list (the list every response without calls shares tells nothing). */
const sameCalls = (produced: ModelResponse, answer: DeepReadonly<ModelResponse>): boolean =>
  produced.toolCalls === answer.toolCalls && produced.toolCalls !== noToolCalls;

const findLast = <R extends SdkGenerateResult>(
  all: readonly Attempt<R>[],
  match: (produced: ModelResponse) => boolean,
): Attempt<R> | undefined => {
  for (let i = all.length - 1; i >= 0; i--) if (match((all[i] as Attempt<R>).produced)) return all[i];
  return undefined;
};
