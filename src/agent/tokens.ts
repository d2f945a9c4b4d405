/**
 * Token estimates for budgets and partial usage. A real tokenizer belongs to the provider; the
 * loop only needs a cheap, monotone stand-in (about four characters a token) to decide when
 * to compact, and to record something honest when a stream is cut before the provider said.
 */
import type { Message } from "./types.ts";

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
