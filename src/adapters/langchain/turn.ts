/**
 * The turn around the model and tool calls: which session and run a call belongs to, the user's
 * prompt (`beforeAgent` → `userPrompt`), the step (`wrapModelCall` → `step`) and the stop
 * decision (`afterAgent` → `stop`).
 *
 * Everything a turn needs to know lives in its messages, which LangGraph's checkpointer keeps:
 * the session is the thread (`configurable.thread_id`), the run is the turn's prompt (its
 * message id, which LangGraph assigns), the step is how many answers the model gave since, and
 * how often the stop gate blocked is how many of its feedback messages followed. So a run paused
 * in one process and resumed in another is still the same run: per-run budgets and limits hold.
 * Messages this middleware adds have ids that start with `agent-onion:`.
 */
import { randomUUID } from "node:crypto";
import { AIMessage, HumanMessage, RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import type { RunOptions } from "../../core/context.ts";
import { RunAbortedError } from "../../core/errors.ts";
import type { Outcome } from "../../core/outcome.ts";
import type { AgentStack } from "../../agent/stack.ts";
import { feedback } from "../../agent/stop.ts";
import type { StopRequest, UserPrompt } from "../../agent/types.ts";
import { CallContext } from "../call-context.ts";
import { textOf, withText } from "./messages.ts";
import { finishReasonOf } from "./response.ts";

/** The prefix of the ids of messages this middleware adds. */
export const ownPrefix = "agent-onion:";

/**
 * True for a message this middleware added (a refusal, a stop's feedback, hook context).
 *
 * @example
 * isOwn(new HumanMessage({ id: "agent-onion:stop:1", content: "Stop hook feedback: ..." })) // true
 */
export const isOwn = (message: BaseMessage | undefined): boolean => typeof message?.id === "string" && message.id.startsWith(ownPrefix);

const ownId = (kind: string): string => `${ownPrefix}${kind}:${randomUUID()}`;

/** The turn's prompt: the last human message that is not one of ours. */
const promptIndex = (messages: readonly BaseMessage[]): number => {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as BaseMessage;
    if (m.getType() === "human" && !isOwn(m)) return i;
  }
  return -1;
};

/** What LangGraph's runtime tells about where a call runs. */
export interface TurnRuntime {
  readonly configurable?: { readonly thread_id?: unknown; readonly [key: string]: unknown } | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * The session and run a call belongs to: the thread, and the turn's prompt.
 *
 * @example
 * turnIds(state.messages, runtime) // { sessionId: "thread-1", runId: "thread-1:3f0c…" }
 */
export const turnIds = (messages: readonly BaseMessage[], runtime: TurnRuntime | undefined): { sessionId?: string; runId: string } => {
  const thread = runtime?.configurable?.thread_id;
  const sessionId = typeof thread === "string" || typeof thread === "number" ? String(thread) : undefined;
  const prompt = messages[promptIndex(messages)];
  const runId = `${sessionId ?? "-"}:${prompt?.id ?? "no-prompt"}`;
  return sessionId === undefined ? { runId } : { sessionId, runId };
};

/**
 * The step a model call starts: how many answers the model gave since the turn's prompt.
 *
 * @example
 * stepIndex([human, ai, tool, ai, tool]) // 2
 */
export const stepIndex = (messages: readonly BaseMessage[]): number => {
  let steps = 0;
  for (let i = promptIndex(messages) + 1; i < messages.length; i++) if ((messages[i] as BaseMessage).getType() === "ai") steps++;
  return steps;
};

/** What the turn's hooks need of a stack. */
export type TurnStack = Pick<AgentStack, "run" | "has">;

/** What a node hook answers LangChain: state updates, and where to go next. */
export type NodeUpdate = { messages: BaseMessage[]; jumpTo?: "end" | "model" } | undefined;

const failure = (outcome: Outcome<unknown>, caller: AbortSignal | undefined): unknown => {
  if (outcome._tag !== "Failed") return new TypeError("not a failure");
  return outcome.error instanceof RunAbortedError && !outcome.error.timedOut && caller?.aborted ? caller.reason : outcome.error;
};

/**
 * The turn's prompts: the human messages at the end of the thread that are not ours. A caller may
 * send several at once (`invoke({ messages: [a, b] })`), and the model reads every one of them.
 */
const newPrompts = (messages: readonly BaseMessage[]): BaseMessage[] => {
  let i = messages.length;
  while (i > 0 && (messages[i - 1] as BaseMessage).getType() === "human" && !isOwn(messages[i - 1])) i--;
  return messages.slice(i);
};

/**
 * `beforeAgent`: each new prompt through the `userPrompt` gate, in order (every human message the
 * turn added, not only the last: the model reads them all). A rewrite replaces that prompt's text
 * in the thread (its other blocks kept); hook context joins the thread as a human message after
 * them; a refusal of any removes them all from the thread, answers with an AI message saying who
 * refused and why, and ends the run.
 *
 * @example
 * beforeAgent: { canJumpTo: ["end"], hook: (state, runtime) => checkPrompt(stack, run, state.messages, runtime, refusal) }
 */
export const checkPrompt = async (
  stack: TurnStack,
  run: Omit<RunOptions, "signal">,
  messages: readonly BaseMessage[],
  runtime: TurnRuntime | undefined,
  refusal: (reason: string, by: string) => string,
): Promise<NodeUpdate> => {
  // Only a new turn has a prompt to check: a resumed one, or a run started without one, has none.
  const prompts = newPrompts(messages);
  if (prompts.length === 0) return undefined;
  const context = new CallContext(run.onContext);
  const caller = runtime?.signal;
  const updates: BaseMessage[] = [];
  for (const prompt of prompts) {
    const input: UserPrompt = { text: textOf(prompt.content) };
    const outcome = await stack.run("userPrompt", input, (p) => p, { ...run, signal: caller, onContext: context.push });
    if (outcome._tag === "Failed") throw failure(outcome, caller);
    if (outcome._tag === "Rejected") {
      const removed = prompts.flatMap((p) => (p.id !== undefined ? [new RemoveMessage({ id: p.id })] : []));
      return {
        messages: [...removed, new AIMessage({ id: ownId("refusal"), content: refusal(outcome.reason, outcome.by) })],
        jumpTo: "end",
      };
    }
    if (outcome.value.text !== input.text)
      updates.push(
        new HumanMessage({ content: withText(prompt.content, outcome.value.text), ...(prompt.id !== undefined ? { id: prompt.id } : {}) }),
      );
  }
  const texts = context.current();
  if (texts.length > 0) updates.push(new HumanMessage({ id: ownId("context"), content: texts.join("\n\n") }));
  return updates.length === 0 ? undefined : { messages: updates };
};

/**
 * `afterAgent`: the model's final answer through the `stop` gate. A block feeds every hook's
 * reason back as a human message and sends the agent back to the model; once it blocked
 * `maxBlocks` times in the run, the agent stops anyway with a `warning` notification (R13), as
 * the reference loop does. Refusals and guard stops end without asking.
 *
 * @example
 * afterAgent: { canJumpTo: ["model"], hook: (state, runtime) => checkStop(stack, run, state.messages, runtime, 8) }
 */
export const checkStop = async (
  stack: TurnStack,
  run: Omit<RunOptions, "signal">,
  messages: readonly BaseMessage[],
  runtime: TurnRuntime | undefined,
  maxBlocks: number,
): Promise<NodeUpdate> => {
  const last = messages.at(-1);
  if (last === undefined || last.getType() !== "ai" || isOwn(last) || ((last as AIMessage).tool_calls?.length ?? 0) > 0) return undefined;
  let blocked = 0;
  for (let i = promptIndex(messages) + 1; i < messages.length; i++) if ((messages[i]?.id ?? "").startsWith(`${ownPrefix}stop:`)) blocked++;
  const request: StopRequest = {
    reason: finishReasonOf(last.response_metadata as Record<string, unknown> | undefined, false),
    lastMessage: textOf(last.content),
    blockedCount: blocked,
  };
  const caller = runtime?.signal;
  const outcome = await stack.run("stop", request, () => ({ stop: true }), { ...run, signal: caller });
  if (outcome._tag === "Failed") throw failure(outcome, caller);
  if (outcome._tag !== "Rejected") return undefined;
  if (blocked >= maxBlocks) {
    const message = `stop was blocked ${blocked} times in a row; stopping anyway (maxStopBlocks ${maxBlocks})`;
    await stack.run("notification", { type: "warning", message }, () => undefined, { ...run, signal: caller });
    return undefined;
  }
  const reasons = outcome.reasons ?? [{ reason: outcome.reason, by: outcome.by }];
  return { messages: [new HumanMessage({ id: ownId("stop"), content: feedback(reasons) })], jumpTo: "model" };
};

/**
 * The answer that ends a run a guard stopped before the model was called (a step limit, a token
 * budget): an AI message with the guard's reason, so the run ends cleanly, as LangChain's own
 * limit middleware ends it.
 *
 * @example
 * guardStop("Step limit reached: 20/20", "stepLimit").content // "Step limit reached: 20/20"
 */
export const guardStop = (reason: string, by: string | undefined): AIMessage =>
  new AIMessage({ id: ownId("guard"), content: reason, response_metadata: { stoppedBy: { reason, ...(by !== undefined ? { by } : {}) } } });
