/**
 * `createAgent`: the reference agent. It drives every standard point for real (sessions,
 * prompts, runs, steps, model and tool calls, stop, sub-agents, compaction, errors,
 * notifications), so a stack built for it behaves the same around any other loop.
 */
import type { Agent, AgentOptions, PromptOptions, SessionOptions, TurnResult } from "./agent-types.ts";
import {
  resumeOptions as checkResumeOptions,
  runOptions as checkRunOptions,
  sessionOptions as checkSessionOptions,
} from "./call-options.ts";
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
    session: async (sessionOptions?: SessionOptions) =>
      openSession(config, sessionOptions === undefined ? undefined : checkSessionOptions(sessionOptions)),
    // One invocation: telemetry reports the session's opening, the turn and the closing as one operation.
    run: async (prompt: string, runOptions: SessionOptions & PromptOptions = {}): Promise<TurnResult> => {
      checkRunOptions(runOptions);
      return invoke(config.name, async () => {
        const session = await openSession(config, runOptions);
        try {
          const { signal, metadata, onPart } = runOptions;
          return await session.prompt(prompt, {
            ...(signal !== undefined ? { signal } : {}),
            ...(metadata !== undefined ? { metadata } : {}),
            ...(onPart !== undefined ? { onPart } : {}),
          });
        } finally {
          await session.close("other");
        }
      });
    },
    /**
     * Reopen the paused turn's session and go on with the turn, as one invocation like `run`.
     *
     * @example
     * const turn = await agent.resume(saved.state, { [saved.approvals[0].id]: { decision: "approve", by: "alice" } }, { approvals })
     */
    resume: async (state, decisions, resumeOptions) => {
      checkResumeOptions("agent.resume", resumeOptions);
      return invoke(config.name, async () => {
        if (typeof state !== "object" || state === null)
          throw new TypeError("agent.resume: state must be the `state` of an interrupted turn");
        // Checked before the session opens: its history reaches sessionStart hooks and the transcript.
        verifyTurnState(resumeOptions?.approvals, state);
        // The session reopens as a resumed one, whatever source is given; the rest is the turn's.
        const { signal, metadata, source: _reopened, ...turn } = resumeOptions ?? ({} as typeof resumeOptions);
        const session = await openSession(config, {
          sessionId: state.sessionId,
          source: "resume",
          messages: state.history,
          ...(signal !== undefined ? { signal } : {}),
          ...(metadata !== undefined ? { metadata } : {}),
        });
        try {
          return await session.resume(state, decisions, {
            ...turn,
            ...(signal !== undefined ? { signal } : {}),
            ...(metadata !== undefined ? { metadata } : {}),
          });
        } finally {
          await session.close("other");
        }
      });
    },
  };
};
