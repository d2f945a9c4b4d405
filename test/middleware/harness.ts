/**
 * Helpers for the middleware tests: the reference agent over a scripted model, tools that
 * record their calls, and stores that fail on purpose.
 */
import {
  createAgent,
  createAgentStack,
  createScriptedModel,
  defineTool,
  type AgentStack,
  type AgentTool,
  type ScriptedModel,
  type ScriptedTurn,
  type ToolCall,
  type TurnResult,
} from "../../src/agent/index.ts";
import { MemoryStore, type StateStore } from "../../src/core/index.ts";
import { StoreUnavailableError } from "../../src/stores/errors.ts";

/** A tool that records every input it ran with and answers `ran <name>`. */
export const recordingTool = (
  name: string,
  answer: (input: Record<string, unknown>) => unknown = () => `ran ${name}`,
): AgentTool & { readonly calls: Record<string, unknown>[] } => {
  const calls: Record<string, unknown>[] = [];
  const tool = defineTool({
    name,
    execute: (input) => {
      calls.push(input);
      return answer(input);
    },
  });
  return Object.assign(tool, { calls });
};

/** Run one prompt through the reference agent with a scripted model. */
export const runAgent = async (
  stack: AgentStack,
  turns: readonly ScriptedTurn[],
  options: {
    tools?: readonly AgentTool[];
    metadata?: Record<string, unknown>;
    sessionId?: string;
    stream?: boolean;
    maxSteps?: number;
    model?: ScriptedModel;
  } = {},
): Promise<{ turn: TurnResult; model: ScriptedModel }> => {
  const model = options.model ?? createScriptedModel({ turns });
  const agent = createAgent({
    model,
    stack,
    tools: options.tools ?? [],
    ...(options.stream === true ? { stream: true } : {}),
    ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
  });
  const turn = await agent.run("go", {
    ...(options.metadata !== undefined ? { metadata: options.metadata } : {}),
    ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
  });
  return { turn, model };
};

/** The text of every tool message the model was sent, in order. */
export const toolMessagesSeen = (model: ScriptedModel): string[] =>
  (model.requests.at(-1)?.messages ?? []).filter((m) => m.role === "tool").map((m) => m.content);

/** A tool call payload. */
export const toolCall = (name: string, input: Record<string, unknown> = {}, id = "c1"): ToolCall => ({ id, name, input });

/** A MemoryStore whose listed methods reject with `StoreUnavailableError`, as Redis does when it is down. */
export const failingStore = (methods: readonly (keyof StateStore)[], base: StateStore = new MemoryStore()): StateStore => {
  const broken = new Set<string>(methods);
  const wrap = (store: StateStore): StateStore =>
    new Proxy(store, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop === "scope") return (prefix: string) => wrap(target.scope(prefix));
        if (typeof prop === "string" && broken.has(prop))
          return () => Promise.reject(new StoreUnavailableError(`redis unreachable (${prop})`));
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  return wrap(base);
};

/** A fresh agent stack over its own MemoryStore (returned, to inspect). */
export const stackWithStore = (store: StateStore = new MemoryStore()): { stack: AgentStack; store: StateStore } => ({
  stack: createAgentStack({ store }),
  store,
});

/**
 * Split `text` into chunks at the given indexes, as a stream might deliver it. A cut at 0 or at the
 * end gives an empty chunk, which a stream redactor must take too.
 */
export const splitAt = (text: string, cuts: readonly number[]): string[] => {
  const sorted = [...new Set(cuts)].sort((a, b) => a - b);
  const parts: string[] = [];
  let at = 0;
  for (const c of sorted) parts.push(text.slice(at, c)), (at = c);
  parts.push(text.slice(at));
  return parts;
};
