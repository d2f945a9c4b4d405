import { expectTypeOf, test } from "vitest";
import type { Notification, ToolCall, ToolResult } from "../../src/agent/types.ts";
import type { Hook } from "../../src/core/hook.ts";
import { commandHook } from "../../src/executors/command.ts";
import { httpHook } from "../../src/executors/http.ts";
import { agentStack } from "./stack-helpers.ts";

test("an executor hook is typed for its event's point", () => {
  const pre = commandHook({ event: "PreToolUse", command: "true" });
  expectTypeOf(pre).toEqualTypeOf<Hook<ToolCall, ToolResult, "gate">>();
  const note = httpHook({ event: "Notification", url: "https://hooks.example/n" });
  expectTypeOf(note).toEqualTypeOf<Hook<Notification, void, "observe">>();
});

test("it registers on its own point and not on another", () => {
  const stack = agentStack();
  stack.use("toolCall", commandHook({ event: "PreToolUse", command: "true" }));
  stack.use("notification", commandHook({ event: "Notification", command: "true" }));
  // @ts-expect-error a PreToolUse hook takes a ToolCall, not a Notification
  stack.use("notification", commandHook({ event: "PreToolUse", command: "true" }));
});

test("a match predicate receives the point's input", () => {
  commandHook({ event: "PreToolUse", command: "true", match: (_subject, call) => call.name === "Bash" });
});
