/**
 * The loop's tool calls: every call of a step runs at once, each through its own `toolCall`
 * chain. A rejection becomes an error result that says who rejected it and why; a failure goes
 * to the `error` point first (retry, recover with content, or fail: the model reads the error).
 */
import { AgentRunError, decide } from "./decide.ts";
import type { LoopEnv } from "./env.ts";
import type { ToolCall, ToolResult } from "./types.ts";
import { executeTool, failedResult, lookupIn, rejectedResult } from "./wrap-tool.ts";

/** A tool call and the result the model will read. */
export interface ToolExchange {
  readonly call: ToolCall;
  readonly result: ToolResult;
}

/**
 * Run one tool call through the stack, deciding about failures.
 *
 * @example
 * const result = await callTool(env, offered, { id: "c1", name: "Bash", input: { command: "ls" } })
 */
export const callTool = async (env: LoopEnv, offered: ReadonlySet<string>, call: ToolCall): Promise<ToolResult> => {
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
  const run = { ...env.run, onContext: context.push };
  const operation: typeof execute = (c, ctx) => {
    context.next();
    return execute(c, ctx);
  };
  for (let attempt = 1; ; attempt++) {
    if (attempt > 1) context.next();
    const outcome = await env.stack.run("toolCall", call, operation, run);
    if (outcome._tag === "Completed") return outcome.value;
    if (outcome._tag === "Rejected") return rejectedResult(call, outcome.reason, outcome.by);
    // A sub-agent's failure already went through the `error` point inside it: asking again would
    // report it twice and could re-run the whole sub-agent on a decision already taken.
    if (env.signal?.aborted || outcome.error instanceof AgentRunError) return failedResult(call, outcome.error);
    const decision = await decide(env, { where: "tool", error: outcome.error, attempt });
    if (decision.action === "retry") continue;
    if (decision.action === "recover") return { content: decision.value };
    return failedResult(call, outcome.error);
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
  return Promise.all(calls.map((call) => {
    const written = Promise.all([callTool(env, offered, call), before]).then(([result]) => {
      env.transcript?.toolResult(call, result);
      return { call, result };
    });
    before = written.catch(() => undefined);
    return written;
  }));
};
