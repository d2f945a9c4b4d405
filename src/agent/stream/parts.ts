/**
 * Small helpers of the streaming path: part transforms and abortable iteration.
 */
import type { DeepReadonly } from "../../core/readonly.ts";
import type { StreamPart } from "../model.ts";
import type { ToolCall } from "../types.ts";
import type { PartTransform } from "./control.ts";
import { untilAbort } from "../../core/signal.ts";
import { StreamHookError } from "./errors.ts";

/**
 * Run one part through the transforms in order; each may keep, replace, split or drop it.
 *
 * @example
 * applyTransforms([["upper", (p) => (p.type === "text-delta" ? { ...p, text: p.text.toUpperCase() } : undefined)]], part)
 */
export const applyTransforms = (transforms: readonly (readonly [string, PartTransform])[], part: StreamPart): readonly StreamPart[] => {
  let parts: readonly StreamPart[] = [part];
  for (const [name, fn] of transforms) {
    const next: StreamPart[] = [];
    for (const p of parts) {
      let result: ReturnType<PartTransform>;
      try {
        result = fn(p);
      } catch (error) {
        throw new StreamHookError(name, error);
      }
      if (result === undefined) next.push(p);
      else if (result === null) continue;
      else if (Array.isArray(result)) next.push(...(result as readonly StreamPart[]));
      else next.push(result as StreamPart);
    }
    parts = next;
  }
  return parts;
};

/**
 * The id of the tool call a raw part belongs to, if it names one (`toolCallId`, as the AI SDK's
 * provider-executed tool results and tool approval requests do).
 *
 * @example
 * linkedCall({ type: "raw", value: { type: "tool-result", toolCallId: "ws-1" } }) // "ws-1"
 */
export const linkedCall = (part: StreamPart): string | undefined => {
  if (part.type !== "raw" || typeof part.value !== "object" || part.value === null) return undefined;
  const id = (part.value as { toolCallId?: unknown }).toolCallId;
  return typeof id === "string" ? id : undefined;
};

/**
 * The id of the tool call a raw part previews the input of, if it does (the AI SDK's
 * `tool-input-start`, `tool-input-delta` and `tool-input-end`, which name the call by `id` and
 * come before it).
 *
 * @example
 * previewedCall({ type: "raw", value: { type: "tool-input-delta", id: "call-1", delta: "{" } }) // "call-1"
 */
export const previewedCall = (part: StreamPart): string | undefined => {
  if (part.type !== "raw" || typeof part.value !== "object" || part.value === null) return undefined;
  const { type, id } = part.value as { type?: unknown; id?: unknown };
  return (type === "tool-input-start" || type === "tool-input-delta" || type === "tool-input-end") && typeof id === "string"
    ? id
    : undefined;
};

/**
 * True when two tool calls are the same call as far as a reader can tell: the same object, or the
 * same id, name and input (compared as JSON; an input JSON cannot show counts as different).
 *
 * @example
 * sameCall({ id: "1", name: "f", input: { a: 1 } }, { id: "1", name: "f", input: { a: 1 } }) // true
 */
export const sameCall = (a: DeepReadonly<ToolCall> | undefined, b: DeepReadonly<ToolCall> | undefined): boolean => {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.id !== b.id || a.name !== b.name) return false;
  try {
    return JSON.stringify(a.input) === JSON.stringify(b.input);
  } catch {
    return false;
  }
};

/**
 * True for a raw part that describes the call rather than showing anything (the AI SDK's
 * `stream-start` with its warnings, `response-metadata` with the response id): it goes out with
 * the first part of its attempt that does, so a retried attempt that showed nothing leaves none.
 *
 * @example
 * describesCall({ type: "raw", value: { type: "stream-start", warnings: [] } }) // true
 */
export const describesCall = (part: StreamPart): boolean => {
  if (part.type !== "raw" || typeof part.value !== "object" || part.value === null) return false;
  const type = (part.value as { type?: unknown }).type;
  return type === "stream-start" || type === "response-metadata";
};

/**
 * `iterator.next()`, or the signal's abort if that comes first: a provider that ignores its signal cannot hang us.
 *
 * @example
 * const r = await nextOrAbort(iterator, signal)
 */
export const nextOrAbort = <T>(iterator: AsyncIterator<T>, signal: AbortSignal): Promise<IteratorResult<T>> =>
  signal.aborted ? Promise.reject(signal.reason) : untilAbort(iterator.next(), signal);

/**
 * End an iterator we stop reading, letting the provider release its resources; whatever its
 * `return` does (throw, answer synchronously, reject later) is not ours.
 *
 * @example
 * closeQuietly(iterator)
 */
export const closeQuietly = (iterator: AsyncIterator<unknown> | undefined): void => {
  try {
    const closing = iterator?.return?.();
    if (isThenable(closing)) closing.then(undefined, () => undefined);
  } catch {
    // a provider whose return() throws has nothing more to release
  }
};

/**
 * Close a stream that arrives after we stopped waiting for it (its start ignored the abort), so
 * the provider's stream is cancelled rather than left open; a start that fails is not ours either.
 *
 * @example
 * closeLate(model.doStreamPromise)
 */
export const closeLate = (late: PromiseLike<AsyncIterable<unknown>>): void => {
  const close = (iterable: AsyncIterable<unknown>): void => {
    try {
      closeQuietly(iterable[Symbol.asyncIterator]());
    } catch {
      // not an iterable after all: nothing to close
    }
  };
  try {
    late.then(close, () => undefined);
  } catch {
    // a thenable whose then() throws has nothing to close either
  }
};

/**
 * True for anything with a `then` method.
 *
 * @example
 * isThenable(Promise.resolve()) // true
 */
export const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  value !== null && (typeof value === "object" || typeof value === "function") && typeof (value as { then?: unknown }).then === "function";
