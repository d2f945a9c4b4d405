/**
 * The per-run stream control: how hooks on `modelCall` reach a streamed call. The core's hook
 * shape is fixed (before/after/around), so the agent layer hands each streamed run a
 * `StreamControl` through the run's metadata (under a symbol, so it never reaches JSON for
 * external hooks), and stream-aware hooks register on it from their `before`: a part transform
 * (chunk by chunk) or an output check with the hold-back it needs. Registering from `before`
 * keeps the core's rules: only hooks that match, are enabled and are entered take part, in
 * priority order.
 */
import type { Continue, Reject, Transform } from "../../core/action.ts";
import type { HookContext } from "../../core/context.ts";
import type { MaybePromise } from "../../core/readonly.ts";
import type { StreamPart } from "../model.ts";

/**
 * How much text a stream holds back before the consumer sees it.
 * `"none"`: release at once; `{ window: n }`: release text older than the last `n` characters
 * once every check passed; `"all"`: release nothing until the post-phase approved the response.
 * Tool calls and the finish part always wait for the post-phase (tools may run as soon as a
 * call is seen, so a hook that drops a call must see it first); a raw part that names one of
 * the stream's calls (a provider-executed tool's result) waits with its call. A call's streamed
 * input (the AI SDK's `tool-input-*`) goes out as it arrives only under `"none"` with no check
 * and no part transform; otherwise it waits for its call and goes out only if the call is unchanged.
 */
export type HoldBack = "none" | "all" | { readonly window: number };

/**
 * What is wrong with a hold-back, if anything (undefined is "none"). A window is a number of
 * characters, 0 or more (0 holds nothing back, Infinity everything).
 *
 * @example
 * holdBackProblem({ window: -1 }) // 'holdBack must be "none", "all" or { window: n } with n a number from 0, got {"window":-1}'
 */
export const holdBackProblem = (value: unknown): string | undefined => {
  if (value === undefined || value === "none" || value === "all") return undefined;
  const window = typeof value === "object" && value !== null ? (value as { window?: unknown }).window : undefined;
  if (typeof window === "number" && window >= 0) return undefined; // NaN fails the comparison
  return `holdBack must be "none", "all" or { window: n } with n a number from 0, got ${shown(value)}`;
};

const shown = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
};

/** What an output check sees besides the text. */
export interface OutputCheckInfo {
  /** True on the last call: the complete text of a `generate`, or the end of a stream. */
  readonly final: boolean;
  /** Text already released to the consumer (always empty for `generate` and for `"all"`). */
  readonly released: string;
  /**
   * Aborted when the answer is no longer wanted (the caller aborts, the consumer stops reading, a
   * deadline passes); a check still running then is not waited for.
   */
  readonly signal: AbortSignal;
}

/** What an output check answers: pass, rewrite the held text (redaction), or block the answer. */
export type CheckAction = Continue | Transform<string> | Reject | void;

/** An output check: sees the held (not yet released) text. It must be prefix-monotone: once it blocks a text, it blocks every continuation. */
export type OutputCheck = (text: string, info: OutputCheckInfo) => MaybePromise<CheckAction>;

/** A part transform: return a part or parts to emit instead, `null` to drop, nothing to keep it. */
export type PartTransform = (part: StreamPart) => StreamPart | readonly StreamPart[] | null | undefined | void;

/** An output check registered by a hook. */
export interface RegisteredCheck {
  readonly name: string;
  readonly check: OutputCheck;
  readonly holdBack: HoldBack;
  /** The text that replaces what the check refused, given its reason. */
  readonly replacement: (reason: string) => string;
  /** The gate's `timeoutMs`: on a stream its check runs inside the call, so the pump applies it. */
  readonly timeoutMs?: number | undefined;
}

/**
 * The key under which a streamed run's control sits in `ctx.metadata`.
 *
 * @example
 * const control = ctx.metadata[streamControlKey as never] // prefer streamControl(ctx)
 */
export const streamControlKey: unique symbol = Symbol.for("agent-onion.stream-control") as never;

/**
 * The per-run registry of stream-aware hooks. Registrations are keyed by hook name, so an
 * `around` hook that retries (re-entering the `before` phases) does not register twice.
 *
 * @example
 * before: (req, ctx) => void streamControl(ctx)?.transform("trim", (p) => (p.type === "text-delta" ? { ...p, text: p.text.trimEnd() } : undefined))
 */
export class StreamControl {
  /** Part transforms in registration order (outermost first). */
  readonly transforms = new Map<string, PartTransform>();
  /** Output checks in registration order (outermost first). */
  readonly checks = new Map<string, RegisteredCheck>();
  /** Hold-back asked for without a check (for plain `after` guards). */
  private asked: HoldBack = "none";
  /** The text each check approved at the end of the stream, by hook name, so its `after` can skip a second pass. */
  readonly approved = new Map<string, string>();
  /**
   * True once the reader was shown anything of this call (text, or a raw part such as reasoning),
   * set as it goes out: whatever then fails an attempt (the provider, or a hook such as a guard's
   * block), a retry or a fallback would repeat or contradict what was shown.
   */
  shown = false;

  /** Register a part transform for this run. */
  transform(name: string, fn: PartTransform): void {
    this.transforms.set(name, fn);
  }

  /** Register an output check for this run. */
  gate(check: RegisteredCheck): void {
    this.checks.set(check.name, check);
  }

  /** Ask for at least this much hold-back, without a check (an `after` hook that must see the whole answer first). */
  holdBack(mode: HoldBack): void {
    this.asked = stricter(this.asked, mode);
  }

  /** The hold-back this run needs: the strictest of the caller's, the checks' and what hooks asked for. */
  effective(caller: HoldBack | undefined): HoldBack {
    let mode = stricter(caller ?? "none", this.asked);
    for (const c of this.checks.values()) mode = stricter(mode, c.holdBack);
    return mode;
  }
}

/**
 * The stream control of this run, when the `modelCall` run is a stream.
 *
 * @example
 * before: (req, ctx) => void streamControl(ctx)?.holdBack("all") // my `after` must see the whole answer first
 */
export const streamControl = (ctx: HookContext<any>): StreamControl | undefined => {
  const value = (ctx.metadata as Readonly<Record<symbol, unknown>>)[streamControlKey];
  return value instanceof StreamControl ? value : undefined;
};

/**
 * True when this run is a stream whose reader was already shown something of it (see `StreamControl.shown`).
 *
 * @example
 * around: async (ctx, next) => { const o = await next(); return o._tag === "Failed" && !streamShown(ctx) ? next() : o }
 */
export const streamShown = (ctx: HookContext<any>): boolean => streamControl(ctx)?.shown === true;

/**
 * True when the hook being run is in shadow mode (R12). Its stream registrations are skipped:
 * a shadow gate's verdict is recorded by the core from its `after`, never enforced on a stream.
 *
 * @example
 * before: (req, ctx) => { if (!inShadow(ctx)) streamControl(ctx)?.holdBack("all") }
 */
export const inShadow = (ctx: HookContext<any>): boolean => ctx.hook.shadow;

const rank = (mode: HoldBack): number => (mode === "none" ? 0 : mode === "all" ? Number.POSITIVE_INFINITY : Math.max(0, mode.window));

/**
 * The stricter of two hold-backs (`"all"` > larger window > smaller window > `"none"`).
 *
 * @example
 * stricter({ window: 8 }, { window: 32 }) // { window: 32 }
 */
export const stricter = (a: HoldBack, b: HoldBack): HoldBack => (rank(b) > rank(a) ? b : a);
