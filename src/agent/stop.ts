/**
 * The stop decision. When the model answers without tool calls the loop asks the `stop` gate
 * (`subagentStop` for a sub-agent). `Reject` keeps the agent going, and every hook's reason is
 * fed back (DESIGN section 4): both points are collecting gates (`collect: true`), so one run
 * asks every hook once and the outcome carries all their reasons. R13's cap is the loop's job,
 * not each hook's.
 */
import type { LoopEnv } from "./env.ts";
import type { StopRequest, SubagentStopRequest } from "./types.ts";

/** One hook's reason for going on. */
export interface StopReason {
  readonly reason: string;
  readonly by: string;
}

/** The gate's answer: stop, or go on for these reasons. */
export type StopVerdict = { readonly stop: true } | { readonly stop: false; readonly reasons: readonly StopReason[] };

const allow = { stop: true } as const;

/**
 * Ask the stop gate, collecting every blocking hook's reason.
 *
 * @example
 * const verdict = await askStop(env, { reason: "stop", lastMessage: "Done.", blockedCount: 0 })
 */
export const askStop = async (env: LoopEnv, request: StopRequest): Promise<StopVerdict> => {
  const point = env.stopPoint;
  const input: StopRequest | SubagentStopRequest =
    point === "subagentStop" ? { ...request, agent: env.path.at(-1) ?? "", path: env.path } : request;
  const outcome = await env.stack.run(point, input as SubagentStopRequest, () => allow, env.run);
  if (outcome._tag !== "Rejected") return allow;
  return { stop: false, reasons: outcome.reasons ?? [{ reason: outcome.reason, by: outcome.by }] };
};

/**
 * The message that feeds the reasons back to the model.
 *
 * @example
 * feedback([{ reason: "Run the tests first", by: "tests-gate" }]) // "Stop hook feedback:\nRun the tests first"
 */
export const feedback = (reasons: readonly StopReason[]): string => `Stop hook feedback:\n${reasons.map((r) => r.reason).join("\n")}`;
