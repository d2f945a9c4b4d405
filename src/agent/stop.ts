/**
 * The stop decision. When the model answers without tool calls the loop asks the `stop` gate
 * (`subagentStop` for a sub-agent). `Reject` keeps the agent going, and every hook's reason is
 * fed back (DESIGN section 4): the core stops at the first veto, so after a block the gate is
 * asked again without the hooks that already answered, until it passes. Each hook therefore
 * runs at most once per stop decision. R13's cap is the loop's job, not each hook's.
 */
import type { RunOptions } from "../core/context.ts";
import { Trace } from "../core/trace.ts";
import type { LoopEnv } from "./env.ts";
import type { AgentStack } from "./stack.ts";
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
  const reasons: StopReason[] = [];
  let stack: AgentStack = env.stack;
  const asked = new Set<string>();
  for (;;) {
    const trace = new Trace();
    const options: RunOptions = { ...env.run, trace };
    const outcome = await stack.run(point, input as SubagentStopRequest, () => allow, options);
    for (const entry of trace.entries) env.run.trace?.record(entry);
    if (outcome._tag !== "Rejected") return reasons.length === 0 ? allow : { stop: false, reasons };
    reasons.push({ reason: outcome.reason, by: outcome.by });
    // Ask again without every hook that already answered (the veto included), observers too.
    const answered = new Set([outcome.by, ...trace.entries.filter((e) => e.point === point).map((e) => e.hook)]);
    if (asked.size === 0) for (const e of stack.explain(point, input)) if (e.phases.every((p) => p === "observe")) answered.add(e.hook);
    let progressed = false;
    for (const name of answered) {
      if (asked.has(name)) continue;
      asked.add(name);
      try {
        stack = stack.disable(name);
        progressed = true;
      } catch {
        // Not a registered hook name (a failure reported under another name): nothing to disable.
      }
    }
    if (!progressed) return { stop: false, reasons };
  }
};

/**
 * The message that feeds the reasons back to the model.
 *
 * @example
 * feedback([{ reason: "Run the tests first", by: "tests-gate" }]) // "Stop hook feedback:\nRun the tests first"
 */
export const feedback = (reasons: readonly StopReason[]): string => `Stop hook feedback:\n${reasons.map((r) => r.reason).join("\n")}`;
