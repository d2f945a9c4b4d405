/**
 * Named priority bands (R1). Lower is outer: a `Priority.guard` hook sees the input before a
 * `Priority.default` hook and sees the output after it. `outermost` and `innermost` are outside
 * and inside every other number (ties keep registration order); to place a hook relative to
 * another hook, name it (`order: { after: ["toolPolicy"] }`) rather than adding to its priority.
 *
 * @example
 * stack.use("toolCall", { name: "policy", priority: Priority.guard, before: check })
 * stack.use("toolCall", { name: "tracing", priority: Priority.outermost, around: span })
 */
export const Priority = {
  outermost: -Number.MAX_VALUE,
  first: 0,
  guard: 10,
  /** Hooks that ask someone (`approval`): inside every guard, so a call a guard refuses never bothers a person. */
  approval: 20,
  telemetry: 50,
  default: 100,
  last: 1000,
  innermost: Number.MAX_VALUE,
} as const;

/** The name of a priority band: `outermost`, `first`, `guard`, `approval`, `telemetry`, `default`, `last`, `innermost`. */
export type PriorityBand = keyof typeof Priority;
