/**
 * HookAction: what a hook returns (R2). A plain tagged union, so `switch (a._tag)`, Effect's
 * `Match.tag` and ts-pattern all work on it without a runtime dependency.
 */

/** Go on unchanged. A frozen singleton: returning it allocates nothing. */
export interface Continue {
  readonly _tag: "Continue";
}
/** Hand a new value to the next hook (input in `before`, output in `after`). */
export interface Transform<T> {
  readonly _tag: "Transform";
  readonly value: T;
}
/** Stop the operation with a reason. Only gate points accept it (R2). */
export interface Reject {
  readonly _tag: "Reject";
  readonly reason: string;
}
/** Short-circuit with an output: skips the inner hooks and the operation (R3). */
export interface Replace<T> {
  readonly _tag: "Replace";
  readonly value: T;
}

/** Every action a hook may return. */
export type HookAction<I = unknown, O = unknown> = Continue | Transform<I> | Reject | Replace<O>;

/**
 * The singleton `Continue` action.
 *
 * @example
 * before: (call) => (call.name === "Read" ? Continue : Reject("only reads"))
 */
export const Continue: Continue = Object.freeze({ _tag: "Continue" as const });

/**
 * Build a `Transform` action.
 *
 * @example
 * before: (call) => Transform({ ...call, input: { ...call.input, dryRun: true } })
 */
export const Transform = <T>(value: T): Transform<T> => ({ _tag: "Transform", value });

/**
 * Build a `Reject` action; the reason is what the model or user will read.
 *
 * @example
 * before: () => Reject("Destructive command blocked")
 */
export const Reject = (reason: string): Reject => ({
  _tag: "Reject",
  // Untyped callers may leave it out: the reader then learns that none was given, not "undefined".
  reason: reason === undefined ? "rejected without a reason" : String(reason),
});

/**
 * Build a `Replace` action: the operation is skipped and this is its output.
 *
 * @example
 * before: (req) => (cache.has(key(req)) ? Replace(cache.get(key(req))) : Continue)
 */
export const Replace = <T>(value: T): Replace<T> => ({ _tag: "Replace", value });

const tags = new Set(["Continue", "Transform", "Reject", "Replace"]);

/**
 * True when `value` has the shape of a HookAction (used to validate untyped returns, R6).
 *
 * @example
 * isHookAction(Reject("no")) // true
 * isHookAction({ action: "alow" }) // false
 */
export const isHookAction = (value: unknown): value is HookAction => {
  if (typeof value !== "object" || value === null) return false;
  try {
    const tag = (value as { _tag?: unknown })._tag;
    if (typeof tag !== "string" || !tags.has(tag)) return false;
    if (tag === "Reject") return typeof (value as Reject).reason === "string";
    return tag === "Continue" || "value" in value;
  } catch {
    return false; // a getter or Proxy that throws is not an action, and must not crash the chain
  }
};
