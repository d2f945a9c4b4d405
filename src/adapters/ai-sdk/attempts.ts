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
import type { SdkGenerateResult } from "./spec.ts";

/** One provider result and the response hooks were shown for it. */
export interface Attempt<R extends SdkGenerateResult = SdkGenerateResult> {
  readonly result: R;
  readonly produced: ModelResponse;
}

/**
 * See the top of this file. A class, not an object of arrows: one is made per call.
 *
 * @example
 * const attempts = new Attempts(); attempts.add(result, produced); attempts.of(produced)?.result === result // true
 */
export class Attempts<R extends SdkGenerateResult = SdkGenerateResult> {
  declare private readonly by: WeakMap<object, Attempt<R>>;
  constructor() {
    this.by = new WeakMap();
  }

  /** Remember a provider result and the response made of it. */
  add(result: R, produced: ModelResponse): void {
    const attempt = { result, produced };
    this.by.set(produced, attempt);
    this.by.set(produced.toolCalls, attempt);
    this.by.set(produced.usage, attempt);
  }

  /** The attempt `answer` came from, or undefined when it came from elsewhere. */
  of(answer: DeepReadonly<ModelResponse>): Attempt<R> | undefined {
    return this.lookup(answer) ?? this.lookup(answer.toolCalls) ?? this.lookup(answer.usage);
  }

  private lookup(key: unknown): Attempt<R> | undefined {
    return typeof key === "object" && key !== null ? this.by.get(key) : undefined;
  }
}
