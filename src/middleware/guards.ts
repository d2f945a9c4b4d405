/**
 * `guards`: the four guards of seed 000 in one call, with its defaults (20 steps, 32 768 tokens,
 * 300 seconds, no finish reasons); `null` switches one off. Each guard keeps its own name and
 * priority, so `stack.disable("timeLimit")` works on the bundle too.
 */
import type { FinishReason } from "../agent/types.ts";
import { combineMiddleware, type Middleware } from "./apply.ts";
import { finishReasonStop, finishReasonsOption } from "./finish-reason-stop.ts";
import { integerOption, knownOptions, numberOption } from "./options.ts";
import { stepLimit } from "./step-limit.ts";
import { timeLimit } from "./time-limit.ts";
import { tokenBudget } from "./token-budget.ts";

/**
 * Options of `guards`: one field per guard, `null` to switch it off.
 *
 * @example
 * guards({ maxSteps: 10, maxExecutionTime: null })
 */
export interface GuardsOptions {
  /** Steps per run; default 20, `null` for no limit. */
  readonly maxSteps?: number | null;
  /** Tokens per run (input plus output over all model calls); default 32 768, `null` for no limit. */
  readonly maxTokens?: number | null;
  /** Seconds per run; default 300, `null` for no limit. */
  readonly maxExecutionTime?: number | null;
  /** Finish reasons that stop the run; default `[]` (none), `null` the same. */
  readonly finishReasons?: readonly FinishReason[] | null;
}

/**
 * Step, token, time and finish-reason guards with seed 000's defaults.
 *
 * @example
 * withMiddleware(createAgentStack(), guards({ maxSteps: 10, maxTokens: 5000, maxExecutionTime: 30, finishReasons: ["length"] }))
 * withMiddleware(createAgentStack(), guards({ maxExecutionTime: null })) // no time limit
 */
export const guards = (options: GuardsOptions = {}): Middleware => {
  knownOptions("guards", options, { maxSteps: true, maxTokens: true, maxExecutionTime: true, finishReasons: true });
  const { maxSteps = 20, maxTokens = 32_768, maxExecutionTime = 300, finishReasons = [] } = options;
  // Check here so a mistake names the bundle's own field (guards: maxSteps ...), not the inner guard's.
  if (maxSteps !== null) integerOption("guards", "maxSteps", maxSteps, 0);
  if (maxTokens !== null) integerOption("guards", "maxTokens", maxTokens, 0);
  if (maxExecutionTime !== null) numberOption("guards", "maxExecutionTime", maxExecutionTime, 0);
  if (finishReasons !== null && !Array.isArray(finishReasons))
    throw new TypeError("guards: finishReasons must be a list of finish reasons or null");
  if (finishReasons !== null) finishReasonsOption("guards", "finishReasons", finishReasons);
  return combineMiddleware(
    "guards",
    maxSteps !== null && stepLimit({ max: maxSteps }),
    maxTokens !== null && tokenBudget({ max: maxTokens }),
    maxExecutionTime !== null && timeLimit({ maxSeconds: maxExecutionTime }),
    finishReasons !== null && finishReasons.length > 0 && finishReasonStop({ reasons: finishReasons }),
  );
};
