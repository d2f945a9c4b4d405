/**
 * One pass over a provider stream, inside the `modelCall` operation: parts go through the
 * registered part transforms (innermost hook first, like `after`), text is held back and
 * checked by the registered output checks, and what the hold-back allows is released to the
 * consumer. It resolves to the assembled response that `after` hooks will see.
 */
import { describe } from "../../core/errors.ts";
import { untilAbort, withDeadline } from "../../core/signal.ts";
import type { DeepReadonly } from "../../core/readonly.ts";
import type { StreamPart } from "../model.ts";
import { reportedOrEstimated } from "../tokens.ts";
import type { ModelRequest, ModelResponse, ToolCall, Usage } from "../types.ts";
import type { CheckAction, HoldBack, RegisteredCheck, StreamControl } from "./control.ts";
import { ModelStreamError, StreamHookError } from "./errors.ts";
import {
  applyTransforms,
  closeLate,
  closeQuietly,
  describesCall,
  isThenable,
  linkedCall,
  nextOrAbort,
  previewedCall,
  sameCall,
} from "./parts.ts";

/** Starts the provider's stream (the AI SDK's `doStream`, a model's `stream`). */
export type StartStream = (
  request: DeepReadonly<ModelRequest>,
  options: { readonly signal: AbortSignal },
) => AsyncIterable<StreamPart> | PromiseLike<AsyncIterable<StreamPart>>;

/** Where released parts go, and what has been released so far. */
export interface Emitter {
  /** Text released to the consumer so far. */
  readonly emitted: string;
  /** Ids of tool calls released so far. */
  readonly calls: ReadonlySet<string>;
  text(text: string): void;
  toolCall(call: ToolCall): void;
  raw(part: StreamPart): void;
}

export interface PumpOptions {
  readonly request: DeepReadonly<ModelRequest>;
  readonly start: StartStream;
  /** The run's signal (deadlines). */
  readonly signal: AbortSignal;
  /** Aborted when the caller aborts or the consumer stops reading: the stream ends, the post-phase runs. */
  readonly cut: AbortSignal;
  readonly control: StreamControl;
  readonly mode: HoldBack;
  readonly out: Emitter;
}

/** The assembled response, and the held text as it arrived (to replay with its chunking when unchanged). */
export interface PumpResult {
  readonly response: ModelResponse;
  readonly held: readonly string[];
  /** Raw parts that name a tool call of this stream, by call id: they go out right after their call, or not at all. */
  readonly linked: ReadonlyMap<string, readonly StreamPart[]>;
  /** Raw parts that describe the call, held because nothing of this stream went out yet: they go out first. */
  readonly preamble: readonly StreamPart[];
  /**
   * Raw parts that preview a call's input (see `previewedCall`), by call id, held because the text
   * was held or checked too: they go out right before their call if it goes out as streamed, or not at all.
   */
  readonly previews: ReadonlyMap<string, readonly StreamPart[]>;
}

/**
 * Consume one provider stream under the run's stream control.
 *
 * @example
 * const { response } = await pump({ request, start, signal, cut, control, mode: "all", out })
 */
export const pump = async (o: PumpOptions): Promise<PumpResult> => {
  const started = performance.now();
  // Innermost first: the hook closest to the provider sees the raw parts, as `after` does.
  const transforms = [...o.control.transforms].reverse();
  const checks = [...o.control.checks.values()].reverse();
  const window = o.mode === "all" ? Number.POSITIVE_INFINITY : o.mode === "none" ? 0 : Math.max(0, o.mode.window);
  let ttfc: number | undefined;
  // When the last chunk arrived, and the gaps between chunks after the first (the convention's time per output chunk).
  let lastChunkAt = 0;
  const intervals: number[] = [];
  let pending = "";
  let held: string[] = [];
  let upstreamText = "";
  const calls: ToolCall[] = [];
  // Ids of the calls this stream made (before and after transforms), and the raw parts naming them.
  const seenCalls = new Set<string>();
  const linked = new Map<string, StreamPart[]>();
  // A call's input streams to the consumer as it arrives only when nothing decides what is shown
  // (no hold-back, no output check, no part transform): otherwise a call that hooks then drop or
  // rewrite (a redaction) would have been shown as the model wrote it. Then the preview waits with its call.
  const livePreviews = window === 0 && checks.length === 0 && transforms.length === 0;
  const previews = new Map<string, StreamPart[]>();
  // Each call as the provider streamed it, before part transforms: a preview of one they changed is dropped.
  const upstreamCalls = new Map<string, ToolCall>();
  let finish: Extract<StreamPart, { type: "finish" }> | undefined;
  let blocked: { readonly check: RegisteredCheck; readonly reason: string } | undefined;
  let aborted = false;
  // Text released by an earlier attempt (an `around` retry) is not part of this answer.
  const before = o.out.emitted.length;
  const released = (): string => o.out.emitted.slice(before);
  // Whether the consumer was shown anything of this stream; until then, parts that only describe
  // the call wait, so that a retry after a failure that showed nothing does not send them twice.
  let shown = false;
  let preamble: StreamPart[] = [];
  const show = (): void => {
    if (shown) return;
    shown = true;
    o.control.shown = true;
    for (const part of preamble) o.out.raw(part);
    preamble = [];
  };

  const runChecks = async (final: boolean): Promise<void> => {
    for (const c of checks) {
      let verdict: CheckAction | unknown;
      // The gate's own timeoutMs bounds its check here, inside the call, as it bounds its `after` on generate.
      const deadline = c.timeoutMs === undefined ? undefined : withDeadline(link.signal, c.timeoutMs);
      const signal = deadline?.controller.signal ?? link.signal;
      try {
        verdict = c.check(pending, { final, released: released(), signal });
        // A check still running when the stream is cut is not waited for (R7).
        if (isThenable(verdict)) verdict = await untilAbort(verdict, signal);
      } catch (error) {
        if (link.signal.aborted) throw error;
        // An output check that fails or times out blocks: a guard that cannot answer must not let text through.
        verdict = {
          _tag: "Reject",
          reason: signal.aborted ? `check timed out after ${c.timeoutMs} ms` : `check failed: ${describe(error)}`,
        };
      } finally {
        deadline?.dispose();
      }
      const tag = (verdict as { _tag?: unknown } | undefined)?._tag;
      if (verdict === undefined || tag === "Continue") continue;
      if (tag === "Transform" && typeof (verdict as { value?: unknown }).value === "string") {
        const value = (verdict as { value: string }).value;
        if (value !== pending) held = value === "" ? [] : [value];
        pending = value;
        continue;
      }
      const reason =
        tag === "Reject" ? String((verdict as { reason?: unknown }).reason) : `check returned an invalid answer: ${describe(verdict)}`;
      blocked = { check: c, reason };
      return;
    }
  };

  const release = (): void => {
    let n = pending.length - window;
    if (n <= 0) return;
    // Never split a surrogate pair between a released and a held chunk.
    const code = pending.charCodeAt(n - 1);
    if (code >= 0xd800 && code <= 0xdbff) n--;
    if (n <= 0) return;
    show();
    if (n === pending.length && held.length > 0) for (const t of held) o.out.text(t);
    else o.out.text(pending.slice(0, n));
    pending = pending.slice(n);
    held = pending === "" ? [] : [pending];
  };

  const accept = async (part: StreamPart): Promise<void> => {
    switch (part.type) {
      case "text-delta":
        if (part.text === "") return;
        pending += part.text;
        held.push(part.text);
        if (checks.length > 0) await runChecks(false);
        if (blocked === undefined) release();
        return;
      case "tool-call":
        // Tool calls are acted on as soon as they are seen (the AI SDK runs tools mid-stream), so
        // they always wait for the post-phase: a hook that drops a call must see it first.
        calls.push(part.call);
        seenCalls.add(part.call.id);
        if (previews.has(part.call.id) && !sameCall(part.call, upstreamCalls.get(part.call.id))) previews.delete(part.call.id);
        return;
      case "finish":
        finish = part;
        return;
      case "error":
        throw new UpstreamError(part.error);
      default: {
        // A part about one of this stream's calls (a provider-executed tool's result, an approval
        // request) waits with its call: it must not reach the consumer before the call, nor
        // without it once a hook or gate dropped the call. A part about an earlier call goes at once.
        const id = linkedCall(part);
        const previewed = livePreviews ? undefined : previewedCall(part);
        if (previewed !== undefined) {
          const waiting = previews.get(previewed);
          if (waiting === undefined) previews.set(previewed, [part]);
          else waiting.push(part); // a long input streams in many deltas
        } else if (id !== undefined && seenCalls.has(id)) linked.set(id, [...(linked.get(id) ?? []), part]);
        else if (!shown && describesCall(part)) preamble.push(part);
        else {
          show();
          o.out.raw(part);
        }
      }
    }
  };

  const link = new AbortController();
  const stop = (): void => link.abort(o.cut.aborted ? o.cut.reason : o.signal.reason);
  if (o.cut.aborted || o.signal.aborted) stop();
  o.cut.addEventListener("abort", stop, { once: true });
  o.signal.addEventListener("abort", stop, { once: true });
  let starting: ReturnType<StartStream> | undefined;
  let iterator: AsyncIterator<StreamPart> | undefined;
  let exhausted = false;
  try {
    starting = o.start(o.request, { signal: link.signal });
    // A provider whose start ignores the signal cannot hold the run: the abort wins the race (R7).
    const iterable = isThenable(starting) ? await untilAbort(starting, link.signal) : starting;
    iterator = iterable[Symbol.asyncIterator]();
    for (;;) {
      const r = await nextOrAbort(iterator, link.signal);
      if (r.done) {
        exhausted = true;
        break;
      }
      const now = performance.now();
      if (ttfc === undefined) ttfc = now - started;
      else intervals.push(now - lastChunkAt);
      lastChunkAt = now;
      if (r.value.type === "text-delta") upstreamText += r.value.text;
      else if (r.value.type === "tool-call") {
        seenCalls.add(r.value.call.id);
        if (!livePreviews) upstreamCalls.set(r.value.call.id, r.value.call);
      }
      for (const part of applyTransforms(transforms, r.value)) {
        await accept(part);
        if (blocked !== undefined) break;
      }
      if (blocked !== undefined) break;
    }
    if (blocked === undefined && checks.length > 0) await runChecks(true);
  } catch (error) {
    if (error instanceof StreamHookError) throw error;
    if (!link.signal.aborted || error instanceof UpstreamError) {
      const cause = error instanceof UpstreamError ? error.cause : error;
      throw new ModelStreamError(cause, partial(), shown);
    }
    aborted = true;
  } finally {
    o.cut.removeEventListener("abort", stop);
    o.signal.removeEventListener("abort", stop);
    // Whenever we stop before the provider's end (a block, an abort, an error part, a throwing
    // transform), its stream is ended too: nothing of it outlives the run (R7).
    if (!exhausted) {
      if (!link.signal.aborted) link.abort(new Error(blocked !== undefined ? "stream blocked by an output check" : "stream ended early"));
      if (iterator === undefined && isThenable(starting)) closeLate(starting);
      else closeQuietly(iterator);
    }
  }

  function usage(): { usage: Usage; estimated: boolean } {
    // A finish part may lack totals the provider did not report (the AI SDK adapter leaves them
    // out, a plain-JS provider may too): those are estimated, and the call says so, as on generate.
    return reportedOrEstimated(finish?.usage, o.request.messages as never, upstreamText);
  }
  function streamTimes(): Pick<ModelResponse, "timeToFirstChunkMs" | "chunkIntervalsMs"> {
    if (ttfc === undefined) return {};
    return intervals.length === 0 ? { timeToFirstChunkMs: ttfc } : { timeToFirstChunkMs: ttfc, chunkIntervalsMs: intervals };
  }
  function partial(): ModelResponse {
    const u = usage();
    return {
      text: released() + pending,
      toolCalls: calls,
      finishReason: "error",
      usage: u.usage,
      model: o.request.model,
      ...streamTimes(),
      ...(u.estimated ? { usageEstimated: true } : {}),
    };
  }

  const u = usage();
  const common = {
    usage: u.usage,
    model: o.request.model,
    ...(finish?.responseId !== undefined ? { id: finish.responseId } : {}),
    ...streamTimes(),
    ...(u.estimated ? { usageEstimated: true } : {}),
    ...(aborted ? { aborted: true } : {}),
  };
  if (blocked !== undefined) {
    const text = released() + blocked.check.replacement(blocked.reason);
    for (const c of checks) o.control.approved.set(c.name, text);
    return { response: { text, toolCalls: [], finishReason: "content-filter", ...common }, held: [], linked, preamble, previews };
  }
  const text = released() + pending;
  if (!aborted) for (const c of checks) o.control.approved.set(c.name, text);
  return {
    response: { text, toolCalls: calls, finishReason: aborted ? "other" : (finish?.finishReason ?? "other"), ...common },
    held,
    linked,
    preamble,
    previews,
  };
};

/** An `error` part from the provider, carried out of the loop. */
class UpstreamError {
  constructor(readonly cause: unknown) {}
}
