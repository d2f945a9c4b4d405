/**
 * Hook specs: what users register with `stack.use(point, spec)`, and their compilation into a
 * `Layer`, once, at registration. Every registration mistake throws a `RegistrationError` (a
 * `TypeError`) naming the hook and the field.
 */
import type { Continue, Reject, Replace, Transform } from "./action.ts";
import type { HookContext, HookInfo, RunEvent } from "./context.ts";
import { RegistrationError, describe, describeGiven } from "./errors.ts";
import { compileHookMatch } from "./match/matcher.ts";
import type { Matcher, MatchSpec } from "./match/types.ts";
import type { Outcome } from "./outcome.ts";
import type { PointKind } from "./point.ts";
import { Priority } from "./priority.ts";
import { isTimeoutMs } from "./signal.ts";
import type { DeepReadonly, MaybePromise } from "./readonly.ts";

/** What a hook's own failure does (R6): `closed` rejects the run, `open` records it and goes on as if `Continue`. */
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

/**
 * Where a hook goes relative to other hooks of the same point, by name: `before` lists the hooks
 * it runs before (it is placed outside them), `after` the hooks it runs after (inside them). A
 * name must be registered on the point already, unless `optional` is true: then a name that is
 * not (yet) registered constrains nothing until a hook of that name is, in either order.
 *
 * @example
 * stack.use("toolCall", { name: "audit", order: { after: ["toolPolicy"] }, before: log, after: log })
 * stack.use("modelCall", { name: "myRetry", order: { after: ["fallback"], optional: true }, around: retryAround })
 */
export interface HookOrder {
  readonly before?: readonly string[];
  readonly after?: readonly string[];
  /** The names may be of hooks that are not registered (a middleware that may be absent); default false. */
  readonly optional?: boolean;
}

/** A hook as users write it. Any subset of the phase functions may be given. */
export interface Hook<I = any, O = any, K extends PointKind = PointKind> {
  readonly name: string;
  /** Lower is outer (R1); default `Priority.default` (100). Names in `order` come first, see `HookOrder`. */
  readonly priority?: number;
  /** Hooks of this point this one runs before or after, by name (see `HookOrder`). */
  readonly order?: HookOrder;
  /** Which runs this hook applies to (R8): a pattern, a function, or a match object (`{ metadata }`, `{ stepType }`, `all`/`any`/`not`). */
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
  /**
   * The phase on the way in; or, as a list of hook names, the hooks this one runs before (the
   * same as `order.before`, for hooks that have no `before` phase).
   */
  readonly before?: ((input: DeepReadonly<I>, ctx: HookContext<I>) => MaybePromise<BeforeAction<I, O, K>>) | readonly string[];
  /**
   * The phase on the way out on a completed outcome; or, as a list of hook names, the hooks this
   * one runs after (the same as `order.after`, for hooks that have no `after` phase).
   */
  readonly after?:
    | ((output: DeepReadonly<O>, input: DeepReadonly<I>, ctx: HookContext<I>) => MaybePromise<AfterAction<O, K>>)
    | readonly string[];
  /** Wraps the inside of the onion: call `next()` to run it, or return an action instead. */
  readonly around?: (ctx: HookContext<I>, next: Next<I, O>) => MaybePromise<AroundResult<O, K>>;
  /** Runs when the inside failed; may replace the failure with an output, or let it stand. */
  readonly recover?: (
    error: unknown,
    input: DeepReadonly<I>,
    ctx: HookContext<I>,
  ) => MaybePromise<Replace<O | DeepReadonly<O>> | Continue | void>;
  /**
   * Called exactly once for each time this hook's layer was entered, with the outcome as the
   * layer ends: after its `after` or `recover`, on a rejection, a failure, its own timeout, the
   * caller's abort or the run's deadline. Observation only: what it returns is ignored, and its
   * failures are counted as observer failures.
   */
  readonly onSettled?: (outcome: Outcome<DeepReadonly<O>>, input: DeepReadonly<I>, ctx: HookContext<I>) => void | PromiseLike<void>;
  /** Sees each settled run after the fact; never delays or changes it (R10). */
  readonly observe?: (event: RunEvent<I, O>) => void | PromiseLike<void>;
}

type AnyFn = (...args: any[]) => any;

/** Flags of a layer that take it off the plainest path, tested as one number per hook. */
export const LayerFlag = {
  /** Its matcher needs the input (a condition or a function): tested per run. */
  matchesInput: 1,
  /** It has an `onSettled`: the run remembers that its layer was entered. */
  settles: 2,
  /** It has a `timeoutMs`: each call is timed. */
  timed: 4,
  /** It is a `recheck` gate. */
  recheck: 8,
  /** It has an `around`: the walk nests there. */
  around: 16,
  /** Its matcher reads the run's step type: tested on the way out, before `after` and `recover`. */
  matchesOutcome: 32,
} as const;

/** A hook compiled for one point, once, at registration: what the dispatcher walks. */
export interface Layer {
  readonly name: string;
  readonly point: string;
  readonly priority: number;
  /** Registration order in its stack, for stable ties (R1). */
  readonly seq: number;
  /** Names this layer runs before (outside) and after (inside), and whether they may be unregistered; or undefined. */
  readonly order: { readonly before: readonly string[]; readonly after: readonly string[]; readonly optional: boolean } | undefined;
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
  readonly onSettled: AnyFn | undefined;
  readonly observe: AnyFn | undefined;
  /** `LayerFlag` bits. */
  readonly flags: number;
  /**
   * What the hook sees of itself as `ctx.hook`: frozen, and made here, once per registration,
   * so that no run pays for it and no hook can reach (and rewrite) this record through it.
   */
  readonly info: HookInfo;
}

const phases = ["before", "after", "around", "recover", "onSettled", "observe"] as const;
const known = new Set<string>([
  "name",
  "priority",
  "order",
  "match",
  "timeoutMs",
  "failMode",
  "shadow",
  "recheck",
  "disabled",
  "source",
  ...phases,
]);

/** A list of hook names given for an order, checked. */
const names = (name: string, field: string, value: unknown): readonly string[] => {
  if (!Array.isArray(value)) throw new RegistrationError(name, field, `must be a list of hook names, got ${describeGiven(value)}`);
  for (const entry of value as unknown[])
    if (typeof entry !== "string" || entry.trim() === "")
      throw new RegistrationError(name, field, `must list hook names (non-empty strings), got ${describeGiven(entry)}`);
  return Object.freeze([...(value as string[])]);
};

/** `order`, and the name lists given as `before` or `after`, merged; undefined when there are none. */
const orderOf = (name: string, s: Record<string, unknown>): Layer["order"] => {
  const order = s.order;
  if (order !== undefined && (typeof order !== "object" || order === null || Array.isArray(order)))
    throw new RegistrationError(name, "order", `must be an object with before and/or after lists, got ${describeGiven(order)}`);
  const o = (order ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(o))
    if (key !== "before" && key !== "after" && key !== "optional")
      throw new RegistrationError(name, `order.${key}`, "is not an order field (expected before, after or optional)");
  if (o.optional !== undefined && typeof o.optional !== "boolean")
    throw new RegistrationError(name, "order.optional", `must be a boolean, got ${describeGiven(o.optional)}`);
  const before = [
    ...(o.before === undefined ? [] : names(name, "order.before", o.before)),
    ...(Array.isArray(s.before) ? names(name, "before", s.before) : []),
  ];
  const after = [
    ...(o.after === undefined ? [] : names(name, "order.after", o.after)),
    ...(Array.isArray(s.after) ? names(name, "after", s.after) : []),
  ];
  if (before.length === 0 && after.length === 0) return undefined;
  return Object.freeze({ before: Object.freeze(before), after: Object.freeze(after), optional: o.optional === true });
};

/**
 * Read a user's hook spec once into a plain object: each hook field (own or inherited, so a class
 * instance works) and the names of its other own fields (for the typo check). A getter or a Proxy
 * trap that throws is a `RegistrationError` naming the hook and the field, never a raw error, and
 * what is checked is what is used, however often a getter would answer differently.
 *
 * @example
 * readHookSpec({ name: "audit", after: () => undefined }, "toolCall").name // "audit"
 */
export const readHookSpec = (spec: unknown, pointName: string): Record<string, unknown> => {
  if (typeof spec === "function") {
    const given = typeof spec.name === "string" && spec.name !== "" ? spec.name : "?";
    throw new RegistrationError(
      given,
      "spec",
      `on point "${pointName}" must be a hook object, got a function: give it a name and a phase, e.g. { name: "${given === "?" ? "my-hook" : given}", before: fn }`,
    );
  }
  if (typeof spec !== "object" || spec === null)
    throw new RegistrationError("?", "spec", `on point "${pointName}" must be an object, got ${spec === null ? "null" : typeof spec}`);
  let hook = "?";
  const read = (field: string): unknown => {
    try {
      return (spec as Record<string, unknown>)[field];
    } catch (cause) {
      throw new RegistrationError(hook, field, `could not be read: it threw ${describe(cause)}`);
    }
  };
  const name = read("name");
  if (typeof name === "string" && name.trim() !== "") hook = name;
  const out: Record<string, unknown> = Object.create(null);
  out.name = name;
  for (const field of known) {
    if (field === "name") continue;
    const value = read(field);
    if (value !== undefined) out[field] = value;
  }
  let own: string[];
  try {
    own = Object.keys(spec);
  } catch (cause) {
    throw new RegistrationError(hook, "spec", `on point "${pointName}" could not be read: it threw ${describe(cause)}`);
  }
  // Unknown fields are kept by name only, for compileHook's typo check; their values are never read.
  for (const key of own) if (!known.has(key)) out[key] = true;
  return out;
};

/** Run `check` on a nested part of a spec (`field`): a throw that is not a RegistrationError is one, naming the hook and the field. */
const reading = <T>(hook: string, field: string, check: () => T): T => {
  try {
    return check();
  } catch (cause) {
    if (cause instanceof RegistrationError) throw cause;
    throw new RegistrationError(hook, field, `could not be read: it threw ${describe(cause)}`);
  }
};

/** Validate a user's hook spec for a point of `kind`; throws `RegistrationError` naming the hook and the field. */
export const compileHook = (spec: unknown, kind: PointKind, seq: number, pointName: string, hasStepType = false): Layer => {
  const s = readHookSpec(spec, pointName);
  const name = s.name;
  if (typeof name !== "string" || name.trim() === "")
    throw new RegistrationError(typeof name === "string" ? name : "?", "name", `must be a non-empty string, got ${describeGiven(name)}`);
  // A middleware (`{ name, hooks }`) handed to `use`: say where it goes rather than which field is wrong.
  if (s.hooks === true && Object.keys(s).every((key) => key === "name" || key === "hooks"))
    throw new RegistrationError(name, "hooks", "looks like a middleware, not a hook: add it with withMiddleware(stack, middleware)");
  for (const key of Object.keys(s))
    if (!known.has(key)) throw new RegistrationError(name, key, `is not a hook field (expected one of ${[...known].join(", ")})`);
  const order = reading(name, "order", () => orderOf(name, s));
  let any = false;
  for (const phase of phases) {
    const fn = s[phase];
    if (fn === undefined) continue;
    // `before` and `after` may also be lists of names (an order), checked by orderOf.
    if ((phase === "before" || phase === "after") && Array.isArray(fn)) continue;
    if (typeof fn !== "function")
      throw new RegistrationError(
        name,
        phase,
        `must be a function${phase === "before" || phase === "after" ? " or a list of hook names" : ""}, got ${fn === null ? "null" : typeof fn}`,
      );
    any = true;
  }
  if (!any) throw new RegistrationError(name, "before/after/around/recover/onSettled/observe", "needs at least one function");
  const before = typeof s.before === "function" ? (s.before as AnyFn) : undefined;
  const after = typeof s.after === "function" ? (s.after as AnyFn) : undefined;
  if (s.recheck === true && before === undefined) throw new RegistrationError(name, "recheck", "needs a before function to re-run");
  const priority = s.priority ?? Priority.default;
  if (typeof priority !== "number" || Number.isNaN(priority))
    throw new RegistrationError(name, "priority", `must be a finite number, got ${String(priority)}`);
  if (!Number.isFinite(priority))
    throw new RegistrationError(
      name,
      "priority",
      `must be a finite number, got ${String(priority)} (use Priority.outermost or Priority.innermost)`,
    );
  const timeoutMs = s.timeoutMs;
  if (timeoutMs !== undefined && !isTimeoutMs(timeoutMs))
    throw new RegistrationError(name, "timeoutMs", `must be a positive number of ms up to 2147483647, got ${String(timeoutMs)}`);
  const failMode = s.failMode ?? (kind === "gate" ? "closed" : "open");
  if (failMode !== "open" && failMode !== "closed")
    throw new RegistrationError(name, "failMode", `must be "open" or "closed", got ${String(failMode)}`);
  for (const flag of ["shadow", "recheck", "disabled"] as const)
    if (s[flag] !== undefined && typeof s[flag] !== "boolean")
      throw new RegistrationError(name, flag, `must be a boolean, got ${typeof s[flag]}`);
  if (s.source !== undefined && typeof s.source !== "string") throw new RegistrationError(name, "source", "must be a string");
  if (order !== undefined)
    for (const [field, list] of [
      ["before", order.before],
      ["after", order.after],
    ] as const)
      if (list.includes(name))
        throw new RegistrationError(
          name,
          field === "before" ? "order.before" : "order.after",
          `names the hook itself ("${name}"), which is a cycle`,
        );
  const shadow = s.shadow === true;
  const source = s.source as string | undefined;
  const matcher = reading(name, "match", () => compileHookMatch(s.match, name, { name: pointName, hasStepType }));
  const outcome = matcher.needsOutcome === true;
  if (outcome) {
    // A matcher compiled beforehand (compileMatcher) was not checked against this point.
    if (!hasStepType)
      throw new RegistrationError(
        name,
        "match",
        `reads the step type, and point "${pointName}" has none (a point gets one from its stepType option; the agent's step point has one)`,
      );
    const early = (["before", "around", "onSettled"] as const).filter((p) => typeof s[p] === "function");
    if (early.length > 0)
      throw new RegistrationError(
        name,
        "match",
        `reads the step type, which is known only once the run has ended, so the hook may have after, recover and observe only (it has ${early.join(" and ")}); register the rest as another hook`,
      );
  }
  const onSettled = s.onSettled as AnyFn | undefined;
  // A plain object, not frozen: it never leaves the stack (hooks see `info`), and frozen objects
  // are slower to read in the hot loop.
  return {
    name,
    point: pointName,
    priority,
    seq,
    order,
    matcher,
    timeoutMs: timeoutMs as number | undefined,
    failMode,
    shadow,
    recheck: s.recheck === true,
    disabled: s.disabled === true,
    source,
    before,
    after,
    around: s.around as AnyFn | undefined,
    recover: s.recover as AnyFn | undefined,
    onSettled,
    observe: s.observe as AnyFn | undefined,
    flags:
      (outcome ? LayerFlag.matchesOutcome : matcher.needsInput ? LayerFlag.matchesInput : 0) |
      (onSettled !== undefined ? LayerFlag.settles : 0) |
      (timeoutMs !== undefined ? LayerFlag.timed : 0) |
      (s.recheck === true ? LayerFlag.recheck : 0) |
      (s.around !== undefined ? LayerFlag.around : 0),
    info: Object.freeze({ name, shadow, source }),
  };
};

/** Whether a layer wraps the operation (a before, after, around, recover or onSettled phase) rather than only observing it. */
export const wraps = (l: Layer): boolean =>
  l.before !== undefined || l.after !== undefined || l.around !== undefined || l.recover !== undefined || l.onSettled !== undefined;

/** The phases a layer has, in the order they run, for `explain`. */
export const phasesOf = (l: Layer): ("before" | "around" | "after" | "recover" | "onSettled" | "observe")[] =>
  (["before", "around", "after", "recover", "onSettled", "observe"] as const).filter((p) => l[p] !== undefined);
