/**
 * How a limit says no, whatever point it sits on: `Reject(reason)` on a gate (the model reads
 * the reason as the tool's answer), a `Failed` outcome carrying `LimitExceededError` on an
 * observation point, where a `Reject` would be a hook failure (R2).
 */
import { Reject } from "../core/action.ts";
import type { HookContext } from "../core/context.ts";
import { Outcome } from "../core/outcome.ts";
import { LimitExceededError } from "./errors.ts";

/**
 * Refuse the current call with `reason`, in the form the point allows (for `around` hooks).
 *
 * @example
 * around: async (ctx, next) => (await allowed(ctx) ? next() : refuse(ctx, "rateLimit", "rate limit: 10 calls per minute"))
 */
export const refuse = (ctx: HookContext<any>, middleware: string, reason: string): Reject | Outcome<never> =>
  ctx.kind === "gate" ? Reject(reason) : Outcome.failed(new LimitExceededError(middleware, reason));
