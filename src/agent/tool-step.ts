/**
 * The loop's tool calls: every call of a step runs at once, each through its own `toolCall`
 * chain. A rejection becomes an error result that says who rejected it and why; a failure goes
 * to the `error` point first (retry, recover with content, or fail: the model reads the error).
 */
import type { PendingApproval, RunOptions } from "../core/context.ts";
import { Outcome } from "../core/outcome.ts";
import { AgentRunError, decide } from "./decide.ts";
import type { LoopEnv } from "./env.ts";
import type { ToolCall, ToolResult } from "./types.ts";
import { executeTool, failedResult, lookupIn, rejectedResult } from "./wrap-tool.ts";

/** A tool call and the result the model will read; a call that waits for a person has its `approval` (and a placeholder result). */
export interface ToolExchange {
  readonly call: ToolCall;
  readonly result: ToolResult;
  readonly approval?: PendingApproval;
}

/**
 * The placeholder result of a call that waits for a person's approval: the turn stops before the
 * model could read it.
 *
 * @example
 * waitingResult(call, outcome.approval).content // "Tool call Bash waits for a person's approval (approval 3f2a...)"
 */
export const waitingResult = (call: ToolCall, approval: PendingApproval): ToolResult => ({
  content: `Tool call ${call.name} waits for a person's approval (approval ${approval.id})`,
  isError: true,
});

/**
 * Run one tool call through the stack, deciding about failures; `approval` answers its approval
 * requests instead of the stack's approver (a resumed call's decision).
 *
 * @example
 * const { result } = await callTool(env, offered, { id: "c1", name: "Bash", input: { command: "ls" } })
 */
export const callTool = async (
  env: LoopEnv,
  offered: ReadonlySet<string>,
  call: ToolCall,
  approval?: RunOptions["approval"],
): Promise<Omit<ToolExchange, "call">> => {
  const all = lookupIn(env.tools);
  // Tools a `run` hook took away are not offered, and not runnable either. What the session's start
  // hooks exported reaches the tool, as it stands when the call is made.
  const { env: exported, envFile } = env.session;
  const execute = executeTool((name) => (offered.has(name) ? all(name) : undefined), {
    ...(exported !== undefined ? { env: exported } : {}),
    ...(envFile !== undefined ? { envFile } : {}),
  });
  // Every attempt's hooks add their context again: the queue keeps the attempt that answered.
  const context = env.pending.attempts();
  const run = { ...env.run, onContext: context.push, ...(approval !== undefined ? { approval } : {}) };
  const operation: typeof execute = (c, ctx) => {
    context.next();
    return execute(c, ctx);
  };
  for (let attempt = 1; ; attempt++) {
    if (attempt > 1) context.next();
    const outcome = await env.stack.run("toolCall", call, operation, run);
    // A hook's answer that is no tool result is its failure: the point checks it (agentPoints).
    if (outcome._tag === "Completed") return { result: outcome.value };
    // The root agent's turn stops for it (the loop sees `approval`); a sub-agent's run cannot
    // pause, so its model reads a refusal that says why.
    if (Outcome.isInterrupted(outcome))
      return env.stopPoint === "stop"
        ? { result: waitingResult(call, outcome.approval), approval: outcome.approval }
        : {
            result: rejectedResult(
              call,
              `it needs a person's approval (approval ${outcome.approval.id}), which a sub-agent cannot wait for`,
              outcome.by,
            ),
          };
    if (outcome._tag === "Rejected") return { result: rejectedResult(call, outcome.reason, outcome.by) };
    // A sub-agent's failure already went through the `error` point inside it: asking again would
    // report it twice and could re-run the whole sub-agent on a decision already taken.
    if (env.signal?.aborted || outcome.error instanceof AgentRunError) return { result: failedResult(call, outcome.error) };
    const decision = await decide(env, { where: "tool", error: outcome.error, attempt });
    if (decision.action === "retry") continue;
    if (decision.action === "recover") return { result: { content: decision.value } };
    return { result: failedResult(call, outcome.error) };
  }
};

/**
 * Run a step's tool calls in parallel; results keep the calls' order. Each result goes to the
 * transcript once it and the results of the calls before it are in, so the lines keep that order too.
 *
 * @example
 * const exchanges = await callTools(env, offered, response.toolCalls)
 */
export const callTools = (env: LoopEnv, offered: ReadonlySet<string>, calls: readonly ToolCall[]): Promise<ToolExchange[]> => {
  let before: Promise<unknown> = Promise.resolve();
  return Promise.all(
    calls.map((call) => {
      const written = Promise.all([callTool(env, offered, call), before]).then(([exchange]) => {
        // A call that waits for a person has no result yet: the transcript gets it when the turn resumes.
        if (exchange.approval === undefined) env.transcript?.toolResult(call, exchange.result);
        return { call, ...exchange };
      });
      before = written.catch(() => undefined);
      return written;
    }),
  );
};
