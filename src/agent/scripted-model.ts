/**
 * A scripted language model for tests, examples and the demo: it answers from a list of
 * turns (text and tool calls), streams them in chunks of a chosen size with chosen delays,
 * reports usage, and records the requests it received (the latest `keepRequests` of them, so a
 * long session does not keep a copy of every conversation it was sent). No network, no keys.
 */
import type { LanguageModel, ModelCallOptions, StreamPart } from "./model.ts";
import { knownOptions, show } from "../core/known-options.ts";
import { sleep } from "./sleep.ts";
import { estimateMessageTokens, estimateTokens } from "./tokens.ts";
import type { FinishReason, ModelRequest, ModelResponse, ToolCall, Usage } from "./types.ts";

/** A tool call the script makes; `id` defaults to `call_<n>`. */
export interface ScriptedToolCall {
  readonly name: string;
  readonly input?: Record<string, unknown>;
  readonly id?: string;
}

/** One scripted answer. */
export interface ScriptedAnswer {
  readonly text?: string;
  readonly toolCalls?: readonly ScriptedToolCall[];
  /** Default: `tool-calls` when there are tool calls, else `stop`. */
  readonly finishReason?: FinishReason;
  /** Default: estimates from the request and the answer. */
  readonly usage?: Partial<Usage>;
  /** Exact text chunks for streams (their concatenation replaces `text`). */
  readonly chunks?: readonly string[];
  /** Fail instead of answering: `generate` throws it, `stream` throws it after `errorAfterChunks` chunks. */
  readonly error?: unknown;
  readonly errorAfterChunks?: number;
}

/** A turn: plain text, an answer, or a function of the request (for order-independent scripts). */
export type ScriptedTurn = string | ScriptedAnswer | ((request: ModelRequest, index: number) => string | ScriptedAnswer);

/** What `scriptedModel` takes: the turns it answers with, and how it streams them. */
export interface ScriptedModelOptions {
  readonly id?: string;
  readonly turns: readonly ScriptedTurn[];
  /** Characters per streamed text chunk; default 8. */
  readonly chunkSize?: number;
  /** Delay before each streamed chunk, in ms; default 0 (no timer at all). */
  readonly delayMs?: number;
  /** Delay before the first chunk (time to first chunk), in ms; default `delayMs`. */
  readonly firstChunkDelayMs?: number;
  /** What to answer once the turns are used up: `"throw"` (default) or a turn repeated forever. */
  readonly whenDone?: "throw" | ScriptedTurn;
  /**
   * How many of the latest requests `requests` and `modes` keep (default 100; `Infinity` keeps all,
   * 0 none). Each is a copy of the whole conversation sent, so keeping all of a long session's
   * requests grows with the square of its length.
   */
  readonly keepRequests?: number;
}

/** A scripted model, with what it received. */
export interface ScriptedModel extends LanguageModel {
  /** The latest requests received (up to `keepRequests`), oldest first, generate and stream alike. */
  readonly requests: readonly ModelRequest[];
  /** How each of `requests` was made. */
  readonly modes: readonly ("generate" | "stream")[];
  /** How many requests were received in all, those no longer kept in `requests` included. */
  readonly requestCount: number;
  /** Turns not yet used. */
  readonly remaining: number;
  /** Answers the next turn as a stream of parts. */
  stream(request: ModelRequest, options: ModelCallOptions): AsyncIterable<StreamPart>;
}

/** Every field of `ScriptedModelOptions`: a misspelt one is refused rather than dropped. */
const SCRIPTED_MODEL_FIELDS = {
  id: true,
  turns: true,
  chunkSize: true,
  delayMs: true,
  firstChunkDelayMs: true,
  whenDone: true,
  keepRequests: true,
} as const satisfies { readonly [K in keyof Required<ScriptedModelOptions>]: true };

/**
 * Create a scripted model.
 *
 * @example
 * const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "Bash", input: { command: "ls" } }] }, "Done."] })
 * await model.generate({ model: model.id, messages: [] }, {}) // tool call to Bash
 * model.requests.length // 1
 */
export const createScriptedModel = (options: ScriptedModelOptions): ScriptedModel => {
  knownOptions("createScriptedModel", options, SCRIPTED_MODEL_FIELDS);
  if (!Array.isArray(options.turns)) throw new TypeError(`createScriptedModel: turns must be a list of turns, got ${show(options.turns)}`);
  const id = options.id ?? "scripted";
  const chunkSize = Math.max(1, Math.floor(options.chunkSize ?? 8));
  const delayMs = options.delayMs ?? 0;
  const firstDelayMs = options.firstChunkDelayMs ?? delayMs;
  const keep = options.keepRequests ?? 100;
  if (typeof keep !== "number" || Number.isNaN(keep) || keep < 0 || (Number.isFinite(keep) && !Number.isInteger(keep)))
    throw new RangeError(`createScriptedModel: keepRequests must be an integer of at least 0 or Infinity, got ${String(keep)}`);
  const requests: ModelRequest[] = [];
  const modes: ("generate" | "stream")[] = [];
  let received = 0;
  let next = 0;
  let callSeq = 0;

  const take = (request: ModelRequest, mode: "generate" | "stream"): ScriptedAnswer => {
    const index = received++;
    if (keep > 0) {
      if (requests.length >= keep) {
        requests.shift();
        modes.shift();
      }
      requests.push(structuredClone(request) as ModelRequest);
      modes.push(mode);
    }
    let turn = options.turns[next];
    if (turn === undefined) {
      if (options.whenDone === undefined || options.whenDone === "throw")
        throw new Error(`scripted model "${id}": no turn left for request #${index + 1} (script has ${options.turns.length})`);
      turn = options.whenDone;
    } else next++;
    const answer = typeof turn === "function" ? turn(request, index) : turn;
    return typeof answer === "string" ? { text: answer } : answer;
  };

  const respond = (request: ModelRequest, answer: ScriptedAnswer): ModelResponse => {
    const text = answer.chunks?.join("") ?? answer.text ?? "";
    const toolCalls: ToolCall[] = (answer.toolCalls ?? []).map((c) => ({
      id: c.id ?? `call_${++callSeq}`,
      name: c.name,
      input: c.input ?? {},
    }));
    const usage: Usage = {
      inputTokens: answer.usage?.inputTokens ?? estimateMessageTokens(request.messages),
      outputTokens: answer.usage?.outputTokens ?? estimateTokens(text + toolCalls.map((c) => c.name + JSON.stringify(c.input)).join("")),
    };
    return { text, toolCalls, finishReason: answer.finishReason ?? (toolCalls.length > 0 ? "tool-calls" : "stop"), usage, model: id };
  };

  const chunksOf = (answer: ScriptedAnswer, text: string): string[] => {
    if (answer.chunks !== undefined) return [...answer.chunks];
    const out: string[] = [];
    for (let i = 0; i < text.length; i += chunkSize) out.push(text.slice(i, i + chunkSize));
    return out;
  };

  return {
    id,
    requests,
    modes,
    get requestCount() {
      return received;
    },
    get remaining() {
      return options.turns.length - next;
    },
    async generate(request, { signal } = {}) {
      const answer = take(request, "generate");
      if (firstDelayMs > 0) await sleep(firstDelayMs, signal);
      else if (signal?.aborted) throw signal.reason;
      if (answer.error !== undefined) throw answer.error;
      return respond(request, answer);
    },
    stream(request, { signal } = {}) {
      return {
        async *[Symbol.asyncIterator]() {
          const answer = take(request, "stream");
          const response = respond(request, answer);
          const chunks = chunksOf(answer, response.text);
          for (let i = 0; i < chunks.length; i++) {
            const wait = i === 0 ? firstDelayMs : delayMs;
            if (wait > 0) await sleep(wait, signal);
            else if (signal?.aborted) throw signal.reason;
            if (answer.error !== undefined && i === (answer.errorAfterChunks ?? 0)) throw answer.error;
            yield { type: "text-delta", text: chunks[i] as string };
          }
          if (answer.error !== undefined) throw answer.error;
          if (signal?.aborted) throw signal.reason;
          for (const call of response.toolCalls) yield { type: "tool-call", call };
          yield { type: "finish", finishReason: response.finishReason, usage: response.usage };
        },
      };
    },
  };
};
