/**
 * Stream-aware hooks for `modelCall`. Each helper returns an ordinary hook (so priority,
 * matchers, disable/enable and traces work as for any hook) whose `before` registers its
 * stream part on the run's `StreamControl` when the call is streamed.
 *
 * - `outputGate`: one check, the same verdict on both paths. On `generate` its `after` checks
 *   the whole text; on a stream the check sees the held-back text as it grows, so nothing it
 *   would block is released first.
 * - `chunkHook`: a part transform, chunk by chunk (streams only; add an `after` for `generate`).
 */
import { Continue, Replace, Transform } from "../../core/action.ts";
import type { HookContext } from "../../core/context.ts";
import { describeGiven } from "../../core/errors.ts";
import type { Hook } from "../../core/hook.ts";
import type { DeepReadonly } from "../../core/readonly.ts";
import type { ModelRequest, ModelResponse } from "../types.ts";
import { holdBackProblem, inShadow, streamControl, type HoldBack, type OutputCheck, type PartTransform } from "./control.ts";

/** A hook of the `modelCall` point, what the stream helpers build. */
export type ModelHook = Hook<ModelRequest, ModelResponse, "observe">;
type HookFields = Omit<ModelHook, "name">;
/** A `before` phase (a hook's `before` may also be a list of names, an order). */
type BeforePhase = Extract<ModelHook["before"], (...args: never[]) => unknown>;

/** What `outputGate` takes: a check over the model's text, streamed or not, and how much to hold back. */
export interface OutputGateSpec extends Omit<HookFields, "after"> {
  readonly name: string;
  /** Sees the text not yet released (the whole text for `generate` and for `"all"`). */
  readonly check: OutputCheck;
  /**
   * How much text to hold on streams. `"all"` (default) gives exactly `generate`'s verdict for
   * any check; `{ window: n }` streams sooner and is exact for checks whose matches are at most
   * `n + 1` characters long (substrings, bounded regexes).
   */
  readonly holdBack?: Exclude<HoldBack, "none">;
  /** The text of a blocked answer; default `[output blocked by <name>: <reason>]`. */
  readonly replacement?: (reason: string) => string;
}

/**
 * A hook that checks model output on `generate` and on streams alike, and blocks or rewrites it.
 * Its `failMode` defaults to `"closed"`, unlike other hooks on `modelCall`: a gate whose check
 * cannot answer (it throws, or passes the gate's `timeoutMs`) blocks the answer on both paths.
 *
 * @example
 * stack.use("modelCall", outputGate({
 *   name: "no-secrets", holdBack: { window: 64 },
 *   check: (text) => (text.includes(SECRET) ? Transform(text.replaceAll(SECRET, "[redacted]")) : Continue),
 * }))
 */
export const outputGate = (spec: OutputGateSpec): ModelHook => {
  checkSpec("outputGate", spec, "{ name, check }", "check", ["replacement", "before"]);
  const {
    check,
    holdBack = "all",
    replacement = (reason: string) => `[output blocked by ${spec.name}: ${reason}]`,
    before,
    ...rest
  } = spec;
  // "none" would let text pass before the check saw it: an output gate holds back all or a window.
  if ((holdBack as unknown) === "none" || holdBackProblem(holdBack) !== undefined)
    throw new TypeError(
      `outputGate "${spec.name}": holdBack must be "all" or { window: n } with n a number from 0, got ${JSON.stringify(holdBack) ?? String(holdBack)}`,
    );
  return {
    ...rest,
    failMode: spec.failMode ?? "closed",
    before: (request: DeepReadonly<ModelRequest>, ctx: HookContext<ModelRequest>) => {
      if (!inShadow(ctx)) streamControl(ctx)?.gate({ name: spec.name, check, holdBack, replacement, timeoutMs: spec.timeoutMs });
      return (before as BeforePhase | undefined)?.(request, ctx); // a function: checkSpec refused anything else
    },
    after: async (response: DeepReadonly<ModelResponse>, _request: DeepReadonly<ModelRequest>, ctx: HookContext<ModelRequest>) => {
      // A stream's checks already ran to the end on exactly this text.
      if (streamControl(ctx)?.approved.get(spec.name) === response.text) return Continue;
      let verdict: unknown;
      try {
        verdict = await check(response.text, { final: true, released: "", signal: ctx.signal });
      } catch (error) {
        verdict = { _tag: "Reject", reason: `check failed: ${error instanceof Error ? error.message : String(error)}` };
      }
      const v = verdict as { _tag?: string; value?: unknown; reason?: unknown } | undefined;
      if (v === undefined || v._tag === "Continue") return Continue;
      if (v._tag === "Transform" && typeof v.value === "string")
        return v.value === response.text ? Continue : Transform({ ...response, text: v.value });
      const reason = v._tag === "Reject" ? String(v.reason) : "check returned an invalid answer";
      return Replace({ ...response, text: replacement(reason), toolCalls: [], finishReason: "content-filter" as const });
    },
  } as ModelHook;
};

/** What `chunkHook` takes: a function run on every part of a streamed response. */
export interface ChunkHookSpec extends HookFields {
  readonly name: string;
  /** Runs on every part of a streamed response (innermost hook first). */
  readonly chunk: PartTransform;
}

/**
 * A hook that transforms a streamed response part by part (drop, rewrite, split). A transform
 * that buffers text (redaction over a window) releases what it holds when it sees the `finish`
 * part; an aborted stream never sends one, so held text stays held.
 *
 * @example
 * stack.use("modelCall", chunkHook({
 *   name: "shout",
 *   chunk: (part) => (part.type === "text-delta" ? { ...part, text: part.text.toUpperCase() } : undefined),
 *   after: (res) => Transform({ ...res, text: res.text.toUpperCase() }), // the same for generate (idempotent on streams)
 * }))
 */
export const chunkHook = (spec: ChunkHookSpec): ModelHook => {
  checkSpec("chunkHook", spec, "{ name, chunk }", "chunk", ["before"]);
  const { chunk, before, ...rest } = spec;
  return {
    ...rest,
    before: (request: DeepReadonly<ModelRequest>, ctx: HookContext<ModelRequest>) => {
      if (!inShadow(ctx)) streamControl(ctx)?.transform(spec.name, chunk);
      return (before as BeforePhase | undefined)?.(request, ctx); // a function: checkSpec refused anything else
    },
  } as ModelHook;
};

/**
 * Refuse a spec that is not an object, whose `required` function is missing, or whose `optional`
 * ones are given but not functions. The hook calls these itself, out of reach of the stack's
 * registration checks, so a mistake would otherwise fail every call with "fn is not a function".
 */
const checkSpec = (factory: string, spec: unknown, shape: string, required: string, optional: readonly string[]): void => {
  if (typeof spec !== "object" || spec === null)
    throw new TypeError(`${factory}: the spec must be an object ${shape}, got ${describeGiven(spec)}`);
  const fields = spec as Record<string, unknown>;
  const wrong = [required, ...optional].find(
    (field) => typeof fields[field] !== "function" && (field === required || fields[field] !== undefined),
  );
  if (wrong !== undefined)
    throw new TypeError(`${factory} "${String(fields.name)}": ${wrong} must be a function, got ${describeGiven(fields[wrong])}`);
};
