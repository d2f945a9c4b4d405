/**
 * The provider interface: the smallest shape a language model needs so the loop and the
 * wrappers can drive it. It maps one to one onto the Vercel AI SDK's `LanguageModelV3`
 * (`doGenerate` → `generate`, `doStream` → `stream`, stream parts → `StreamPart`), which is
 * how the AI SDK adapter plugs real providers in.
 */
import type { FinishReason, ModelRequest, ModelResponse, ToolCall, Usage } from "./types.ts";

/** What every provider call receives. */
export interface ModelCallOptions {
  /** Aborted when the caller cancels; providers should stop and throw (or end the stream). */
  readonly signal?: AbortSignal | undefined;
}

/**
 * One part of a streamed response. `raw` carries provider-specific parts (reasoning, sources,
 * metadata) through the machinery untouched; the output gate checks text only.
 */
export type StreamPart =
  | { readonly type: "text-delta"; readonly text: string }
  | { readonly type: "tool-call"; readonly call: ToolCall }
  | { readonly type: "finish"; readonly finishReason: FinishReason; readonly usage: Usage; readonly responseId?: string }
  | { readonly type: "error"; readonly error: unknown }
  | { readonly type: "raw"; readonly value: unknown };

/**
 * A language model: `generate` answers at once; `stream`, when present, answers in parts.
 *
 * @example
 * const echo: LanguageModel = {
 *   id: "echo",
 *   generate: async (req) => ({ text: req.messages.at(-1)?.content ?? "", toolCalls: [], finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } }),
 * }
 */
export interface LanguageModel {
  /** The model id; the subject of the `modelCall` point. */
  readonly id: string;
  /** Answers one request with a whole response. */
  generate(request: ModelRequest, options: ModelCallOptions): Promise<ModelResponse>;
  /** Answers one request as a stream of parts; optional, `generate` is streamed when it is missing. */
  stream?(request: ModelRequest, options: ModelCallOptions): AsyncIterable<StreamPart>;
}

/**
 * Zero usage, the starting point for sums.
 *
 * @example
 * addUsage(noUsage, { inputTokens: 3, outputTokens: 4 }) // { inputTokens: 3, outputTokens: 4 }
 */
export const noUsage: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0 });

/**
 * Sum two usages.
 *
 * @example
 * addUsage({ inputTokens: 1, outputTokens: 2 }, { inputTokens: 3, outputTokens: 4 }) // { inputTokens: 4, outputTokens: 6 }
 */
export const addUsage = (a: Usage, b: Usage): Usage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
});

/**
 * Assemble a response from parts (what `after` hooks of a streamed call see).
 *
 * @example
 * assemble([{ type: "text-delta", text: "Hi" }, { type: "finish", finishReason: "stop", usage: noUsage }]).text // "Hi"
 */
export const assemble = (parts: Iterable<StreamPart>): ModelResponse => {
  let text = "";
  const toolCalls: ToolCall[] = [];
  let finishReason: FinishReason = "other";
  let usage: Usage = noUsage;
  for (const part of parts) {
    if (part.type === "text-delta") text += part.text;
    else if (part.type === "tool-call") toolCalls.push(part.call);
    else if (part.type === "finish") {
      finishReason = part.finishReason;
      usage = part.usage;
    }
  }
  return { text, toolCalls, finishReason, usage };
};

/**
 * The parts that replay a complete response as a stream (for a cached or replaced answer).
 *
 * @example
 * [...responseParts({ text: "Hi", toolCalls: [], finishReason: "stop", usage: noUsage })].map((p) => p.type) // ["text-delta", "finish"]
 */
export function* responseParts(response: ModelResponse): Generator<StreamPart> {
  if (response.text !== "") yield { type: "text-delta", text: response.text };
  for (const call of response.toolCalls) yield { type: "tool-call", call };
  yield { type: "finish", finishReason: response.finishReason, usage: response.usage };
}
