/**
 * Error decisions: every failure in the loop goes through the `error` point, whose output is
 * an `ErrorDecision`. The default is `fail`; hooks answer `retry` (seed 002's on_llm_error) or
 * `recover` with a value. Retries are capped by `maxRetries`, so a hook cannot loop forever.
 */
import { AgentOnionError, describe } from "../core/errors.ts";
import type { LoopEnv } from "./env.ts";
import { maxTimerMs } from "../core/signal.ts";
import { sleep } from "./sleep.ts";
import type { ErrorDecision, ErrorEvent } from "./types.ts";

const fail: ErrorDecision = Object.freeze({ action: "fail" });

/**
 * A failure that already went through the `error` point and was not recovered; it ends the run
 * without being reported a second time.
 *
 * @example
 * if (turn.status === "failed") console.error(turn.error) // the original error, unwrapped from AgentRunError
 */
export class AgentRunError extends AgentOnionError {
  override name = "AgentRunError";
  constructor(
    readonly where: ErrorEvent["where"],
    override readonly cause: unknown,
  ) {
    super(`${where} failed: ${describe(cause)}`);
  }
}

/**
 * The model's answer was cut at the output token limit (finish reason `length`) with no tool call:
 * the turn cannot go on from it unless the `error` point retries. Claude Code's `max_output_tokens`.
 *
 * @example
 * outcome.error instanceof OutputLimitError && outcome.error.partial // the text the model wrote before the cut
 */
export class OutputLimitError extends AgentOnionError {
  override name = "OutputLimitError";
  /** What StopFailure matchers test: Claude Code's error type for it. */
  readonly code = "max_output_tokens";
  constructor(readonly partial: string) {
    super("the model's answer was cut off at the output token limit");
  }
}

/** True for a well-formed decision (hooks may return anything at run time). */
const isDecision = (value: unknown): value is ErrorDecision => {
  const action = (value as { action?: unknown } | null)?.action;
  return action === "fail" || action === "retry" || (action === "recover" && "value" in (value as object));
};

/**
 * Ask the `error` point what to do about a failure; retries beyond `maxRetries` become `fail`.
 *
 * @example
 * const decision = await decide(env, { where: "model", error, attempt: 1 })
 */
export const decide = async (env: LoopEnv, event: ErrorEvent): Promise<ErrorDecision> => {
  const outcome = await env.stack.run("error", event, () => fail, env.run);
  const decision = outcome._tag === "Completed" && isDecision(outcome.value) ? outcome.value : fail;
  if (decision.action === "retry" && event.attempt > env.settings.maxRetries) {
    await env.notify({
      type: "warning",
      message: `${event.where} failed ${event.attempt} times; not retrying again (maxRetries ${env.settings.maxRetries})`,
    });
    return fail;
  }
  // A hook's delay is untrusted: a non-number waits not at all, a huge one as long as a timer can.
  const asked: unknown = decision.action === "retry" ? decision.delayMs : undefined;
  const delay = typeof asked === "number" && asked > 0 ? Math.min(asked, maxTimerMs) : 0;
  if (delay > 0) await sleep(delay, env.signal);
  return decision;
};
