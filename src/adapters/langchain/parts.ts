/**
 * The other parts of a LangChain answer (besides its text and tool calls) ↔ `ModelResponse.parts`,
 * in the AI SDK's part shapes that hooks such as `redaction` read, both ways.
 *
 * What is carried: reasoning (content blocks of type `reasoning`, with `reasoning` text or an
 * OpenAI `summary`, and Anthropic's `thinking` blocks, whose `signature` rides as
 * `providerMetadata.anthropic.signature`; `additional_kwargs.reasoning_content` as DeepSeek and
 * other OpenAI-compatible providers send it) and files given as data (`file`, `image`, `audio`
 * blocks with base64 `data` and a MIME type). Citations and files given by URL are not carried.
 * A rewritten part goes back into the block it came from, keeping the block's other fields;
 * reasoning keeps a signature only while its part still has one.
 */
import type { AIMessage, MessageContent } from "@langchain/core/messages";

type Block = Record<string, unknown>;

/** Where one part of an answer sits in its message: a content block's index, or the reasoning in `additional_kwargs`. */
type Slot = number | "kwargs";

const isRecord = (value: unknown): value is Block => typeof value === "object" && value !== null && !Array.isArray(value);

/** The text field of a reasoning block, or undefined for a block that is not reasoning. */
const reasoningField = (block: Block): "reasoning" | "thinking" | "summary" | undefined => {
  // A streamed thinking block's last chunk may carry its signature alone.
  if (block.type === "thinking" && (typeof block.thinking === "string" || typeof block.signature === "string")) return "thinking";
  if (block.type !== "reasoning") return undefined;
  if (typeof block.reasoning === "string") return "reasoning";
  return Array.isArray(block.summary) ? "summary" : undefined;
};

const signatureOf = (block: Block): unknown => block.signature ?? (isRecord(block.extras) ? block.extras.signature : undefined);

/**
 * A reasoning part for a block's text (its signature as the AI SDK's Anthropic provider carries it).
 *
 * @example
 * reasoningPart("thinking of bob", "sig") // { type: "reasoning", text: "thinking of bob", providerMetadata: { anthropic: { signature: "sig" } } }
 */
export const reasoningPart = (text: string, signature?: unknown): Block =>
  typeof signature === "string" && signature !== ""
    ? { type: "reasoning", text, providerMetadata: { anthropic: { signature } } }
    : { type: "reasoning", text };

/** The signature a part carries, if any. */
const partSignature = (part: Block): string | undefined => {
  const metadata = part.providerMetadata;
  const anthropic = isRecord(metadata) ? metadata.anthropic : undefined;
  return isRecord(anthropic) && typeof anthropic.signature === "string" ? anthropic.signature : undefined;
};

/** The text of a reasoning block (an OpenAI summary's entries joined by blank lines). */
const reasoningText = (block: Block, field: "reasoning" | "thinking" | "summary"): string =>
  field === "summary"
    ? (block.summary as unknown[]).map((s) => (isRecord(s) && typeof s.text === "string" ? s.text : "")).join("\n\n")
    : typeof block[field] === "string"
      ? (block[field] as string)
      : "";

/** The MIME type and base64 data of a data block (a file, an image, audio), or undefined. */
const dataOf = (block: Block): { readonly mediaType: string; readonly data: string } | undefined => {
  if (block.type !== "file" && block.type !== "image" && block.type !== "audio") return undefined;
  const mediaType = block.mimeType ?? block.mime_type;
  const data = block.data ?? block.base64;
  return typeof mediaType === "string" && typeof data === "string" ? { mediaType, data } : undefined;
};

/**
 * The part for one content block, or undefined when the block is text, a tool call or not carried.
 *
 * @example
 * blockPart({ type: "thinking", thinking: "hmm", signature: "s" }) // { type: "reasoning", text: "hmm", providerMetadata: { anthropic: { signature: "s" } } }
 */
export const blockPart = (block: unknown): Block | undefined => {
  if (!isRecord(block)) return undefined;
  const field = reasoningField(block);
  if (field !== undefined) return reasoningPart(reasoningText(block, field), signatureOf(block));
  const file = dataOf(block);
  return file === undefined ? undefined : { type: "file", mediaType: file.mediaType, data: file.data };
};

/** The parts of a message with where each sits; empty for a message that has none (a text-only answer costs one check). */
const slotsOf = (message: AIMessage): { parts: Block[]; slots: Slot[] } | undefined => {
  const reasoning = (message.additional_kwargs as Block | undefined)?.reasoning_content;
  const content = message.content;
  if (typeof reasoning !== "string" && !Array.isArray(content)) return undefined;
  const parts: Block[] = [];
  const slots: Slot[] = [];
  if (typeof reasoning === "string" && reasoning !== "") parts.push(reasoningPart(reasoning)), slots.push("kwargs");
  if (Array.isArray(content))
    content.forEach((block, i) => {
      const part = blockPart(block);
      if (part !== undefined) parts.push(part), slots.push(i);
    });
  return parts.length > 0 ? { parts, slots } : undefined;
};

/**
 * The other parts of an answer, for `ModelResponse.parts`; undefined when it has none.
 *
 * @example
 * partsOf(new AIMessage({ content: "Hi", additional_kwargs: { reasoning_content: "greet" } })) // [{ type: "reasoning", text: "greet" }]
 */
export const partsOf = (message: AIMessage): readonly unknown[] | undefined => slotsOf(message)?.parts;

/**
 * A block rewritten with a part's content: the same kind of block, its other fields kept.
 *
 * @example
 * blockWith({ type: "thinking", thinking: "a", signature: "s" }, { type: "reasoning", text: "b" }) // { type: "thinking", thinking: "b" }
 */
export const blockWith = (block: Block, part: unknown): Block => {
  if (!isRecord(part)) return block;
  const field = reasoningField(block);
  if (field !== undefined && part.type === "reasoning" && typeof part.text === "string") {
    const { signature: _signature, extras, ...rest } = block;
    const out: Block =
      field === "summary" ? { ...rest, summary: [{ type: "summary_text", text: part.text }] } : { ...rest, [field]: part.text };
    const signature = partSignature(part);
    if (isRecord(extras)) {
      const { signature: _signed, ...other } = extras;
      if (Object.keys(other).length > 0) out.extras = other;
    }
    if (signature !== undefined) out.signature = signature;
    return out;
  }
  if (dataOf(block) !== undefined && part.type === "file" && typeof part.data === "string")
    return { ...block, [block.data !== undefined ? "data" : "base64"]: part.data };
  return newBlock(part) ?? block;
};

/**
 * A block for a part that has none to go back to (a hook added it, a cache replayed it).
 *
 * @example
 * newBlock({ type: "reasoning", text: "plan" }) // { type: "reasoning", reasoning: "plan" }
 */
export const newBlock = (part: unknown): Block | undefined => {
  if (!isRecord(part)) return undefined;
  if (part.type === "reasoning" && typeof part.text === "string") {
    const signature = partSignature(part);
    return signature !== undefined ? { type: "thinking", thinking: part.text, signature } : { type: "reasoning", reasoning: part.text };
  }
  if (part.type === "file" && typeof part.mediaType === "string" && typeof part.data === "string")
    return { type: "file", mimeType: part.mediaType, data: part.data };
  return undefined;
};

/**
 * The content and `additional_kwargs` of `message` with `parts` (what hooks made of `partsOf(message)`)
 * written in: one for one where the hooks kept the count, else the message's parts replaced by these.
 *
 * @example
 * withParts(message, [{ type: "reasoning", text: "[REDACTED:email]" }]).kwargs.reasoning_content // "[REDACTED:email]"
 */
export const withParts = (
  message: AIMessage,
  parts: readonly unknown[] | undefined,
): { readonly content: MessageContent; readonly kwargs: Record<string, unknown> } => {
  const kwargs = { ...(message.additional_kwargs as Block | undefined) };
  const was = slotsOf(message);
  const given = parts ?? [];
  const content = message.content;
  const blocks = Array.isArray(content) ? [...(content as unknown[])] : undefined;
  if (was !== undefined && was.parts.length === given.length) {
    was.slots.forEach((slot, k) => {
      const part = given[k];
      if (part === was.parts[k]) return;
      if (slot === "kwargs") kwargs.reasoning_content = isRecord(part) && typeof part.text === "string" ? part.text : "";
      else if (blocks !== undefined) blocks[slot] = blockWith(blocks[slot] as Block, part);
    });
    return { content: (blocks ?? content) as MessageContent, kwargs };
  }
  // The hooks removed or added parts: the message's own go, theirs take their place.
  const gone = new Set(was?.slots ?? []);
  if (gone.has("kwargs")) delete kwargs.reasoning_content;
  const added = given.flatMap((part) => newBlock(part) ?? []);
  const kept =
    blocks !== undefined
      ? blocks.filter((_, i) => !gone.has(i))
      : typeof content === "string" && content !== ""
        ? [{ type: "text", text: content }]
        : [];
  return { content: (added.length === 0 && blocks === undefined ? content : [...added, ...kept]) as MessageContent, kwargs };
};
