/**
 * Type-level checks for executor hooks, verified by `npm run typecheck` (tsc) rather than by
 * vitest, so the executors suite does not pay for a project-wide type check on every run.
 * Nothing here is executed.
 */
import { expectTypeOf } from "vitest";
import type {
  Notification,
  PermissionDecision,
  PermissionRequest,
  StopDecision,
  StopRequest,
  SubagentStart,
  ToolBatch,
  ToolCall,
  ToolResult,
} from "../../src/agent/types.ts";
import type { Hook } from "../../src/core/hook.ts";
import { commandHook } from "../../src/executors/command.ts";
import { claudeHookSet } from "../../src/executors/external.ts";
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

/** The events with a point of their own are typed for it. */
export const newEventsTypedForTheirPoints = (): void => {
  expectTypeOf(commandHook({ event: "PermissionRequest", command: "true" })).toEqualTypeOf<
    Hook<PermissionRequest, PermissionDecision, "gate">
  >();
  expectTypeOf(commandHook({ event: "SubagentStart", command: "true" })).toEqualTypeOf<Hook<SubagentStart, void, "observe">>();
  expectTypeOf(commandHook({ event: "PostToolBatch", command: "true" })).toEqualTypeOf<Hook<ToolBatch, void, "gate">>();
  const stack = agentStack();
  stack.use("permissionRequest", commandHook({ event: "PermissionRequest", command: "true" }));
  // @ts-expect-error a PermissionRequest hook takes a PermissionRequest, not a ToolCall
  stack.use("toolCall", commandHook({ event: "PermissionRequest", command: "true" }));
  // @ts-expect-error an event without a counterpart has no hook
  commandHook({ event: "TeammateIdle", command: "true" });
};

/** A hook set is typed like a hook of its event. */
export const setsTypedForTheirPoint = (): void => {
  expectTypeOf(claudeHookSet({ event: "Stop", name: "s", members: [] })).toEqualTypeOf<Hook<StopRequest, StopDecision, "gate">>();
  // @ts-expect-error a Stop set goes on the stop point
  agentStack().use("toolCall", claudeHookSet({ event: "Stop", name: "s", members: [] }));
};

/** A permission decision allows with an input, or denies with a message; not both. */
export const permissionDecisionShapes = (): void => {
  const allow: PermissionDecision = { behavior: "allow", updatedInput: { command: "ls" } };
  const deny: PermissionDecision = { behavior: "deny", message: "no", interrupt: true };
  // @ts-expect-error a grant has no message
  const mixed: PermissionDecision = { behavior: "allow", message: "no" };
  void [allow, deny, mixed];
};
