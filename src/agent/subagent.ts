/**
 * Sub-agents: each is offered to the model as a tool taking `{ prompt }`. Starting one is a
 * `toolCall` (so guards apply), and the sub-agent runs through the same stack: its own `run`,
 * `step`, `modelCall` and `toolCall` runs carry its path (`[..., name]`), and it ends at the
 * `subagentStop` gate instead of `stop`. Its final text is the tool's result.
 */
import type { SubagentSpec } from "./agent-types.ts";
import { ContextQueue } from "./context-queue.ts";
import type { LoopEnv } from "./env.ts";
import { promptInMessages, runLoop } from "./loop.ts";
import { toolSpec, type AgentTool } from "./tool.ts";
import type { Message, RunInput } from "./types.ts";

const promptSchema = {
  type: "object",
  properties: { prompt: { type: "string", description: "The task for the sub-agent" } },
  required: ["prompt"],
} as const;

/**
 * The tool that starts a sub-agent from within `parent`'s run.
 *
 * @example
 * const tool = subagentTool(env, { name: "researcher", system: "Find sources." })
 */
export const subagentTool = (parent: LoopEnv, spec: SubagentSpec): AgentTool => ({
  name: spec.name,
  description: spec.description ?? `Hand a task to the ${spec.name} sub-agent; it answers with its final text.`,
  inputSchema: promptSchema,
  async execute(input, options) {
    const prompt = typeof input.prompt === "string" ? input.prompt : JSON.stringify(input);
    const path = [...parent.path, spec.name];
    const pending = new ContextQueue(parent.settings.contextRole);
    const tools = spec.tools ?? [];
    const env: LoopEnv = {
      ...parent,
      model: spec.model ?? parent.model,
      tools,
      settings: { ...parent.settings, maxSteps: spec.maxSteps ?? parent.settings.maxSteps },
      run: {
        ...parent.run,
        signal: options.signal,
        runId: `${parent.run.runId ?? "run"}/${spec.name}:${options.toolCallId}`,
        path,
        onContext: pending.push,
      },
      signal: options.signal,
      pending,
      stopPoint: "subagentStop",
      path,
    };
    const messages: Message[] = [{ role: "user", content: prompt }];
    const runInput: RunInput = { prompt, messages, tools: tools.map(toolSpec), ...(spec.system !== undefined ? { system: spec.system } : {}) };
    // A run an `around` hook retries gets its `run` hooks' context again.
    const outcome = await env.stack.run("run", runInput, pending.restartable(pending.mark(), (i) => runLoop(env, promptInMessages(i, runInput))), env.run);
    if (outcome._tag === "Completed") return outcome.value.text;
    if (outcome._tag === "Rejected") throw new Error(`sub-agent ${spec.name} was rejected by ${outcome.by}: ${outcome.reason}`);
    throw outcome.error;
  },
});
