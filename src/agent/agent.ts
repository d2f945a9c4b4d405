/**
 * `createAgent`: the reference agent. It drives every standard point for real (sessions,
 * prompts, runs, steps, model and tool calls, stop, sub-agents, compaction, errors,
 * notifications), so a stack built for it behaves the same around any other loop.
 */
import type { Agent, AgentOptions, PromptOptions, SessionOptions, TurnResult } from "./agent-types.ts";
import { resolveConfig } from "./config.ts";
import { invoke } from "./invocation.ts";
import { openSession } from "./session.ts";
import { verifyTurnState } from "./turn-state.ts";

/**
 * Create an agent over a model, tools and a stack.
 *
 * @example
 * const agent = createAgent({ model, tools: [bash], stack, system: "You are a careful engineer." })
 * const session = await agent.session({ source: "startup" })
 * const turn = await session.prompt("Clean up the build directory")
 * await session.close("prompt_input_exit")
 */
export const createAgent = (options: AgentOptions): Agent => {
  const config = resolveConfig(options);
  return {
    name: config.name,
    session: (sessionOptions?: SessionOptions) => openSession(config, sessionOptions),
    // One invocation: telemetry reports the session's opening, the turn and the closing as one operation.
    run: (prompt: string, runOptions: SessionOptions & PromptOptions = {}): Promise<TurnResult> =>
      invoke(config.name, async () => {
        const session = await openSession(config, runOptions);
        try {
          return await session.prompt(prompt, runOptions);
        } finally {
          await session.close("other");
        }
      }),
    /**
     * Reopen the paused turn's session and go on with the turn, as one invocation like `run`.
     *
     * @example
     * const turn = await agent.resume(saved.state, { [saved.approvals[0].id]: { decision: "approve", by: "alice" } }, { approvals })
     */
    resume: (state, decisions, resumeOptions) =>
      invoke(config.name, async () => {
        if (typeof state !== "object" || state === null)
          throw new TypeError("agent.resume: state must be the `state` of an interrupted turn");
        // Checked before the session opens: its history reaches sessionStart hooks and the transcript.
        verifyTurnState(resumeOptions?.approvals, state);
        const { signal, metadata } = resumeOptions ?? {};
        const session = await openSession(config, {
          sessionId: state.sessionId,
          source: "resume",
          messages: state.history,
          ...(signal !== undefined ? { signal } : {}),
          ...(metadata !== undefined ? { metadata } : {}),
        });
        try {
          return await session.resume(state, decisions, resumeOptions);
        } finally {
          await session.close("other");
        }
      }),
  };
};
