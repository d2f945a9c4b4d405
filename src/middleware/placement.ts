/**
 * Where a built-in's hooks go. Each sits in one of the engine's named bands (`Priority.first`,
 * `guard`, `approval`, `last`, `innermost`) and says by name which other built-ins it runs inside or outside
 * of ("retry runs inside fallback"), so the order does not depend on the order they were
 * registered in. Those names are optional (see `HookOrder.optional`): a built-in that is absent,
 * or registered later, breaks nothing. A `priority` given to a factory places the hook by that
 * number alone, without the default names: the user has taken its place in hand. The names a
 * built-in hook is known by are its default ones; a renamed instance is placed by its band.
 */
import type { HookOrder } from "../core/hook.ts";
import { show } from "./options.ts";

/** What a built-in hook spreads into its spec: a priority, and an optional order when it has one. */
export interface Placement {
  readonly priority: number;
  readonly order?: HookOrder;
}

/** The built-ins a hook runs outside of (`before`) and inside of (`after`), by their default names. */
export interface Relations {
  readonly before?: readonly string[];
  readonly after?: readonly string[];
}

/**
 * The placement of a hook: `given` (a factory's `priority` option, checked here) alone, or the
 * band with the relations, as an optional order.
 *
 * @example
 * { name: "retry", ...placement("retry", undefined, Priority.guard, { after: ["fallback"] }), around }
 * // { name: "retry", priority: 10, order: { after: ["fallback"], optional: true }, around }
 */
export const placement = (middleware: string, given: unknown, band: number, relations: Relations = {}): Placement => {
  if (given !== undefined) return { priority: priorityOption(middleware, given) };
  const before = relations.before ?? [];
  const after = relations.after ?? [];
  if (before.length === 0 && after.length === 0) return { priority: band };
  return { priority: band, order: { before, after, optional: true } };
};

/**
 * A priority option, checked: a finite number (`Priority.outermost` to `Priority.innermost`).
 *
 * @example
 * priorityOption("retry", Number.NaN) // throws TypeError: retry: priority must be a finite number ...
 */
export const priorityOption = (middleware: string, value: unknown, field = "priority"): number => {
  if (typeof value !== "number" || !Number.isFinite(value))
    throw new TypeError(`${middleware}: ${field} must be a finite number (Priority.outermost to Priority.innermost), got ${show(value)}`);
  return value;
};
