/**
 * wrapAiSdkTools with `approval: "ai-sdk"` and durable approvals, with the real `ai` package and
 * its mock model: a hook that asks pauses the call's run at once (`Interrupted`, a signed pending
 * approval in the store) while the SDK ends the step with its `tool-approval-request`; the person's
 * `tool-approval-response`, handed back to another deployment over the same store (a second
 * process, or this one after a restart), resumes that run there, exactly once. Here the
 * "processes" share a MemoryStore; ai-sdk-approval-process.test.ts does the same across OS
 * processes on a real redis-server.
 */
import { generateText, jsonSchema, simulateReadableStream, stepCountIs, streamText, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { aiSdkMiddleware } from "../../src/adapters/ai-sdk.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { durableApprovals, MemoryStore } from "../../src/core/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { approval } from "../../src/middleware/approval.ts";
import { wrapAiSdkTools } from "../../src/adapters/ai-sdk-tools.ts";
import { gc } from "../support/gc.ts";
import { approvalKey, deployment, scriptedModel } from "./ai-sdk-approval-fixture.ts";
import { textParts } from "./ai-sdk-fixtures.ts";

/** A stack over `store` that asks before `git push` and keeps every toolCall outcome it settles. */
const watchedStack = (store: MemoryStore) => {
  const settled: unknown[] = [];
  const stack = withMiddleware(
    createAgentStack({ approval: durableApprovals({ store, key: approvalKey }) }),
    approval({ match: "bash(git push*)" }),
  ).use("toolCall", { name: "watch", observe: (e) => void settled.push(e.outcome) });
  return { stack, settled };
};

const runLines = (lines: readonly Record<string, unknown>[]) => lines.filter((l) => l.type === "run" && l.point === "toolCall");

/** One store, and a deployment asking in "process 1". */
const asked = async (command: string, toolCallId: string, options: { ownApproval?: boolean } = {}) => {
  const store = new MemoryStore();
  const first = deployment(store, options);
  const question = await first.ask(command, toolCallId);
  if (question.approvalId === undefined) throw new Error("no approval request");
  await first.stack.flush();
  return { store, first, question: { messages: question.messages, approvalId: question.approvalId } };
};

describe('wrapAiSdkTools with approval: "ai-sdk" and durable approvals', () => {
  it("pauses the call's run at once, Interrupted, with its pending approval linked to the tool call id in the store", async () => {
    const { first } = await asked("git push origin main", "call-push");
    expect(first.recorded.ran).toEqual([]);
    const [line] = runLines(first.recorded.lines());
    expect(line).toMatchObject({ outcome: "Rejected", by: "approval", approval: expect.any(String), sessionId: "s1" });
    const token = await first.approvals.linked("ai-sdk:call-push");
    expect(token).toBeDefined();
    expect(await first.approvals.inspect(token as string)).toMatchObject({
      id: line?.approval,
      hook: "approval",
      subject: "bash",
      input: { id: "call-push", name: "bash", input: { command: "git push origin main" } },
    });
  });

  it("resumes the paused run where the approval comes back: the tool runs once there, and the trace and audit log say who approved", async () => {
    const { store, first, question } = await asked("git push origin main", "call-push");
    const id = runLines(first.recorded.lines())[0]?.approval;
    const second = deployment(store);
    const answered = await second.answer(question, true, "go", { middleware: true });
    expect(answered.text).toBe('done: {"type":"text","value":"ran git push origin main"}');
    expect(second.recorded.ran).toEqual(["git push origin main"]);
    // The guard outside the asking hook ran again for the resumed run.
    expect(second.recorded.seen).toEqual(["git push origin main"]);
    expect(runLines(second.recorded.lines())).toEqual([expect.objectContaining({ outcome: "Completed", sessionId: "s1" })]);
    expect(second.recorded.lines().filter((l) => l.type === "decision" && l.phase === "approval")).toEqual([
      expect.objectContaining({
        hook: "approval",
        action: "Continue",
        reason: `approved by ai-sdk tool approval (resumed approval ${id}): go`,
      }),
    ]);
    expect(second.recorded.trace.entries.filter((e) => e.phase === "approval").map((e) => e.reason)).toEqual([
      `approved by ai-sdk tool approval (resumed approval ${id}): go`,
    ]);
    expect(first.recorded.ran).toEqual([]);
  });

  it("resumes nothing for an answer handed back again: the call does not run twice, and no run is recorded for it", async () => {
    const { store, question } = await asked("git push origin main", "call-push");
    const second = deployment(store);
    await second.answer(question, true, "go", { middleware: true });
    const third = deployment(store);
    const again = await third.answer(question, true, "go", { middleware: true });
    expect(third.recorded.ran).toEqual([]);
    expect(second.recorded.ran).toHaveLength(1);
    // The SDK executed the approved call again; the model reads that it was answered before.
    expect(again.text).toMatch(
      /^done: \{"type":"error-text","value":"Tool call bash was rejected by ai-sdk tool approval: approval [0-9a-f-]{36} was already answered/,
    );
    expect(runLines(third.recorded.lines())).toEqual([]);
  });

  it("records a denial handed back to another process as the asking hook's rejection with the person's reason, read from the next provider call", async () => {
    const { store, first, question } = await asked("git push origin main", "call-push");
    const id = runLines(first.recorded.lines())[0]?.approval;
    const second = deployment(store);
    const answered = await second.answer(question, false, "frozen", { middleware: true });
    expect(answered.text).toBe('done: {"type":"execution-denied","reason":"frozen"}');
    expect(second.recorded.ran).toEqual([]);
    expect(runLines(second.recorded.lines())).toEqual([
      expect.objectContaining({ outcome: "Rejected", by: "approval", reason: "bash was not approved: frozen", sessionId: "s1" }),
    ]);
    expect(second.recorded.trace.entries.filter((e) => e.point === "toolCall").map((e) => [e.hook, e.phase, e.action, e.reason])).toEqual([
      ["approval", "approval", "Reject", `denied by ai-sdk tool approval (resumed approval ${id}): frozen`],
      ["approval", "before", "Reject", "bash was not approved: frozen"],
    ]);
    // Handed back once more (a retried request): nothing is resumed, nothing recorded, nothing thrown.
    const third = deployment(store);
    const again = await third.answer(question, false, "frozen", { middleware: true });
    expect(again.text).toBe('done: {"type":"execution-denied","reason":"frozen"}');
    expect(runLines(third.recorded.lines())).toEqual([]);
  });

  it("reads a denial from the prompt of a streamed provider call too", async () => {
    const { store, question } = await asked("git push origin main", "call-push");
    const second = deployment(store);
    const streaming = new MockLanguageModelV3({
      doStream: async () => ({ stream: simulateReadableStream({ chunks: textParts(["ok"]) as never[] }) }),
    });
    const result = streamText({
      model: wrapLanguageModel({ model: streaming, middleware: aiSdkMiddleware(second.stack) }),
      tools: second.tools,
      messages: [
        ...question.messages,
        { role: "tool", content: [{ type: "tool-approval-response", approvalId: question.approvalId, approved: false, reason: "frozen" }] },
      ],
      stopWhen: stepCountIs(2),
    });
    expect(await result.text).toBe("ok");
    await second.stack.flush();
    expect(runLines(second.recorded.lines()).map((l) => [l.outcome, l.reason])).toEqual([["Rejected", "bash was not approved: frozen"]]);
  });

  it("keeps reading denials for tools in use after the object they were wrapped in is gone", async () => {
    const { store, question } = await asked("git push origin main", "call-push");
    const { stack, settled } = watchedStack(store);
    const ran: string[] = [];
    const raw = {
      bash: tool({
        inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } } }),
        execute: async ({ command }) => (ran.push(command), `ran ${command}`),
      }),
    };
    // The tools taken out of their wrapped set, which is then dropped (and collected).
    const { bash } = wrapAiSdkTools(stack, raw, { approval: "ai-sdk" });
    // A weak reference made in this job holds its target until the job ends.
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    await generateText({
      model: wrapLanguageModel({ model: scriptedModel("", ""), middleware: aiSdkMiddleware(stack) }),
      tools: { bash },
      messages: [
        ...question.messages,
        { role: "tool", content: [{ type: "tool-approval-response", approvalId: question.approvalId, approved: false, reason: "frozen" }] },
      ],
      stopWhen: stepCountIs(2),
    });
    await stack.flush();
    expect(settled).toEqual([{ _tag: "Rejected", by: "approval", reason: "bash was not approved: frozen" }]);
    expect(ran).toEqual([]);
  });

  it("lets a tool set wrapped per request go with it: once collected, it reads nothing", async () => {
    const { store, question } = await asked("git push origin main", "call-push");
    const { stack, settled } = watchedStack(store);
    const raw = {
      bash: tool({ inputSchema: jsonSchema<{ command: string }>({ type: "object" }), execute: async ({ command }) => `ran ${command}` }),
    };
    for (let i = 0; i < 20; i++) wrapAiSdkTools(stack, raw, { approval: "ai-sdk" });
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    await generateText({
      model: wrapLanguageModel({ model: scriptedModel("", ""), middleware: aiSdkMiddleware(stack) }),
      tools: raw,
      messages: [
        ...question.messages,
        { role: "tool", content: [{ type: "tool-approval-response", approvalId: question.approvalId, approved: false, reason: "frozen" }] },
      ],
      stopWhen: stepCountIs(2),
    });
    await stack.flush();
    expect(settled).toEqual([]);
  });

  it("reads a denial from the next call of a wrapped tool when the model does not go through aiSdkMiddleware", async () => {
    const { store, question } = await asked("git push origin main", "call-push");
    const second = deployment(store);
    await second.answer(question, false, "frozen", { middleware: false, next: { command: "git status", toolCallId: "call-status" } });
    expect(second.recorded.ran).toEqual(["git status"]);
    expect(runLines(second.recorded.lines()).map((l) => [l.outcome, l.reason ?? null])).toEqual([
      ["Rejected", "bash was not approved: frozen"],
      ["Completed", null],
    ]);
  });

  it("resumes a denial once when both the middleware and a tool read it", async () => {
    const { store, question } = await asked("git push origin main", "call-push");
    const second = deployment(store);
    await second.answer(question, false, "frozen", { middleware: true, next: { command: "git status", toolCallId: "call-status" } });
    expect(runLines(second.recorded.lines()).map((l) => [l.outcome, l.reason ?? null])).toEqual([
      ["Rejected", "bash was not approved: frozen"],
      ["Completed", null],
    ]);
  });

  it("resumes one of two deployments handed the same approval at the same moment; the other runs nothing and records nothing", async () => {
    const { store, question } = await asked("git push origin main", "call-push");
    const [a, b] = [deployment(store), deployment(store)];
    const [ra, rb] = await Promise.all([
      a.answer(question, true, "go", { middleware: true }),
      b.answer(question, true, "go", { middleware: true }),
    ]);
    expect([...a.recorded.ran, ...b.recorded.ran]).toEqual(["git push origin main"]);
    expect([...runLines(a.recorded.lines()), ...runLines(b.recorded.lines())].map((l) => l.outcome)).toEqual(["Completed"]);
    expect([ra.text, rb.text].filter((t) => t.includes("was already answered"))).toHaveLength(1);
  });

  describe("a tool's own needsApproval", () => {
    it("pauses the run at the gate named ai-sdk tool approval, after the hooks outside it let the call through", async () => {
      const { first } = await asked("deploy prod", "call-deploy", { ownApproval: true });
      expect(first.recorded.seen).toEqual(["deploy prod"]);
      expect(runLines(first.recorded.lines())).toEqual([
        expect.objectContaining({ outcome: "Rejected", by: "ai-sdk tool approval", approval: expect.any(String) }),
      ]);
    });

    it("records a denial in another process as the call's rejection by ai-sdk tool approval with the person's reason; the tool never runs", async () => {
      const { store, first, question } = await asked("deploy prod", "call-deploy", { ownApproval: true });
      const second = deployment(store, { ownApproval: true });
      await second.answer(question, false, "not today", { middleware: true });
      expect(second.recorded.ran).toEqual([]);
      expect(runLines(second.recorded.lines())).toEqual([
        expect.objectContaining({ outcome: "Rejected", by: "ai-sdk tool approval", reason: "not today" }),
      ]);
      const id = runLines(first.recorded.lines())[0]?.approval;
      expect(
        second.recorded.trace.entries.filter((e) => e.hook === "ai-sdk tool approval").map((e) => [e.phase, e.action, e.reason]),
      ).toEqual([
        ["approval", "Reject", `denied by ai-sdk tool approval (resumed approval ${id}): not today`],
        ["before", "Reject", "not today"],
      ]);
    });

    it("answers both questions of a call with one approval: the hook's that paused the run, and the tool's own", async () => {
      const { store, first, question } = await asked("git push --force", "call-force", { ownApproval: true });
      // The approval middleware, outside the gate, asked first: it paused the run.
      expect(runLines(first.recorded.lines())).toEqual([expect.objectContaining({ outcome: "Rejected", by: "approval" })]);
      const second = deployment(store, { ownApproval: true });
      await second.answer(question, true, "ok", { middleware: true });
      expect(second.recorded.ran).toEqual(["git push --force"]);
      expect(runLines(second.recorded.lines()).map((l) => l.outcome)).toEqual(["Completed"]);
    });

    it("runs an approved call once, through its hooks, in the process the approval comes back to", async () => {
      const { store, first, question } = await asked("deploy prod", "call-deploy", { ownApproval: true });
      const second = deployment(store, { ownApproval: true });
      const answered = await second.answer(question, true, "ok", { middleware: true });
      expect(answered.text).toBe('done: {"type":"text","value":"ran deploy prod"}');
      expect(second.recorded.ran).toEqual(["deploy prod"]);
      expect(runLines(second.recorded.lines()).map((l) => l.outcome)).toEqual(["Completed"]);
      const id = runLines(first.recorded.lines())[0]?.approval;
      expect(second.recorded.trace.entries.filter((e) => e.phase === "approval").map((e) => [e.hook, e.reason])).toEqual([
        ["ai-sdk tool approval", `approved by ai-sdk tool approval (resumed approval ${id}): ok`],
      ]);
    });
  });
});
