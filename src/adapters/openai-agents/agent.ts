/**
 * `guardAgent`: an Agents SDK agent whose model calls, tool calls and user prompts run through
 * one stack, mapped onto the SDK's own extension points.
 *
 * - Its function tools are `guardTool`s (`toolCall`, approvals through interruptions), and so is
 *   every tool the runner gets from it at run time (`getAllTools`): those of its MCP servers
 *   (`mcpServers`), and one pushed onto its `tools` after it was guarded.
 * - Its model, when it is a `Model` object, is a `guardModel` (`modelCall`); a model given by
 *   name is resolved by the runner's provider: guard that with `guardModelProvider`.
 * - An input guardrail runs the `userPrompt` point on the run's prompt (its last user message and
 *   the user messages right before it, each a run of the point), blocking
 *   (`runInParallel: false`), so a hook that rejects stops the run before the model is called,
 *   as the SDK reports a tripped guardrail (`InputGuardrailTripwireTriggered`, whose
 *   `result.output.outputInfo` says which hook and why). The SDK cannot rewrite a run's input from
 *   a guardrail, so a hook that rewrites the prompt trips it too (nothing unrewritten reaches the
 *   model): rewrite a prompt before `run()`, with `stack.run("userPrompt", ...)`.
 * - Agents it hands off to are guarded the same way (each once, cycles included), those of
 *   `handoff()` objects too: a copy of the handoff names the guarded agent and hands the run to it.
 *
 * The SDK runs input guardrails for the first agent of a run only, and not again on a resumed run.
 */
import type { Agent, Handoff, InputGuardrail, Model, RunContext, Tool } from "@openai/agents";
import type { RunOptions } from "../../core/context.ts";
import { describeGiven } from "../../core/errors.ts";
import type { Operation } from "../../core/stack-types.ts";
import type { Outcome } from "../../core/outcome.ts";
import type { UserPrompt } from "../../agent/types.ts";
import type { ToolCallStack } from "../../agent/wrap-tool.ts";
import { checkModelOptions, guardModel, type GuardModelOptions, type GuardModelStack } from "./model.ts";
import { checkToolOptions, guardTool, type GuardToolOptions } from "./tool.ts";
import { stackArgument } from "../../agent/stack-argument.ts";
import { knownOptions } from "../../core/known-options.ts";

/**
 * What `guardAgent` needs of a stack: the points it runs. Every `HookStack` over the agent points is one.
 *
 * @example
 * const stack: GuardAgentStack = createAgentStack()
 */
export type GuardAgentStack = GuardModelStack &
  ToolCallStack & {
    /** Runs the `userPrompt` point over a prompt. */
    run(
      point: "userPrompt",
      input: UserPrompt,
      operation: Operation<UserPrompt, UserPrompt>,
      options?: RunOptions,
    ): Promise<Outcome<UserPrompt>>;
    /** True when the stack has hooks on `point`; without it every point is run. */
    has?(point: "modelCall" | "toolCall" | "userPrompt"): boolean;
  };

/**
 * Options of `guardAgent`: those of the model and tools it guards, and run options for prompts.
 *
 * @example
 * guardAgent(stack, agent, { model: { name: "gpt-4.1" }, tools: { approvals: "interrupt" }, run: { sessionId: "s1" } })
 */
export interface GuardAgentOptions {
  readonly model?: GuardModelOptions;
  readonly tools?: GuardToolOptions;
  /** Run options for the `userPrompt` point, or a function of the SDK's run context. */
  readonly run?: Omit<RunOptions, "signal"> | ((runContext: RunContext<unknown>) => Omit<RunOptions, "signal">);
}

/**
 * The name of the input guardrail that runs `userPrompt`, as it appears in `result.inputGuardrailResults`.
 *
 * @example
 * error instanceof InputGuardrailTripwireTriggered && error.result.guardrail.name === promptGuardrailName // refused by a userPrompt hook
 */
export const promptGuardrailName = "agent-onion:userPrompt";

/**
 * A copy of an Agents SDK agent (and of the agents it hands off to) guarded by the stack.
 *
 * @example
 * import { Agent, run } from "@openai/agents"
 * const agent = guardAgent(stack, new Agent({ name: "mailer", instructions, tools: [sendEmail], model }))
 * const result = await run(agent, "email bob")
 * if (result.interruptions.length > 0) save(result.state.toString()) // a hook asked: a person decides later
 */
export const guardAgent = <A extends Agent<any, any>>(stack: GuardAgentStack, agent: A, options: GuardAgentOptions = {}): A => {
  stackArgument("guardAgent", stack);
  knownOptions("guardAgent", options, { model: true, tools: true, run: true });
  if (!isAgent(agent))
    throw new TypeError(`guardAgent: agent must be an Agents SDK Agent (new Agent({ ... })), got ${describeGiven(agent)}`);
  if (typeof options !== "object" || options === null)
    throw new TypeError(`guardAgent: options must be an object when given, got ${describeGiven(options)}`);
  const run: unknown = options.run;
  if (run !== undefined && (typeof run !== "object" || run === null) && typeof run !== "function")
    throw new TypeError(`guardAgent: run must be run options or a function of the run context, got ${describeGiven(run)}`);
  // Checked now, whether or not this agent has a model object or tools to use them on.
  if (options.model !== undefined) checkModelOptions("guardAgent: model.", options.model);
  if (options.tools !== undefined) checkToolOptions("guardAgent: tools.", options.tools);
  return guardOne(stack, agent, options, new Map()) as A;
};

const isAgent = (value: unknown): value is Agent<any, any> =>
  typeof value === "object" && value !== null && typeof (value as Agent).clone === "function" && Array.isArray((value as Agent).tools);

const guardOne = (
  stack: GuardAgentStack,
  agent: Agent<any, any>,
  options: GuardAgentOptions,
  done: Map<Agent<any, any>, Agent<any, any>>,
): Agent<any, any> => {
  const seen = done.get(agent);
  if (seen !== undefined) return seen;
  const model =
    typeof agent.model === "object" && agent.model !== null ? guardModel(stack, agent.model as Model, options.model) : agent.model;
  const copy = agent.clone({
    model,
    tools: agent.tools.map((t) => guardTool(stack, t, options.tools)),
    inputGuardrails:
      stack.has?.("userPrompt") === false ? [...agent.inputGuardrails] : [promptGuardrail(stack, options), ...agent.inputGuardrails],
    outputGuardrails: [...agent.outputGuardrails],
  });
  guardRunTools(stack, copy, options);
  done.set(agent, copy);
  // Set after the copy is known, so that agents handing off to each other end up pointing at each other's copies.
  copy.handoffs = agent.handoffs.map((h) =>
    isAgent(h) ? guardOne(stack, h, options, done) : isHandoff(h) ? guardHandoff(stack, h, options, done) : h,
  );
  return copy;
};

/** A `handoff(agent, options)` object of the SDK's (the fields read here). */
interface HandoffLike {
  readonly agent: Agent<any, any>;
  readonly onInvokeHandoff: (context: unknown, args: string) => Promise<unknown>;
  clone(overrides: { agent?: Agent<any, any>; onInvokeHandoff?: (context: unknown, args: string) => Promise<unknown> }): unknown;
}

const isHandoff = (value: unknown): value is HandoffLike =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as HandoffLike).clone === "function" &&
  typeof (value as HandoffLike).onInvokeHandoff === "function" &&
  isAgent((value as HandoffLike).agent);

/**
 * A `handoff()` object whose agent is guarded: the agent it names, and the one its
 * `onInvokeHandoff` hands the run to (which the runner runs, and may differ), so the model cannot
 * reach an unguarded agent's tools through a handoff built with options. Its tool name,
 * description, input schema, `onHandoff`, `inputFilter` and `isEnabled` stay its own.
 */
const guardHandoff = (
  stack: GuardAgentStack,
  h: HandoffLike,
  options: GuardAgentOptions,
  done: Map<Agent<any, any>, Agent<any, any>>,
): Handoff<any, any> => {
  const agent = guardOne(stack, h.agent, options, done);
  return h.clone({
    agent,
    onInvokeHandoff: async (context, args) => {
      const target = await h.onInvokeHandoff(context, args);
      return isAgent(target) ? guardOne(stack, target, options, done) : target;
    },
  }) as Handoff<any, any>;
};

/**
 * Make every tool the runner gets from the agent a `guardTool`: it asks `getAllTools` on every turn
 * (and when it resumes a run), which lists the agent's MCP servers' tools afresh and reads its
 * `tools` as they are then. A tool already guarded by this stack is itself; a tool object the SDK
 * hands out again (a server with `cacheToolsList`) keeps its guarded twin. So do its clones.
 */
const guardRunTools = (stack: GuardAgentStack, copy: Agent<any, any>, options: GuardAgentOptions): void => {
  const own = copy.getAllTools;
  if (typeof own !== "function") return;
  const twins = new WeakMap<object, Tool<any>>();
  const guarded = (tool: Tool<any>): Tool<any> => {
    let twin = twins.get(tool);
    if (twin === undefined) twins.set(tool, (twin = guardTool(stack, tool, options.tools)));
    return twin;
  };
  copy.getAllTools = async function (this: Agent<any, any>, ...args: Parameters<typeof own>) {
    const tools = await own.apply(this, args);
    return Array.isArray(tools) ? tools.map(guarded) : tools;
  } as typeof own;
  // A clone is a new agent of the SDK's (its tools, model and guardrails are this one's): it gets the same.
  const clone = copy.clone;
  copy.clone = function (this: Agent<any, any>, ...args: Parameters<typeof clone>) {
    const cloned = clone.apply(this, args);
    guardRunTools(stack, cloned, options);
    return cloned;
  } as typeof clone;
};

/** The text of an input item when it is a user message, else undefined. */
const userText = (item: Record<string, unknown>): string | undefined => {
  if ((item.type ?? "message") !== "message" || item.role !== "user") return undefined;
  if (typeof item.content === "string") return item.content;
  if (Array.isArray(item.content))
    return (item.content as Record<string, unknown>[])
      .filter((p) => p.type === "input_text")
      .map((p) => String(p.text ?? ""))
      .join("");
  return "";
};

/**
 * The texts of a run's prompt: a string input, or the last user message of an input list with the
 * user messages right before it (a caller may send several at once, and the model reads them all).
 */
const promptsOf = (input: unknown): string[] => {
  if (typeof input === "string") return [input];
  if (!Array.isArray(input)) return [""];
  let last = input.length - 1;
  while (last >= 0 && userText(input[last] as Record<string, unknown>) === undefined) last--;
  if (last < 0) return [""];
  let first = last;
  while (first > 0 && userText(input[first - 1] as Record<string, unknown>) !== undefined) first--;
  return input.slice(first, last + 1).map((item) => userText(item as Record<string, unknown>) as string);
};

/** The input guardrail that runs `userPrompt` (see the top of this file). */
const promptGuardrail = (stack: GuardAgentStack, options: GuardAgentOptions): InputGuardrail => ({
  name: promptGuardrailName,
  runInParallel: false,
  execute: async ({ input, context }) => {
    const run = typeof options.run === "function" ? options.run(context) : (options.run ?? {});
    for (const text of promptsOf(input)) {
      const outcome = await stack.run("userPrompt", { text }, (prompt) => prompt as UserPrompt, run);
      if (outcome._tag === "Failed") throw outcome.error;
      if (outcome._tag === "Rejected")
        return { tripwireTriggered: true, outputInfo: { point: "userPrompt", reason: outcome.reason, by: outcome.by } };
      if (outcome.value.text !== text)
        return {
          tripwireTriggered: true,
          outputInfo: {
            point: "userPrompt",
            reason:
              "a userPrompt hook rewrote the prompt, and an Agents SDK input guardrail cannot change a run's input; rewrite it before run()",
            by: promptGuardrailName,
          },
        };
    }
    return { tripwireTriggered: false, outputInfo: undefined };
  },
});
