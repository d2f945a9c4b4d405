/**
 * A Messages API request body as a `ModelRequest`, and back. Hooks see the conversation as
 * provider-neutral messages: the system prompt first, then one message per text block and per tool
 * result of a user turn (so a rewrite of one is written back into that block alone), one per
 * assistant turn (its text and tool calls), and Claude Code's mid-conversation system messages.
 * What hooks cannot see (images, documents, thinking blocks, cache breakpoints, every other field of
 * the body) is carried through untouched: an unchanged request is sent as it came, byte for byte,
 * and a changed message keeps the blocks and metadata of the one at its place.
 */
import type { Message, ModelRequest, ToolCall, ToolSpec } from "../../../agent/types.ts";
import { canonicalJson } from "../../../core/approval-token.ts";

/**
 * A content block of the Messages API.
 *
 * @example
 * const block: Block = { type: "text", text: "Hi", cache_control: { type: "ephemeral" } }
 */
export type Block = Readonly<Record<string, unknown>> & { readonly type: string };

/**
 * A message of the Messages API.
 *
 * @example
 * const message: RawMessage = { role: "user", content: [{ type: "text", text: "Hi" }] }
 */
export interface RawMessage {
  readonly role: string;
  readonly content: string | readonly Block[];
}

/**
 * The fields of a Messages API request body the mapping reads; the rest is kept as it is.
 *
 * @example
 * const body: MessagesBody = { model: "claude-sonnet-5", max_tokens: 1024, messages: [{ role: "user", content: "Hi" }] }
 */
export interface MessagesBody {
  readonly model: string;
  readonly messages: readonly RawMessage[];
  readonly system?: string | readonly Block[];
  readonly tools?: readonly Readonly<Record<string, unknown>>[];
  readonly max_tokens?: number;
  readonly temperature?: number;
  readonly stream?: boolean;
  readonly [key: string]: unknown;
}

/** One neutral message and the blocks it stands for. */
interface Part {
  readonly role: "user" | "assistant" | "system";
  /** The blocks this message stands for (those hooks cannot see ride along), or the raw string content. */
  readonly blocks: string | readonly Block[];
  readonly message: Message;
}

/**
 * A request as hooks see it, and what is needed to write their changes back.
 *
 * @example
 * const mapped: MappedRequest = toRequest(body); mapped.request.messages // what hooks see
 */
export interface MappedRequest {
  readonly request: ModelRequest;
  readonly body: MessagesBody;
  readonly parts: readonly Part[];
  /** Whether `request.messages[0]` is the body's `system`. */
  readonly hasSystem: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const textOf = (content: unknown): string => {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b) => (isObject(b) && b.type === "text" && typeof b.text === "string" ? b.text : ""))
    .filter((t) => t !== "")
    .join("\n");
};

const toolCallsOf = (blocks: readonly Block[]): ToolCall[] =>
  blocks
    .filter((b) => b.type === "tool_use")
    .map((b) => ({ id: String(b.id), name: String(b.name), input: isObject(b.input) ? b.input : {} }));

/** The neutral messages of one raw message. */
const partsOf = (raw: RawMessage, toolNames: Map<string, string>): Part[] => {
  const role = raw.role === "assistant" ? "assistant" : raw.role === "system" ? "system" : "user";
  if (typeof raw.content === "string") return [{ role, blocks: raw.content, message: { role, content: raw.content } }];
  const blocks = raw.content;
  if (role === "assistant") {
    const toolCalls = toolCallsOf(blocks);
    for (const c of toolCalls) toolNames.set(c.id, c.name);
    return [{ role, blocks, message: { role, content: textOf(blocks), ...(toolCalls.length > 0 ? { toolCalls } : {}) } }];
  }
  if (role === "system") return [{ role, blocks, message: { role, content: textOf(blocks) } }];
  // A user turn: a message per text block and per tool result; blocks hooks cannot see go with the next one.
  const parts: Part[] = [];
  let unseen: Block[] = [];
  for (const b of blocks) {
    if (b.type === "text") {
      parts.push({ role, blocks: [...unseen, b], message: { role: "user", content: typeof b.text === "string" ? b.text : "" } });
      unseen = [];
    } else if (b.type === "tool_result") {
      const id = String(b.tool_use_id);
      const name = toolNames.get(id);
      parts.push({
        role,
        blocks: [...unseen, b],
        message: {
          role: "tool",
          content: textOf(b.content),
          toolCallId: id,
          ...(name !== undefined ? { toolName: name } : {}),
          ...(b.is_error === true ? { isError: true } : {}),
        },
      });
      unseen = [];
    } else unseen.push(b);
  }
  if (unseen.length > 0) {
    const last = parts.pop();
    parts.push(
      last === undefined
        ? { role, blocks: unseen, message: { role: "user", content: "" } }
        : { ...last, blocks: [...(last.blocks as Block[]), ...unseen] },
    );
  }
  return parts;
};

/**
 * The request hooks see for a Messages API body.
 *
 * @example
 * toRequest({ model: "claude-x", system: "Be brief.", messages: [{ role: "user", content: "Hi" }], max_tokens: 100 }).request
 * // { model: "claude-x", messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }], maxOutputTokens: 100 }
 */
export const toRequest = (body: MessagesBody, origin: Pick<ModelRequest, "provider" | "server"> = {}): MappedRequest => {
  const toolNames = new Map<string, string>();
  const parts = body.messages.flatMap((m) => partsOf(m, toolNames));
  const hasSystem = body.system !== undefined;
  const messages = [...(hasSystem ? [{ role: "system" as const, content: textOf(body.system) }] : []), ...parts.map((p) => p.message)];
  const tools: ToolSpec[] | undefined = body.tools?.map((t) => ({
    name: String(t.name),
    ...(typeof t.description === "string" ? { description: t.description } : {}),
    ...(isObject(t.input_schema) ? { inputSchema: t.input_schema } : {}),
  }));
  const request: ModelRequest = {
    model: body.model,
    messages,
    ...(tools !== undefined ? { tools } : {}),
    ...(typeof body.max_tokens === "number" ? { maxOutputTokens: body.max_tokens } : {}),
    ...(typeof body.temperature === "number" ? { temperature: body.temperature } : {}),
    ...(body.stream === true ? { stream: true } : {}),
    ...origin,
  };
  return { request, body, parts, hasSystem };
};

const same = (a: unknown, b: unknown): boolean => a === b || canonicalJson(a) === canonicalJson(b);

/** The metadata of a block a rewrite keeps (its cache breakpoint). */
const keptOf = (template: Part | undefined): Record<string, unknown> => {
  const blocks = Array.isArray(template?.blocks) ? (template.blocks as Block[]) : [];
  const cache = blocks.findLast((b) => b.cache_control !== undefined)?.cache_control;
  return cache !== undefined ? { cache_control: cache } : {};
};

/** Blocks for a message hooks changed, keeping what they could not see of the one at its place. */
const freshBlocks = (message: Message, template: Part | undefined): { role: "user" | "assistant" | "system"; blocks: Block[] } => {
  const kept = keptOf(template);
  const unseen = Array.isArray(template?.blocks)
    ? (template.blocks as Block[]).filter((b) => b.type !== "text" && b.type !== "tool_result" && b.type !== "tool_use")
    : [];
  switch (message.role) {
    case "assistant": {
      const old = Array.isArray(template?.blocks) ? (template.blocks as Block[]) : [];
      const uses = (message.toolCalls ?? []).map((c): Block => {
        const before = old.find((b) => b.type === "tool_use" && b.id === c.id);
        return { ...(before ?? { type: "tool_use" }), type: "tool_use", id: c.id, name: c.name, input: c.input };
      });
      // Thinking comes first in an assistant turn; its signature covers it, not the text after it.
      return {
        role: "assistant",
        blocks: [...unseen, ...(message.content !== "" ? [{ type: "text", text: message.content }] : []), ...uses],
      };
    }
    case "tool":
      return {
        role: "user",
        blocks: [
          ...unseen,
          {
            type: "tool_result",
            tool_use_id: message.toolCallId ?? "",
            content: message.content,
            ...(message.isError === true ? { is_error: true } : {}),
            ...kept,
          },
        ],
      };
    case "system":
      return { role: "system", blocks: [{ type: "text", text: message.content, ...kept }] };
    default:
      return { role: "user", blocks: [...unseen, { type: "text", text: message.content, ...kept }] };
  }
};

/** Consecutive parts of one role as one message. */
const grouped = (parts: readonly { role: string; blocks: string | readonly Block[] }[]): RawMessage[] => {
  const out: { role: string; content: string | Block[] }[] = [];
  for (const p of parts) {
    const last = out.at(-1);
    if (last !== undefined && last.role === p.role) {
      const toBlocks = (c: string | readonly Block[]): Block[] =>
        typeof c === "string" ? (c === "" ? [] : [{ type: "text", text: c }]) : [...c];
      last.content = [...toBlocks(last.content), ...toBlocks(p.blocks)];
    } else out.push({ role: p.role, content: typeof p.blocks === "string" ? p.blocks : [...p.blocks] });
  }
  return out;
};

/**
 * The body to send for what hooks made of the request: `mapped.body` itself when nothing changed;
 * otherwise the body with the changed parts rewritten. Context hooks added goes at the end of the
 * system prompt.
 *
 * @example
 * const body = fromRequest(mapped, finalRequest, ["Answer in English."])
 */
export const fromRequest = (mapped: MappedRequest, request: ModelRequest, context: readonly string[]): MessagesBody => {
  const { body, parts, hasSystem } = mapped;
  const original = mapped.request;
  let next: Record<string, unknown> = body;
  const set = (key: string, value: unknown): void => {
    if (next === body) next = { ...body };
    next[key] = value;
  };
  let messages = request.messages;
  let system: string | readonly Block[] | undefined = body.system;
  if (hasSystem) {
    const first = messages[0];
    if (first?.role === "system") {
      messages = messages.slice(1);
      if (first.content !== original.messages[0]?.content)
        system = [
          {
            type: "text",
            text: first.content,
            ...keptOf({ role: "system", blocks: typeof body.system === "string" ? [] : (body.system ?? []), message: first }),
          },
        ];
    } else system = undefined; // a hook removed the system prompt
  }
  if (context.length > 0) {
    const blocks: Block[] = system === undefined ? [] : typeof system === "string" ? [{ type: "text", text: system }] : [...system];
    system = [...blocks, { type: "text", text: context.join("\n\n") }];
  }
  if (system !== body.system) set("system", system);
  const before = original.messages.slice(hasSystem ? 1 : 0);
  if (messages !== before && !same(messages, before)) {
    // A message equal to the one at its place keeps its blocks; a changed one is rebuilt on that place's.
    const aligned = messages.length === before.length;
    const rebuilt = messages.map((m, i) => {
      const template = aligned ? parts[i] : undefined;
      if (template !== undefined && same(m, template.message)) return template;
      const reused = aligned ? undefined : parts.find((p) => same(p.message, m));
      return reused ?? freshBlocks(m, template);
    });
    set("messages", grouped(rebuilt));
  }
  if (request.tools !== original.tools && !same(request.tools, original.tools)) {
    const raw = new Map((body.tools ?? []).map((t) => [String(t.name), t]));
    set(
      "tools",
      (request.tools ?? []).map((t) => {
        const was = raw.get(t.name);
        if (was !== undefined && same(toRequest({ ...body, tools: [was] }).request.tools?.[0], t)) return was;
        return {
          ...was,
          name: t.name,
          ...(t.description !== undefined ? { description: t.description } : {}),
          input_schema: t.inputSchema ?? { type: "object" },
        };
      }),
    );
  }
  if (request.maxOutputTokens !== original.maxOutputTokens && request.maxOutputTokens !== undefined)
    set("max_tokens", request.maxOutputTokens);
  if (request.temperature !== original.temperature) set("temperature", request.temperature);
  if (request.model !== original.model) set("model", request.model);
  return next as MessagesBody;
};

/**
 * The body without the thinking blocks that have no signature, or the body itself when it has
 * none. The API refuses an unsigned thinking block; one is what Claude Code sends back of
 * thinking a hook rewrote (redaction drops the signature, which would not match the new text),
 * and the API lets a turn's thinking be left out but for the last turn of a tool-use loop.
 *
 * @example
 * withoutUnsignedThinking({ model: "m", max_tokens: 1, messages: [{ role: "assistant", content: [{ type: "thinking", thinking: "[REDACTED:email]" }, { type: "text", text: "Hi" }] }] }).messages[0]?.content // [{ type: "text", text: "Hi" }]
 */
export const withoutUnsignedThinking = (body: MessagesBody): MessagesBody => {
  const unsigned = (b: Block): boolean => b.type === "thinking" && (typeof b.signature !== "string" || b.signature === "");
  if (!body.messages.some((m) => m.role === "assistant" && Array.isArray(m.content) && m.content.some(unsigned))) return body;
  return {
    ...body,
    messages: body.messages.map((m) =>
      m.role === "assistant" && Array.isArray(m.content) && m.content.some(unsigned)
        ? { ...m, content: (m.content as readonly Block[]).filter((b) => !unsigned(b)) }
        : m,
    ),
  };
};
