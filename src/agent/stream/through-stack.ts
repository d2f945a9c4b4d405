/**
 * `streamThroughStack`: a streamed provider call run through the `modelCall` point.
 *
 * The design, in five lines:
 * 1. The whole stream is one `modelCall` run: `before` hooks see the request, the operation
 *    consumes the provider's stream, `after` hooks see the assembled response.
 * 2. Stream-aware hooks register from `before` on the run's `StreamControl` (see `chunkHook`,
 *    `outputGate`): part transforms run chunk by chunk, output checks see the held-back text.
 * 3. Hold-back decides what the consumer sees before the post-phase: `"none"`, `{ window: n }`
 *    (text older than the last n characters, once every check passed) or `"all"` (nothing until
 *    `after` hooks approved). A run takes the strictest of the caller's and its hooks' requests.
 * 4. After the post-phase the rest is released from the final response (text, tool calls,
 *    finish with usage), so a replaced or redacted answer reaches the consumer as `generate`
 *    would have returned it; an output gate blocks the same text on both paths. When text
 *    already released does not begin the final answer (a retry, a late rewrite), the stream ends
 *    with a `StreamDivergedError` carrying that answer, never with a finish.
 * 5. A caller abort or consumer cancel ends the provider stream, not the run: the post-phase
 *    runs on the partial response (`aborted: true`, usage as reported or estimated). A caller's
 *    abort reaches the post-phase one macrotask later: a post-phase that finished by then keeps
 *    its answer; one still waiting (on its signal, a file, a store) is told, and the run settles
 *    with `Failed(RunAbortedError)`, as on `generate`.
 */
import type { RunOptions } from "../../core/context.ts";
import { Outcome, OutcomeRejectedError } from "../../core/outcome.ts";
import type { DeepReadonly } from "../../core/readonly.ts";
import { isAbortSignal, linkSignal, notASignal, stopListening } from "../../core/signal.ts";
import type { Operation } from "../../core/stack-types.ts";
import { noUsage, type StreamPart } from "../model.ts";
import { notAResponse } from "../response-shape.ts";
import type { ModelRequest, ModelResponse, ToolCall, Usage } from "../types.ts";
import { StreamControl, holdBackProblem, streamControlKey, type HoldBack } from "./control.ts";
import { CallSpend } from "./call-spend.ts";
import { ModelStreamError, StreamDivergedError } from "./errors.ts";
import { pump, type Emitter, type PumpResult, type StartStream } from "./pump.ts";
import { sameCall } from "./parts.ts";
import { PartQueue } from "./queue.ts";

/** Anything that can run the `modelCall` point: an agent stack, or any stack with that point. */
export interface ModelCallStack {
  /** Runs the `modelCall` point over a request. */
  run(
    point: "modelCall",
    input: ModelRequest,
    operation: Operation<ModelRequest, ModelResponse>,
    options?: RunOptions,
  ): Promise<Outcome<ModelResponse>>;
}

export interface StreamThroughStackOptions extends RunOptions {
  /** The least hold-back for this call; hooks may ask for more. Default `"none"`. */
  readonly holdBack?: HoldBack | undefined;
}

/** How a streamed call ended. */
export interface StreamResult {
  readonly outcome: Outcome<ModelResponse>;
  /** The text the consumer received. */
  readonly emittedText: string;
  /** True when the final text does not start with what the consumer received (a retry, or a rewrite under too little hold-back); the parts then end with a `StreamDivergedError`. */
  readonly diverged: boolean;
  /** The hold-back the call used. */
  readonly holdBack: HoldBack;
  /**
   * What the call spent: what every provider stream it opened streamed (each attempt of an
   * `around` hook's retry, a stream a `recover` hook answered for; one that failed having produced
   * nothing is refunded, as `spentPartial` says), plus the usage of an answer a hook gave in their
   * place (a fallback's, a recovery's, a cache's). How an answer is told apart: `CallSpend`.
   */
  readonly spent: Usage;
}

/** A streamed call in flight. */
export interface StackStream {
  /** The parts released to the consumer; read once. Leaving the loop early cancels the call. */
  readonly parts: AsyncIterable<StreamPart>;
  /** Settles after the post-phase, never rejects. */
  readonly done: Promise<StreamResult>;
  /** `done`'s outcome. */
  readonly outcome: Promise<Outcome<ModelResponse>>;
  /** Stop the provider stream; the post-phase still runs. */
  cancel(reason?: unknown): void;
}

/**
 * Run a streamed provider call through the stack's `modelCall` point.
 *
 * @example
 * const call = streamThroughStack(stack, request, (req, { signal }) => model.stream!(req, { signal }), { sessionId })
 * for await (const part of call.parts) if (part.type === "text-delta") process.stdout.write(part.text)
 * const { outcome } = await call.done
 */
export const streamThroughStack = (
  stack: ModelCallStack,
  request: ModelRequest,
  start: StartStream,
  options: StreamThroughStackOptions = {},
): StackStream => {
  // A caller mistake ends the stream like any failure rather than throwing out of the call.
  if (typeof options !== "object" || options === null) return failedStream(new TypeError("streamThroughStack: options must be an object"));
  let read: Read;
  try {
    // Read once: what is checked is what is used, even behind a getter.
    const { holdBack, signal, metadata, ...runOptions } = options;
    read = { holdBack, signal, metadata, runOptions };
  } catch (error) {
    return failedStream(error); // the caller's options threw when read (a getter, a Proxy)
  }
  if (read.signal !== undefined && !isAbortSignal(read.signal))
    return failedStream(new TypeError(`streamThroughStack: signal must be an AbortSignal, got ${notASignal(read.signal)}`));
  const holdBack = holdBackProblem(read.holdBack);
  if (holdBack !== undefined) return failedStream(new TypeError(`streamThroughStack: ${holdBack}`));
  return streamNow(stack, request, start, read);
};

/** The caller's options, read once. */
interface Read {
  readonly holdBack: HoldBack | undefined;
  readonly signal: AbortSignal | undefined;
  readonly metadata: RunOptions["metadata"];
  readonly runOptions: RunOptions;
}

/**
 * A stream that could not start: its parts end with the error at once, its outcome is Failed.
 *
 * @example
 * const call = failedStream(new TypeError("signal must be an AbortSignal")) // (await call.outcome)._tag === "Failed"
 */
export const failedStream = (error: unknown): StackStream => {
  const queue = new PartQueue<StreamPart>(() => {});
  queue.push({ type: "error", error });
  queue.close();
  const result: StreamResult = { outcome: Outcome.failed(error), emittedText: "", diverged: false, holdBack: "none", spent: noUsage };
  return { parts: queue, done: Promise.resolve(result), outcome: Promise.resolve(result.outcome), cancel: () => {} };
};

/**
 * A Failed outcome when a Completed one carries something that is not a response (an `after`
 * hook's `Transform` without `toolCalls`, a cache's `Replace` without `usage`): a hook's failure
 * (R2), not a stream that cannot finish, nor a finish part that crashes its reader.
 */
const malformed = (outcome: Outcome<ModelResponse>): Outcome<ModelResponse> | undefined => {
  if (outcome._tag !== "Completed") return undefined;
  const error = notAResponse(outcome.value);
  return error === undefined ? undefined : Outcome.failed(error);
};

const streamNow = (stack: ModelCallStack, request: ModelRequest, start: StartStream, read: Read): StackStream => {
  const { holdBack, signal: caller, metadata, runOptions } = read;
  const control = new StreamControl();
  const cut = new AbortController();
  const queue = new PartQueue<StreamPart>((reason) => cut.abort(reason));
  const out = new QueueEmitter(queue);
  // The caller's signal cancels the pre-phase like any run; once the provider streams, it only
  // cuts the stream, so that `after` hooks still see (and account for) the partial answer.
  const pre = linkSignal(caller);
  // Once a provider stream ended, the post-phase runs. A caller's abort (during the stream or
  // after it) must still reach its hooks, as on generate, or one waiting on its signal holds
  // `done` forever. That signal is the run's, and aborting it settles the run (R7), so it is
  // aborted one macrotask later: by then the post-phase has started (it runs on the partial
  // answer) and, if no hook waits on I/O, has ended and kept its outcome.
  let streamed = false;
  let tell: ReturnType<typeof setImmediate> | undefined;
  const tellPostPhase = (): void => {
    tell ??= setImmediate(() => pre.controller.abort(caller?.reason));
  };
  const onCallerAbort = (): void => {
    cut.abort(caller?.reason);
    queue.fail(caller?.reason);
    if (streamed) tellPostPhase();
  };
  if (caller?.aborted) onCallerAbort();
  else caller?.addEventListener("abort", onCallerAbort, { once: true });

  let mode: HoldBack = holdBack ?? "none";
  let held: readonly string[] = [];
  let linked: PumpResult["linked"] = new Map();
  let preamble: PumpResult["preamble"] = [];
  let previews: PumpResult["previews"] = new Map();
  // The last provider stream's response, to tell whether the answer settled on came from it.
  let last: ModelResponse | undefined;
  let attempts = 0;
  // What the call spent: every stream it opened, and an answer given in their place (call-spend.ts).
  const spend = new CallSpend();
  const operation = async (req: DeepReadonly<ModelRequest>, ctx: { readonly signal: AbortSignal }): Promise<ModelResponse> => {
    pre.dispose();
    attempts++;
    preamble = [];
    previews = new Map();
    last = undefined;
    // A retry (an `around` calling next() again) must not repeat text already released: hold it all.
    mode = attempts > 1 && out.emitted !== "" ? "all" : control.effective(holdBack);
    let result: PumpResult;
    try {
      result = await pump({ request: req, start, signal: ctx.signal, cut: cut.signal, control, mode, out });
    } catch (error) {
      if (error instanceof ModelStreamError) spend.failed(error);
      throw error;
    } finally {
      streamed = true;
      if (caller?.aborted === true) tellPostPhase();
    }
    held = result.held;
    linked = result.linked;
    preamble = result.preamble;
    previews = result.previews;
    last = result.response;
    spend.finished(result.response);
    return result.response;
  };

  const finish = (outcome: Outcome<ModelResponse>): StreamResult => {
    pre.dispose();
    if (tell !== undefined) clearImmediate(tell);
    stopListening(caller, onCallerAbort);
    try {
      return settle(malformed(outcome) ?? outcome);
    } catch (error) {
      // Never leave the reader waiting or `done` rejected, whatever a hook made of the response.
      const failed = Outcome.failed(error);
      queue.push({ type: "error", error });
      queue.close();
      return { outcome: failed, emittedText: out.emitted, diverged: false, holdBack: mode, spent: spend.spentBy(failed) };
    }
  };

  // An answer comes from the last stream when it is that stream's response, or keeps its tool call
  // list or usage object, as an `after` hook's `{ ...res, text }` does; a fallback's or a recovery's answer keeps neither.
  const fromLast = (answer: ModelResponse): boolean =>
    last !== undefined && (answer === last || answer.toolCalls === last.toolCalls || answer.usage === last.usage);

  const settle = (outcome: Outcome<ModelResponse>): StreamResult => {
    let diverged = false;
    if (outcome._tag === "Completed") {
      const response = outcome.value;
      diverged = !response.text.startsWith(out.emitted);
      // What was shown is not the answer: say so rather than finish as if it were.
      if (diverged && !queue.cancelled && !cut.signal.aborted) {
        queue.push({ type: "error", error: new StreamDivergedError(out.emitted, response, attempts > 1) });
      } else if (!queue.cancelled && !cut.signal.aborted) {
        // What describes the last provider stream (its warnings, its response id), if nothing of it
        // went out yet; only for an answer from that stream, not one given in its place (a fallback's).
        if (fromLast(response)) for (const part of preamble) out.raw(part);
        // An answer no stream of this call gave (a cache's, a fallback's) carries its other parts
        // whole (reasoning, sources, files): they go out first, as raw parts, for the adapter to frame.
        else if (response.parts !== undefined) for (const part of response.parts) out.raw({ type: "raw", value: part });
        const rest = response.text.slice(out.emitted.length);
        if (rest !== "") {
          if (held.join("") === rest) for (const t of held) out.text(t);
          else out.text(rest);
        }
        const streamed = fromLast(response) ? last?.toolCalls : undefined;
        for (const call of response.toolCalls) {
          if (out.calls.has(call.id)) continue;
          // A preview held back goes out only before the call as the model streamed it: one a hook
          // rewrote would show an input that is not the one that runs.
          if (
            streamed !== undefined &&
            sameCall(
              call,
              streamed.find((c) => c.id === call.id),
            )
          )
            for (const part of previews.get(call.id) ?? []) out.raw(part);
          out.toolCall(call);
          // What the provider streamed about this call (its result, an approval request) follows it.
          for (const part of linked.get(call.id) ?? []) out.raw(part);
        }
        queue.push({ type: "finish", finishReason: response.finishReason, usage: response.usage });
      }
    } else if (outcome._tag === "Rejected")
      queue.push({ type: "error", error: new OutcomeRejectedError(outcome.reason, outcome.by, outcome.cause) });
    else queue.push({ type: "error", error: outcome.error instanceof ModelStreamError ? outcome.error.cause : outcome.error });
    queue.close();
    return { outcome, emittedText: out.emitted, diverged, holdBack: mode, spent: spend.spentBy(outcome) };
  };

  let run: Promise<Outcome<ModelResponse>>;
  try {
    run = stack.run("modelCall", { ...request, stream: true }, operation as Operation<ModelRequest, ModelResponse>, {
      ...runOptions,
      metadata: { ...metadata, [streamControlKey]: control },
      signal: pre.controller.signal,
    });
  } catch (error) {
    // A stack without a `modelCall` point throws at once; the stream reports it like any failure.
    run = Promise.reject(error);
  }
  const done = run.then(finish, (error: unknown) => finish(Outcome.failed(error)));
  return {
    parts: queue,
    done,
    outcome: done.then((r) => r.outcome),
    cancel: (reason?: unknown) => {
      cut.abort(reason ?? new Error("stream cancelled"));
      queue.close();
    },
  };
};

class QueueEmitter implements Emitter {
  emitted = "";
  readonly calls = new Set<string>();
  constructor(private readonly queue: PartQueue<StreamPart>) {}
  text(text: string): void {
    this.emitted += text;
    this.queue.push({ type: "text-delta", text });
  }
  toolCall(call: ToolCall): void {
    this.calls.add(call.id);
    this.queue.push({ type: "tool-call", call });
  }
  raw(part: StreamPart): void {
    this.queue.push(part);
  }
}
