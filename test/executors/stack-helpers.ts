/**
 * A stack over the standard agent points, for tests that run hooks through the real onion.
 */
import { agentPoints } from "../../src/agent/points.ts";
import type { StackOptions } from "../../src/core/stack-types.ts";
import { createStack } from "../../src/core/stack.ts";

/** A fresh stack over the standard agent points. */
export const agentStack = (options: StackOptions = {}) => createStack(agentPoints, options);
