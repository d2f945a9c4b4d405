/**
 * What makes a model response one: the check both paths apply to the response hooks settled on
 * (a cache's `Replace` restored from JSON, an `after` hook's `Transform` that rebuilt it), so a
 * call refuses the same response with the same error whether it was generated or streamed.
 */
import { describe } from "../core/errors.ts";
import type { ModelResponse, Usage } from "./types.ts";

/**
 * The error for a value that is not a model response, or undefined when it is one: `text` a
 * string, `toolCalls` an array, `finishReason` a string and `usage` token counts (finite numbers
 * from 0) for `inputTokens` and `outputTokens`.
 *
 * @example
 * notAResponse({ text: "cached", toolCalls: [], finishReason: "stop" })?.message // "the modelCall response is not a response (… usage …), got {…}"
 */
export const notAResponse = (value: unknown): TypeError | undefined => {
  const r = value as Partial<Record<keyof ModelResponse, unknown>> | null | undefined;
  if (typeof r === "object" && r !== null && typeof r.text === "string" && Array.isArray(r.toolCalls) && typeof r.finishReason === "string" && counts(r.usage))
    return undefined;
  return new TypeError(
    "the modelCall response is not a response (text must be a string, toolCalls an array, finishReason a string and usage " +
      `{ inputTokens, outputTokens } token counts), got ${describe(value)}`,
  );
};

const counts = (usage: unknown): boolean => {
  const u = usage as Partial<Record<keyof Usage, unknown>> | null | undefined;
  const count = (n: unknown): boolean => typeof n === "number" && Number.isFinite(n) && n >= 0;
  return typeof u === "object" && u !== null && count(u.inputTokens) && count(u.outputTokens);
};
