/**
 * Redaction of the parts of a model's answer besides its text and tool calls, as model adapters
 * hand them over: streamed as `raw` parts, generated in `ModelResponse.parts`, in the AI SDK's
 * shapes (V3 and V4). What a person or a model reads in them is scanned: reasoning, a source's
 * title, URL and file name, a file whose media type is text, the result of a tool the provider
 * ran. The rest (ids, media types, provider metadata, binary files) is protocol or not text, and is
 * left as it is, but for the signature of reasoning whose text was rewritten: a provider checks it
 * against the text when the reasoning is sent back and refuses a rewritten one, so it is dropped
 * (see `unsigned`).
 */
import { Buffer } from "node:buffer";
import type { Redactor } from "./redactor.ts";
import { StreamRedactor, type StreamRedactorOptions, type StreamStep } from "./stream-redactor.ts";

/** One part scanned: the part itself when nothing changed, else a rewritten copy; kinds that block. */
export interface PartScan {
  readonly value: unknown;
  readonly changed: boolean;
  readonly blocked: readonly string[];
}

type Part = Readonly<Record<string, unknown>>;

const none: readonly string[] = [];
const same = (value: unknown): PartScan => ({ value, changed: false, blocked: none });

/**
 * Scan one whole part of an answer (not a streamed reasoning delta: see `PartStreamRedactor`).
 *
 * @example
 * redactPart(createRedactor(), { type: "reasoning", text: "mail bob@example.com" }).value // { type: "reasoning", text: "mail [REDACTED:email]" }
 */
export const redactPart = (redactor: Redactor, part: unknown): PartScan => {
  if (typeof part !== "object" || part === null) return same(part);
  const p = part as Part;
  switch (p.type) {
    case "reasoning": {
      const r = fields(redactor, p, reasoningFields);
      return r.changed ? { ...r, value: unsigned(r.value as Part) } : r;
    }
    case "source":
      return fields(redactor, p, sourceFields);
    case "file":
    case "reasoning-file":
      return file(redactor, p);
    case "tool-result": {
      // A provider-executed tool's result (web search, code execution): JSON the model and the caller read.
      const r = redactor.value(p.result);
      return { value: r.changed ? { ...p, result: r.value } : p, changed: r.changed, blocked: r.blocked };
    }
    default:
      return same(part);
  }
};

/**
 * Scan a list of whole parts: the list itself when no part changed.
 *
 * @example
 * redactParts(createRedactor(), [{ type: "source", sourceType: "url", id: "s", url: "https://a.example" }]).changed // false
 */
export const redactParts = (redactor: Redactor, parts: readonly unknown[]): PartScan => {
  let out: unknown[] | undefined;
  let blocked: string[] | undefined;
  parts.forEach((part, i) => {
    const r = redactPart(redactor, part);
    if (r.blocked.length > 0) (blocked ??= []).push(...r.blocked);
    if (r.changed) (out ??= [...parts])[i] = r.value;
  });
  return { value: out ?? parts, changed: out !== undefined, blocked: blocked === undefined ? none : [...new Set(blocked)] };
};

const reasoningFields = ["text"] as const;

/** The provider metadata fields that sign a reasoning part's text (Anthropic and Bedrock's `signature`, Google's `thoughtSignature`). */
const signatures = ["signature", "thoughtSignature"] as const;

/**
 * A reasoning part without the signatures of its text, for one whose text was rewritten. The
 * provider's signature covers the text it sent (Anthropic's also carries the whole thinking,
 * encrypted): sent back with other text, it is refused. Without it, a provider's SDK leaves the
 * part out of the next request (the AI SDK's Anthropic provider does, with a warning), so the
 * redacted text is never sent as the model's own. No provider accepts reasoning marked as
 * redacted by anyone but itself (Anthropic's `redacted_thinking` is data only it can encrypt).
 *
 * @example
 * unsigned({ type: "reasoning", text: "[REDACTED:email]", providerMetadata: { anthropic: { signature: "s" } } }) // { type: "reasoning", text: "[REDACTED:email]" }
 */
export const unsigned = <P extends Readonly<Record<string, unknown>>>(p: P): P => {
  const metadata = p.providerMetadata;
  if (typeof metadata !== "object" || metadata === null) return p;
  let out: Record<string, unknown> | undefined;
  for (const [provider, entry] of Object.entries(metadata as Part)) {
    if (typeof entry !== "object" || entry === null || !signatures.some((key) => key in entry)) continue;
    const rest: Record<string, unknown> = { ...(entry as Part) };
    for (const key of signatures) delete rest[key];
    out ??= { ...(metadata as Part) };
    if (Object.keys(rest).length > 0) out[provider] = rest;
    else delete out[provider];
  }
  if (out === undefined) return p;
  const { providerMetadata: _signed, ...part } = p;
  return (Object.keys(out).length > 0 ? { ...part, providerMetadata: out } : part) as unknown as P;
};
const sourceFields = ["title", "url", "filename"] as const;

/** The part with each of its string `names` redacted. */
const fields = (redactor: Redactor, p: Part, names: readonly string[]): PartScan => {
  let out: Record<string, unknown> | undefined;
  let blocked: string[] | undefined;
  for (const name of names) {
    const value = p[name];
    if (typeof value !== "string") continue;
    const r = redactor.text(value);
    if (r.blocked.length > 0) (blocked ??= []).push(...r.blocked);
    if (r.changed) (out ??= { ...p })[name] = r.value;
  }
  return { value: out ?? p, changed: out !== undefined, blocked: blocked ?? none };
};

/** Media types whose bytes are text a person reads. */
const textual =
  /^(text\/|application\/(json|xml|javascript|ecmascript|yaml|x-yaml|toml|sql|csv|x-ndjson|graphql|x-sh)\b)|\+(json|xml|yaml)\b/i;

/** A file of a text media type, its data as V3 gives it (base64 or bytes) or V4 (tagged `data`; a `url` is not here to scan). */
const file = (redactor: Redactor, p: Part): PartScan => {
  if (typeof p.mediaType !== "string" || !textual.test(p.mediaType)) return same(p);
  const data = p.data;
  if (typeof data === "object" && data !== null && !(data instanceof Uint8Array)) {
    const tagged = data as Part;
    if (tagged.type !== "data") return same(p);
    const r = fileData(redactor, tagged.data);
    return { value: r.changed ? { ...p, data: { ...tagged, data: r.value } } : p, changed: r.changed, blocked: r.blocked };
  }
  const r = fileData(redactor, data);
  return { value: r.changed ? { ...p, data: r.value } : p, changed: r.changed, blocked: r.blocked };
};

const strictBase64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** UTF-8 bytes as text, or undefined when they are not UTF-8 (then they are not text to scan). */
const utf8 = (bytes: Uint8Array): string | undefined => {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
};

/** A text file's data redacted in its own encoding: bytes stay bytes, base64 stays base64. */
const fileData = (redactor: Redactor, data: unknown): PartScan => {
  if (data instanceof Uint8Array) {
    const text = utf8(data);
    if (text === undefined) return same(data);
    const r = redactor.text(text);
    return { value: r.changed ? new TextEncoder().encode(r.value) : data, changed: r.changed, blocked: r.blocked };
  }
  if (typeof data !== "string") return same(data);
  // Base64 as the specification says; a string that is not (or does not decode to UTF-8) is a
  // provider's text sent as it is, and is scanned as such.
  const decoded = strictBase64.test(data) ? utf8(Buffer.from(data, "base64")) : undefined;
  if (decoded === undefined) {
    const r = redactor.text(data);
    return { value: r.value, changed: r.changed, blocked: r.blocked };
  }
  const r = redactor.text(decoded);
  return { value: r.changed ? Buffer.from(r.value, "utf8").toString("base64") : data, changed: r.changed, blocked: r.blocked };
};

/**
 * The streamed parts of one answer besides text and tool calls: reasoning through a stream
 * redactor per reasoning block (a secret split across deltas is caught as in text; what a block
 * holds goes out before its end), the other parts scanned whole. `push` answers undefined for a
 * part that passes as it is, null for one to drop, else the parts to pass in its place.
 *
 * @example
 * const s = new PartStreamRedactor(createRedactor())
 * const blocked = new Set<string>()
 * s.push({ type: "reasoning-delta", id: "r", delta: "key AKIAIOSF" }, blocked) // null: held
 * s.push({ type: "reasoning-end", id: "r" }, blocked) // [{ type: "reasoning-delta", id: "r", delta: "key AKIAIOSF" }, { type: "reasoning-end", id: "r" }]
 */
export class PartStreamRedactor {
  private readonly blocks = new Map<string, Block>();

  constructor(
    private readonly redactor: Redactor,
    private readonly options: StreamRedactorOptions = {},
  ) {}

  /** One part; kinds that block are added to `blocked` (then nothing of the answer should go out). */
  push(part: unknown, blocked: Set<string>): unknown[] | unknown | null | undefined {
    if (typeof part !== "object" || part === null) return undefined;
    const p = part as Part;
    switch (p.type) {
      case "reasoning-start":
        if (typeof p.id === "string") this.blocks.set(p.id, this.open());
        return undefined;
      case "reasoning-delta": {
        if (typeof p.delta !== "string") return undefined;
        const block = this.block(p.id);
        const step = released(block, block.stream.push(p.delta), p.delta, blocked);
        if (signed(p)) {
          // A signature comes last in its block: what the block holds is judged now, so that the
          // signature goes out only with the text it signs.
          this.blocks.delete(String(p.id));
          const text = step + released(block, block.stream.end(), "", blocked);
          const out = text === p.delta ? p : { ...p, delta: text };
          return block.changed ? unsigned(out) : out === p ? undefined : out;
        }
        if (step === p.delta) return undefined;
        // A delta that carries metadata goes out even with no text released.
        return step === "" && p.providerMetadata === undefined ? null : { ...p, delta: step };
      }
      case "reasoning-end": {
        const block = this.blocks.get(String(p.id));
        const rest = this.flush(p.id, blocked);
        const end = block?.changed === true && signed(p) ? unsigned(p) : p;
        return rest === undefined ? (end === p ? undefined : end) : [rest, end];
      }
      default: {
        const r = redactPart(this.redactor, p);
        for (const kind of r.blocked) blocked.add(kind);
        return r.changed ? r.value : undefined;
      }
    }
  }

  /** The stream finishes: what every block still open holds, as deltas. */
  end(blocked: Set<string>): unknown[] {
    const out: unknown[] = [];
    for (const id of [...this.blocks.keys()]) {
      const rest = this.flush(id, blocked);
      if (rest !== undefined) out.push(rest);
    }
    return out;
  }

  private open(): Block {
    return { stream: new StreamRedactor(this.redactor, this.options), unreleased: "", changed: false };
  }

  private block(id: unknown): Block {
    const key = String(id);
    let block = this.blocks.get(key);
    if (block === undefined) this.blocks.set(key, (block = this.open()));
    return block;
  }

  /** End a block: its held text as one delta, or undefined when it held none. */
  private flush(id: unknown, blocked: Set<string>): Part | undefined {
    const key = String(id);
    const block = this.blocks.get(key);
    if (block === undefined) return undefined;
    this.blocks.delete(key);
    const text = released(block, block.stream.end(), "", blocked);
    return text === "" ? undefined : { type: "reasoning-delta", id, delta: text };
  }
}

/** One reasoning block of a stream: its redactor, the text it took and did not release yet, and whether it rewrote any. */
interface Block {
  readonly stream: StreamRedactor;
  unreleased: string;
  changed: boolean;
}

/** What a block's step released, noting in the block whether that differs from what it took. */
const released = (block: Block, step: StreamStep, taken: string, blocked: Set<string>): string => {
  for (const kind of step.blocked) blocked.add(kind);
  if (block.changed) return step.text;
  const pending = block.unreleased + taken;
  if (pending.startsWith(step.text)) block.unreleased = pending.slice(step.text.length);
  else (block.changed = true), (block.unreleased = "");
  return step.text;
};

/** Whether a part carries a signature of its reasoning in its provider metadata. */
const signed = (p: Part): boolean => {
  const metadata = p.providerMetadata;
  if (typeof metadata !== "object" || metadata === null) return false;
  for (const entry of Object.values(metadata))
    if (typeof entry === "object" && entry !== null && signatures.some((key) => key in entry)) return true;
  return false;
};
