/**
 * The Agents SDK's model request ↔ our `ModelRequest`, both ways.
 *
 * In: the system instructions become a leading system message; each input item that is a
 * message, a function call or a function call's result becomes one message (a function call is
 * an assistant message with one tool call); items with no twin (reasoning, hosted tool calls,
 * images in their own items, compaction) are left out of `messages` and kept where they were.
 * The offered tools are the request's tools and handoffs, by name.
 *
 * Out: a request hooks left alone is the SDK's own object. A changed one is the SDK's request
 * with only what changed rewritten: a message rewritten in place (a hook mapping over the
 * messages with `{ ...message, content }`) is its item with the change written in, so item ids,
 * provider data and images survive a redaction of the text; new messages become new items.
 * Tools a hook removed are not offered; a hook cannot add a tool the agent does not have.
 */
import type { ModelRequest as SdkRequest, SerializedHandoff, SerializedTool } from "@openai/agents";
import { contentText } from "../../agent/content-text.ts";
import type { Message, ModelRequest, ToolCall, ToolSpec } from "../../agent/types.ts";
import type { DeepReadonly } from "../../core/readonly.ts";

type Origin = number | "instructions";
type Item = Record<string, unknown>;

/**
 * A request as hooks see it, and what is needed to write their changes back.
 *
 * @example
 * const mapped: MappedRequest = toRequest(sdkRequest, "gpt-4.1", false)
 */
export interface MappedRequest {
  readonly request: ModelRequest;
  /** Where each message of `request` came from: the index of its input item, or `instructions`. */
  readonly origins: ReadonlyMap<Message, Origin>;
  /** The input as items (a string input is one user message). */
  readonly items: readonly Item[];
  /** The message each item became, by item index (absent for items with no twin). */
  readonly messages: ReadonlyMap<number, Message>;
  readonly inputWasText: boolean;
}

const textOfParts = (content: unknown): string => {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const part of content as Item[]) {
    if (part.type === "input_text" || part.type === "output_text" || part.type === "text") text += String(part.text ?? "");
    else if (part.type === "refusal") text += String(part.refusal ?? "");
  }
  return text;
};

const parseArguments = (args: unknown): Record<string, unknown> => {
  if (typeof args !== "string") return {};
  try {
    const parsed: unknown = JSON.parse(args);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : { value: parsed };
  } catch {
    // What the model wrote is kept for hooks to read; the SDK reports invalid JSON to the model itself.
    return { arguments: args };
  }
};

/**
 * A tool call of the SDK (`function_call` item) as ours: the call id, the name, the parsed arguments.
 *
 * @example
 * callOf({ type: "function_call", callId: "c1", name: "search", arguments: '{"q":"x"}' }) // { id: "c1", name: "search", input: { q: "x" } }
 */
export const callOf = (item: Item): ToolCall => ({
  id: String(item.callId ?? item.id ?? ""),
  name: String(item.name ?? ""),
  input: parseArguments(item.arguments),
});

/** The message an input item becomes, or undefined for an item with no twin. */
const messageOf = (item: Item): Message | undefined => {
  const type = item.type ?? "message";
  if (type === "message") {
    const role = item.role === "developer" ? "system" : item.role;
    if (role !== "user" && role !== "assistant" && role !== "system") return undefined;
    return { role, content: textOfParts(item.content) };
  }
  if (type === "function_call") return { role: "assistant", content: "", toolCalls: [callOf(item)] };
  if (type === "function_call_result") {
    return {
      role: "tool",
      content: functionOutputText(item.output),
      toolCallId: String(item.callId ?? ""),
      toolName: String(item.name ?? ""),
    };
  }
  return undefined;
};

/** The text of a function call's result: its text output, or its parts' text. */
const functionOutputText = (output: unknown): string => {
  if (typeof output === "string") return output;
  if (Array.isArray(output)) return textOfParts(output);
  if (typeof output === "object" && output !== null && (output as Item).type === "text") return String((output as Item).text ?? "");
  return contentText(output);
};

const specOf = (tool: SerializedTool | SerializedHandoff): ToolSpec => {
  if ("toolName" in tool)
    return { name: tool.toolName, description: tool.toolDescription, inputSchema: tool.inputJsonSchema as Record<string, unknown> };
  const t = tool as { name: string; description?: string; parameters?: unknown };
  return {
    name: t.name,
    ...(typeof t.description === "string" ? { description: t.description } : {}),
    ...(typeof t.parameters === "object" && t.parameters !== null ? { inputSchema: t.parameters as Record<string, unknown> } : {}),
  };
};

/**
 * The SDK's request as hooks see it.
 *
 * @example
 * toRequest({ systemInstructions: "Be brief", input: "Hi", modelSettings: {}, tools: [], handoffs: [], outputType: "text", tracing: false }, "gpt-4.1", false).request.messages
 * // [{ role: "system", content: "Be brief" }, { role: "user", content: "Hi" }]
 */
export const toRequest = (
  sdk: SdkRequest,
  model: string,
  stream: boolean,
  origin: Pick<ModelRequest, "provider" | "server"> = {},
): MappedRequest => {
  const inputWasText = typeof sdk.input === "string";
  const items: readonly Item[] = inputWasText ? [{ type: "message", role: "user", content: sdk.input }] : (sdk.input as unknown as Item[]);
  const messages: Message[] = [];
  const byItem = new Map<number, Message>();
  const origins = new Map<Message, Origin>();
  if (typeof sdk.systemInstructions === "string" && sdk.systemInstructions !== "") {
    const system: Message = { role: "system", content: sdk.systemInstructions };
    origins.set(system, "instructions");
    messages.push(system);
  }
  items.forEach((item, i) => {
    const message = messageOf(item);
    if (message === undefined) return;
    origins.set(message, i);
    byItem.set(i, message);
    messages.push(message);
  });
  const settings = sdk.modelSettings ?? {};
  const tools = [...(sdk.tools ?? []), ...(sdk.handoffs ?? [])].map(specOf);
  const request: ModelRequest = {
    model,
    messages,
    ...(tools.length > 0 ? { tools } : {}),
    ...(typeof settings.maxTokens === "number" ? { maxOutputTokens: settings.maxTokens } : {}),
    ...(typeof settings.temperature === "number" ? { temperature: settings.temperature } : {}),
    stream,
    ...origin,
  };
  return { request, origins, items, messages: byItem, inputWasText };
};

/**
 * The SDK's request with what hooks changed written back, and the texts hooks added with
 * `ctx.addContext` appended to the system instructions.
 *
 * @example
 * const mapped = toRequest(sdk, "gpt-4.1", false)
 * fromRequest(sdk, mapped, mapped.request, []) === sdk // true: nothing changed
 */
export const fromRequest = (
  sdk: SdkRequest,
  mapped: MappedRequest,
  hooked: DeepReadonly<ModelRequest>,
  context: readonly string[],
): SdkRequest => {
  const before = mapped.request;
  if ((hooked as ModelRequest) === before && context.length === 0) return sdk;
  let next: SdkRequest = sdk;
  const set = (patch: Partial<SdkRequest>): void => {
    next = next === sdk ? { ...sdk, ...patch } : Object.assign(next, patch);
  };
  if (hooked.temperature !== before.temperature || hooked.maxOutputTokens !== before.maxOutputTokens) {
    const { temperature: _t, maxTokens: _m, ...settings } = sdk.modelSettings ?? {};
    set({
      modelSettings: {
        ...settings,
        ...(hooked.temperature !== undefined ? { temperature: hooked.temperature } : {}),
        ...(hooked.maxOutputTokens !== undefined ? { maxTokens: hooked.maxOutputTokens } : {}),
      },
    });
  }
  if (hooked.tools !== before.tools) {
    const offered = new Map((hooked.tools ?? []).map((t) => [t.name, t]));
    set({
      tools: (sdk.tools ?? []).filter((t) => offered.has(t.name)).map((t) => described(t, offered.get(t.name))),
      handoffs: (sdk.handoffs ?? []).filter((h) => offered.has(h.toolName)),
    });
  }
  let system = sdk.systemInstructions;
  if (hooked.messages !== before.messages) {
    const rebuilt = rebuild(mapped, hooked.messages as readonly Message[]);
    system = rebuilt.system;
    set({ input: rebuilt.input as SdkRequest["input"] });
    if (rebuilt.system !== sdk.systemInstructions) set({ systemInstructions: rebuilt.system } as Partial<SdkRequest>);
  }
  if (context.length > 0) set({ systemInstructions: [system, ...context].filter((s) => s !== undefined && s !== "").join("\n\n") });
  if (next !== sdk && next.systemInstructions === undefined) delete (next as { systemInstructions?: string }).systemInstructions;
  return next;
};

const described = (tool: SerializedTool, spec: DeepReadonly<ToolSpec> | undefined): SerializedTool => {
  if (spec === undefined || tool.type !== "function") return tool;
  return spec.description === undefined || spec.description === tool.description ? tool : { ...tool, description: spec.description };
};

/** The input items and instructions for the messages hooks settled on (see the top of this file). */
const rebuild = (
  mapped: MappedRequest,
  messages: readonly Message[],
): { readonly input: string | Item[]; readonly system: string | undefined } => {
  // A message hooks kept is its own origin; one they rewrote in place (a map over the messages,
  // `{ ...m, content }`) stands where its original stood, so it comes from the same item.
  const before = mapped.request.messages;
  const inPlace = messages.length === before.length;
  const originOf = (m: Message, at: number): Origin | undefined => {
    const own = mapped.origins.get(m);
    if (own !== undefined) return own;
    const was = before[at];
    return inPlace && was !== undefined && was.role === m.role ? mapped.origins.get(was) : undefined;
  };
  const systems: string[] = [];
  let i = 0;
  // Leading system messages that are not input items are the instructions.
  for (; i < messages.length; i++) {
    const m = messages[i] as Message;
    if (m.role !== "system" || typeof originOf(m, i) === "number") break;
    if (m.content !== "") systems.push(m.content);
  }
  const out: Item[] = [];
  // Items with no twin go out in their place: before the first message that came from a later item.
  const kept = [...mapped.items.keys()].filter((k) => !mapped.messages.has(k));
  let k = 0;
  const flushUpTo = (index: number): void => {
    while (k < kept.length && (kept[k] as number) < index) out.push(mapped.items[kept[k++] as number] as Item);
  };
  for (; i < messages.length; i++) {
    const m = messages[i] as Message;
    const from = originOf(m, i);
    if (typeof from === "number") flushUpTo(from);
    out.push(...itemsOf(m, typeof from === "number" ? from : undefined, mapped));
  }
  flushUpTo(Number.POSITIVE_INFINITY);
  const system = systems.length > 0 ? systems.join("\n\n") : undefined;
  const only = out[0];
  // A text input that hooks only rewrote stays text.
  const input =
    mapped.inputWasText && out.length === 1 && only?.role === "user" && typeof only.content === "string" && only.type === "message"
      ? only.content
      : out;
  return { input: input as string | Item[], system };
};

/** The items for one message: its own item, unchanged or with the change written in, or new ones. */
const itemsOf = (m: DeepReadonly<Message>, from: number | undefined, mapped: MappedRequest): Item[] => {
  if (from !== undefined) {
    const item = mapped.items[from] as Item;
    const was = mapped.messages.get(from) as Message;
    if (sameMessage(m, was)) return [item];
    const patched = patch(item, was, m);
    if (patched !== undefined) return [patched];
  }
  return freshItems(m);
};

const sameCalls = (a: readonly DeepReadonly<ToolCall>[] | undefined, b: readonly DeepReadonly<ToolCall>[] | undefined): boolean =>
  (a?.length ?? 0) === (b?.length ?? 0) &&
  (a ?? []).every((c, i) => c.id === b?.[i]?.id && c.name === b?.[i]?.name && JSON.stringify(c.input) === JSON.stringify(b?.[i]?.input));

const sameMessage = (a: DeepReadonly<Message>, b: DeepReadonly<Message>): boolean =>
  a === b || (a.role === b.role && a.content === b.content && a.toolCallId === b.toolCallId && sameCalls(a.toolCalls, b.toolCalls));

/** The item with the message's change written in, or undefined when the change needs a new item (its role or kind changed). */
const patch = (item: Item, was: Message, m: DeepReadonly<Message>): Item | undefined => {
  if (m.role !== was.role) return undefined;
  const type = item.type ?? "message";
  if (type === "message") {
    if ((m.toolCalls?.length ?? 0) > 0) return undefined;
    return { ...item, content: withText(item.content, m.content, m.role) };
  }
  if (type === "function_call") {
    const call = m.toolCalls?.[0];
    if (m.toolCalls?.length !== 1 || call === undefined || m.content !== "") return undefined;
    return { ...item, callId: call.id, name: call.name, arguments: JSON.stringify(call.input) };
  }
  if (type === "function_call_result") {
    const output = item.output;
    const text =
      typeof output === "object" && output !== null && !Array.isArray(output) && (output as Item).type === "text"
        ? { ...(output as Item), text: m.content }
        : Array.isArray(output)
          ? withText(output, m.content, "user")
          : m.content;
    return { ...item, ...(m.toolCallId !== undefined ? { callId: m.toolCallId } : {}), output: text };
  }
  return undefined;
};

/** Content with its text replaced: a string stays a string; parts keep their non-text parts, the text goes in the first text part. */
const withText = (content: unknown, text: string, role: Message["role"]): unknown => {
  if (!Array.isArray(content)) return text;
  const kind = role === "assistant" ? "output_text" : "input_text";
  const parts: Item[] = [];
  let placed = false;
  for (const part of content as Item[]) {
    const isText = part.type === "input_text" || part.type === "output_text" || part.type === "refusal";
    if (!isText) parts.push(part);
    else if (!placed) {
      placed = true;
      if (text !== "") parts.push(part.type === "refusal" ? { type: kind, text } : { ...part, text });
    }
  }
  if (!placed && text !== "") parts.unshift({ type: kind, text });
  return parts;
};

/** New items for a message a hook wrote. */
const freshItems = (m: DeepReadonly<Message>): Item[] => {
  switch (m.role) {
    case "system":
      return [{ type: "message", role: "system", content: m.content }];
    case "user":
      return [{ type: "message", role: "user", content: m.content }];
    case "assistant": {
      const items: Item[] = [];
      if (m.content !== "")
        items.push({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: m.content }] });
      for (const call of m.toolCalls ?? [])
        items.push({ type: "function_call", callId: call.id, name: call.name, arguments: JSON.stringify(call.input), status: "completed" });
      return items;
    }
    case "tool":
      return [
        {
          type: "function_call_result",
          callId: m.toolCallId ?? "",
          name: m.toolName ?? "",
          status: "completed",
          output: { type: "text", text: m.content },
        },
      ];
  }
};
