/**
 * Provider answers shared by the V3 (ai 6) and V4 (ai 7) adapter tests: the parts and results
 * have the same shape in both specifications.
 */
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";

export const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

export const stop = { unified: "stop" as const, raw: "stop" };

/** A generate result with text (and optional extra content). */
export const generated = (text: string, extra: readonly object[] = []) => ({
  content: [...extra, { type: "text" as const, text }],
  finishReason: stop,
  usage: usage(10, 5),
  warnings: [],
  response: { id: "resp-1", modelId: "mock-model-id", timestamp: new Date(0) },
});

/** Stream parts for text in the given chunks, framed as providers do, with usage in the finish part. */
export const textParts = (chunks: readonly string[], extra: readonly object[] = []) => [
  { type: "stream-start" as const, warnings: [] },
  { type: "response-metadata" as const, id: "resp-1", modelId: "mock-model-id", timestamp: new Date(0) },
  ...extra,
  { type: "text-start" as const, id: "t1" },
  ...chunks.map((delta) => ({ type: "text-delta" as const, id: "t1", delta })),
  { type: "text-end" as const, id: "t1" },
  { type: "finish" as const, finishReason: stop, usage: usage(10, 5) },
];

/** Stream parts of one tool call, streamed input first as providers do. */
export const toolParts = (name: string, input: object) => [
  { type: "stream-start" as const, warnings: [] },
  { type: "tool-input-start" as const, id: "call-1", toolName: name },
  { type: "tool-input-delta" as const, id: "call-1", delta: JSON.stringify(input) },
  { type: "tool-input-end" as const, id: "call-1" },
  { type: "tool-call" as const, toolCallId: "call-1", toolName: name, input: JSON.stringify(input) },
  { type: "finish" as const, finishReason: { unified: "tool-calls" as const, raw: "tool_use" }, usage: usage(10, 5) },
];

export const SECRET = "sk-live-0123456789";

/**
 * The tool results a provider prompt holds, in order.
 *
 * @example
 * toolResultsIn(prompt).map((p) => p.toolCallId)
 */
export const toolResultsIn = (prompt: LanguageModelV3Prompt) =>
  prompt
    .filter((m) => m.role === "tool")
    .flatMap((m) => m.content)
    .filter((p) => p.type === "tool-result");
