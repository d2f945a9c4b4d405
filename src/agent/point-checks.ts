/**
 * What the agent's points take from hooks: the checks `agentPoints` declares, so that a hook's
 * `Replace`, `Transform` or `next(input)` of the wrong shape (from JavaScript, or through a cast)
 * is that hook's `invalid-action` failure wherever the stack runs: in the agent loop and in every
 * adapter. Each message says what the point takes and what it got.
 */
import { describeGiven } from "../core/errors.ts";
import type { ValueCheck } from "../core/value-check.ts";
import { isToolCall, notAResponse } from "./response-shape.ts";

type Fields = Readonly<Record<string, unknown>>;

const isObject = (value: unknown): value is Fields => typeof value === "object" && value !== null && !Array.isArray(value);
const isList = (value: unknown): value is readonly unknown[] => Array.isArray(value);
const optional = (value: unknown, test: (v: unknown) => boolean): boolean => value === undefined || test(value);
const isText = (value: unknown): boolean => typeof value === "string";
/** A conversation the loop can read: a list of messages, each an object with a string role. */
const isMessages = (value: unknown): boolean => isList(value) && value.every((m) => isObject(m) && typeof m.role === "string");

/** A check that says `expected` and what it got when `test` says no. */
const shaped =
  (test: (value: unknown) => boolean, expected: string): ValueCheck =>
  (value) =>
    test(value) ? undefined : `${expected}, got ${describeGiven(value)}`;

/**
 * A tool call, as `toolCall` takes it from a hook: `{ id, name, input }`, with string id and name and
 * an object input. A hook may rename the call (the tool of the new name runs).
 *
 * @example
 * toolCallCheck({ id: "c1", name: "Bash", input: "ls" }) // 'a tool call is an object { id, name, input } with …, got {"id":"c1",…}'
 */
export const toolCallCheck: ValueCheck = shaped(
  isToolCall,
  "a tool call is an object { id, name, input } with string id and name and an object input",
);

/**
 * A tool result, as `toolCall` takes it from a hook: an object `{ content, isError? }`.
 *
 * @example
 * toolResultCheck("cached") // 'a tool result is an object { content, isError? }, as Replace({ content: "cached" }) gives, got "cached"'
 */
export const toolResultCheck: ValueCheck = (value) =>
  isObject(value) && "content" in value && optional(value.isError, (e) => typeof e === "boolean")
    ? undefined
    : `a tool result is an object { content, isError? }${isObject(value) ? " (isError a boolean when given)" : `, as Replace({ content: ${describeGiven(value)} }) gives`}, got ${describeGiven(value)}`;

/**
 * A model response, as `modelCall` takes it from a hook: what `notAResponse` accepts.
 *
 * @example
 * modelResponseCheck({}) // "the modelCall response is not a response (text must be a string, …), got {}"
 */
export const modelResponseCheck: ValueCheck = (value) => notAResponse(value)?.message;

/**
 * A model request, as `modelCall` takes it from a hook: a string `model` and a list of messages.
 *
 * @example
 * modelRequestCheck({ model: "m", messages: "hi" }) // "a model request is an object { model, messages, … } …, got …"
 */
export const modelRequestCheck: ValueCheck = shaped(
  (v) => isObject(v) && isText(v.model) && isMessages(v.messages) && optional(v.tools, isList),
  "a model request is an object { model, messages, tools? } with a string model, a list of messages { role, content } and a list of tools",
);

/**
 * A stop decision, as `stop` and `subagentStop` take it from a hook: `{ stop: true }` (to go on, a hook rejects).
 *
 * @example
 * stopDecisionCheck({ stop: false }) // "a stop decision is { stop: true } (a hook that wants the agent to go on rejects), got {…}"
 */
export const stopDecisionCheck: ValueCheck = shaped(
  (v) => isObject(v) && v.stop === true,
  "a stop decision is { stop: true } (a hook that wants the agent to go on rejects)",
);

/**
 * A compaction result, as `compaction` takes it from a hook: `{ messages, summary, removed }`.
 *
 * @example
 * compactionResultCheck({ messages: [] }) // "a compaction result is an object { messages, summary, removed } …, got {\"messages\":[]}"
 */
export const compactionResultCheck: ValueCheck = shaped(
  (v) =>
    isObject(v) &&
    isMessages(v.messages) &&
    isText(v.summary) &&
    typeof v.removed === "number" &&
    Number.isInteger(v.removed) &&
    v.removed >= 0,
  "a compaction result is an object { messages, summary, removed } with a list of messages { role, content }, a string summary and a count of the messages removed",
);

/**
 * A user prompt, as `userPrompt` takes it from a hook (its input and its output): `{ text }`.
 *
 * @example
 * userPromptCheck("hi") // 'a user prompt is an object { text } with a string text, got "hi"'
 */
export const userPromptCheck: ValueCheck = shaped(
  (v) => isObject(v) && isText(v.text),
  "a user prompt is an object { text } with a string text",
);

/**
 * A run's input, as `run` takes it from a hook: `{ prompt, messages, system?, tools? }`.
 *
 * @example
 * runInputCheck({ prompt: "hi" }) // "a run's input is an object { prompt, messages, system?, tools? } …, got {\"prompt\":\"hi\"}"
 */
export const runInputCheck: ValueCheck = shaped(
  (v) => isObject(v) && isText(v.prompt) && isMessages(v.messages) && optional(v.system, isText) && optional(v.tools, isList),
  "a run's input is an object { prompt, messages, system?, tools? } with a string prompt and system, a list of messages { role, content } and a list of tools",
);

/**
 * A permission request, as `permissionRequest` takes it from a hook: `{ call, suggestions? }` with a tool call.
 *
 * @example
 * permissionRequestCheck({ call: { name: "Bash" } }) // "a permission request is an object { call, suggestions? } …, got …"
 */
export const permissionRequestCheck: ValueCheck = shaped(
  (v) => isObject(v) && isToolCall(v.call) && optional(v.suggestions, isList),
  "a permission request is an object { call, suggestions? } with a tool call { id, name, input } and a list of suggestions",
);
