/**
 * One LangChain tool call (`wrapToolCall`) through the stack's `toolCall` point.
 *
 * - The `ToolCall` hooks see is `{ id, name, input: args }`; a `Transform` of it reaches the tool
 *   (renamed: the tool of that name runs, as LangChain's `ToolNode` finds tools by name). The
 *   `ToolMessage` keeps answering the call the model made (its `tool_call_id`).
 * - The `ToolResult` hooks see is the tool message's content, its `artifact` when it has one (a
 *   `content_and_artifact` tool's: the model never reads it, the caller does), and `isError` for
 *   `status: "error"`, and for a `Command` the content of the other messages it adds (`messages`,
 *   in order: the model reads them next); unchanged, the tool's own message (or `Command`) goes
 *   back; changed, a new `ToolMessage` with the hooks' content and artifact, and in a `Command`
 *   the other messages with the content the hooks settled on.
 * - A refusal answers the way LangChain's own middleware refuses a call (the human-in-the-loop
 *   middleware's reject, the tool-call limit): a `ToolMessage` with `status: "error"` whose content
 *   says who refused and why, so the model reads it and the run goes on.
 * - A tool's own error is thrown unchanged, as LangChain does when a `wrapToolCall` middleware
 *   is present (its `ToolNode` then rethrows it; LangChain's `toolErrorMiddleware`, or a
 *   `recover` on the `error` point, turns it into a message instead).
 * - `ctx.addContext(text)` is appended to the result the model reads.
 */
import { ToolMessage, type MessageContent } from "@langchain/core/messages";
import type { RunOptions } from "../../core/context.ts";
import { RunAbortedError } from "../../core/errors.ts";
import type { DeepReadonly } from "../../core/readonly.ts";
import type { StateStore } from "../../core/state.ts";
import { rejectedResult, type ToolCallStack } from "../../agent/wrap-tool.ts";
import type { ToolCall, ToolResult } from "../../agent/types.ts";
import { Pause, type InterruptRuntime } from "./approval.ts";
import { CallContext } from "../call-context.ts";
import { decide, type ErrorStack } from "./decide.ts";
import { copy, toToolCall } from "./messages.ts";
import { isBoxedInput, unboxInput } from "../../agent/tool-input.ts";

/** A LangChain tool call as `wrapToolCall` gets it (the fields read here). */
export interface LangChainToolCallRequest {
  readonly toolCall: {
    readonly id?: string | undefined;
    readonly name: string;
    readonly args: Record<string, unknown>;
    readonly type?: "tool_call";
  };
  readonly tool: unknown;
  readonly runtime: InterruptRuntime & { readonly signal?: AbortSignal | undefined };
  readonly [key: string]: unknown;
}

/** What a tool call answers with: a `ToolMessage`, or a LangGraph `Command`. */
export type ToolAnswer = ToolMessage | { readonly lg_name: "Command"; readonly update?: unknown; readonly [key: string]: unknown };

/** What runs one call: the stack, the run's options, and how refusals and approvals are answered. */
export interface ToolScope {
  readonly stack: ToolCallStack & ErrorStack;
  readonly run: Omit<RunOptions, "signal">;
  /** The content a refusal answers with; default `Tool call X was rejected by H: reason`. */
  readonly rejected: ((reason: string, by: string, call: DeepReadonly<ToolCall>) => MessageContent) | undefined;
  /** Ask through LangGraph interrupts (true) or the stack's own approval handler (false). */
  readonly interrupts: boolean;
  /** Where questions are kept and answers claimed: the application's, or one of this process. */
  readonly store: StateStore;
  /** True when the store is the application's (shared by its processes, as it says). */
  readonly shared: boolean;
  readonly resumeTtlMs: number;
  readonly maxRetries: number;
}

const isCommand = (value: unknown): value is Extract<ToolAnswer, { lg_name: "Command" }> =>
  typeof value === "object" && value !== null && (value as { lg_name?: unknown }).lg_name === "Command";

/** The tool message a `Command` carries for this call, if any. */
const messageIn = (command: Extract<ToolAnswer, { lg_name: "Command" }>, id: string | undefined): ToolMessage | undefined => {
  const messages = (command.update as { messages?: unknown } | undefined)?.messages;
  return Array.isArray(messages)
    ? (messages as unknown[]).find((m): m is ToolMessage => ToolMessage.isInstance(m) && m.tool_call_id === id)
    : undefined;
};

/** A message of a `Command`'s update: a LangChain message, or a message-like object with `content`. */
type UpdateMessage = { readonly content?: unknown; readonly lc_kwargs?: Record<string, unknown> };

/** The messages a `Command` adds besides the call's own message. */
const othersIn = (answer: ToolAnswer, own: ToolMessage | undefined): UpdateMessage[] => {
  if (!isCommand(answer)) return [];
  const messages = (answer.update as { messages?: unknown } | undefined)?.messages;
  if (!Array.isArray(messages)) return [];
  return (messages as unknown[]).filter((m): m is UpdateMessage => m !== own && typeof m === "object" && m !== null && "content" in m);
};

/** What hooks see of a tool's answer. */
const toResult = (answer: ToolAnswer, id: string | undefined): ToolResult => {
  const message = isCommand(answer) ? messageIn(answer, id) : answer;
  const others = othersIn(answer, message);
  // Beside the content, so that what reads a result (redaction, audit) reads them too.
  const extra = others.length > 0 ? { messages: others.map((m) => copy(m.content)) } : {};
  if (message === undefined) return { content: "", ...extra } as ToolResult;
  return {
    content: copy(message.content),
    ...(message.artifact !== undefined ? { artifact: copy(message.artifact) } : {}),
    ...extra,
    ...(message.status === "error" ? { isError: true } : {}),
  } as ToolResult;
};

/**
 * `message` with the content the hooks settled on: itself while it is the same, else a message of
 * its class with the same fields (a LangChain message is rebuilt from its constructor's fields).
 */
const withContent = (message: UpdateMessage, content: unknown): unknown => {
  if (JSON.stringify(content) === JSON.stringify(message.content)) return message;
  const kwargs = message.lc_kwargs;
  if (kwargs === undefined) return { ...message, content: contentOf(content) };
  const Message = message.constructor as new (fields: Record<string, unknown>) => unknown;
  return new Message({ ...kwargs, content: contentOf(content) });
};

/** The artifact of a result hooks settled on, if it has one. */
const artifactOf = (result: DeepReadonly<ToolResult>): unknown => (result as { readonly artifact?: unknown }).artifact;

/** A result's content as LangChain message content: text and content blocks as they are, anything else as JSON. */
const contentOf = (content: unknown): MessageContent => {
  if (typeof content === "string" || Array.isArray(content)) return copy(content) as MessageContent;
  return JSON.stringify(content) ?? String(content);
};

const withTexts = (content: MessageContent, texts: readonly string[]): MessageContent => {
  if (texts.length === 0) return content;
  const extra = texts.join("\n\n");
  if (typeof content === "string") return content === "" ? extra : `${content}\n\n${extra}`;
  return [...content, { type: "text", text: extra }] as MessageContent;
};

/** The answer for the result hooks settled on: the tool's own while they left it alone. */
const toAnswer = (
  settled: DeepReadonly<ToolResult>,
  from: { readonly result: ToolResult; readonly answer: ToolAnswer } | undefined,
  call: LangChainToolCallRequest["toolCall"],
  texts: readonly string[],
): ToolAnswer => {
  if (from !== undefined && settled === from.result && texts.length === 0) return from.answer;
  const own = from === undefined ? undefined : isCommand(from.answer) ? messageIn(from.answer, call.id) : from.answer;
  const message = new ToolMessage({
    content: withTexts(contentOf(settled.content), texts),
    tool_call_id: call.id ?? "",
    name: own?.name ?? call.name,
    status: settled.isError === true ? "error" : "success",
    // The hooks' artifact, not the tool's: what they settled on replaced it (a redaction rewrote it).
    ...(artifactOf(settled) !== undefined ? { artifact: copy(artifactOf(settled)) } : {}),
  });
  if (from === undefined || !isCommand(from.answer)) return message;
  // A `Command` keeps its other updates; the call's message, and the content of its other messages, are the hooks'.
  // A result without `messages` (a hook that rebuilt it without them) leaves the others as the tool made them.
  const command = from.answer;
  const update = command.update as { messages?: unknown[] } | undefined;
  const others = othersIn(command, own);
  const settledOthers = (settled as { readonly messages?: readonly unknown[] }).messages;
  const messages = (update?.messages ?? []).map((m) => {
    if (m === own) return message;
    const at = others.indexOf(m as UpdateMessage);
    return at < 0 || settledOthers === undefined || at >= settledOthers.length ? m : withContent(m as UpdateMessage, settledOthers[at]);
  });
  const Command = command.constructor as new (fields: Record<string, unknown>) => ToolAnswer;
  return new Command({ ...command, update: { ...update, messages: own === undefined ? [...messages, message] : messages } });
};

/**
 * Run one tool call through the stack's `toolCall` point, for `wrapToolCall`.
 *
 * @example
 * wrapToolCall: (request, handler) => runTool(scope, request, handler)
 */
export const runTool = async (
  scope: ToolScope,
  request: LangChainToolCallRequest,
  handler: (request: never) => ToolAnswer | Promise<ToolAnswer>,
): Promise<ToolAnswer> => {
  const lc = request.toolCall;
  const call = toToolCall(lc, "");
  const caller = request.runtime.signal;
  for (let attempt = 1; ; attempt++) {
    const context = new CallContext(scope.run.onContext);
    const pause = scope.interrupts ? new Pause(request.runtime, scope.store, scope.resumeTtlMs, caller, scope.shared) : undefined;
    const produced = new Map<ToolResult, ToolAnswer>();
    let outcome;
    try {
      outcome = await scope.stack.run(
        "toolCall",
        call,
        async (c) => {
          pause?.refuseReuse();
          context.forAttempt();
          // The call the model made keeps its id: the tool message must answer it.
          const toolCall =
            c === call ? lc : { ...lc, name: c.name, args: copy(unboxInput(c.input, isBoxedInput(call.input))) as Record<string, unknown> };
          const answer = await handler({ ...request, toolCall, tool: c.name === lc.name ? request.tool : undefined } as never);
          const result = toResult(answer, lc.id);
          produced.set(result, answer);
          return result;
        },
        {
          ...scope.run,
          signal: pause?.signal ?? caller,
          onContext: context.push,
          ...(pause !== undefined ? { approval: pause.handler } : {}),
        },
      );
    } finally {
      pause?.dispose();
    }
    pause?.throwIfPaused();
    const texts = context.current();
    if (outcome._tag === "Completed") {
      const own = produced.get(outcome.value as ToolResult);
      const last = [...produced].at(-1);
      return toAnswer(
        outcome.value,
        own !== undefined
          ? { result: outcome.value as ToolResult, answer: own }
          : last === undefined
            ? undefined
            : { result: last[0], answer: last[1] },
        lc,
        texts,
      );
    }
    if (outcome._tag === "Rejected") {
      const content =
        scope.rejected?.(outcome.reason, outcome.by, call) ?? (rejectedResult(call, outcome.reason, outcome.by).content as string);
      return new ToolMessage({ content: withTexts(content, texts), tool_call_id: lc.id ?? "", name: lc.name, status: "error" });
    }
    const error = outcome.error;
    // The caller aborted: throw their reason, as LangChain does.
    if (error instanceof RunAbortedError && !error.timedOut && caller?.aborted) throw caller.reason;
    const decision = await decide(scope.stack, { where: "tool", error, attempt }, scope.run, scope.maxRetries, caller);
    if (decision.action === "retry") continue;
    if (decision.action === "recover")
      return new ToolMessage({ content: withTexts(contentOf(decision.value), texts), tool_call_id: lc.id ?? "", name: lc.name });
    throw error;
  }
};
