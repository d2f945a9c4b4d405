/**
 * The stack an entry point is given (an adapter, a wrapper, the settings executors), checked where
 * it is given: `undefined` or a middleware in its place would otherwise fail on the first call,
 * with a message about a missing property.
 */
import { describeGiven } from "../core/errors.ts";

/**
 * Refuse anything without `run` where a stack belongs, saying so of a middleware given in its place.
 *
 * @example
 * stackArgument("aiSdkMiddleware", undefined)
 * // throws TypeError: aiSdkMiddleware: stack must be a stack with run (createAgentStack()), got undefined
 */
export const stackArgument = <S>(owner: string, stack: S): S => {
  if (typeof (stack as { run?: unknown } | null | undefined)?.run === "function") return stack;
  throw new TypeError(`${owner}: stack must be a stack with run (createAgentStack()), got ${given(stack)}`);
};

/** A middleware (`{ name, hooks }`) is named as one, with the way to put it on a stack. */
const given = (value: unknown): string => {
  const { name, hooks } = (typeof value === "object" && value !== null ? value : {}) as { name?: unknown; hooks?: unknown };
  if (typeof name === "string" && typeof hooks === "object" && hooks !== null)
    return `the middleware "${name}": put it on a stack first, withMiddleware(createAgentStack(), middleware)`;
  return describeGiven(value);
};
