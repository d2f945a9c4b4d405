/**
 * Type-level checks for executor hooks, verified by `npm run typecheck` (tsc) rather than by
 * vitest, so the executors suite does not pay for a project-wide type check on every run.
 * Nothing here is executed.
 */
import { expectTypeOf } from "vitest";
import type { Notification, ToolCall, ToolResult } from "../../src/agent/types.ts";
import type { Hook } from "../../src/core/hook.ts";
import { commandHook } from "../../src/executors/command.ts";
import { httpHook } from "../../src/executors/http.ts";
import { agentStack } from "./stack-helpers.ts";

/** An executor hook is typed for its event's point. */
export const typedForItsPoint = (): void => {
  expectTypeOf(commandHook({ event: "PreToolUse", command: "true" })).toEqualTypeOf<Hook<ToolCall, ToolResult, "gate">>();
  expectTypeOf(httpHook({ event: "Notification", url: "https://hooks.example/n" })).toEqualTypeOf<Hook<Notification, void, "observe">>();
};

/** It registers on its own point and not on another. */
export const registersOnItsOwnPoint = (): void => {
  const stack = agentStack();
  stack.use("toolCall", commandHook({ event: "PreToolUse", command: "true" }));
  stack.use("notification", commandHook({ event: "Notification", command: "true" }));
  // @ts-expect-error a PreToolUse hook takes a ToolCall, not a Notification
  stack.use("notification", commandHook({ event: "PreToolUse", command: "true" }));
};

/** A match predicate receives the point's input. */
export const matchSeesTheInput = (): void => {
  commandHook({ event: "PreToolUse", command: "true", match: (_subject, call) => call.name === "Bash" });
};
