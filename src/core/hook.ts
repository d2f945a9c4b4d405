/**
 * Hook specs: what users register with `stack.use(point, spec)`, and their validation. Every
 * registration mistake throws a `RegistrationError` (a `TypeError`) naming the hook and field.
 */
import type { Continue, Reject, Replace, Transform } from "./action.ts";
import type { HookContext, HookInfo, RunEvent } from "./context.ts";
import { RegistrationError } from "./errors.ts";
import { compileMatcher } from "./match/matcher.ts";
import type { Matcher, MatchSpec } from "./match/types.ts";
import type { Outcome } from "./outcome.ts";
import type { PointKind } from "./point.ts";
import { Priority } from "./priority.ts";
import { isTimeoutMs } from "./signal.ts";
import type { DeepReadonly, MaybePromise } from "./readonly.ts";

export type FailMode = "open" | "closed";

/** What a `before` may return: gates may also `Reject`. `void` means `Continue`. */
export type BeforeAction<I, O, K extends PointKind> =
  | Continue
  | Transform<I | DeepReadonly<I>>
  | Replace<O | DeepReadonly<O>>
  | (K extends "gate" ? Reject : never)
  | void;

/** What an `after` may return: gates may also `Reject`. `void` means `Continue`. */
export type AfterAction<O, K extends PointKind> =
  | Continue
  | Transform<O | DeepReadonly<O>>
  | Replace<O | DeepReadonly<O>>
  | (K extends "gate" ? Reject : never)
  | void;

/** What an `around` may return: an action about its output, or an `Outcome` (usually the one `next()` gave). */
export type AroundResult<O, K extends PointKind> = AfterAction<O, K> | Outcome<O>;

/** Run everything inside this hook, with a new input or the current one. Resolves to an `Outcome`, never throws for hook or operation errors. */
export type Next<I, O> = (input?: I | DeepReadonly<I>) => Promise<Outcome<O>>;

/** A hook as users write it. Any subset of the phase functions may be given. */
export interface Hook<I = any, O = any, K extends PointKind = PointKind> {
  readonly name: string;
  /** Lower is outer (R1); default `Priority.default` (100). */
  readonly priority?: number;
  /** Which subjects this hook applies to (R8). */
  readonly match?: MatchSpec<I>;
  /** Each call of this hook's functions must settle within this many ms, or the hook has failed. */
  readonly timeoutMs?: number;
  /** What a failure of this hook does (R6); default `closed` on gates, `open` on observation points. */
  readonly failMode?: FailMode;
  /** Record decisions without enforcing them (R12). */
  readonly shadow?: boolean;
  /**
   * Re-run this hook's `before` on the input the operation will really receive when a hook
   * inside it changed the input after it approved (A10). The recheck may only confirm or reject.
   */
  readonly recheck?: boolean;
  /** Start disabled; `stack.enable(name)` turns it on. */
  readonly disabled?: boolean;
  /** Where the hook came from (a settings file and JSON path, a module); shown in errors and traces. */
  readonly source?: string;
  readonly before?: (input: DeepReadonly<I>, ctx: HookContext<I>) => MaybePromise<BeforeAction<I, O, K>>;
  readonly after?: (output: DeepReadonly<O>, input: DeepReadonly<I>, ctx: HookContext<I>) => MaybePromise<AfterAction<O, K>>;
  readonly around?: (ctx: HookContext<I>, next: Next<I, O>) => MaybePromise<AroundResult<O, K>>;
  readonly recover?: (error: unknown, input: DeepReadonly<I>, ctx: HookContext<I>) => MaybePromise<Replace<O | DeepReadonly<O>> | Continue | void>;
  readonly observe?: (event: RunEvent<I, O>) => void | PromiseLike<void>;
}

type AnyFn = (...args: any[]) => any;

/** A validated, normalised hook as the chain compiler uses it. */
export interface CompiledHook {
  readonly name: string;
  readonly priority: number;
  /** Registration order, for stable ties (R1). */
  readonly seq: number;
  readonly matcher: Matcher;
  readonly timeoutMs: number | undefined;
  readonly failMode: FailMode;
  readonly shadow: boolean;
  readonly recheck: boolean;
  readonly disabled: boolean;
  readonly source: string | undefined;
  readonly before: AnyFn | undefined;
  readonly after: AnyFn | undefined;
  readonly around: AnyFn | undefined;
  readonly recover: AnyFn | undefined;
  readonly observe: AnyFn | undefined;
  /**
   * What the hook sees of itself as `ctx.hook`: frozen, and made here, once per registration,
   * so that no run pays for it and no hook can reach (and rewrite) this record through it.
   */
  readonly info: HookInfo;
}

const phases = ["before", "after", "around", "recover", "observe"] as const;
const known = new Set<string>(["name", "priority", "match", "timeoutMs", "failMode", "shadow", "recheck", "disabled", "source", ...phases]);

/** Validate a user's hook spec; throws `RegistrationError` naming the hook and the field. */
export const compileHook = (spec: unknown, kind: PointKind, seq: number, pointName: string): CompiledHook => {
  if (typeof spec !== "object" || spec === null) throw new RegistrationError("?", "spec", `on point "${pointName}" must be an object, got ${spec === null ? "null" : typeof spec}`);
  const s = spec as Record<string, unknown>;
  const name = s.name;
  if (typeof name !== "string" || name.trim() === "") throw new RegistrationError(String(name ?? "?"), "name", "must be a non-empty string");
  for (const key of Object.keys(s)) if (!known.has(key)) throw new RegistrationError(name, key, `is not a hook field (expected one of ${[...known].join(", ")})`);
  let any = false;
  for (const phase of phases) {
    const fn = s[phase];
    if (fn === undefined) continue;
    if (typeof fn !== "function") throw new RegistrationError(name, phase, `must be a function, got ${fn === null ? "null" : typeof fn}`);
    any = true;
  }
  if (!any) throw new RegistrationError(name, "before/after/around/recover/observe", "needs at least one function");
  if (s.recheck === true && typeof s.before !== "function") throw new RegistrationError(name, "recheck", "needs a before function to re-run");
  const priority = s.priority ?? Priority.default;
  if (typeof priority !== "number" || !Number.isFinite(priority)) throw new RegistrationError(name, "priority", `must be a finite number, got ${String(priority)}`);
  const timeoutMs = s.timeoutMs;
  if (timeoutMs !== undefined && !isTimeoutMs(timeoutMs))
    throw new RegistrationError(name, "timeoutMs", `must be a positive number of ms up to 2147483647, got ${String(timeoutMs)}`);
  const failMode = s.failMode ?? (kind === "gate" ? "closed" : "open");
  if (failMode !== "open" && failMode !== "closed") throw new RegistrationError(name, "failMode", `must be "open" or "closed", got ${String(failMode)}`);
  for (const flag of ["shadow", "recheck", "disabled"] as const)
    if (s[flag] !== undefined && typeof s[flag] !== "boolean") throw new RegistrationError(name, flag, `must be a boolean, got ${typeof s[flag]}`);
  if (s.source !== undefined && typeof s.source !== "string") throw new RegistrationError(name, "source", "must be a string");
  // A plain object, not frozen: it never leaves the stack (hooks see `info`), and frozen objects
  // are slower to read in the hot loop.
  const shadow = s.shadow === true;
  const source = s.source as string | undefined;
  return {
    name,
    priority,
    seq,
    matcher: compileMatcher(s.match, name),
    timeoutMs: timeoutMs as number | undefined,
    failMode,
    shadow,
    recheck: s.recheck === true,
    disabled: s.disabled === true,
    source,
    before: s.before as AnyFn | undefined,
    after: s.after as AnyFn | undefined,
    around: s.around as AnyFn | undefined,
    recover: s.recover as AnyFn | undefined,
    observe: s.observe as AnyFn | undefined,
    info: Object.freeze({ name, shadow, source }),
  };
};

/** Whether a hook wraps the operation (a before, after, around or recover phase) rather than only observing it. */
export const wraps = (h: CompiledHook): boolean => h.before !== undefined || h.after !== undefined || h.around !== undefined || h.recover !== undefined;

/** R1 order: ascending priority, then registration order. */
export const byPriority = (a: CompiledHook, b: CompiledHook): number => a.priority - b.priority || a.seq - b.seq;
