import {
  Agent,
  defineToolInputGuardrail,
  run,
  setTracingDisabled,
  tool,
  ToolCallError as SdkToolCallError,
  ToolGuardrailFunctionOutputFactory,
  webSearchTool,
  type FunctionTool,
} from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { Reject, Replace, Transform } from "../../src/core/action.ts";
import type { RunEvent } from "../../src/core/context.ts";
import { Priority } from "../../src/core/priority.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import type { ToolCall, ToolResult } from "../../src/agent/types.ts";
import { ToolCallError, UnknownToolError } from "../../src/agent/wrap-tool.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { callLimit } from "../../src/middleware/rate-limit.ts";
import { toolPolicy } from "../../src/middleware/tool-policy.ts";
import { CallNotRunError, guardTool } from "../../src/adapters/openai-agents/index.ts";

setTracingDisabled(true);

/** A tool that records what it ran with. */
const recorder = (name = "send_email") => {
  const ran: string[] = [];
  const t = tool({
    name,
    description: "Send an email",
    parameters: z.object({ to: z.string() }),
    execute: async ({ to }) => (ran.push(to), `sent to ${to}`),
  });
  return { ran, tool: t };
};

/** The function call results the model read on its second call. */
const resultsRead = (model: ScriptedModel) =>
  (model.calls[1]?.request.input as Record<string, unknown>[]).filter((item) => item.type === "function_call_result");

const runOnce = async (tools: FunctionTool<any, any, any>[], calls: ReturnType<typeof functionCall>[], input = "go") => {
  const model = new ScriptedModel([calls, [assistantMessage("done")]]);
  const result = await run(new Agent({ name: "a", tools, model }), input);
  return { model, result };
};

const observed = () => {
  const events: RunEvent<ToolCall, ToolResult>[] = [];
  return { events, hook: { name: "watch", observe: (e: RunEvent<ToolCall, ToolResult>) => void events.push(e) } };
};

describe("guardTool: a refused call reaches the model as the SDK reports refusals", () => {
  it("the model reads the rejection exactly where and how it reads a tool input guardrail's rejectContent, and the tool does not run", async () => {
    const native = recorder();
    const refuse = defineToolInputGuardrail({
      name: "no-eve",
      run: async () => ToolGuardrailFunctionOutputFactory.rejectContent("Tool call send_email was rejected by no-eve: Eve is blocked"),
    });
    const sdkWay = await runOnce(
      [{ ...native.tool, inputGuardrails: [refuse] }],
      [functionCall("send_email", { to: "eve" }, { callId: "c1" })],
    );

    const ours = recorder();
    const stack = createAgentStack().use("toolCall", {
      name: "no-eve",
      before: (call) => (call.input.to === "eve" ? Reject("Eve is blocked") : undefined),
    });
    const ourWay = await runOnce([guardTool(stack, ours.tool)], [functionCall("send_email", { to: "eve" }, { callId: "c1" })]);

    expect(resultsRead(ourWay.model)).toEqual(resultsRead(sdkWay.model));
    expect(resultsRead(ourWay.model)).toEqual([
      {
        type: "function_call_result",
        name: "send_email",
        callId: "c1",
        status: "completed",
        output: { type: "text", text: "Tool call send_email was rejected by no-eve: Eve is blocked" },
      },
    ]);
    expect(ours.ran).toEqual([]);
    expect(native.ran).toEqual([]);
  });

  it("of two calls in one turn, the one toolPolicy refuses is reported and the other runs", async () => {
    const fetched: string[] = [];
    const fetchPage = tool({
      name: "fetch_page",
      description: "Fetch",
      parameters: z.object({ url: z.string() }),
      execute: async ({ url }) => (fetched.push(url), `<html>${url}</html>`),
    });
    const stack = withMiddleware(createAgentStack(), toolPolicy({ allow: ["fetch_page"], deny: ["fetch_page(https://evil.test/*)"] }));
    const { model } = await runOnce(
      [guardTool(stack, fetchPage)],
      [
        functionCall("fetch_page", { url: "https://evil.test/x" }, { callId: "c1" }),
        functionCall("fetch_page", { url: "https://ok.test/" }, { callId: "c2" }),
      ],
    );
    expect(fetched).toEqual(["https://ok.test/"]);
    const read = resultsRead(model).map((r) => [r.callId, (r.output as { text: string }).text]);
    expect(read[0]?.[0]).toBe("c1");
    expect(read[0]?.[1]).toMatch(/^Tool call fetch_page was rejected by toolPolicy/);
    expect(read[1]).toEqual(["c2", "<html>https://ok.test/</html>"]);
  });

  it("for a tool with an outputSchema the rejection goes through its errorFunction, as the SDK's own rejections do", async () => {
    const structured = tool({
      name: "quote",
      description: "Quote a price",
      parameters: z.object({ item: z.string() }),
      outputSchema: z.object({ price: z.number(), note: z.string() }),
      errorFunction: (_ctx, error) => ({ price: 0, note: String((error as Error).message) }),
      execute: async () => ({ price: 10, note: "ok" }),
    });
    const stack = createAgentStack().use("toolCall", { name: "closed", before: () => Reject("the shop is closed") });
    const { model } = await runOnce([guardTool(stack, structured)], [functionCall("quote", { item: "tea" }, { callId: "q1" })]);
    expect(JSON.parse((resultsRead(model)[0]?.output as { text: string }).text)).toEqual({
      price: 0,
      note: "Tool call quote was rejected by closed: the shop is closed",
    });
  });

  it("for a tool with an outputSchema and no errorFunction the run fails, as the SDK fails it, with our ToolCallError inside", async () => {
    const structured = tool({
      name: "quote",
      description: "Quote",
      parameters: z.object({}),
      outputSchema: z.object({ price: z.number() }),
      execute: async () => ({ price: 1 }),
    });
    const stack = createAgentStack().use("toolCall", { name: "closed", before: () => Reject("closed") });
    const error = await runOnce([guardTool(stack, structured)], [functionCall("quote", {}, { callId: "q1" })]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SdkToolCallError);
    expect((error as SdkToolCallError).error).toBeInstanceOf(ToolCallError);
    expect(String((error as SdkToolCallError).error)).toContain("Tool call quote was rejected by closed: closed");
  });
});

describe("guardTool: one run of the SDK is one run of the stack", () => {
  it("counts the tool calls of one run() together, so a callLimit per run stops the ones past it, and starts again on the next run()", async () => {
    const sent = recorder();
    const runIds: string[] = [];
    const stack = withMiddleware(createAgentStack(), callLimit({ match: "send_email", max: 2 })).use("toolCall", {
      name: "watch",
      before: (_call, ctx) => void runIds.push(ctx.runId),
    });
    const calls = ["a", "b", "c"].map((to, i) => functionCall("send_email", { to }, { callId: `c${i}` }));
    const guarded = guardTool(stack, sent.tool);
    const { model } = await runOnce([guarded], calls);
    expect(sent.ran).toEqual(["a", "b"]);
    expect((resultsRead(model)[2]?.output as { text: string }).text).toMatch(/^Tool call send_email was rejected by callLimit/);
    await runOnce([guarded], [functionCall("send_email", { to: "d" }, { callId: "c9" })]);
    expect(sent.ran).toEqual(["a", "b", "d"]);
    expect(new Set(runIds.slice(0, 3)).size).toBe(1);
    expect(runIds[3]).not.toBe(runIds[0]);
  });

  it("keeps a runId the run option gives", async () => {
    const runIds: string[] = [];
    const stack = createAgentStack().use("toolCall", { name: "watch", before: (_call, ctx) => void runIds.push(ctx.runId) });
    await runOnce(
      [guardTool(stack, recorder().tool, { run: { runId: "mine" } })],
      [functionCall("send_email", { to: "a" }, { callId: "c1" })],
    );
    expect(runIds).toEqual(["mine"]);
  });
});

describe("guardTool: rewrites reach the tool and the model", () => {
  it("a Transform of the input is what the tool runs with, parsed by its own schema", async () => {
    const { ran, tool: t } = recorder();
    const stack = createAgentStack().use("toolCall", {
      name: "reroute",
      before: (call) => Transform({ ...call, input: { to: "audit@corp.test" } }),
    });
    await runOnce([guardTool(stack, t)], [functionCall("send_email", { to: "bob" }, { callId: "c1" })]);
    expect(ran).toEqual(["audit@corp.test"]);
  });

  it("an input a rewrite makes invalid is refused by the tool's schema, and the model reads the SDK's error text", async () => {
    const { ran, tool: t } = recorder();
    const stack = createAgentStack().use("toolCall", { name: "bad", before: (call) => Transform({ ...call, input: { to: 42 } }) });
    const { model } = await runOnce([guardTool(stack, t)], [functionCall("send_email", { to: "bob" }, { callId: "c1" })]);
    expect(ran).toEqual([]);
    expect((resultsRead(model)[0]?.output as { text: string }).text).toBe("An error occurred while running the tool. Please try again.");
  });

  it("a Transform of the result is what the model reads", async () => {
    const { tool: t } = recorder();
    const stack = createAgentStack().use("toolCall", {
      name: "stamp",
      after: (result) => Transform({ ...result, content: `${String(result.content)} [verified]` }),
    });
    const { model } = await runOnce([guardTool(stack, t)], [functionCall("send_email", { to: "bob" }, { callId: "c1" })]);
    expect((resultsRead(model)[0]?.output as { text: string }).text).toBe("sent to bob [verified]");
  });

  it("a Replace in before answers without running the tool", async () => {
    const { ran, tool: t } = recorder();
    const stack = createAgentStack().use("toolCall", { name: "dry-run", before: () => Replace({ content: "dry run: nothing sent" }) });
    const { model } = await runOnce([guardTool(stack, t)], [functionCall("send_email", { to: "bob" }, { callId: "c1" })]);
    expect(ran).toEqual([]);
    expect((resultsRead(model)[0]?.output as { text: string }).text).toBe("dry run: nothing sent");
  });

  it("context a hook adds reaches the model after the tool's output", async () => {
    const { tool: t } = recorder();
    const stack = createAgentStack().use("toolCall", {
      name: "note",
      after: (_r, _call, ctx) => void ctx.addContext("Remember: emails are logged."),
    });
    const { model } = await runOnce([guardTool(stack, t)], [functionCall("send_email", { to: "bob" }, { callId: "c1" })]);
    expect((resultsRead(model)[0]?.output as { text: string }).text).toBe("sent to bob\n\nRemember: emails are logged.");
  });

  it("hooks see the call id, the tool's name and the parsed arguments", async () => {
    const { tool: t } = recorder();
    const { events, hook } = observed();
    const stack = createAgentStack().use("toolCall", hook);
    await runOnce([guardTool(stack, t)], [functionCall("send_email", { to: "bob" }, { callId: "call_42" })]);
    await stack.flush();
    expect(events.map((e) => [e.input, e.outcome])).toEqual([
      [
        { id: "call_42", name: "send_email", input: { to: "bob" } },
        { _tag: "Completed", value: { content: "sent to bob" } },
      ],
    ]);
  });
});

describe("guardTool: errors surface as the SDK surfaces them", () => {
  it("a tool that throws: the model reads the SDK's error text, and hooks see that text as its result", async () => {
    const failing = tool({
      name: "flaky",
      description: "x",
      parameters: z.object({}),
      execute: async () => {
        throw new Error("disk full");
      },
    });
    const { events, hook } = observed();
    const stack = createAgentStack().use("toolCall", hook);
    const { model } = await runOnce([guardTool(stack, failing)], [functionCall("flaky", {}, { callId: "f1" })]);
    await stack.flush();
    expect((resultsRead(model)[0]?.output as { text: string }).text).toBe("An error occurred while running the tool. Please try again.");
    expect(events[0]?.outcome).toEqual({
      _tag: "Completed",
      value: { content: "An error occurred while running the tool. Please try again." },
    });
  });

  it("a tool without an errorFunction: its error reaches hooks as a failure and the run fails with it, as without us", async () => {
    const boom = new Error("disk full");
    const failing = tool({
      name: "flaky",
      description: "x",
      parameters: z.object({}),
      errorFunction: null,
      execute: async () => {
        throw boom;
      },
    });
    const { events, hook } = observed();
    const stack = createAgentStack().use("toolCall", hook);
    const error = await runOnce([guardTool(stack, failing)], [functionCall("flaky", {}, { callId: "f1" })]).catch((e: unknown) => e);
    await stack.flush();
    expect(error).toBeInstanceOf(SdkToolCallError);
    expect((error as SdkToolCallError).error).toBe(boom);
    expect(events[0]?.outcome).toEqual({ _tag: "Failed", error: boom });
  });
});

describe("guardTool: a rename", () => {
  it("a hook that renames the call fails it with UnknownToolError, and the tool does not run", async () => {
    const { ran, tool: t } = recorder();
    const stack = createAgentStack().use("toolCall", { name: "rename", before: (call) => Transform({ ...call, name: "delete_all" }) });
    const error = await runOnce([guardTool(stack, t)], [functionCall("send_email", { to: "bob" }, { callId: "c1" })]).catch(
      (e: unknown) => e,
    );
    expect(ran).toEqual([]);
    expect((error as SdkToolCallError).error).toBeInstanceOf(UnknownToolError);
  });
});

describe("guardTool: the SDK's own tool guardrails and approvals still work", () => {
  it("a call the SDK's own input guardrail refuses never runs, and its toolCall run ends as not run instead of waiting", async () => {
    const { ran, tool: t } = recorder();
    const refuse = defineToolInputGuardrail({
      name: "sdk-guard",
      run: async () => ToolGuardrailFunctionOutputFactory.rejectContent("blocked by the SDK's guardrail"),
    });
    const { events, hook } = observed();
    const stack = createAgentStack().use("toolCall", hook);
    const { model, result } = await runOnce(
      [guardTool(stack, { ...t, inputGuardrails: [refuse] })],
      [functionCall("send_email", { to: "bob" }, { callId: "c1" })],
    );
    await stack.flush();
    expect(ran).toEqual([]);
    expect((resultsRead(model)[0]?.output as { text: string }).text).toBe("blocked by the SDK's guardrail");
    expect(result.toolInputGuardrailResults.map((r) => r.guardrail.name)).toEqual(["sdk-guard"]);
    expect(events).toHaveLength(1);
    expect(events[0]?.outcome._tag === "Failed" && events[0].outcome.error).toBeInstanceOf(CallNotRunError);
  });

  it("a call a guard refuses never reaches the tool's own needsApproval, so no one is asked about it", async () => {
    const { tool: t } = recorder();
    let asked = 0;
    const needy = { ...t, needsApproval: async () => (asked++, true) };
    const stack = createAgentStack().use("toolCall", { name: "deny", priority: Priority.guard, before: () => Reject("not today") });
    const { result } = await runOnce([guardTool(stack, needy)], [functionCall("send_email", { to: "bob" }, { callId: "c1" })]);
    expect(asked).toBe(0);
    expect(result.interruptions).toEqual([]);
  });

  it("a call the guards allow still asks the tool's own needsApproval, and the run pauses", async () => {
    const { ran, tool: t } = recorder();
    const needy = { ...t, needsApproval: async () => true };
    const stack = createAgentStack().use("toolCall", { name: "allow", before: () => undefined });
    const { result } = await runOnce([guardTool(stack, needy)], [functionCall("send_email", { to: "bob" }, { callId: "c1" })]);
    expect(ran).toEqual([]);
    expect(result.interruptions.map((i) => i.rawItem)).toMatchObject([{ callId: "c1", name: "send_email" }]);
  });
});

describe("guardTool: bad input", () => {
  it("refuses a stack without run, a tool that is not one and options of the wrong kind, naming the field", () => {
    const stack = createAgentStack();
    const { tool: t } = recorder();
    expect(() => guardTool({} as never, t)).toThrow(/guardTool: stack must be a stack with run/);
    expect(() => guardTool(stack, null as never)).toThrow(/guardTool: tool must be an Agents SDK tool/);
    expect(() => guardTool(stack, { ...t, invoke: 1 } as never)).toThrow(/guardTool "send_email": invoke must be a function/);
    expect(() => guardTool(stack, t, { approvals: "later" as never })).toThrow(/guardTool: approvals must be "interrupt" or "stack"/);
    expect(() => guardTool(stack, t, { run: 1 as never })).toThrow(/guardTool: run must be run options/);
  });

  it("returns hosted tools as they are, and does not guard a tool twice", () => {
    const stack = createAgentStack();
    const hosted = webSearchTool();
    expect(guardTool(stack, hosted)).toBe(hosted);
    const once = guardTool(stack, recorder().tool);
    expect(guardTool(stack, once)).toBe(once);
  });
});
