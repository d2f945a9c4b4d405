/**
 * Sub-agents: each is offered to the model as a tool taking `{ prompt }`. Starting one is a
 * `toolCall` (so guards apply), and the sub-agent runs through the same stack: its own `run`,
 * `step`, `modelCall` and `toolCall` runs carry its path (`[..., name]`), and it ends at the
 * `subagentStop` gate instead of `stop`. Its final text is the tool's result. Before it runs, the
 * `subagentStart` point is told (context its hooks add goes to the sub-agent); its conversation
 * has a transcript of its own beside the session's, which `metadata.agentTranscriptPath` names.
 */
import { sharedLink } from "../core/signal.ts";
import type { SubagentSpec } from "./agent-types.ts";
import { ContextQueue } from "./context-queue.ts";
import type { LoopEnv } from "./env.ts";
import { promptInMessages, runLoop } from "./loop.ts";
import { withPermissionRequests } from "./permission.ts";
import { enclosingRunIds, linkRuns } from "./run-links.ts";
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
    // Every run of the sub-agent listens to its signal (its run, each step, each of a step's
    // parallel tool calls): the tool call's signal has Node's limit of ten listeners, so the
    // sub-agent follows it through a signal of its own without one, as a turn does (session.ts).
    const link = options.signal === undefined ? undefined : sharedLink(options.signal);
    const signal = link?.controller.signal;
    const transcript = parent.transcript?.sidechain(`${spec.name}-${options.toolCallId}`);
    // The runs this one is part of, outermost first, from the engine's link of the parent's run,
    // never from its metadata: per-run limits count a sub-agent's work against them too.
    const parentId = parent.run.runId;
    const enclosing = [...enclosingRunIds(parent.run.metadata), ...(parentId !== undefined ? [parentId] : [])];
    const metadata = {
      ...parent.run.metadata,
      // For people to read (hooks, logs); guards read the link, which a caller cannot write.
      parentRunIds: enclosing,
      ...(transcript !== undefined ? { agentTranscriptPath: transcript.path } : {}),
    };
    const run = withPermissionRequests(
      {
        stack: parent.stack,
        notify: parent.notify,
        notifyAfterMs: parent.settings.permissionNotificationMs,
        name: spec.name,
        policy: parent.settings.permissions,
      },
      {
        ...parent.run,
        signal,
        runId: `${parent.run.runId ?? "run"}/${spec.name}:${options.toolCallId}`,
        path,
        onContext: pending.push,
        // Its own: the parent's asks with the parent's run.
        approval: undefined,
        metadata: linkRuns(metadata, enclosing),
      },
    );
    const env: LoopEnv = {
      ...parent,
      model: spec.model ?? parent.model,
      tools,
      settings: { ...parent.settings, maxSteps: spec.maxSteps ?? parent.settings.maxSteps },
      run,
      signal,
      pending,
      stopPoint: "subagentStop",
      path,
      transcript,
    };
    const messages: Message[] = [{ role: "user", content: prompt }];
    const runInput: RunInput = {
      prompt,
      messages,
      tools: tools.map(toolSpec),
      ...(spec.system !== undefined ? { system: spec.system } : {}),
    };
    // A run an `around` hook retries gets its `run` hooks' context again.
    let outcome;
    try {
      // Observed: what its hooks say goes to the sub-agent's first request; a failing hook is recorded, not fatal.
      await env.stack.run("subagentStart", { agent: spec.name, path, prompt }, () => undefined, env.run);
      transcript?.prompt(prompt);
      outcome = await env.stack.run(
        "run",
        runInput,
        pending.restartable(pending.mark(), (i) => runLoop(env, promptInMessages(i, runInput))),
        env.run,
      );
    } finally {
      link?.dispose();
    }
    if (outcome._tag === "Completed") return outcome.value.text;
    if (outcome._tag === "Rejected") throw new Error(`sub-agent ${spec.name} was rejected by ${outcome.by}: ${outcome.reason}`);
    throw outcome.error;
  },
});
