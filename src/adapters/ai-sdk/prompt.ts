/**
 * AI SDK call options ↔ our `ModelRequest`, both ways, losing nothing that hooks left alone.
 *
 * Going in, each SDK message becomes one `Message` (a `tool` message one per result): text
 * joined, tool calls as `ToolCall`s, tool outputs as text. Coming back, every `Message` object
 * a hook did not replace maps to the SDK message it came from, untouched (files, reasoning,
 * provider options and all); a message a hook rewrote is rebuilt from its text and tool calls,
 * keeping the non-text parts of the message that stood at its place, in their order (so
 * redacting a user's text keeps the image attached to it, and an assistant's reasoning first). Its place is known only while the hooks kept the number
 * of messages: when they also added or dropped some, a rewritten message keeps its text and tool
 * calls only, rather than risk another message's files. Unchanged requests give back the very
 * same params.
 *
 * Hooks must not freeze or change the SDK's own objects, so tool-call inputs and tool schemas
 * are copied; a conversation sends the same ones on every step, so each is copied once, frozen,
 * and shared by every request that shows it (`shared`). What tells a message's origin is worked
 * out only when a hook changed the messages.
 */
import { DeferredInput } from "../../core/deferred.ts";
import { deepFreeze, markFrozenDeep, type DeepReadonly } from "../../core/readonly.ts";
import type { Message, ModelRequest, ModelServer, ToolCall, ToolSpec } from "../../agent/types.ts";
import type { SdkCallOptions, SdkMessage, SdkPart, SdkTool } from "./spec.ts";

interface TextPart extends SdkPart {
  readonly type: "text";
  readonly text: string;
}
interface ToolCallPart extends SdkPart {
  readonly type: "tool-call";
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
}
interface ToolResultPart extends SdkPart {
  readonly type: "tool-result";
  readonly toolCallId: string;
  readonly toolName: string;
  readonly output: { readonly type: string; readonly value?: unknown; readonly reason?: string };
}
interface ApprovalPart extends SdkPart {
  readonly type: "tool-approval-response";
  readonly approved: boolean;
  readonly reason?: string;
}

/** Where a `Message` came from: the SDK message, its place among the messages it gave, and for tool results the part. */
interface Origin {
  readonly message: SdkMessage;
  readonly k: number;
  /** How many messages the SDK message gave. */
  readonly count: number;
  readonly part?: SdkPart;
}

/**
 * A request with what is needed to map it back: the messages and tools as made (hooks get the
 * request's own arrays and, without strict mode, may change them in place, which must not pair a
 * message with another's origin) and each tool call beside the SDK part it came from. Where each
 * message came from, and the lookups by object, are worked out only when a hook changed
 * something (most calls map back to `params` itself and never need them).
 *
 * @example
 * const mapped = toRequest(params, "gpt", false); fromRequest(params, mapped, mapped.request, []) === params // true
 */
export class MappedRequest {
  declare readonly request: ModelRequest;
  declare private readonly prompt: readonly SdkMessage[];
  /** The request's own lists, and copies of them as made. */
  declare private readonly list: readonly Message[];
  declare private readonly toolList: readonly ToolSpec[] | undefined;
  declare private readonly messages: readonly Message[];
  declare private readonly specs: readonly ToolSpec[];
  /** Each tool call of the messages, beside the SDK part it came from (undefined when there is none). */
  declare private readonly calls: readonly ToolCall[] | undefined;
  declare private readonly callParts: readonly ToolCallPart[] | undefined;
  /** The SDK's tools, in the order of `request.tools`. */
  declare private readonly sdkTools: readonly SdkTool[];
  declare private byMessage: Map<Message, Origin> | undefined;
  declare private byCall: Map<ToolCall, ToolCallPart> | undefined;
  declare private byTool: Map<ToolSpec, SdkTool> | undefined;

  constructor(
    request: ModelRequest,
    prompt: readonly SdkMessage[],
    calls: readonly ToolCall[] | undefined,
    callParts: readonly ToolCallPart[] | undefined,
    sdkTools: readonly SdkTool[],
  ) {
    this.request = request;
    this.prompt = prompt;
    this.list = request.messages;
    this.toolList = request.tools;
    // A frozen list cannot change in place: it is its own copy.
    this.messages = Object.isFrozen(request.messages) ? request.messages : request.messages.slice();
    this.specs = request.tools === undefined ? noSpecs : Object.isFrozen(request.tools) ? request.tools : request.tools.slice();
    this.calls = calls;
    this.callParts = callParts;
    this.sdkTools = sdkTools;
    this.byMessage = undefined;
    this.byCall = undefined;
    this.byTool = undefined;
  }

  /** True for the request's own message list: the messages as mapped from the prompt. */
  made(messages: readonly Message[]): boolean {
    return messages === this.list;
  }

  /** True for the request's own tool list (or no tools when the SDK gave none). */
  madeTools(tools: readonly ToolSpec[] | undefined): boolean {
    return tools === this.toolList;
  }

  /** The messages as made, in their order. */
  original(): readonly Message[] {
    return this.messages;
  }

  /** Where a message the hooks kept came from; undefined for one they made. */
  origin(message: Message): Origin | undefined {
    return (this.byMessage ??= pairs(this.messages, originsOf(this.prompt))).get(message);
  }

  /** The SDK part a tool call the hooks kept came from. */
  callPart(call: ToolCall): ToolCallPart | undefined {
    return (this.byCall ??= pairs(this.calls ?? [], this.callParts ?? [])).get(call);
  }

  /** The SDK tool a tool spec the hooks kept came from. */
  tool(spec: ToolSpec): SdkTool | undefined {
    return (this.byTool ??= pairs(this.specs, this.sdkTools)).get(spec);
  }
}

const noSpecs: readonly ToolSpec[] = Object.freeze([]);

const pairs = <K, V>(keys: readonly K[], values: readonly V[]): Map<K, V> => {
  const map = new Map<K, V>();
  keys.forEach((key, i) => map.set(key, values[i] as V));
  return map;
};

/**
 * The request of one generate call, mapped from its call options only when something reads it:
 * a hook (`ctx.input`, see `DeferredInput`) or the call itself, to map a request a hook passed to
 * `next()` back. `model` and `messages` are what `toResponse` reads, `messages` only for an estimate.
 *
 * @example
 * const deferred = new DeferredRequest(params, { modelId: "gpt", provider: "openai" }, () => undefined, true); deferred.read // false until something reads it
 */
export class DeferredRequest extends DeferredInput<ModelRequest> {
  declare readonly model: string;
  declare private readonly params: SdkCallOptions;
  declare private readonly provider: string | undefined;
  /** The SDK's model and how to find its server: looked up only when the request is built. */
  declare private readonly sdkModel: object;
  declare private readonly serverOf: (model: object) => ModelServer | undefined;
  declare private readonly frozen: boolean;
  declare private mapped: MappedRequest | undefined;

  constructor(
    params: SdkCallOptions,
    sdkModel: { readonly modelId: string; readonly provider: string },
    serverOf: (model: object) => ModelServer | undefined,
    frozen: boolean,
  ) {
    super(sdkModel.modelId); // the subject of `modelCall`
    this.model = sdkModel.modelId;
    this.params = params;
    this.provider = sdkModel.provider;
    this.sdkModel = sdkModel;
    this.serverOf = serverOf;
    this.frozen = frozen;
    this.mapped = undefined;
  }

  protected make(): ModelRequest {
    return this.mapping().request;
  }

  /** The request and what maps it back (see `MappedRequest`), made on first use. */
  mapping(): MappedRequest {
    return (this.mapped ??= toRequest(this.params, this.model, false, this.provider, this.serverOf(this.sdkModel), this.frozen));
  }

  /** The request's messages (builds it). */
  get messages(): ModelRequest["messages"] {
    return this.value.messages;
  }
}

/**
 * A frozen copy of an SDK object (a tool-call input, a tool's schema), made once per object:
 * strict mode freezes what hooks see, and the SDK's objects must stay the caller's. A value the
 * structured clone cannot copy (a function in it) is shown as it is.
 */
const copies = new WeakMap<object, unknown>();
const shared = <T extends object>(value: T): T => {
  let copy = copies.get(value) as T | undefined;
  if (copy === undefined) {
    try {
      copy = deepFreeze(structuredClone(value));
    } catch {
      copy = value;
    }
    copies.set(value, copy);
  }
  return copy;
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const textOf = (parts: readonly SdkPart[]): string => {
  let text = "";
  for (const p of parts) if (p.type === "text") text += (p as TextPart).text;
  return text;
};

const outputText = (output: ToolResultPart["output"]): string => {
  if (output.type === "execution-denied") return `Execution denied${output.reason ? `: ${output.reason}` : ""}`;
  if (typeof output.value === "string") return output.value;
  return JSON.stringify(output.value) ?? "";
};

/** Leaves a node as it is: the mapping for a stack that does not freeze what hooks see. */
const asIs = <T extends object>(value: T): T => value;

/** `Object.freeze`, typed for a node built here: what it holds is frozen already (built so, or `shared`). */
const frozenNode = <T extends object>(value: T): T => Object.freeze(value);

/**
 * Map SDK call options to the `ModelRequest` hooks see. With `frozen`, every object of the
 * request is frozen as it is built, bottom-up, and the request recorded as frozen all the way
 * down (`markFrozenDeep`), so the stack's freeze of the run's input (R9) finds it in one lookup
 * instead of walking it on every call. What it holds from the SDK is a frozen copy (`shared`) or
 * a string.
 *
 * @example
 * toRequest({ prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }] }, "gpt", false).request
 * // { model: "gpt", messages: [{ role: "user", content: "hi" }] }
 */
export const toRequest = (
  params: SdkCallOptions,
  model: string,
  stream: boolean,
  provider?: string,
  server?: ModelServer,
  frozen = false,
): MappedRequest => {
  const node = frozen ? frozenNode : asIs;
  const copy = frozen ? sharedFrozen : shared;
  const messages: Message[] = [];
  let calls: ToolCall[] | undefined;
  let callParts: ToolCallPart[] | undefined;
  for (const message of params.prompt) {
    const first = messages.length;
    if (typeof message.content === "string") messages.push(node({ role: message.role as Message["role"], content: message.content }));
    else if (message.role === "tool") {
      for (const part of message.content) {
        if (part.type === "tool-result") {
          const r = part as ToolResultPart;
          const isError = r.output.type.startsWith("error") || r.output.type === "execution-denied";
          messages.push(
            node(
              isError
                ? { role: "tool", content: outputText(r.output), toolCallId: r.toolCallId, toolName: r.toolName, isError }
                : { role: "tool", content: outputText(r.output), toolCallId: r.toolCallId, toolName: r.toolName },
            ),
          );
        } else if (part.type === "tool-approval-response") {
          const a = part as ApprovalPart;
          messages.push(
            node({
              role: "tool",
              content: `[tool approval ${a.approved ? "granted" : "denied"}${a.reason ? `: ${a.reason}` : ""}]`,
            }),
          );
        }
      }
      if (messages.length === first) messages.push(node({ role: "tool", content: "" }));
    } else {
      let toolCalls: ToolCall[] | undefined;
      for (const part of message.content) {
        if (part.type !== "tool-call") continue;
        const p = part as ToolCallPart;
        const call: ToolCall = node({
          id: p.toolCallId,
          name: p.toolName,
          input: isRecord(p.input)
            ? copy(p.input)
            : node({ value: typeof p.input === "object" && p.input !== null ? copy(p.input) : p.input }),
        });
        (calls ??= []).push(call);
        (callParts ??= []).push(p);
        (toolCalls ??= []).push(call);
      }
      const content = textOf(message.content);
      messages.push(
        node(
          toolCalls === undefined
            ? { role: message.role as Message["role"], content }
            : { role: message.role as Message["role"], content, toolCalls: node(toolCalls) },
        ),
      );
    }
  }
  const request: { -readonly [K in keyof ModelRequest]: ModelRequest[K] } = { model, messages: node(messages) };
  const sdkTools = params.tools;
  if (sdkTools !== undefined) request.tools = node(sdkTools.map((tool) => node(toolSpec(tool, copy))));
  if (params.maxOutputTokens !== undefined) request.maxOutputTokens = params.maxOutputTokens;
  if (params.temperature !== undefined) request.temperature = params.temperature;
  if (stream) request.stream = stream;
  if (provider !== undefined && provider !== "") request.provider = provider;
  // A server frozen already (the middleware freezes each model's once) is shared by every frozen
  // request; a stack that does not freeze gets a copy of its own, which its hooks may change.
  if (server !== undefined) request.server = !frozen ? { ...server } : Object.isFrozen(server) ? server : Object.freeze({ ...server });
  return new MappedRequest(frozen ? markFrozenDeep(node(request)) : request, params.prompt, calls, callParts, sdkTools ?? []);
};

/**
 * A copy `shared` made, or, for a value it could not copy (a function in it), a frozen copy of its
 * own (a shallow one, whose values get frozen with it): a frozen request holds no object that is not frozen.
 */
const sharedFrozen = <T extends object>(value: T): T => {
  const copy = shared(value);
  return copy !== value ? copy : (deepFreeze(Array.isArray(value) ? [...value] : { ...value }) as T);
};

const toolSpec = (tool: SdkTool, copy: <T extends object>(value: T) => T): ToolSpec => {
  const inputSchema = isRecord(tool.inputSchema) ? copy(tool.inputSchema) : undefined;
  if (tool.description === undefined) return inputSchema === undefined ? { name: tool.name } : { name: tool.name, inputSchema };
  return inputSchema === undefined
    ? { name: tool.name, description: tool.description }
    : { name: tool.name, description: tool.description, inputSchema };
};

/**
 * Where each message `toRequest` made of `prompt` came from, in the same order: walked again
 * only when a hook changed the messages and they must be mapped back.
 */
const originsOf = (prompt: readonly SdkMessage[]): Origin[] => {
  const origins: Origin[] = [];
  for (const message of prompt) {
    if (typeof message.content !== "string" && message.role === "tool") {
      const parts = message.content.filter((p) => p.type === "tool-result" || p.type === "tool-approval-response");
      if (parts.length === 0) origins.push({ message, k: 0, count: 1 });
      parts.forEach((part, k) => origins.push({ message, k, count: parts.length, part }));
    } else origins.push({ message, k: 0, count: 1 });
  }
  return origins;
};

/**
 * Map the request hooks settled on back to SDK call options; `params` itself when nothing
 * changed. `context` (texts hooks added with `ctx.addContext`) goes in as a system message
 * after the leading system messages, where every provider accepts one.
 *
 * @example
 * fromRequest(params, mapped, mapped.request, []) === params // true
 */
export const fromRequest = <P extends SdkCallOptions>(
  params: P,
  mapped: MappedRequest,
  request: DeepReadonly<ModelRequest>,
  context: readonly string[],
): P => {
  // Compared with what was made, not with `mapped.request`: a hook may have assigned to it in place.
  let prompt = mapped.made(request.messages as readonly Message[])
    ? params.prompt
    : rebuildPrompt(mapped, request.messages as readonly Message[]);
  if (context.length > 0) {
    let at = 0;
    while (prompt[at]?.role === "system") at++;
    prompt = [...prompt.slice(0, at), { role: "system", content: context.join("\n\n") }, ...prompt.slice(at)];
  }
  const tools = mapped.madeTools(request.tools as readonly ToolSpec[] | undefined)
    ? params.tools
    : request.tools?.map((spec) => mapped.tool(spec as ToolSpec) ?? functionTool(spec as ToolSpec));
  if (
    prompt === params.prompt &&
    tools === params.tools &&
    request.maxOutputTokens === params.maxOutputTokens &&
    request.temperature === params.temperature
  )
    return params;
  const next: Record<string, unknown> = {
    ...(params as object),
    prompt,
    tools,
    maxOutputTokens: request.maxOutputTokens,
    temperature: request.temperature,
  };
  for (const key of ["tools", "maxOutputTokens", "temperature"]) if (next[key] === undefined) delete next[key];
  return next as unknown as P;
};

const functionTool = (spec: ToolSpec): SdkTool => ({
  type: "function",
  name: spec.name,
  ...(spec.description !== undefined ? { description: spec.description } : {}),
  inputSchema: spec.inputSchema ?? { type: "object", properties: {} },
});

const rebuildPrompt = (mapped: MappedRequest, messages: readonly Message[]): SdkMessage[] => {
  const out: SdkMessage[] = [];
  const whole = (i: number): Origin | undefined => {
    const o = mapped.origin(messages[i] as Message);
    if (o === undefined || o.k !== 0) return undefined;
    for (let k = 1; k < o.count; k++) {
      const next = mapped.origin(messages[i + k] as Message);
      if (next?.message !== o.message || next.k !== k) return undefined;
    }
    return o;
  };
  for (let i = 0; i < messages.length; ) {
    const o = whole(i);
    if (o !== undefined) {
      out.push(o.message);
      i += o.count;
      continue;
    }
    const m = messages[i] as Message;
    if (m.role === "tool") {
      const parts: SdkPart[] = [];
      for (; i < messages.length && messages[i]?.role === "tool" && whole(i) === undefined; i++)
        parts.push(toolResultPart(messages[i] as Message, mapped));
      out.push({ role: "tool", content: parts });
      continue;
    }
    // Positions line up only if no message was added or dropped (see the top of this file).
    const original = mapped.original();
    const atPlace = messages.length === original.length ? original[i] : undefined;
    out.push(rebuildMessage(m, mapped, atPlace));
    i++;
  }
  return out;
};

const toolResultPart = (m: Message, mapped: MappedRequest): SdkPart => {
  const part = mapped.origin(m)?.part;
  if (part !== undefined) return part;
  return {
    type: "tool-result",
    toolCallId: m.toolCallId ?? "",
    toolName: m.toolName ?? "",
    output: { type: m.isError === true ? "error-text" : "text", value: m.content },
  } as ToolResultPart;
};

/**
 * A message a hook rewrote: its text and tool calls, and the other parts of the message that stood
 * at its place, rebuilt in place. Providers check the order (a thinking block first, a server
 * tool's result after its call), so the text goes where the first text part was, each tool call
 * where the call of its id was, and every other part stays where it was; what has no place (text
 * where there was none, a call the hook made) goes where a plain message has it: text first,
 * calls last.
 */
const rebuildMessage = (m: Message, mapped: MappedRequest, atPlace: Message | undefined): SdkMessage => {
  if (m.role === "system") return { role: "system", content: m.content };
  const was = atPlace !== undefined && atPlace.role === m.role ? mapped.origin(atPlace)?.message : undefined;
  const text: SdkPart[] = m.content !== "" ? [{ type: "text", text: m.content } as TextPart] : [];
  const calls: ToolCallPart[] = (m.toolCalls ?? []).map(
    (call) => mapped.callPart(call) ?? ({ type: "tool-call", toolCallId: call.id, toolName: call.name, input: call.input } as ToolCallPart),
  );
  if (was === undefined || typeof was.content === "string") return { role: m.role, content: [...text, ...calls] };
  const parts: SdkPart[] = [];
  let textPlaced = false;
  for (const p of was.content) {
    if (p.type === "text") {
      if (!textPlaced) parts.push(...text);
      textPlaced = true;
    } else if (p.type === "tool-call") {
      const i = calls.findIndex((c) => c.toolCallId === (p as ToolCallPart).toolCallId);
      if (i !== -1) parts.push(...calls.splice(i, 1));
    } else parts.push(p);
  }
  return { role: m.role, content: [...(textPlaced ? [] : text), ...parts, ...calls] };
};
