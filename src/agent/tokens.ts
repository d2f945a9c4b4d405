/**
 * Token estimates for budgets and partial usage. A real tokenizer belongs to the provider; the
 * loop only needs a cheap, monotone stand-in (about four characters a token) to decide when
 * to compact, and to record something honest when a stream is cut before the provider said.
 */
import { isTokenCount } from "./response-shape.ts";
import type { Message, ModelResponse, Usage } from "./types.ts";

/**
 * Estimate the tokens of a text (ceil of characters / 4).
 *
 * @example
 * estimateTokens("hello world") // 3
 */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

/**
 * Estimate the tokens of messages, counting tool calls' inputs too.
 *
 * @example
 * estimateMessageTokens([{ role: "user", content: "hello world" }]) // 4
 */
export const estimateMessageTokens = (messages: readonly Message[]): number => {
  let chars = 0;
  for (const m of messages) {
    // A few characters of framing per message, as providers charge for roles and separators.
    chars += m.content.length + 4;
    for (const call of m.toolCalls ?? []) chars += call.name.length + JSON.stringify(call.input).length;
  }
  return Math.ceil(chars / 4);
};

/**
 * Usage as a provider reported it, with the totals it did not report (missing, or not a count)
 * estimated from the request's messages and the text it wrote; `estimated` says if any was.
 *
 * @example
 * reportedOrEstimated({ outputTokens: 5 }, messages, "Hello").usage.outputTokens // 5
 */
export const reportedOrEstimated = (
  reported: unknown,
  messages: readonly Message[],
  written: string,
): { usage: Usage; estimated: boolean } => {
  const given = reported as Partial<Record<keyof Usage, unknown>> | null | undefined;
  const input = given?.inputTokens;
  const output = given?.outputTokens;
  if (isTokenCount(input) && isTokenCount(output)) return { usage: { inputTokens: input, outputTokens: output }, estimated: false };
  return {
    usage: {
      inputTokens: isTokenCount(input) ? input : estimateMessageTokens(messages),
      outputTokens: isTokenCount(output) ? output : estimateTokens(written),
    },
    estimated: true,
  };
};

/**
 * A provider's response with the token totals it did not report (missing, or not a count)
 * estimated from the request and the answer, and `usageEstimated` set; as it is when it did.
 *
 * @example
 * withEstimatedUsage({ text: "Hi", toolCalls: [], finishReason: "stop" } as never, messages).usageEstimated // true
 */
export const withEstimatedUsage = (response: ModelResponse, messages: readonly Message[]): ModelResponse => {
  const written = response.text + response.toolCalls.map((c) => c.name + JSON.stringify(c.input)).join("");
  const { usage, estimated } = reportedOrEstimated(response.usage, messages, written);
  return estimated ? { ...response, usage, usageEstimated: true } : response;
};
