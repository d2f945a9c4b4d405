/**
 * The options of the agent's calls (`agent.run`, `agent.session`, `session.prompt`, `resume`),
 * checked where they are given: a misspelt option (`sesionId`, `metdata`) would otherwise be
 * dropped in silence, and a wrong-typed one fail later, far from the mistake, or not at all.
 */
import { describeGiven } from "../core/errors.ts";
import { knownOptions } from "../core/known-options.ts";
import { isAbortSignal } from "../core/signal.ts";
import type { PromptOptions, ResumeOptions, SessionOptions } from "./agent-types.ts";

type Fields<T> = { readonly [K in keyof Required<T>]: true };

const sessionFields: Fields<SessionOptions> = { sessionId: true, source: true, metadata: true, signal: true, messages: true };
const promptFields: Fields<PromptOptions> = { signal: true, metadata: true, onPart: true };
const resumeFields: Fields<ResumeOptions> = { ...promptFields, approvals: true };
const agentResumeFields: Fields<ResumeOptions & Omit<SessionOptions, "sessionId" | "messages">> = { ...resumeFields, source: true };

const isRecord = (value: unknown): boolean => typeof value === "object" && value !== null && !Array.isArray(value);

/** What each option must be, when given (undefined is always allowed), and the words for it. */
const shapes: Readonly<Record<string, readonly [(value: unknown) => boolean, string]>> = {
  sessionId: [(v) => typeof v === "string", "a string"],
  source: [(v) => typeof v === "string", 'a string ("startup", "resume", ...)'],
  metadata: [isRecord, "an object"],
  signal: [isAbortSignal, "an AbortSignal"],
  messages: [Array.isArray, "an array of messages"],
  onPart: [(v) => typeof v === "function", "a function"],
  approvals: [isRecord, "the durableApprovals() that issued the tokens"],
};

/** `knownOptions`, then the type of each option given. */
const checked = <T extends object>(owner: string, options: T, fields: { readonly [K in keyof Required<T>]: true }): T => {
  knownOptions(owner, options, fields);
  for (const [key, value] of Object.entries(options)) {
    const shape = shapes[key];
    if (value === undefined || shape === undefined || shape[0](value)) continue;
    throw new TypeError(`${owner}: ${key} must be ${shape[1]}, got ${value === null ? "null" : describeGiven(value)}`);
  }
  return options;
};

/**
 * Refuse `agent.session` options with a field it does not read or of the wrong type.
 *
 * @example
 * sessionOptions({ sesionId: "s1" }) // throws TypeError: agent.session: unknown option "sesionId" (did you mean "sessionId"?); ...
 */
export const sessionOptions = (options: SessionOptions): SessionOptions => checked("agent.session", options, sessionFields);

/**
 * Refuse `agent.run` options (a session's and a prompt's) with a field it does not read or of the wrong type.
 *
 * @example
 * runOptions({ timeoutMs: 5 }) // throws TypeError: agent.run: unknown option "timeoutMs"; its options are sessionId, source, ...
 */
export const runOptions = (options: SessionOptions & PromptOptions): SessionOptions & PromptOptions =>
  checked("agent.run", options, { ...sessionFields, ...promptFields });

/**
 * Refuse `session.prompt` options with a field it does not read or of the wrong type.
 *
 * @example
 * promptOptions({ signal: "stop" }) // throws TypeError: session.prompt: signal must be an AbortSignal, got "stop"
 */
export const promptOptions = (options: PromptOptions): PromptOptions => checked("session.prompt", options, promptFields);

/**
 * Refuse `resume` options with a field it does not read or of the wrong type; `agent.resume` also
 * takes the reopened session's `source`.
 *
 * @example
 * resumeOptions("session.resume", { approvals, metdata: {} }) // throws TypeError: session.resume: unknown option "metdata" (did you mean "metadata"?); ...
 */
export const resumeOptions = (owner: "agent.resume" | "session.resume", options: ResumeOptions): void => {
  // Missing options are `resume`'s to refuse, saying what `approvals` must be.
  if (options !== undefined) checked<ResumeOptions>(owner, options, owner === "agent.resume" ? agentResumeFields : resumeFields);
};
