/**
 * `retry`: an `around` hook that calls `next()` again when the call failed, with exponential
 * backoff and jitter. Only `Failed` outcomes are retried: a `Rejected` one is a decision (a
 * policy, a budget) that asking again would not change, and a guard's refusal (a
 * `LimitExceededError`, a `RedactionBlockedError`) is one too. The wait honours the run's `AbortSignal`: an abort ends it at once, clearing
 * the timer, and no further attempt starts.
 *
 * On a stream, the provider fails when its stream throws, or when a stream through
 * `aiSdkMiddleware` sent an `error` part (Anthropic's `overloaded_error`) and ended without
 * showing anything. An `error` part after which the stream shows something, or that came after
 * it showed something, is part of the stream, as in the AI SDK: the call completes and is not
 * retried. Nor is a stream that already showed anything (text, a tool call, reasoning).
 */
import type { HookContext } from "../core/context.ts";
import { OperationAbandonedError } from "../core/errors.ts";
import type { Hook } from "../core/hook.ts";
import type { MatchSpec } from "../core/match/types.ts";
import { maxTimerMs } from "../core/signal.ts";
import type { Outcome } from "../core/outcome.ts";
import { Priority } from "../core/priority.ts";
import { sleep } from "../agent/sleep.ts";
import { streamShown } from "../agent/stream/control.ts";
import { providerError, streamStarted } from "../agent/stream/errors.ts";
import type { Middleware } from "./apply.ts";
import { LimitExceededError, RedactionBlockedError } from "./errors.ts";
import { choiceOption, functionOption, integerOption, knownOptions, nameOption, numberOption } from "./options.ts";
import { placement } from "./placement.ts";

/** What `retryOn` sees about a failed attempt. */
export interface RetryInfo {
  /** The attempt that failed, from 1. */
  readonly attempt: number;
  readonly ctx: HookContext<any>;
}

/**
 * Options of `retry`.
 *
 * @example
 * retry({ attempts: 4, baseMs: 250, maxMs: 8_000, jitter: "full" })
 */
export interface RetryOptions {
  /** Attempts in all, the first one included (default 3; 1 means no retry). */
  readonly attempts?: number;
  /** The first backoff, in ms (default 200); it doubles with each retry. */
  readonly baseMs?: number;
  /** The longest backoff, in ms (default 10 000). */
  readonly maxMs?: number;
  /** `"full"` (default): uniform in [0, backoff]; `"equal"`: in [backoff / 2, backoff]; `"none"`: exactly backoff. */
  readonly jitter?: "full" | "equal" | "none";
  /** Whether a failure is worth another attempt (given the provider's own error, unwrapped from a failed stream); default: anything but a guard's refusal (`LimitExceededError`, `RedactionBlockedError`) or an abort. A stream that already showed anything (text, a tool call, reasoning) is never retried. */
  readonly retryOn?: (error: unknown, info: RetryInfo) => boolean;
  /** Do not start a wait that would end later than this many ms after the first attempt started. */
  readonly maxElapsedMs?: number;
  /** Default `"modelCall"`. */
  readonly point?: "modelCall" | "toolCall";
  readonly match?: MatchSpec<any>;
  /** A source of randomness in [0, 1), for tests (default `Math.random`). */
  readonly random?: () => number;
  readonly name?: string;
  /**
   * Default `Priority.guard`, by name inside `fallback`, `budget` and `cache` on `modelCall`, and
   * inside `toolPolicy`, `cache`, the rate limits' early checks and `approval` on `toolCall`.
   */
  readonly priority?: number;
}

/**
 * The backoff before retry number `retry` (1 for the first retry).
 *
 * @example
 * backoffMs(3, { baseMs: 100, maxMs: 10_000, jitter: "none" }) // 400
 */
export const backoffMs = (
  retry: number,
  o: { readonly baseMs: number; readonly maxMs: number; readonly jitter: "full" | "equal" | "none"; readonly random?: () => number },
): number => {
  const cap = Math.min(o.maxMs, o.baseMs * 2 ** Math.min(retry - 1, 52));
  const r = (o.random ?? Math.random)();
  return o.jitter === "none" ? cap : o.jitter === "equal" ? cap / 2 + r * (cap / 2) : r * cap;
};

// A guard's refusal is about this call, not a passing fault: each attempt would be another paid
// call ending the same way (a limit already spent, an answer redaction blocks), as for fallback.
const isRefusal = (error: unknown): boolean => error instanceof LimitExceededError || error instanceof RedactionBlockedError;

/** The run was aborted, or settled without waiting for this inside (a hook outside answered): nothing to retry for. */
const isAbort = (error: unknown, ctx: HookContext<any>): boolean =>
  ctx.signal.aborted ||
  error instanceof OperationAbandonedError ||
  (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError"));

/**
 * Retry failed model (or tool) calls with exponential backoff and jitter.
 *
 * @example
 * withMiddleware(stack, retry({ attempts: 4, baseMs: 250, maxMs: 8_000, retryOn: (e) => (e as { status?: number }).status !== 400 }))
 */
export const retry = (options: RetryOptions = {}): Middleware => {
  knownOptions("retry", options, {
    attempts: true,
    baseMs: true,
    maxMs: true,
    jitter: true,
    retryOn: true,
    maxElapsedMs: true,
    point: true,
    match: true,
    random: true,
    name: true,
    priority: true,
  });
  const name = nameOption("retry", options.name);
  const attempts = integerOption(name, "attempts", options.attempts ?? 3, 1, 100);
  const baseMs = numberOption(name, "baseMs", options.baseMs ?? 200, 0);
  const maxMs = numberOption(name, "maxMs", options.maxMs ?? 10_000, 0, maxTimerMs);
  const jitter = choiceOption(name, "jitter", options.jitter ?? "full", ["full", "equal", "none"]);
  const retryOn = functionOption(name, "retryOn", options.retryOn);
  const maxElapsedMs = options.maxElapsedMs === undefined ? undefined : numberOption(name, "maxElapsedMs", options.maxElapsedMs, 0);
  const point = choiceOption(name, "point", options.point ?? "modelCall", ["modelCall", "toolCall"]);
  const random = functionOption(name, "random", options.random);
  const backoff = { baseMs, maxMs, jitter, ...(random !== undefined ? { random } : {}) };

  const hook: Hook<any, any, any> = {
    name,
    // Each attempt is the call alone: inside what decides once per call (the policy, a cache, the
    // early check of a tool rate limit, approval; a budget and fallback, which retries the
    // primary first). A model rate limit names retry to run inside it, so every attempt is counted.
    ...placement(name, options.priority, Priority.guard, {
      after: point === "toolCall" ? ["toolPolicy", "cache", "rateLimit", "callLimit", "approval"] : ["cache", "budget", "fallback"],
    }),
    ...(options.match !== undefined ? { match: options.match } : {}),
    around: async (ctx, next) => {
      const started = performance.now();
      let outcome: Outcome<unknown> = await next();
      for (let attempt = 1; attempt < attempts && outcome._tag === "Failed"; attempt++) {
        // A stream that already showed anything (text, a tool call, reasoning) is not retried: the reader would see it twice.
        // That holds whatever failed it: the provider, or an inner hook (a guard's block) after the reader saw reasoning.
        if (streamStarted(outcome.error) || streamShown(ctx)) break;
        // retryOn judges the provider's own error, whether the call was generated or streamed.
        const error = providerError(outcome.error);
        if (isAbort(error, ctx)) break;
        if (retryOn !== undefined ? !retryOn(error, { attempt, ctx }) : isRefusal(error)) break;
        const wait = backoffMs(attempt, backoff);
        if (maxElapsedMs !== undefined && performance.now() - started + wait > maxElapsedMs) break;
        try {
          await sleep(wait, ctx.signal);
        } catch {
          break; // aborted while waiting: the timer is already cleared; report the last failure
        }
        outcome = await next();
      }
      return outcome;
    },
  };
  return { name, hooks: { [point]: hook } };
};
