/**
 * The Claude Agent SDK adapters' telemetry against the GenAI conventions. The guard's callbacks,
 * called as the SDK calls them with the events Claude Code sent: each tool call is one INTERNAL
 * `execute_tool` span from PreToolUse to PostToolUse, under the application's span, with the
 * tool's name, call id and type; a refused call ends in `error.type`. The SDK has no hook around a
 * model call; the model gateway (Claude Code's `ANTHROPIC_BASE_URL`) is where model calls are:
 * one CLIENT `chat` span each, provider `anthropic`, the upstream's endpoint and the message id,
 * with Anthropic's own SDK as the client and the rig's mock Messages API upstream.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { HookInput, HookJSONOutput } from "@anthropic-ai/claude-agent-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Anthropic from "@anthropic-ai/sdk";
import { claudeAgentGuard, claudeModelGateway, type ClaudeAgentGuard } from "../../../src/adapters/claude-agent-sdk/index.ts";
import { startMockAnthropic } from "../../support/claude-code/mock-anthropic.ts";
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

describe("claudeModelGateway's model calls, traced per the GenAI conventions", () => {
  it("makes one CLIENT chat span per call, provider anthropic, at the upstream's endpoint, with the message id", async () => {
    const api = await startMockAnthropic({ turns: ["Hello.", "Streamed hello."], isScripted: () => true }, 0);
    const { spans, collect, middleware } = telemetry();
    const stack = withMiddleware(createAgentStack(), middleware);
    const gateway = await claudeModelGateway(stack, { upstream: api.url! });
    try {
      const client = new Anthropic({ baseURL: gateway.url, apiKey: "sk-ant-api03-test", maxRetries: 0 });
      const message = await client.messages.create({
        model: "claude-opus-5-5",
        max_tokens: 100,
        messages: [{ role: "user", content: "hi" }],
      });
      const streamed = await client.messages
        .stream({ model: "claude-opus-5-5", max_tokens: 100, messages: [{ role: "user", content: "hi" }] })
        .finalMessage();
      await stack.flush();
      expect([message.id, streamed.id]).toEqual([expect.stringMatching(/^msg_/), expect.stringMatching(/^msg_/)]);
      expect(message.id).not.toBe(streamed.id);
      const port = Number(new URL(api.url!).port);
      const chats = spans().filter((s) => s.attributes["gen_ai.operation.name"] === "chat");
      expect(chats.map((s) => [s.name, s.kind, s.attributes["gen_ai.request.stream"], s.attributes["gen_ai.response.id"]])).toEqual([
        ["chat claude-opus-5-5", SpanKind.CLIENT, false, message.id],
        ["chat claude-opus-5-5", SpanKind.CLIENT, true, streamed.id],
      ]);
      for (const chat of chats)
        expect(chat.attributes).toMatchObject({ "gen_ai.provider.name": "anthropic", "server.address": "127.0.0.1", "server.port": port });
      expect(chats[1]!.attributes["gen_ai.response.time_to_first_chunk"]).toBeGreaterThan(0);
      const collected = await collect();
      expect(histogramPoints(collected.get("gen_ai.client.operation.duration"))[0]!.attributes).toMatchObject({
        "gen_ai.provider.name": "anthropic",
        "server.address": "127.0.0.1",
        "server.port": port,
      });
      expect(histogramPoints(collected.get("gen_ai.client.operation.time_per_output_chunk"))[0]!.count).toBeGreaterThan(0);
    } finally {
      await gateway.close();
      await api.close();
    }
  });
});
