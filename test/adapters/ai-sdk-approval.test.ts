/**
 * wrapAiSdkTools with `approval: "ai-sdk"`, with the real `ai` package and its mock model: a hook
 * that asks for approval becomes the SDK's own `tool-approval-request` while the call's run waits
 * at that hook; the person's `tool-approval-response`, sent with the next call, answers that hook,
 * so the run completes once the approved tool ran, or ends in the hook's rejection with the
 * person's reason, which the audit log and the trace show; calls no hook asks about run at once,
 * through their hooks once.
 */
import { PassThrough } from "node:stream";
import { generateText, jsonSchema, simulateReadableStream, stepCountIs, streamText, tool, wrapLanguageModel, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { aiSdkMiddleware } from "../../src/adapters/ai-sdk.ts";
import { wrapAiSdkTools } from "../../src/adapters/ai-sdk-tools.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { Continue, Reject, Trace, type ApprovalDecision } from "../../src/core/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { approval } from "../../src/middleware/approval.ts";
import { audit } from "../../src/middleware/audit.ts";
import { toolPolicy } from "../../src/middleware/tool-policy.ts";
import { generated, toolResultsIn, usage } from "./ai-sdk-fixtures.ts";

const toolCalls = (commands: readonly string[]) => ({
  content: commands.map((command, i) => ({
    type: "tool-call" as const,
    toolCallId: `call-${i}`,
    toolName: "bash",
    input: JSON.stringify({ command }),
  })),
  finishReason: { unified: "tool-calls" as const, raw: "tool_use" },
  usage: usage(5, 5),
  warnings: [],
});

/** A model that runs the commands it is given once, then says what the tools answered. */
const model = (commands: readonly string[]) =>
  new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const results = toolResultsIn(prompt);
      if (results.length === 0) return toolCalls(commands);
      return generated(`done: ${results.map((p) => JSON.stringify(p.output)).join(" | ")}`) as never;
    },
  });

const bash = (log: string[]) => ({
  bash: tool({
    inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } } }),
    execute: async ({ command }) => (log.push(command), `ran ${command}`),
  }),
});

/** A stack that denies `rm`, asks about `git push`, and counts how often a guard sees each command. */
const guarded = (seen: string[], decisions: ApprovalDecision[] = []) =>
  withMiddleware(createAgentStack(), toolPolicy({ deny: ["bash(rm *)"] }), approval({ match: "bash(git push*)" }))
    .use("toolCall", { name: "count", before: (c) => void seen.push(String(c.input.command)) })
    .use("toolCall", {
      name: "asks-about-deploy",
      match: "bash(deploy*)",
      before: async (_c, ctx) => {
        const d = await ctx.approve({ hook: "asks-about-deploy", reason: "deploys need a person" });
        decisions.push(d);
        return d.decision === "approve" ? Continue : Reject(d.decision === "deny" ? d.reason : "edited");
      },
    });

/** The next call's messages: the first call's, and the person's answers to its approval requests. */
const answered = (
  prompt: string,
  response: readonly ModelMessage[],
  answers: readonly { approvalId: string; approved: boolean; reason?: string }[],
): ModelMessage[] => [
  { role: "user", content: prompt },
  ...response,
  { role: "tool", content: answers.map((a) => ({ type: "tool-approval-response" as const, ...a })) },
];

describe('wrapAiSdkTools with approval: "ai-sdk" (ai 6)', () => {
  it("turns a hook's ask into a tool-approval-request, and runs the call once the person approves", async () => {
    const log: string[] = [];
    const seen: string[] = [];
    const decisions: ApprovalDecision[] = [];
    const tools = wrapAiSdkTools(guarded(seen, decisions), bash(log), { approval: "ai-sdk" });
    const m = model(["deploy prod"]);
    const first = await generateText({ model: m, tools, prompt: "ship it", stopWhen: stepCountIs(3) });
    const requests = first.content.filter((p) => p.type === "tool-approval-request");
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ toolCall: { toolCallId: "call-0", toolName: "bash", input: { command: "deploy prod" } } });
    expect(log).toEqual([]);
    // The asking hook still waits for the person: it has no answer yet.
    expect(decisions).toEqual([]);

    const approvalId = requests[0]!.approvalId;
    const second = await generateText({
      model: m,
      tools,
      messages: answered("ship it", first.response.messages, [{ approvalId, approved: true, reason: "go" }]),
      stopWhen: stepCountIs(3),
    });
    expect(log).toEqual(["deploy prod"]);
    expect(decisions, JSON.stringify(decisions)).toEqual([{ decision: "approve", by: "ai-sdk tool approval", reason: "go" }]);
    expect(second.text).toBe('done: {"type":"text","value":"ran deploy prod"}');
  });

  it("asks through the SDK for the approval middleware too, and a denial never runs the call", async () => {
    const log: string[] = [];
    const tools = wrapAiSdkTools(guarded([]), bash(log), { approval: "ai-sdk" });
    const m = model(["git push origin main"]);
    const first = await generateText({ model: m, tools, prompt: "push", stopWhen: stepCountIs(3) });
    const request = first.content.find((p) => p.type === "tool-approval-request");
    expect(request).toBeDefined();
    const second = await generateText({
      model: m,
      tools,
      messages: answered("push", first.response.messages, [{ approvalId: request!.approvalId, approved: false, reason: "frozen" }]),
      stopWhen: stepCountIs(3),
    });
    expect(log).toEqual([]);
    expect(second.text).toBe('done: {"type":"execution-denied","reason":"frozen"}');
  });

  it("runs calls no hook asks about at once, through each hook once, beside a call that waits", async () => {
    const log: string[] = [];
    const seen: string[] = [];
    const tools = wrapAiSdkTools(guarded(seen), bash(log), { approval: "ai-sdk" });
    const result = await generateText({ model: model(["git status", "deploy prod"]), tools, prompt: "x", stopWhen: stepCountIs(3) });
    expect(log).toEqual(["git status"]);
    expect(seen.filter((c) => c === "git status")).toEqual(["git status"]);
    expect(result.content.filter((p) => p.type === "tool-approval-request").map((p) => p.toolCall.input)).toEqual([
      { command: "deploy prod" },
    ]);
    expect(result.content.filter((p) => p.type === "tool-result").map((p) => p.output)).toEqual(["ran git status"]);
  });

  it("makes each call's copy of the input and its run options once, though the SDK asks needsApproval before execute", async () => {
    const log: string[] = [];
    const seen: string[] = [];
    const runs: string[] = [];
    const clone = globalThis.structuredClone;
    let copies = 0;
    globalThis.structuredClone = ((value, options) => {
      if ((value as { command?: unknown } | null)?.command === "git status") copies++;
      return clone(value, options);
    }) as typeof structuredClone;
    try {
      const tools = wrapAiSdkTools(guarded(seen), bash(log), {
        approval: "ai-sdk",
        run: (call) => (runs.push(String(call.input.command)), {}),
      });
      await generateText({ model: model(["git status"]), tools, prompt: "x", stopWhen: stepCountIs(3) });
    } finally {
      globalThis.structuredClone = clone;
    }
    expect(log).toEqual(["git status"]);
    expect(runs).toEqual(["git status"]);
    expect(copies).toBe(1);
  });

  it("reports a guard's refusal as a tool error without asking anyone", async () => {
    const log: string[] = [];
    const seen: string[] = [];
    const result = await generateText({
      model: model(["rm -rf /tmp/x"]),
      tools: wrapAiSdkTools(guarded(seen), bash(log), { approval: "ai-sdk" }),
      prompt: "x",
      stopWhen: stepCountIs(3),
    });
    expect(log).toEqual([]);
    expect(result.content.filter((p) => p.type === "tool-approval-request")).toEqual([]);
    expect(result.steps[0]?.content.find((p) => p.type === "tool-error")).toMatchObject({
      error: { message: expect.stringContaining('deny rule "bash(rm *)"') },
    });
    expect(result.text).toContain("error-text");
  });

  it("works the same with streamText", async () => {
    const log: string[] = [];
    const tools = wrapAiSdkTools(guarded([]), bash(log), { approval: "ai-sdk" });
    const streaming = new MockLanguageModelV3({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            { type: "stream-start" as const, warnings: [] },
            { type: "tool-call" as const, toolCallId: "call-0", toolName: "bash", input: JSON.stringify({ command: "deploy prod" }) },
            { type: "finish" as const, finishReason: { unified: "tool-calls" as const, raw: "tool_use" }, usage: usage(5, 5) },
          ],
        }),
      }),
    });
    const result = streamText({ model: streaming, tools, prompt: "ship", stopWhen: stepCountIs(3) });
    const parts: string[] = [];
    for await (const part of result.fullStream) parts.push(part.type);
    expect(parts).toContain("tool-approval-request");
    expect(log).toEqual([]);
  });

  it("runs a streaming tool no hook asks about to its last value, and asks about one a hook asks about", async () => {
    const log: string[] = [];
    const streaming = {
      bash: tool({
        inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } } }),
        async *execute({ command }) {
          log.push(command);
          yield `starting ${command}`;
          yield `ran ${command}`;
        },
      }),
    };
    const tools = wrapAiSdkTools(guarded([]), streaming, { approval: "ai-sdk" });
    const result = await generateText({ model: model(["git status", "deploy prod"]), tools, prompt: "x", stopWhen: stepCountIs(3) });
    expect(log).toEqual(["git status"]);
    expect(result.content.filter((p) => p.type === "tool-result").map((p) => p.output)).toEqual(["ran git status"]);
    expect(result.content.filter((p) => p.type === "tool-approval-request").map((p) => p.toolCall.input)).toEqual([
      { command: "deploy prod" },
    ]);
  });

  it("ends a run needsApproval held when the SDK never executes the call, at the run's deadline", async () => {
    const settled: string[] = [];
    const stack = createAgentStack().use("toolCall", { name: "watch", observe: (e) => void settled.push(e.outcome._tag) });
    const tools = wrapAiSdkTools(stack, bash([]), { approval: "ai-sdk", run: { timeoutMs: 50 } }) as unknown as {
      bash: { needsApproval: (input: unknown, o: object) => Promise<boolean> };
    };
    expect(await tools.bash.needsApproval({ command: "ls" }, { toolCallId: "c9", messages: [] })).toBe(false);
    await new Promise((r) => setTimeout(r, 200));
    await stack.flush();
    expect(settled).toEqual(["Failed"]);
  });

  it("refuses an approval option it does not know when wrapping", () => {
    expect(() => wrapAiSdkTools(createAgentStack(), bash([]), { approval: "sdk" as never })).toThrow(
      'wrapAiSdkTools: approval must be "ai-sdk" when given, got "sdk"',
    );
  });

  it("without the option, asks the stack's approver as before", async () => {
    const log: string[] = [];
    const stack = withMiddleware(createAgentStack({ approval: () => ({ decision: "approve" }) }), approval({ match: "bash(git push*)" }));
    const result = await generateText({
      model: model(["git push"]),
      tools: wrapAiSdkTools(stack, bash(log)),
      prompt: "x",
      stopWhen: stepCountIs(3),
    });
    expect(result.content.filter((p) => p.type === "tool-approval-request")).toEqual([]);
    expect(log).toEqual(["git push"]);
  });
  describe("a person's answer seen by the hooks, the audit log and the trace", () => {
    /** Audit lines written to a stream. */
    const lines = (out: PassThrough): Record<string, unknown>[] =>
      String(out.read() ?? "")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);

    /** One stack for the model and the tools: a guard that counts, the approval middleware, and an audit log. */
    const setup = () => {
      const out = new PassThrough();
      const seen: string[] = [];
      const trace = new Trace();
      const stack = withMiddleware(createAgentStack(), approval({ match: "bash(git push*)" }), audit({ to: out, redact: false })).use(
        "toolCall",
        { name: "count", before: (c) => void seen.push(String(c.input.command)) },
      );
      const log: string[] = [];
      const tools = wrapAiSdkTools(stack, bash(log), { approval: "ai-sdk", run: { sessionId: "s1", trace } });
      return { out, seen, trace, stack, log, tools };
    };

    /** A first turn in which the model asks to push and the approval hook asks the person: the SDK's request. */
    const askToPush = async (m: Parameters<typeof generateText>[0]["model"], tools: ReturnType<typeof setup>["tools"]) => {
      const first = await generateText({ model: m, tools, prompt: "push", stopWhen: stepCountIs(3) });
      const request = first.content.find((p) => p.type === "tool-approval-request");
      if (request === undefined) throw new Error("no approval request");
      return { first, request };
    };

    it("records a denial as the asking hook's rejection with the person's reason, read from the next provider call", async () => {
      const { out, trace, stack, log, tools } = setup();
      const m = wrapLanguageModel({ model: model(["git push origin main"]), middleware: aiSdkMiddleware(stack) });
      const { first, request } = await askToPush(m, tools);
      const second = await generateText({
        model: m,
        tools,
        messages: answered("push", first.response.messages, [{ approvalId: request.approvalId, approved: false, reason: "frozen" }]),
        stopWhen: stepCountIs(3),
      });
      expect(second.text).toBe('done: {"type":"execution-denied","reason":"frozen"}');
      expect(log).toEqual([]);
      await stack.flush();
      const written = lines(out);
      const runs = written.filter((l) => l.type === "run" && l.point === "toolCall");
      expect(runs).toEqual([
        expect.objectContaining({ outcome: "Rejected", by: "approval", reason: "bash was not approved: frozen", sessionId: "s1" }),
      ]);
      expect(written.filter((l) => l.type === "decision" && l.phase === "approval").map((d) => [d.hook, d.action, d.reason])).toEqual([
        ["approval", "Reject", "denied by ai-sdk tool approval: frozen"],
      ]);
      // `count` runs inside `approval`, so the rejection stopped the call before it.
      expect(trace.entries.filter((e) => e.point === "toolCall").map((e) => [e.hook, e.phase, e.action, e.reason])).toEqual([
        ["approval", "approval", "Reject", "denied by ai-sdk tool approval: frozen"],
        ["approval", "before", "Reject", "bash was not approved: frozen"],
      ]);
    });

    it("reads a denial from the next call of a wrapped tool when the model does not go through aiSdkMiddleware", async () => {
      const { out, stack, log, tools } = setup();
      const m = model(["git push origin main"]);
      const { first, request } = await askToPush(m, tools);
      // The next turn: the person denied the push, and the model asks for another command.
      const next = new MockLanguageModelV3({
        doGenerate: async () => ({
          ...toolCalls(["git status"]),
          content: [{ ...toolCalls(["git status"]).content[0]!, toolCallId: "call-9" }],
        }),
      });
      await generateText({
        model: next,
        tools,
        messages: answered("push", first.response.messages, [{ approvalId: request.approvalId, approved: false, reason: "frozen" }]),
        stopWhen: stepCountIs(1),
      });
      expect(log).toEqual(["git status"]);
      await stack.flush();
      expect(
        lines(out)
          .filter((l) => l.type === "run" && l.point === "toolCall")
          .map((l) => [l.outcome, l.reason ?? null]),
      ).toEqual([
        ["Rejected", "bash was not approved: frozen"],
        ["Completed", null],
      ]);
    });

    it("records a denial of this turn that no run here waits on (asked in another process) as the asking hook's rejection", async () => {
      const asking = setup();
      const { first, request } = await askToPush(model(["git push origin main"]), asking.tools);
      const elsewhere = setup();
      const m = wrapLanguageModel({ model: model(["git push origin main"]), middleware: aiSdkMiddleware(elsewhere.stack) });
      await generateText({
        model: m,
        tools: elsewhere.tools,
        messages: answered("push", first.response.messages, [{ approvalId: request.approvalId, approved: false, reason: "frozen" }]),
        stopWhen: stepCountIs(3),
      });
      await elsewhere.stack.flush();
      expect(elsewhere.log).toEqual([]);
      expect(
        lines(elsewhere.out)
          .filter((l) => l.type === "run" && l.point === "toolCall")
          .map((l) => [l.outcome, l.by, l.reason]),
      ).toEqual([
        [
          "Rejected",
          "approval",
          expect.stringMatching(/^bash was not approved: the denial of bash call .* is not a person's answer .*"frozen"/),
        ],
      ]);
    });

    it("runs an approved call once, in the run that asked, and records one completed run with the approval", async () => {
      const { out, seen, trace, stack, log, tools } = setup();
      const m = wrapLanguageModel({ model: model(["git push origin main"]), middleware: aiSdkMiddleware(stack) });
      const { first, request } = await askToPush(m, tools);
      const second = await generateText({
        model: m,
        tools,
        messages: answered("push", first.response.messages, [{ approvalId: request.approvalId, approved: true, reason: "go" }]),
        stopWhen: stepCountIs(3),
      });
      expect(second.text).toBe('done: {"type":"text","value":"ran git push origin main"}');
      expect(log).toEqual(["git push origin main"]);
      expect(seen).toEqual(["git push origin main"]);
      await stack.flush();
      const written = lines(out);
      expect(written.filter((l) => l.type === "run" && l.point === "toolCall").map((l) => l.outcome)).toEqual(["Completed"]);
      expect(trace.entries.filter((e) => e.phase === "approval").map((e) => [e.hook, e.action, e.reason])).toEqual([
        ["approval", "Continue", "approved by ai-sdk tool approval: go"],
      ]);
    });
  });
  describe("a tool's own needsApproval, seen by the hooks, the audit log and the trace", () => {
    /** A stack with a guard that counts and an audit log, and a bash tool that asks for approval itself for deploys. */
    const own = () => {
      const out = new PassThrough();
      const seen: string[] = [];
      const settled: unknown[] = [];
      const trace = new Trace();
      const stack = withMiddleware(createAgentStack(), audit({ to: out, redact: false }))
        .use("toolCall", { name: "count", before: (c) => void seen.push(String(c.input.command)) })
        .use("toolCall", { name: "watch", observe: (e) => void settled.push(e.outcome) });
      const log: string[] = [];
      const needy = {
        bash: tool({
          inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } } }),
          needsApproval: async ({ command }: { command: string }) => command.startsWith("deploy"),
          execute: async ({ command }) => (log.push(command), `ran ${command}`),
        }),
      };
      const tools = wrapAiSdkTools(stack, needy, { approval: "ai-sdk", run: { trace } });
      const m = wrapLanguageModel({ model: model(["deploy prod"]), middleware: aiSdkMiddleware(stack) });
      const runs = () =>
        String(out.read() ?? "")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .filter((l) => l.type === "run" && l.point === "toolCall");
      return { seen, settled, trace, stack, log, tools, m, runs };
    };

    const deny = async (
      o: ReturnType<typeof own>,
      first: { readonly content: readonly { type: string; approvalId?: string }[]; readonly response: { messages: ModelMessage[] } },
      reason: string,
    ) => {
      const request = first.content.find((p) => p.type === "tool-approval-request");
      if (request?.approvalId === undefined) throw new Error("no approval request");
      return generateText({
        model: o.m,
        tools: o.tools,
        messages: answered("deploy", first.response.messages, [{ approvalId: request.approvalId, approved: false, reason }]),
        stopWhen: stepCountIs(3),
      });
    };

    it("settles the run that waits at the tool with the denial: Rejected by ai-sdk tool approval with the person's reason", async () => {
      const o = own();
      const first = await generateText({ model: o.m, tools: o.tools, prompt: "deploy", stopWhen: stepCountIs(3) });
      // The hooks ran once, before the person was asked; the run waits at the tool's own question.
      expect(o.seen).toEqual(["deploy prod"]);
      expect(o.settled).toEqual([]);
      const second = await deny(o, first, "not today");
      expect(second.text).toBe('done: {"type":"execution-denied","reason":"not today"}');
      await o.stack.flush();
      expect(o.log).toEqual([]);
      expect(o.seen).toEqual(["deploy prod"]);
      expect(o.settled).toEqual([{ _tag: "Rejected", by: "ai-sdk tool approval", reason: "not today" }]);
      expect(o.runs()).toEqual([expect.objectContaining({ outcome: "Rejected", by: "ai-sdk tool approval", reason: "not today" })]);
      expect(o.trace.entries.filter((e) => e.hook === "ai-sdk tool approval").map((e) => [e.phase, e.action, e.reason])).toEqual([
        ["approval", "Reject", "denied by ai-sdk tool approval: not today"],
        ["before", "Reject", "not today"],
      ]);
    });

    it("records a denial no run here waits on (asked in another process) by a run whose tool is never called", async () => {
      const asking = own();
      const first = await generateText({ model: asking.m, tools: asking.tools, prompt: "deploy", stopWhen: stepCountIs(3) });
      const elsewhere = own();
      await deny(elsewhere, first, "not today");
      await elsewhere.stack.flush();
      expect(elsewhere.log).toEqual([]);
      expect(elsewhere.settled).toEqual([
        { _tag: "Rejected", by: "ai-sdk tool approval", reason: expect.stringMatching(/is not a person's answer .*"not today"/) },
      ]);
      expect(elsewhere.runs()).toEqual([expect.objectContaining({ outcome: "Rejected", by: "ai-sdk tool approval" })]);
      // Further turns of the conversation hold the same denial: it is not recorded again.
      await deny(elsewhere, first, "not today");
      await elsewhere.stack.flush();
      expect(elsewhere.settled).toHaveLength(1);
    });

    it("runs an approved call once, through its hooks once, in the run needsApproval started", async () => {
      const o = own();
      const first = await generateText({ model: o.m, tools: o.tools, prompt: "deploy", stopWhen: stepCountIs(3) });
      const request = first.content.find((p) => p.type === "tool-approval-request");
      const second = await generateText({
        model: o.m,
        tools: o.tools,
        messages: answered("deploy", first.response.messages, [{ approvalId: request!.approvalId, approved: true }]),
        stopWhen: stepCountIs(3),
      });
      expect(second.text).toBe('done: {"type":"text","value":"ran deploy prod"}');
      await o.stack.flush();
      expect(o.log).toEqual(["deploy prod"]);
      expect(o.seen).toEqual(["deploy prod"]);
      expect(o.settled).toEqual([{ _tag: "Completed", value: { content: "ran deploy prod" } }]);
    });

    it("does not ask the person about a call a guard refuses", async () => {
      const log: string[] = [];
      const stack = createAgentStack().use("toolCall", { name: "no-deploy", before: () => Reject("frozen") });
      const needy = {
        bash: tool({
          inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } } }),
          needsApproval: true,
          execute: async ({ command }) => (log.push(command), `ran ${command}`),
        }),
      };
      const result = await generateText({
        model: model(["deploy prod"]),
        tools: wrapAiSdkTools(stack, needy, { approval: "ai-sdk" }),
        prompt: "x",
        stopWhen: stepCountIs(3),
      });
      expect(result.content.filter((p) => p.type === "tool-approval-request")).toEqual([]);
      expect(result.text).toContain("rejected by no-deploy: frozen");
      expect(log).toEqual([]);
    });
  });
});
