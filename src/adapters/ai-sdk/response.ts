/**
 * AI SDK generate results ↔ our `ModelResponse`, both ways. A response hooks left alone maps
 * back to the provider's own result object; a changed one is the provider's result with only
 * what changed rewritten (text parts, tool calls, the other parts, finish reason, usage totals), so
 * provider metadata, warnings and response headers survive a redaction.
 */
import { estimateMessageTokens, estimateTokens } from "../../agent/tokens.ts";
import type { FinishReason, Message, ModelRequest, ModelResponse, ToolCall, Usage } from "../../agent/types.ts";
import { deepFreeze, markFrozenDeep, type DeepReadonly } from "../../core/readonly.ts";
import type { SdkFinishReason, SdkGenerateResult, SdkPart, SdkUsage } from "./spec.ts";

/**
 * A tool call as providers report it: `input` is a JSON string.
 *
 * @example
 * const part: SdkToolCall = { type: "tool-call", toolCallId: "1", toolName: "Read", input: '{"path":"a"}' }
 */
export interface SdkToolCall extends SdkPart {
  readonly type: "tool-call";
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: string;
}

const finishReasons = new Set<string>(["stop", "length", "tool-calls", "content-filter", "error", "other"]);

/**
 * Our finish reason for the SDK's (V4's `"interrupted"` has no twin and becomes `"other"`).
 *
 * @example
 * finishOf({ unified: "interrupted", raw: undefined }) // "other"
 */
export const finishOf = (reason: SdkFinishReason): FinishReason =>
  finishReasons.has(reason.unified) ? (reason.unified as FinishReason) : "other";

/**
 * The SDK's finish reason for ours, keeping the provider's raw reason when ours did not change.
 *
 * @example
 * sdkFinish("content-filter", { unified: "stop", raw: "end_turn" }) // { unified: "content-filter", raw: "end_turn" }
 */
export const sdkFinish = (reason: FinishReason, original: SdkFinishReason | undefined): SdkFinishReason =>
  original !== undefined && finishOf(original) === reason ? original : { unified: reason, raw: original?.raw };

/**
 * Our usage for the SDK's. Providers may report no totals; then the numbers are estimates.
 *
 * @example
 * usageOf({ inputTokens: { total: 3 }, outputTokens: { total: 2 } }, () => ({ inputTokens: 0, outputTokens: 0 })) // { usage: { inputTokens: 3, outputTokens: 2 }, estimated: false }
 */
export const usageOf = (usage: SdkUsage, estimate: () => Usage): { readonly usage: Usage; readonly estimated: boolean } => {
  const input = usage.inputTokens.total;
  const output = usage.outputTokens.total;
  if (input !== undefined && output !== undefined) return { usage: { inputTokens: input, outputTokens: output }, estimated: false };
  const guess = estimate();
  return { usage: { inputTokens: input ?? guess.inputTokens, outputTokens: output ?? guess.outputTokens }, estimated: true };
};

/**
 * Token totals that may be missing: what a provider reported, before any estimate.
 *
 * @example
 * const reported: Totals = { inputTokens: 12, outputTokens: undefined }
 */
export type Totals = { readonly [K in keyof Usage]: number | undefined };

/**
 * The SDK's usage for ours: the provider's own object while the totals agree, else the totals patched in.
 *
 * @example
 * sdkUsage({ inputTokens: 3, outputTokens: 9 }, original, { inputTokens: 3, outputTokens: 2 }).outputTokens.total // 9
 */
export const sdkUsage = (usage: Totals, original: SdkUsage | undefined, baseline: Totals | undefined): SdkUsage => {
  if (
    original !== undefined &&
    baseline !== undefined &&
    usage.inputTokens === baseline.inputTokens &&
    usage.outputTokens === baseline.outputTokens
  )
    return original;
  const o = original as (SdkUsage & { inputTokens: object; outputTokens: object }) | undefined;
  return {
    ...o,
    inputTokens: { noCache: undefined, cacheRead: undefined, cacheWrite: undefined, ...o?.inputTokens, total: usage.inputTokens },
    outputTokens: { text: undefined, reasoning: undefined, ...o?.outputTokens, total: usage.outputTokens },
  } as SdkUsage;
};

const parseInput = (input: string): Record<string, unknown> => {
  try {
    const value: unknown = JSON.parse(input === "" ? "{}" : input);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    // Hooks still see the call; the provider's own string goes back unless a hook rewrites it.
    return { input };
  }
};

/**
 * Our tool call for a provider's.
 *
 * @example
 * callOf({ type: "tool-call", toolCallId: "1", toolName: "Read", input: '{"path":"a"}' }) // { id: "1", name: "Read", input: { path: "a" } }
 */
export const callOf = (part: SdkToolCall): ToolCall => ({ id: part.toolCallId, name: part.toolName, input: parseInput(part.input) });

/**
 * The provider's tool call part for ours: the original while the call is unchanged, else rebuilt from it.
 *
 * @example
 * sdkCall({ id: "1", name: "Read", input: { path: "b" } }, original).input // '{"path":"b"}'
 */
export const sdkCall = (call: DeepReadonly<ToolCall>, original: SdkToolCall | undefined): SdkToolCall => {
  if (original !== undefined && original.toolName === call.name && sameJson(parseInput(original.input), call.input)) return original;
  return { ...original, type: "tool-call", toolCallId: call.id, toolName: call.name, input: JSON.stringify(call.input) };
};

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** A tool call made frozen all the way down (its input is parsed afresh, so walked once). */
const frozenCallOf = (part: SdkToolCall): ToolCall => {
  const call = callOf(part);
  deepFreeze(call.input);
  return Object.freeze(call);
};

/**
 * The tool calls of a frozen response without any: one list for every such response (most have
 * none), rather than a list made and frozen per call. It tells no response apart from another
 * (see `ai-sdk/attempts.ts`).
 *
 * @example
 * toResponse(result, request, true).toolCalls === noToolCalls // true for a result without tool calls
 */
export const noToolCalls: readonly ToolCall[] = Object.freeze([]);

/**
 * Freeze the other parts of a response all the way down, plain objects and arrays only (bytes and
 * class instances are not data to freeze), without `deepFreeze`'s record of each tree: the
 * response is recorded whole (see `frozenResponse`), and that record costs more than the freezing.
 * A node someone froze before is handed to `deepFreeze`, which walks what may be under it.
 */
const freezeParts = (parts: SdkPart[]): void => {
  const pending: object[] = [parts];
  while (pending.length > 0) {
    const node = pending.pop() as Record<string, unknown>;
    if (Object.isFrozen(node)) {
      deepFreeze(node);
      continue;
    }
    Object.freeze(node);
    for (const key in node) {
      const child = node[key];
      if (typeof child !== "object" || child === null) continue;
      const proto: unknown = Object.getPrototypeOf(child);
      if (proto === Object.prototype || proto === null || Array.isArray(child)) pending.push(child);
    }
  }
};

/** A response whose every object was frozen as it was built, recorded so (see `toRequest`). */
const frozenResponse = (response: ModelResponse): ModelResponse => {
  if (response.toolCalls !== noToolCalls) Object.freeze(response.toolCalls);
  Object.freeze(response.usage);
  return markFrozenDeep(Object.freeze(response));
};

/**
 * The response `after` hooks see for a provider's result. With `frozen`, it is made frozen as it
 * is built (see `toRequest`), so the stack's freeze of the operation's result costs one check.
 *
 * @example
 * toResponse({ content: [{ type: "text", text: "Hi" }], finishReason: { unified: "stop", raw: "stop" }, usage }, request).text // "Hi"
 */
export const toResponse = (
  result: SdkGenerateResult,
  request: Pick<DeepReadonly<ModelRequest>, "model" | "messages">,
  frozen = false,
): ModelResponse => {
  let text = "";
  let calls: ToolCall[] | undefined;
  // The other parts (reasoning, sources, files, provider tools' results), for hooks to scan: a list
  // only when there are any; the provider's own objects, frozen with the response when it is.
  let parts: SdkPart[] | undefined;
  for (const part of result.content) {
    if (part.type === "text") text += (part as SdkPart & { text: string }).text;
    else if (part.type === "tool-call") (calls ??= []).push(frozen ? frozenCallOf(part as SdkToolCall) : callOf(part as SdkToolCall));
    else (parts ??= []).push(part);
  }
  if (parts !== undefined && frozen) freezeParts(parts);
  // A stack that does not freeze lets hooks change the list in place: each response gets its own.
  const toolCalls = calls ?? (frozen ? (noToolCalls as ToolCall[]) : []);
  const finishReason = finishOf(result.finishReason);
  const model = result.response?.modelId ?? request.model;
  const id = result.response?.id;
  const input = result.usage.inputTokens.total;
  const output = result.usage.outputTokens.total;
  // The usual case, without the estimate's closure: the provider reported both totals.
  if (input !== undefined && output !== undefined) {
    const usage = { inputTokens: input, outputTokens: output };
    const response: ModelResponse =
      typeof id === "string" ? { text, toolCalls, finishReason, usage, model, id } : { text, toolCalls, finishReason, usage, model };
    if (parts !== undefined) (response as { parts?: readonly unknown[] }).parts = parts;
    return frozen ? frozenResponse(response) : response;
  }
  const { usage } = usageOf(result.usage, () => ({
    inputTokens: estimateMessageTokens(request.messages as readonly Message[]),
    outputTokens: estimateTokens(text),
  }));
  const response = {
    text,
    toolCalls,
    finishReason,
    usage,
    model,
    ...(typeof id === "string" ? { id } : {}),
    usageEstimated: true,
    ...(parts !== undefined && { parts }),
  };
  return frozen ? frozenResponse(response) : response;
};

/**
 * The result to hand back to the SDK for the response hooks settled on: `result` itself when
 * unchanged, a patched copy when changed, a fresh one when a hook answered in place of the model.
 *
 * @example
 * fromResponse(result, produced, produced) === result // true
 */
export const fromResponse = (
  result: SdkGenerateResult | undefined,
  produced: ModelResponse | undefined,
  out: DeepReadonly<ModelResponse>,
): SdkGenerateResult => {
  if (result !== undefined && out === produced) return result;
  const content = [...(result?.content ?? [])];
  const base = result !== undefined ? produced : undefined;
  if (base === undefined || out.text !== base.text)
    replaceAll(content, "text", out.text === "" ? [] : [{ type: "text", text: out.text } as SdkPart]);
  if (base === undefined || out.parts !== base.parts) replaceOthers(content, (out.parts ?? []) as readonly SdkPart[]);
  if (base === undefined || out.toolCalls !== base.toolCalls) {
    const originals = new Map(content.filter((p) => p.type === "tool-call").map((p) => [(p as SdkToolCall).toolCallId, p as SdkToolCall]));
    replaceAll(
      content,
      "tool-call",
      out.toolCalls.map((c) => sdkCall(c, originals.get(c.id))),
    );
    // A provider tool's result (or approval request) goes with its call: the SDK refuses one whose
    // call is gone ("Tool call … not found"), as the stream drops it. One naming a call of an earlier
    // step (a deferred result) never had its call here and stays.
    const kept = new Set(out.toolCalls.map((c) => c.id));
    const gone = (p: SdkPart): boolean => {
      const id = (p as SdkPart & { toolCallId?: unknown }).toolCallId;
      return linked.has(p.type) && typeof id === "string" && originals.has(id) && !kept.has(id);
    };
    content.splice(0, content.length, ...content.filter((p) => !gone(p)));
  }
  return {
    ...(result ?? { warnings: [] }),
    content,
    finishReason: sdkFinish(out.finishReason, result?.finishReason),
    usage: sdkUsage(out.usage as Usage, result?.usage, base?.usage),
  } as SdkGenerateResult;
};

/**
 * Put `parts` in place of the parts that are neither text nor tool calls: one for one where each
 * was while there are as many (a redaction rewrites them in place), else all where the first was.
 */
const replaceOthers = (content: SdkPart[], parts: readonly SdkPart[]): void => {
  const at: number[] = [];
  content.forEach((p, i) => {
    if (p.type !== "text" && p.type !== "tool-call") at.push(i);
  });
  if (at.length === parts.length) {
    at.forEach((i, k) => (content[i] = parts[k] as SdkPart));
    return;
  }
  const first = at[0] ?? content.length;
  const rest = content.filter((p) => p.type === "text" || p.type === "tool-call");
  content.splice(0, content.length, ...rest);
  content.splice(Math.min(first, content.length), 0, ...parts);
};

/** Parts that name one of the result's tool calls, and mean nothing without it. */
const linked = new Set(["tool-result", "tool-approval-request"]);

/** Remove every part of `type`, putting `parts` where the first one was (or at the end). */
const replaceAll = (content: SdkPart[], type: string, parts: readonly SdkPart[]): void => {
  const at = content.findIndex((p) => p.type === type);
  const rest = content.filter((p) => p.type !== type);
  content.splice(0, content.length, ...rest);
  content.splice(at === -1 ? content.length : at, 0, ...parts);
};
