/**
 * What makes a model response one: the check both paths apply to the response hooks settled on
 * (a cache's `Replace` restored from JSON, an `after` hook's `Transform` that rebuilt it), so a
 * call refuses the same response with the same error whether it was generated or streamed.
 */
import { describe } from "../core/errors.ts";
import type { ModelResponse, ToolCall, Usage } from "./types.ts";

/**
 * The error for a value that is not a model response, or undefined when it is one: `text` a
 * string, `toolCalls` an array of `{ id, name, input }` (strings and an object), `finishReason`
 * a string, `parts` (when given) a list of objects with a string `type`, and `usage` token counts
 * (finite numbers from 0) for `inputTokens` and `outputTokens`.
 *
 * @example
 * notAResponse({ text: "cached", toolCalls: [], finishReason: "stop" })?.message // "the modelCall response is not a response (… usage …), got {…}"
 */
export const notAResponse = (value: unknown): TypeError | undefined =>
  answers(value) && counts((value as { usage?: unknown }).usage) ? undefined : shapeError(value);

/**
 * The same check without `usage`, for a provider's own answer: token totals it left out are
 * estimated (as a stream's finish without them is), the rest cannot be.
 *
 * @example
 * notAnAnswer({ text: "hi", toolCalls: [], finishReason: "stop" }) // undefined
 */
export const notAnAnswer = (value: unknown): TypeError | undefined => (answers(value) ? undefined : shapeError(value));

/**
 * True for a token count: a finite number from 0.
 *
 * @example
 * isTokenCount(Number.NaN) // false
 */
export const isTokenCount = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n) && n >= 0;

/** One of an answer's other parts, in its adapter's own shape: each adapter's parts (reasoning, files, sources, results of tools the provider ran) say their `type`. */
const isPart = (part: unknown): boolean =>
  typeof part === "object" && part !== null && typeof (part as { type?: unknown }).type === "string";

const shapeError = (value: unknown): TypeError =>
  new TypeError(
    "the modelCall response is not a response (text must be a string, toolCalls an array of { id, name, input } with " +
      "string id and name and an object input, finishReason a string, parts (when given) a list of parts { type, … } and usage " +
      `{ inputTokens, outputTokens } token counts), got ${describe(value)}`,
  );

const answers = (value: unknown): boolean => {
  const r = value as Partial<Record<keyof ModelResponse, unknown>> | null | undefined;
  return (
    typeof r === "object" &&
    r !== null &&
    typeof r.text === "string" &&
    Array.isArray(r.toolCalls) &&
    r.toolCalls.every(isToolCall) &&
    typeof r.finishReason === "string" &&
    (r.parts === undefined || (Array.isArray(r.parts) && r.parts.every(isPart)))
  );
};

/**
 * True for a tool call the loop can run and record: a string `id` to answer and `name` of the tool,
 * and an object `input` to hand over.
 *
 * @example
 * isToolCall({ id: "c1", name: "Bash", input: "ls" }) // false
 */
export const isToolCall = (call: unknown): call is ToolCall => {
  const c = call as Partial<Record<keyof ToolCall, unknown>> | null | undefined;
  return (
    typeof c === "object" &&
    c !== null &&
    typeof c.id === "string" &&
    typeof c.name === "string" &&
    typeof c.input === "object" &&
    c.input !== null &&
    !Array.isArray(c.input)
  );
};

const counts = (usage: unknown): boolean => {
  const u = usage as Partial<Record<keyof Usage, unknown>> | null | undefined;
  return typeof u === "object" && u !== null && isTokenCount(u.inputTokens) && isTokenCount(u.outputTokens);
};
