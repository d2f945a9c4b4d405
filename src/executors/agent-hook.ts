/**
 * `agentHook`: a sub-agent on the reference loop verifies the event with read-only tools
 * (Read, Glob, Grep over one directory) and answers the same `{ ok, reason }` verdict as a
 * prompt hook. It runs on its own stack, so its tool calls are never judged by the hooks it
 * serves (no recursion), and can be guarded separately through `stack`.
 */
import { createAgent } from "../agent/agent.ts";
import type { LanguageModel } from "../agent/model.ts";
import { createAgentStack, type AgentStack } from "../agent/stack.ts";
import type { AgentTool } from "../agent/tool.ts";
import { describe } from "../core/errors.ts";
import { withDeadline } from "../core/signal.ts";
import { ExecutorError } from "./errors.ts";
import type { AgentEvent } from "./events.ts";
import {
  EXTERNAL_HOOK_FIELDS,
  externalHook,
  resolveTimeoutMs,
  type ExternalHook,
  type ExternalHookOptions,
  type RunnerSpec,
} from "./external.ts";
import { readOnlyTools } from "./readonly-tools.ts";
import { evaluatorPrompt, readVerdict, verdictAnswer } from "./verdict.ts";
import { checkLimit } from "./limits.ts";
import { knownOptions } from "../core/known-options.ts";

export interface AgentHookOptions<E extends AgentEvent = AgentEvent> extends ExternalHookOptions<E> {
  /** What to verify; `$ARGUMENTS` is where the event goes (appended when absent). */
  readonly prompt: string;
  readonly model: LanguageModel;
  /** The model id the sub-agent asks for; default `model.id` (settings: the handler's `model` field). */
  readonly modelId?: string;
  /** Its tools; default `readOnlyTools(root)` with `root` the hook's cwd. Give only read-only tools. */
  readonly tools?: readonly AgentTool[];
  /** The sub-agent's own stack; default an empty agent stack. */
  readonly stack?: AgentStack;
  /** Model calls at most; default 50, as in Claude Code. */
  readonly maxSteps?: number;
  readonly maxEventChars?: number;
}

/**
 * The runner of an agent hook (for a hook of its own, or one of a set).
 *
 * @example
 * const { run } = agentRunner({ event: "Stop", model, prompt: "Verify the tests pass. $ARGUMENTS" })
 */
export const agentRunner = <E extends AgentEvent>(options: AgentHookOptions<E>): RunnerSpec => {
  if (typeof options.prompt !== "string" || options.prompt.trim() === "")
    throw new TypeError("agentHook: prompt must be a non-empty string");
  if (typeof options.model?.generate !== "function")
    throw new TypeError("agentHook: model must have a generate(request, { signal }) method");
  checkLimit("agentHook", "maxEventChars", options.maxEventChars, "count");
  checkLimit("agentHook", "maxSteps", options.maxSteps, "count");
  const timeoutMs = resolveTimeoutMs(options, 60);
  const name = options.name ?? `agent:${options.event}`;
  const stack = options.stack ?? createAgentStack();
  return {
    name,
    timeoutMs,
    backstopMs: 1500,
    run: async ({ json, signal, cwd }) => {
      const { system, user } = evaluatorPrompt(options.prompt, json, options.maxEventChars);
      const tools = options.tools ?? (await readOnlyTools(cwd));
      const model = options.modelId === undefined ? options.model : named(options.model, options.modelId);
      // The verifier's conversation is internal: no transcript of it is written.
      const agent = createAgent({ name, model, tools, stack, system, maxSteps: options.maxSteps ?? 50, transcript: false });
      const deadline = withDeadline(signal, timeoutMs);
      let turn;
      try {
        turn = await agent.run(user, { signal: deadline.controller.signal });
      } catch (error) {
        throw new ExecutorError("model", `the verifier agent failed: ${describe(error)}`, { cause: error });
      } finally {
        deadline.dispose();
      }
      if (turn.status === "aborted")
        throw new ExecutorError(signal.aborted ? "aborted" : "timeout", `the verifier agent did not finish within ${timeoutMs} ms`);
      if (turn.status !== "completed")
        throw new ExecutorError("model", `the verifier agent ${turn.status}: ${turn.reason ?? describe(turn.error)}`);
      // Agent hooks have no `impossible` (Claude Code's reference): ok or not, with a reason.
      const { ok, reason } = readVerdict(name, turn.text);
      return verdictAnswer(options.event, reason === undefined ? { ok } : { ok, reason });
    },
  };
};

/** Every field of `AgentHookOptions`: a misspelt one is refused rather than dropped. */
const AGENT_HOOK_FIELDS = {
  ...EXTERNAL_HOOK_FIELDS,
  prompt: true,
  model: true,
  modelId: true,
  tools: true,
  stack: true,
  maxSteps: true,
  maxEventChars: true,
} as const satisfies { readonly [K in keyof Required<AgentHookOptions<AgentEvent>>]: true };

/**
 * A hook that runs a read-only verifier sub-agent on each event.
 *
 * @example
 * stack.use("stop", agentHook({ event: "Stop", model, prompt: "Verify every TODO in src/ is resolved. $ARGUMENTS", timeout: 120 }))
 */
export const agentHook = <E extends AgentEvent>(options: AgentHookOptions<E>): ExternalHook<E> => {
  knownOptions("agentHook", options, AGENT_HOOK_FIELDS);
  const runner = agentRunner(options);
  return externalHook({ ...options, name: runner.name }, runner.timeoutMs, runner.run, runner.backstopMs);
};

/** `model` under another id: what the sub-agent's requests name as their model. */
const named = (model: LanguageModel, id: string): LanguageModel => ({
  id,
  generate: (request, options) => model.generate(request, options),
  ...(model.stream !== undefined
    ? {
        stream: (
          request: Parameters<NonNullable<LanguageModel["stream"]>>[0],
          options: Parameters<NonNullable<LanguageModel["stream"]>>[1],
        ) => (model.stream as NonNullable<LanguageModel["stream"]>).call(model, request, options),
      }
    : {}),
});
