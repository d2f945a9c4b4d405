/**
 * The Agents SDK's model response ↔ our `ModelResponse`, both ways.
 *
 * In: the text is the text of the assistant messages' `output_text` parts, in order (what the
 * SDK streams as `output_text_delta`); each `function_call` item is a tool call; the usage is
 * the response's; each text of a `reasoning` item (its summary in `content`, its reasoning in
 * `rawContent`) is a reasoning part of `parts`, in the AI SDK's shape hooks such as `redaction`
 * read. The SDK has no finish reason: it is `tool-calls` when the model called a tool, `length`
 * when a message is `incomplete`, else `stop`.
 *
 * Out: a response hooks left alone is the SDK's own object. A changed one is the SDK's response
 * with only what changed rewritten: the new text goes in the first `output_text` part (the other
 * text parts are dropped), tool calls keep their items unless changed, reasoning a hook rewrote
 * goes back into the entry it came from (without a `signature` in the item's provider data, which
 * would not match it), usage totals are patched; hosted tool calls, ids and provider data survive. An answer that did not come from
 * the model's response (a cache's `Replace`, a fallback's) gets a response of its own.
 */
import { Usage, type ModelResponse as SdkResponse } from "@openai/agents";
import type { FinishReason, ModelResponse, ToolCall } from "../../agent/types.ts";
import type { DeepReadonly } from "../../core/readonly.ts";
import { callOf } from "./request.ts";

type Item = Record<string, unknown>;

const isAssistantMessage = (item: Item): boolean => (item.type ?? "message") === "message" && item.role === "assistant";

/**
 * The text of a response's output: every `output_text` part of its assistant messages, in order.
 *
 * @example
 * outputText([{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Hi" }] }]) // "Hi"
 */
export const outputText = (output: readonly unknown[]): string => {
  let text = "";
  for (const item of output as Item[]) {
    if (!isAssistantMessage(item) || !Array.isArray(item.content)) continue;
    for (const part of item.content as Item[]) if (part.type === "output_text") text += String(part.text ?? "");
  }
  return text;
};

const finishOf = (output: readonly Item[], calls: readonly ToolCall[]): FinishReason => {
  if (calls.length > 0) return "tool-calls";
  return output.some((item) => isAssistantMessage(item) && item.status === "incomplete") ? "length" : "stop";
};

/**
 * The SDK's response as hooks see it.
 *
 * @example
 * toResponse({ usage: new Usage({ inputTokens: 3, outputTokens: 2 }), output: [functionCall("search", { q: "x" }, { callId: "c1" })] }, "gpt-4.1")
 * // { text: "", toolCalls: [{ id: "c1", name: "search", input: { q: "x" } }], finishReason: "tool-calls", usage: { inputTokens: 3, outputTokens: 2 }, model: "gpt-4.1" }
 */
export const toResponse = (sdk: SdkResponse, model: string): ModelResponse => {
  const output = (sdk.output ?? []) as unknown as Item[];
  const toolCalls = output.filter((item) => item.type === "function_call").map(callOf);
  const reasoning = reasoningOf(output);
  return {
    text: outputText(output),
    toolCalls,
    finishReason: finishOf(output, toolCalls),
    usage: { inputTokens: sdk.usage?.inputTokens ?? 0, outputTokens: sdk.usage?.outputTokens ?? 0 },
    model,
    ...(typeof sdk.responseId === "string" && sdk.responseId !== "" ? { id: sdk.responseId } : {}),
    ...(reasoning !== undefined ? { parts: reasoning.parts } : {}),
  };
};

/** Where one reasoning text sits in an output: the item's index, its list, the entry's index. */
interface Slot {
  readonly item: number;
  readonly list: "content" | "rawContent";
  readonly entry: number;
}

const lists = ["content", "rawContent"] as const;

/**
 * The reasoning texts of an output as reasoning parts, with where each sits; undefined when it has none.
 *
 * @example
 * reasoningOf([{ type: "reasoning", content: [{ type: "input_text", text: "Plan" }] }])?.parts // [{ type: "reasoning", text: "Plan" }]
 */
export const reasoningOf = (output: readonly Item[]): { readonly parts: Item[]; readonly slots: Slot[] } | undefined => {
  let found: { parts: Item[]; slots: Slot[] } | undefined;
  for (let i = 0; i < output.length; i++) {
    const item = output[i] as Item;
    if (item.type !== "reasoning") continue;
    const signature = (item.providerData as Item | undefined)?.signature;
    for (const list of lists) {
      const entries = item[list];
      if (!Array.isArray(entries)) continue;
      for (let k = 0; k < entries.length; k++) {
        const text = (entries[k] as Item | undefined)?.text;
        if (typeof text !== "string") continue;
        found ??= { parts: [], slots: [] };
        found.parts.push(
          typeof signature === "string"
            ? { type: "reasoning", text, providerMetadata: { anthropic: { signature } } }
            : { type: "reasoning", text },
        );
        found.slots.push({ item: i, list, entry: k });
      }
    }
  }
  return found;
};

const isReasoning = (part: unknown): part is Item & { text: string } =>
  typeof part === "object" && part !== null && (part as Item).type === "reasoning" && typeof (part as Item).text === "string";

const signed = (part: Item): boolean => {
  const anthropic = (part.providerMetadata as Item | undefined)?.anthropic as Item | undefined;
  return typeof anthropic?.signature === "string";
};

/**
 * The output with the reasoning parts hooks settled on: each rewritten one in the entry it came
 * from, one for one; when hooks removed or added parts, the reasoning items replaced by one item
 * holding theirs.
 *
 * @example
 * withReasoning([{ type: "reasoning", content: [{ type: "input_text", text: "bob@x.io" }] }], [{ type: "reasoning", text: "[REDACTED:email]" }])
 */
export const withReasoning = (output: Item[], parts: readonly unknown[] | undefined): Item[] => {
  const was = reasoningOf(output);
  const given = parts ?? [];
  if (was !== undefined && was.parts.length === given.length) {
    const next = [...output];
    was.slots.forEach((slot, k) => {
      const part = given[k];
      const before = was.parts[k] as Item;
      if (!isReasoning(part) || (part.text === before.text && signed(part) === signed(before))) return;
      const item = next[slot.item] as Item;
      const entries = [...(item[slot.list] as Item[])];
      entries[slot.entry] = { ...entries[slot.entry], text: part.text };
      const data = item.providerData as Item | undefined;
      const { signature: _signature, ...unsignedData } = data ?? {};
      next[slot.item] = {
        ...item,
        [slot.list]: entries,
        ...(data !== undefined && !signed(part) && "signature" in data ? { providerData: unsignedData } : {}),
      };
    });
    return next;
  }
  const texts = given.filter(isReasoning);
  const at = output.findIndex((item) => item.type === "reasoning");
  const next = output.filter((item) => item.type !== "reasoning");
  if (texts.length > 0)
    next.splice(at === -1 ? 0 : at, 0, { type: "reasoning", content: texts.map((p) => ({ type: "input_text", text: p.text })) });
  return next;
};

const sameCall = (a: DeepReadonly<ToolCall>, b: ToolCall): boolean =>
  a.name === b.name && JSON.stringify(a.input) === JSON.stringify(b.input);

/**
 * The SDK's response for the answer hooks settled on: the model's own (`from`, whose mapping was
 * `produced`) with what changed written in, or a new one when the answer did not come from it.
 *
 * @example
 * fromResponse(sdk, produced, produced) === sdk // true: nothing changed
 */
export const fromResponse = (
  from: SdkResponse | undefined,
  produced: ModelResponse | undefined,
  answer: DeepReadonly<ModelResponse>,
): SdkResponse => {
  if (from !== undefined && (answer as ModelResponse) === produced) return from;
  const base = from !== undefined && produced !== undefined ? { from, produced } : undefined;
  const original = (base?.from.output ?? []) as unknown as Item[];
  let output: Item[] = [...original];
  // Reasoning first: its places are the original output's.
  if (base === undefined ? answer.parts !== undefined : (answer.parts as readonly unknown[] | undefined) !== base.produced.parts)
    output = withReasoning(output, answer.parts as readonly unknown[] | undefined);
  if (base === undefined || answer.text !== base.produced.text) output = withText(output, answer.text);
  if (base === undefined || answer.toolCalls !== base.produced.toolCalls)
    output = withCalls(output, answer.toolCalls, base?.produced.toolCalls ?? []);
  const usage =
    base !== undefined &&
    answer.usage.inputTokens === base.produced.usage.inputTokens &&
    answer.usage.outputTokens === base.produced.usage.outputTokens
      ? base.from.usage
      : usageFor(answer.usage, base?.from.usage);
  const unchanged =
    base !== undefined && usage === base.from.usage && output.length === original.length && output.every((item, i) => item === original[i]);
  if (unchanged) return base.from;
  return { ...base?.from, usage, output: output as unknown as SdkResponse["output"] };
};

/** The SDK's usage with our totals: the model's own object's details kept, the totals replaced. */
const usageFor = (usage: DeepReadonly<ModelResponse["usage"]>, original: SdkResponse["usage"] | undefined): SdkResponse["usage"] =>
  new Usage({
    requests: original?.requests ?? 1,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    totalTokens: usage.inputTokens + usage.outputTokens,
    ...(original !== undefined
      ? { inputTokensDetails: original.inputTokensDetails, outputTokensDetails: original.outputTokensDetails }
      : {}),
  });

/** The output with its assistant text replaced (see the top of this file). */
const withText = (output: Item[], text: string): Item[] => {
  let placed = false;
  const next: Item[] = [];
  for (const item of output) {
    if (!isAssistantMessage(item) || !Array.isArray(item.content)) {
      next.push(item);
      continue;
    }
    const content: Item[] = [];
    for (const part of item.content as Item[]) {
      if (part.type !== "output_text") content.push(part);
      else if (!placed) {
        placed = true;
        if (text !== "") content.push({ ...part, text });
      }
    }
    const changed = content.length !== item.content.length || content.some((part, i) => part !== (item.content as Item[])[i]);
    // A message left with nothing to say is not kept: the SDK would read it as an empty answer.
    if (content.length > 0) next.push(changed ? { ...item, content } : item);
  }
  if (!placed && text !== "") {
    const at = next.findIndex((item) => item.type === "function_call");
    const message: Item = { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text }] };
    next.splice(at === -1 ? next.length : at, 0, message);
  }
  return next;
};

/** The output with its function calls made the answer's: kept items for kept calls, changed or new items for the rest. */
const withCalls = (output: Item[], calls: readonly DeepReadonly<ToolCall>[], before: readonly ToolCall[]): Item[] => {
  const items = new Map<string, Item>();
  for (const item of output) if (item.type === "function_call") items.set(String(item.callId ?? item.id ?? ""), item);
  const was = new Map(before.map((c) => [c.id, c]));
  const next = output.filter((item) => item.type !== "function_call");
  for (const call of calls) {
    const item = items.get(call.id);
    const old = was.get(call.id);
    if (item !== undefined && old !== undefined && sameCall(call, old)) next.push(item);
    else if (item !== undefined) next.push({ ...item, name: call.name, arguments: JSON.stringify(call.input) });
    else
      next.push({
        type: "function_call",
        id: call.id,
        callId: call.id,
        name: call.name,
        arguments: JSON.stringify(call.input),
        status: "completed",
      });
  }
  return next;
};
