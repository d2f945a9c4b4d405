/**
 * `createAgentStack`: a stack over the twelve standard agent points.
 */
import { createStack } from "../core/stack.ts";
import type { HookStack, StackOptions } from "../core/stack-types.ts";
import { agentPoints, type AgentPoints } from "./points.ts";

/** A hook stack over the standard agent points. */
export type AgentStack = HookStack<AgentPoints>;

/**
 * Create an empty stack over `agentPoints` (`createStack(agentPoints, options)`).
 *
 * @example
 * const stack = createAgentStack()
 *   .use("toolCall", { name: "no-rm-rf", match: "Bash(rm -rf*)", before: () => Reject("Destructive command blocked") })
 */
export const createAgentStack = (options?: StackOptions): AgentStack => createStack(agentPoints, options);
