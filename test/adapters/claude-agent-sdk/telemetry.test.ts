/**
 * The Claude Agent SDK guard's telemetry against the GenAI conventions, its callbacks called as the
 * SDK calls them with the events Claude Code sent: each tool call is one INTERNAL `execute_tool`
 * span from PreToolUse to PostToolUse, under the application's span, with the tool's name, call id
 * and type; a refused call ends in `error.type`. The SDK gives no hook around a model call, so
 * there is no `chat` span, and so no `gen_ai.provider.name` to carry.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { HookInput, HookJSONOutput } from "@anthropic-ai/claude-agent-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeAgentGuard, type ClaudeAgentGuard } from "../../../src/adapters/claude-agent-sdk/index.ts";
import { createAgentStack } from "../../../src/agent/stack.ts";
import { Reject } from "../../../src/core/action.ts";
import { withMiddleware } from "../../../src/middleware/apply.ts";
import { histogramPoints } from "../../middleware/otel.ts";
import { chatBuckets, idOf, parentOf, telemetry, useContextManager } from "../telemetry-harness.ts";

const events = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..", "fixtures", "claude-code", "events");
const recorded = (name: string, changes: Record<string, unknown> = {}): HookInput =>
  ({ ...JSON.parse(readFileSync(join(events, `${name}.json`), "utf8")), ...changes }) as HookInput;

const call = (guard: ClaudeAgentGuard, input: HookInput): Promise<HookJSONOutput> =>
  guard.hooks[input.hook_event_name]![0]!.hooks[0]!(input, "tool_use_id" in input ? String(input.tool_use_id) : undefined, {
    signal: new AbortController().signal,
  });

let uninstall: () => void;
beforeAll(() => void (uninstall = useContextManager()));
afterAll(() => uninstall());

describe("claudeAgentGuard's tool calls, traced per the GenAI conventions", () => {
  it("makes one INTERNAL execute_tool span per call, under the application's span, and its duration metric", async () => {
    const { spans, collect, middleware, underApp } = telemetry();
    const stack = withMiddleware(createAgentStack(), middleware);
    const guard = claudeAgentGuard(stack);
    const { app } = await underApp(async () => {
      await call(guard, recorded("PreToolUse"));
      await call(guard, recorded("PostToolUse"));
    });
    await stack.flush();
    const tools = spans().filter((s) => s.attributes["gen_ai.operation.name"] === "execute_tool");
    expect(tools.map((s) => [s.name, s.kind])).toEqual([["execute_tool Bash", SpanKind.INTERNAL]]);
    expect(tools[0]!.attributes).toMatchObject({
      "gen_ai.tool.name": "Bash",
      "gen_ai.tool.call.id": "toolu_mock_001",
      "gen_ai.tool.type": "function",
      "agent_onion.outcome": "completed",
    });
    expect(parentOf(tools[0]!)).toBe(idOf(app));
    expect(spans().filter((s) => s.attributes["gen_ai.operation.name"] === "chat")).toEqual([]);
    expect(spans().filter((s) => s.attributes["gen_ai.provider.name"] !== undefined)).toEqual([]);
    const durations = histogramPoints((await collect()).get("gen_ai.execute_tool.duration"));
    expect(durations.map((p) => [p.count, p.buckets.boundaries])).toEqual([[1, chatBuckets]]);
    expect(durations[0]!.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "Bash",
      "gen_ai.tool.type": "function",
    });
  });

  it("ends a refused call's span in error.type OutcomeRejectedError", async () => {
    const { spans, middleware } = telemetry();
    const stack = withMiddleware(createAgentStack(), middleware).use("toolCall", { name: "no-bash", before: () => Reject("no shell") });
    const guard = claudeAgentGuard(stack);
    await call(guard, recorded("PreToolUse", { tool_use_id: "toolu_refused" }));
    await stack.flush();
    const tool = spans().find((s) => s.name === "execute_tool Bash")!;
    expect(tool.attributes).toMatchObject({ "gen_ai.tool.call.id": "toolu_refused", "error.type": "OutcomeRejectedError" });
    expect(tool.status.code).toBe(SpanStatusCode.ERROR);
  });
});
