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
const isBoolean = (value: unknown): boolean => typeof value === "boolean";
const isCount = (value: unknown): boolean => typeof value === "number" && Number.isInteger(value) && value >= 0;
const isTexts = (value: unknown): boolean => isList(value) && value.every(isText);

const ROLES: ReadonlySet<unknown> = new Set(["system", "user", "assistant", "tool"]);

/**
 * What is wrong with one message of a conversation, as the loop and every adapter read it: a known
 * role, text content (adapters carry a message's other parts, reasoning and files, beside it, never
 * in it), the tool calls an assistant asked for, and a tool message's call id, tool name and error flag.
 */
const messageProblem = (m: unknown): string | undefined => {
  if (!isObject(m)) return `is not an object { role, content }: ${describeGiven(m)}`;
  if (!ROLES.has(m.role)) return `role must be system, user, assistant or tool, got ${describeGiven(m.role)}`;
  if (!isText(m.content)) return `content must be a string, got ${describeGiven(m.content)}`;
  if (!optional(m.toolCalls, (c) => isList(c) && c.every(isToolCall)))
    return `toolCalls must be a list of tool calls { id, name, input }, got ${describeGiven(m.toolCalls)}`;
  for (const field of ["toolCallId", "toolName"] as const)
    if (!optional(m[field], isText)) return `${field} must be a string, got ${describeGiven(m[field])}`;
  if (!optional(m.isError, isBoolean)) return `isError must be a boolean, got ${describeGiven(m.isError)}`;
  return undefined;
};

/** What is wrong with a conversation: not a list, or its first message that is not one (by index). */
const messagesProblem = (value: unknown): string | undefined => {
  if (!isList(value)) return `messages must be a list, got ${describeGiven(value)}`;
  for (let i = 0; i < value.length; i++) {
    const problem = messageProblem(value[i]);
    if (problem !== undefined) return `messages[${i}] ${problem}`;
  }
  return undefined;
};

/** The words every check with a conversation uses for it. */
const MESSAGES = "a list of messages { role, content } (role system, user, assistant or tool, content a string)";
/** A check that says `expected` and what it got when `test` says no. */
const shaped =
  (test: (value: unknown) => boolean, expected: string): ValueCheck =>
  (value) =>
    test(value) ? undefined : `${expected}, got ${describeGiven(value)}`;

/**
 * `shaped` for a value that holds a conversation at `field`: the rest is tested by `test`, the
 * messages one by one, and a wrong message is named by its index.
 */
const withMessages =
  (test: (value: Fields) => boolean, expected: string, field = "messages"): ValueCheck =>
  (value) => {
    if (!isObject(value) || !test(value)) return `${expected}, got ${describeGiven(value)}`;
    const problem = messagesProblem(value[field]);
    return problem === undefined ? undefined : `${expected}: ${field === "messages" ? "" : `${field}.`}${problem}`;
  };

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
export const modelRequestCheck: ValueCheck = withMessages(
  (v) => isText(v.model) && optional(v.tools, isList),
  `a model request is an object { model, messages, tools? } with a string model, ${MESSAGES} and a list of tools`,
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
export const compactionResultCheck: ValueCheck = withMessages(
  (v) => isText(v.summary) && isCount(v.removed),
  `a compaction result is an object { messages, summary, removed } with ${MESSAGES}, a string summary and a count of the messages removed`,
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
export const runInputCheck: ValueCheck = withMessages(
  (v) => isText(v.prompt) && optional(v.system, isText) && optional(v.tools, isList),
  `a run's input is an object { prompt, messages, system?, tools? } with a string prompt and system, ${MESSAGES} and a list of tools`,
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

/** A tool result as `toolCall` takes it (the words are `toolResultCheck`'s). */
const isToolResult = (value: unknown): boolean => isObject(value) && "content" in value && optional(value.isError, isBoolean);

/** Token counts `{ inputTokens, outputTokens }`. */
const isUsage = (value: unknown): boolean => isObject(value) && isTokenTotal(value.inputTokens) && isTokenTotal(value.outputTokens);
const isTokenTotal = (n: unknown): boolean => typeof n === "number" && Number.isFinite(n) && n >= 0;

/**
 * A session's opening, as `sessionStart` takes it from a hook: `{ sessionId, source }`, both strings.
 *
 * @example
 * sessionStartCheck({ sessionId: "s1" }) // "a session start is an object { sessionId, source } with string sessionId and source, got {\"sessionId\":\"s1\"}"
 */
export const sessionStartCheck: ValueCheck = shaped(
  (v) => isObject(v) && isText(v.sessionId) && isText(v.source),
  "a session start is an object { sessionId, source } with string sessionId and source",
);

/**
 * An opened session, as `sessionStart` yields it from a hook: `{ sessionId, env?, envFile? }`.
 *
 * @example
 * sessionInfoCheck({ sessionId: "s1", env: { PATH: 1 } }) // "a session is an object { sessionId, env?, envFile? } …, got …"
 */
export const sessionInfoCheck: ValueCheck = shaped(
  (v) =>
    isObject(v) &&
    isText(v.sessionId) &&
    optional(v.env, (e) => isObject(e) && Object.values(e).every(isText)) &&
    optional(v.envFile, isText),
  "a session is an object { sessionId, env?, envFile? } with a string sessionId, env an object of string variables and a string envFile",
);

/**
 * A session's closing, as `sessionEnd` takes it from a hook: `{ sessionId, reason }`, both strings.
 *
 * @example
 * sessionEndCheck({ sessionId: "s1", reason: 1 }) // "a session end is an object { sessionId, reason } with string sessionId and reason, got …"
 */
export const sessionEndCheck: ValueCheck = shaped(
  (v) => isObject(v) && isText(v.sessionId) && isText(v.reason),
  "a session end is an object { sessionId, reason } with string sessionId and reason",
);

/**
 * The output of a point that yields nothing (`sessionEnd`, `notification`, `subagentStart`,
 * `toolBatch`): a hook may `Replace(undefined)` to skip the operation, never hand it a value.
 *
 * @example
 * nothingCheck("sent") // 'this point yields nothing (Replace(undefined) skips its operation), got "sent"'
 */
export const nothingCheck: ValueCheck = shaped(
  (v) => v === undefined,
  "this point yields nothing (Replace(undefined) skips its operation)",
);

/**
 * One loop iteration, as `step` takes it from a hook: `{ index, messages }`.
 *
 * @example
 * stepInputCheck({ index: -1, messages: [] }) // "a step is an object { index, messages } with a count index and …, got …"
 */
export const stepInputCheck: ValueCheck = withMessages(
  (v) => isCount(v.index),
  `a step is an object { index, messages } with a count index (from 0) and ${MESSAGES}`,
);

/**
 * What a step produced, as `step` takes it from a hook: `{ response, toolResults }`, a model
 * response and a list of `{ call, result, approval? }`.
 *
 * @example
 * stepResultCheck({ response: {}, toolResults: [] }) // "a step result is an object { response, toolResults } …, got …"
 */
export const stepResultCheck: ValueCheck = (value) => {
  const expected =
    "a step result is an object { response, toolResults } with a model response and a list of { call, result, approval? } " +
    "(a tool call, a tool result and an approval object)";
  if (!isObject(value)) return `${expected}, got ${describeGiven(value)}`;
  const response = notAResponse(value.response);
  if (response !== undefined) return `${expected}: its response: ${response.message}`;
  const fits =
    isList(value.toolResults) &&
    value.toolResults.every((r) => isObject(r) && isToolCall(r.call) && isToolResult(r.result) && optional(r.approval, isObject));
  return fits ? undefined : `${expected}, got toolResults ${describeGiven(value.toolResults)}`;
};

/**
 * A stop request, as `stop` takes it from a hook: `{ reason, lastMessage?, blockedCount }`.
 *
 * @example
 * stopRequestCheck({ reason: "done" }) // "a stop request is an object { reason, lastMessage?, blockedCount } …, got …"
 */
export const stopRequestCheck: ValueCheck = shaped(
  (v) => isObject(v) && isText(v.reason) && optional(v.lastMessage, isText) && isCount(v.blockedCount),
  "a stop request is an object { reason, lastMessage?, blockedCount } with a string reason and lastMessage and a count blockedCount",
);

/**
 * A sub-agent's stop request, as `subagentStop` takes it from a hook: a stop request with the
 * sub-agent's `agent` name and `path`.
 *
 * @example
 * subagentStopRequestCheck({ reason: "done", blockedCount: 0 }) // "a sub-agent's stop request is … , got …"
 */
export const subagentStopRequestCheck: ValueCheck = shaped(
  (v) => stopRequestCheck(v) === undefined && isObject(v) && isText(v.agent) && isTexts(v.path),
  "a sub-agent's stop request is an object { reason, lastMessage?, blockedCount, agent, path } with a string reason, " +
    "lastMessage and agent, a count blockedCount and a list of names path",
);

/**
 * A sub-agent starting, as `subagentStart` takes it from a hook: `{ agent, path, prompt? }`.
 *
 * @example
 * subagentStartCheck({ agent: "explorer" }) // "a sub-agent start is an object { agent, path, prompt? } …, got …"
 */
export const subagentStartCheck: ValueCheck = shaped(
  (v) => isObject(v) && isText(v.agent) && isTexts(v.path) && optional(v.prompt, isText),
  "a sub-agent start is an object { agent, path, prompt? } with a string agent and prompt and a list of names path",
);

/**
 * A compaction request, as `compaction` takes it from a hook: `{ trigger, messages, tokens, budget }`.
 *
 * @example
 * compactionRequestCheck({ trigger: "sometimes", messages: [], tokens: 1, budget: 1 }) // "a compaction request is …, got …"
 */
export const compactionRequestCheck: ValueCheck = withMessages(
  (v) => (v.trigger === "auto" || v.trigger === "manual") && isTokenTotal(v.tokens) && isTokenTotal(v.budget),
  `a compaction request is an object { trigger, messages, tokens, budget } with trigger "auto" or "manual", ${MESSAGES} and token counts tokens and budget`,
);

const WHERE: ReadonlySet<unknown> = new Set(["model", "tool", "hook", "loop"]);

/**
 * An error in the loop, as `error` takes it from a hook: `{ where, error, attempt }`.
 *
 * @example
 * errorEventCheck({ where: "disk", error: "x", attempt: 1 }) // "an error event is an object { where, error, attempt } …, got …"
 */
export const errorEventCheck: ValueCheck = shaped(
  (v) =>
    isObject(v) && WHERE.has(v.where) && "error" in v && typeof v.attempt === "number" && Number.isInteger(v.attempt) && v.attempt >= 1,
  'an error event is an object { where, error, attempt } with where "model", "tool", "hook" or "loop" and a count attempt from 1',
);

/**
 * An error decision, as `error` takes it from a hook: `{ action: "fail" }`, `{ action: "retry",
 * delayMs? }` (a number of ms from 0) or `{ action: "recover", value }`.
 *
 * @example
 * errorDecisionCheck({ action: "retry", delayMs: "soon" }) // 'an error decision is { action: "fail" }, … got …'
 */
export const errorDecisionCheck: ValueCheck = shaped(
  (v) =>
    isObject(v) &&
    (v.action === "fail" ||
      (v.action === "retry" && optional(v.delayMs, (d) => typeof d === "number" && d >= 0 && !Number.isNaN(d))) ||
      (v.action === "recover" && "value" in v)),
  'an error decision is { action: "fail" }, { action: "retry", delayMs? } with a number of ms from 0, or { action: "recover", value }',
);

/**
 * A notice, as `notification` takes it from a hook: `{ type, message }`, both strings.
 *
 * @example
 * notificationCheck({ type: "info" }) // "a notification is an object { type, message } with string type and message, got {\"type\":\"info\"}"
 */
export const notificationCheck: ValueCheck = shaped(
  (v) => isObject(v) && isText(v.type) && isText(v.message),
  "a notification is an object { type, message } with string type and message",
);

/**
 * A step's resolved tool calls, as `toolBatch` takes it from a hook: `{ calls }`, a list of `{ call, result }`.
 *
 * @example
 * toolBatchCheck({ calls: [{ call: { id: "c1", name: "Bash", input: {} } }] }) // "a tool batch is an object { calls } …, got …"
 */
export const toolBatchCheck: ValueCheck = shaped(
  (v) => isObject(v) && isList(v.calls) && v.calls.every((c) => isObject(c) && isToolCall(c.call) && isToolResult(c.result)),
  "a tool batch is an object { calls } with a list of { call, result }, each a tool call { id, name, input } and a tool result { content, isError? }",
);

/**
 * A permission decision, as `permissionRequest` takes it from a hook: `{ behavior: "allow",
 * updatedInput?, updatedPermissions? }` or `{ behavior: "deny", message?, interrupt? }`.
 *
 * @example
 * permissionDecisionCheck({ behavior: "ask" }) // 'a permission decision is { behavior: "allow", … } or { behavior: "deny", … }, got {"behavior":"ask"}'
 */
export const permissionDecisionCheck: ValueCheck = shaped(
  (v) =>
    isObject(v) &&
    ((v.behavior === "allow" && optional(v.updatedInput, isObject) && optional(v.updatedPermissions, isList)) ||
      (v.behavior === "deny" && optional(v.message, isText) && optional(v.interrupt, isBoolean))),
  'a permission decision is { behavior: "allow", updatedInput?, updatedPermissions? } with an object updatedInput and a list ' +
    'updatedPermissions, or { behavior: "deny", message?, interrupt? } with a string message and a boolean interrupt',
);

/**
 * A run's result, as `run` takes it from a hook: `{ text, steps, usage, finishReason, messages,
 * stoppedBy?, paused? }`.
 *
 * @example
 * runResultCheck({ text: "done" }) // "a run's result is an object { text, steps, usage, finishReason, messages, … } …, got …"
 */
export const runResultCheck: ValueCheck = withMessages(
  (v) =>
    isText(v.text) &&
    isCount(v.steps) &&
    isUsage(v.usage) &&
    isText(v.finishReason) &&
    optional(v.stoppedBy, (s) => isObject(s) && isText(s.reason) && optional(s.by, isText) && optional(s.kind, isText)) &&
    optional(v.paused, isObject),
  "a run's result is an object { text, steps, usage, finishReason, messages, stoppedBy?, paused? } with a string text and " +
    `finishReason, a count steps, usage { inputTokens, outputTokens }, ${MESSAGES}, stoppedBy { reason, by?, kind? } and a paused object`,
);
