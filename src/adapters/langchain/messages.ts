/**
 * LangChain messages ↔ our `Message`s, both ways, losing nothing that hooks left alone.
 *
 * Going in, each LangChain message becomes one `Message`: its text (the text blocks of an array
 * content, joined), an AI message's tool calls as `ToolCall`s, a tool message's call id, tool
 * name and `status: "error"` as `isError`. Coming back, every `Message` object a hook did not
 * replace maps to the LangChain message it came from, untouched (images, reasoning blocks, ids,
 * metadata and all); a message a hook rewrote is rebuilt from its text and tool calls, keeping
 * the non-text blocks of the message that stood at its place (an image beside redacted text)
 * while the hooks kept the number of messages. Unchanged requests give back the very same list.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage, type MessageContent } from "@langchain/core/messages";
import type { DeepReadonly } from "../../core/readonly.ts";
import type { Message, ToolCall } from "../../agent/types.ts";
import { boxInput, unboxInput } from "../../agent/tool-input.ts";

/**
 * Messages mapped for hooks, with what each came from.
 *
 * @example
 * const mapped = new MappedMessages(lcMessages); mapped.back(mapped.messages) === lcMessages // true
 */
export class MappedMessages {
  /** The messages hooks see. */
  declare readonly messages: readonly Message[];
  declare private readonly originals: readonly BaseMessage[];
  declare private byMessage: Map<Message, BaseMessage> | undefined;

  constructor(originals: readonly BaseMessage[]) {
    this.originals = originals;
    this.messages = originals.map(toMessage);
    this.byMessage = undefined;
  }

  /** The LangChain messages for what hooks settled on (the originals themselves when nothing changed). */
  back(messages: DeepReadonly<readonly Message[]>): BaseMessage[] {
    const own = this.messages;
    if (messages === own || (messages.length === own.length && messages.every((m, i) => m === own[i])))
      return this.originals as BaseMessage[];
    const byMessage = (this.byMessage ??= new Map(own.map((m, i) => [m, this.originals[i] as BaseMessage])));
    // A rewritten message keeps the non-text blocks of the one at its place only while the places still line up.
    const aligned = messages.length === own.length;
    return messages.map((m, i) => byMessage.get(m as Message) ?? fromMessage(m as Message, aligned ? this.originals[i] : undefined));
  }
}

/**
 * The text of a LangChain content: the string itself, or its text blocks joined.
 *
 * @example
 * textOf([{ type: "text", text: "a" }, { type: "image_url", image_url: "..." }, { type: "text", text: "b" }]) // "ab"
 */
export const textOf = (content: unknown): string => {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const block of content) {
    if (typeof block === "string") text += block;
    else if (isTextBlock(block)) text += block.text;
  }
  return text;
};

const isTextBlock = (block: unknown): block is { readonly type: "text"; readonly text: string } =>
  typeof block === "object" &&
  block !== null &&
  (block as { type?: unknown }).type === "text" &&
  typeof (block as { text?: unknown }).text === "string";

/**
 * A content with its text replaced by `text`: a string stays a string; an array keeps its
 * non-text blocks, in order, after one text block (tool-call blocks are dropped: the message's
 * `tool_calls` say which calls it makes).
 *
 * @example
 * withText([{ type: "image_url", image_url: "u" }, { type: "text", text: "a@b.c" }], "[email]") // [{ type: "text", text: "[email]" }, { type: "image_url", image_url: "u" }]
 */
export const withText = (content: unknown, text: string): MessageContent => {
  if (!Array.isArray(content)) return text;
  const kept = content.filter((block) => typeof block === "object" && block !== null && !isTextBlock(block) && !isToolBlock(block));
  if (kept.length === 0) return text;
  return (text === "" ? kept : [{ type: "text", text }, ...kept]) as MessageContent;
};

const isToolBlock = (block: object): boolean => {
  const type = (block as { type?: unknown }).type;
  return typeof type === "string" && /tool|function_call/.test(type);
};

/**
 * A deep copy for hooks (strict mode freezes what they see; LangChain's objects stay LangChain's);
 * what cannot be cloned (a function, a class instance) is given as it is.
 *
 * @example
 * const args = { path: "a" }; copy(args) !== args // true
 */
export const copy = <T>(value: T): T => {
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A LangChain tool call as ours (`args` copied, as hooks may see it frozen).
 *
 * @example
 * toToolCall({ id: "c1", name: "search", args: { q: "x" } }) // { id: "c1", name: "search", input: { q: "x" } }
 */
export const toToolCall = (
  call: { readonly id?: string | undefined; readonly name: string; readonly args?: unknown },
  fallbackId = "",
): ToolCall => ({
  id: call.id ?? fallbackId,
  name: call.name,
  // Arguments that are not an object (a bare string the model sent) still reach the tool: hooks see them boxed.
  input: isRecord(call.args) ? copy(call.args) : call.args === undefined ? {} : boxInput(copy(call.args)),
});

/**
 * Our tool call as LangChain's.
 *
 * @example
 * fromToolCall({ id: "c1", name: "search", input: { q: "x" } }) // { id: "c1", name: "search", args: { q: "x" }, type: "tool_call" }
 */
export const fromToolCall = (
  call: DeepReadonly<ToolCall>,
): { id: string; name: string; args: Record<string, unknown>; type: "tool_call" } => ({
  id: call.id,
  name: call.name,
  args: copy(unboxInput(call.input, false)) as Record<string, unknown>,
  type: "tool_call",
});

const roleOf = (message: BaseMessage): Message["role"] => {
  switch (message.getType()) {
    case "system":
    case "developer":
      return "system";
    case "ai":
      return "assistant";
    case "tool":
      return "tool";
    case "generic": {
      const role = (message as { role?: unknown }).role;
      return role === "assistant" || role === "ai" ? "assistant" : role === "system" ? "system" : "user";
    }
    default:
      return "user";
  }
};

/**
 * One LangChain message as ours.
 *
 * @example
 * toMessage(new ToolMessage({ content: "no", tool_call_id: "c1", name: "bash", status: "error" })) // { role: "tool", content: "no", toolCallId: "c1", toolName: "bash", isError: true }
 */
export const toMessage = (message: BaseMessage): Message => {
  const role = roleOf(message);
  const content = textOf(message.content);
  if (role === "assistant") {
    const calls = (message as AIMessage).tool_calls;
    return calls !== undefined && calls.length > 0 ? { role, content, toolCalls: calls.map((c) => toToolCall(c)) } : { role, content };
  }
  if (role === "tool") {
    const tool = message as ToolMessage;
    return {
      role,
      content,
      toolCallId: tool.tool_call_id,
      ...(typeof tool.name === "string" ? { toolName: tool.name } : {}),
      ...(tool.status === "error" ? { isError: true } : {}),
    };
  }
  return { role, content };
};

/** A message hooks made or rewrote, as a LangChain message (keeping the non-text blocks of `place`). */
const fromMessage = (message: Message, place: BaseMessage | undefined): BaseMessage => {
  const same = place !== undefined && roleOf(place) === message.role;
  const content = withText(same ? place.content : undefined, message.content);
  const id = same ? place.id : undefined;
  switch (message.role) {
    case "system":
      return new SystemMessage({ content, ...(id !== undefined ? { id } : {}) });
    case "assistant":
      return new AIMessage({
        content,
        ...(id !== undefined ? { id } : {}),
        ...(message.toolCalls !== undefined && message.toolCalls.length > 0 ? { tool_calls: message.toolCalls.map(fromToolCall) } : {}),
      });
    case "tool":
      return new ToolMessage({
        content,
        tool_call_id: message.toolCallId ?? "",
        ...(message.toolName !== undefined ? { name: message.toolName } : {}),
        ...(id !== undefined ? { id } : {}),
        status: message.isError === true ? "error" : "success",
      });
    default:
      return new HumanMessage({ content, ...(id !== undefined ? { id } : {}) });
  }
};
