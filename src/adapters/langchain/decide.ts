/**
 * The `error` point for a model or tool call that failed inside LangChain's `wrapModelCall` and
 * `wrapToolCall`: hooks answer `retry` (the call runs again, at most `maxRetries` times),
 * `recover` with a value (the model's answer, or the tool's result) or `fail` (the default: the
 * error goes on to LangChain as it was). LangGraph's control flow (an interrupt, a `Command` to a
 * parent graph) is not a failure and never reaches the point.
 */
import type { RunOptions } from "../../core/context.ts";
import type { Outcome } from "../../core/outcome.ts";
import type { Operation } from "../../core/stack-types.ts";
import { maxTimerMs } from "../../core/signal.ts";
import { sleep } from "../../agent/sleep.ts";
import type { ErrorDecision, ErrorEvent } from "../../agent/types.ts";

/** What the error point needs of a stack. */
export interface ErrorStack {
  run(
    point: "error",
    input: ErrorEvent,
    operation: Operation<ErrorEvent, ErrorDecision>,
    options?: RunOptions,
  ): Promise<Outcome<ErrorDecision>>;
  has?(point: "error"): boolean;
}

const fail: ErrorDecision = Object.freeze({ action: "fail" });

/**
 * True for LangGraph's control flow (`GraphInterrupt`, a parent `Command`): its errors say `is_bubble_up`.
 *
 * @example
 * isBubbleUp(new GraphInterrupt([])) // true
 */
export const isBubbleUp = (error: unknown): boolean =>
  typeof error === "object" && error !== null && (error as { is_bubble_up?: unknown }).is_bubble_up === true;

const isDecision = (value: unknown): value is ErrorDecision => {
  const action = (value as { action?: unknown } | null)?.action;
  return action === "fail" || action === "retry" || (action === "recover" && "value" in (value as object));
};

/**
 * Ask the `error` point about a failure; a retry beyond `maxRetries`, or any answer while the
 * caller aborted, is `fail`. A retry waits the hook's `delayMs` (bounded), or until the abort.
 *
 * @example
 * const decision = await decide(stack, { where: "tool", error, attempt: 1 }, run, 3, signal)
 */
export const decide = async (
  stack: ErrorStack,
  event: ErrorEvent,
  run: RunOptions,
  maxRetries: number,
  signal: AbortSignal | undefined,
): Promise<ErrorDecision> => {
  if (stack.has?.("error") === false || isBubbleUp(event.error) || signal?.aborted) return fail;
  const outcome = await stack.run("error", event, () => fail, { ...run, signal });
  const decision = outcome._tag === "Completed" && isDecision(outcome.value) ? outcome.value : fail;
  if (decision.action === "retry" && event.attempt > maxRetries) return fail;
  // A hook's delay is untrusted: a non-number waits not at all, a huge one as long as a timer can.
  const asked: unknown = decision.action === "retry" ? decision.delayMs : undefined;
  const delay = typeof asked === "number" && asked > 0 ? Math.min(asked, maxTimerMs) : 0;
  if (delay > 0) await sleep(delay, signal);
  return decision;
};
