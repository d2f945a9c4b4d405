/**
 * Named priority bands (R1). Lower is outer: a `Priority.guard` hook sees the input before a
 * `Priority.default` hook and sees the output after it.
 *
 * @example
 * stack.use("toolCall", { name: "policy", priority: Priority.guard, before: check })
 */
export const Priority = {
  first: 0,
  guard: 10,
  telemetry: 50,
  default: 100,
  last: 1000,
} as const;

export type PriorityBand = keyof typeof Priority;
