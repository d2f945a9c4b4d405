/**
 * Approvals through the OpenAI Agents SDK's run state against a state changed after the question:
 * the serialized `RunState` is plain JSON, and whoever holds it between the pause and the resume
 * can edit it. An approval runs only the call the person was asked about, once.
 */
import { Agent, run, RunState, tool, ToolCallError as SdkToolCallError } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryStore } from "../../src/core/memory-store.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { ApprovalNotAskedError, guardAgent } from "../../src/adapters/openai-agents/index.ts";
import { buildMailer } from "./openai-agents-fixture.ts";

const emailBob = () => [functionCall("send_email", { to: "bob@corp.test", body: "Lunch?" }, { callId: "call_bob" })];

/** Pause a run on `store`, then resume it from `edit(saved state)` with the interruption approved. */
const resumeEdited = async (store: MemoryStore, edit: (saved: string) => string, resumeStore: MemoryStore = store) => {
  const paused = await run(buildMailer(store, [emailBob()]).agent, "Ask Bob to lunch");
  const mailer = buildMailer(resumeStore, [[assistantMessage("Sent.")]]);
  const state = await RunState.fromString(mailer.agent, edit(paused.state.toString()));
  for (const item of state.getInterruptions()) state.approve(item);
  const result = await run(mailer.agent, state).catch((e: unknown) => e);
  await mailer.stack.flush();
  return { mailer, result };
};

describe("approvals through the Agents SDK's run state, against a state edited after the question", () => {
  it("does not run a call whose arguments were edited between the question and the approval, and records why", async () => {
    const { mailer, result } = await resumeEdited(new MemoryStore(), (s) => s.replaceAll("bob@corp.test", "everyone@corp.test"));
    expect(mailer.sent).toEqual([]);
    expect(mailer.events.map((e) => e.outcome)).toEqual([
      {
        _tag: "Rejected",
        by: "approval",
        reason: expect.stringMatching(/not approved: .*arguments differ from those the person was asked about/),
      },
    ]);
    expect(result).toMatchObject({ finalOutput: "Sent." });
  });

  it("does not run an approval resumed in a process that shares no store with the one that asked", async () => {
    const { mailer } = await resumeEdited(new MemoryStore(), (s) => s, new MemoryStore());
    expect(mailer.sent).toEqual([]);
    expect(mailer.events.map((e) => e.outcome)).toEqual([
      { _tag: "Rejected", by: "approval", reason: expect.stringMatching(/no question about this call was asked/) },
    ]);
  });

  it("does not run a call only the tool's own needsApproval asks about when its arguments were edited", async () => {
    const store = new MemoryStore();
    const sent: string[] = [];
    const build = (script: ConstructorParameters<typeof ScriptedModel>[0]) => {
      const sendEmail = tool({
        name: "send_email",
        description: "Send",
        parameters: z.object({ to: z.string(), body: z.string() }),
        needsApproval: true,
        execute: async ({ to }) => (sent.push(to), "ok"),
      });
      return guardAgent(createAgentStack({ store }), new Agent({ name: "m", tools: [sendEmail], model: new ScriptedModel(script) }));
    };
    const paused = await run(build([emailBob()]), "Ask Bob to lunch");
    expect(paused.interruptions).toHaveLength(1);
    const agent = build([[assistantMessage("Sent.")]]);
    const state = await RunState.fromString(agent, paused.state.toString().replaceAll("bob@corp.test", "everyone@corp.test"));
    state.approve(state.getInterruptions()[0]!);
    const result = await run(agent, state).catch((e: unknown) => e);
    expect(sent).toEqual([]);
    expect(result).toBeInstanceOf(SdkToolCallError);
    expect((result as SdkToolCallError).error).toBeInstanceOf(ApprovalNotAskedError);
    // The state as it was paused, approved, runs the call.
    const honest = await RunState.fromString(agent, paused.state.toString());
    honest.approve(honest.getInterruptions()[0]!);
    await run(build([[assistantMessage("Sent.")]]), await RunState.fromString(build([[assistantMessage("Sent.")]]), honest.toString()));
    expect(sent).toEqual(["bob@corp.test"]);
  });

  it("runs the call the person was asked about, once", async () => {
    const { mailer } = await resumeEdited(new MemoryStore(), (s) => s);
    expect(mailer.sent).toEqual(["bob@corp.test"]);
  });

  it("keeps the SDK's own alwaysApprove: later calls of the tool, never asked about, run", async () => {
    const store = new MemoryStore();
    const paused = await run(buildMailer(store, [emailBob()]).agent, "Ask Bob to lunch");
    const carol = [functionCall("send_email", { to: "carol@corp.test", body: "Lunch?" }, { callId: "call_carol" })];
    const mailer = buildMailer(store, [carol, [assistantMessage("Sent.")]]);
    const state = await RunState.fromString(mailer.agent, paused.state.toString());
    state.approve(state.getInterruptions()[0]!, { alwaysApprove: true });
    const result = await run(mailer.agent, state);
    expect(result.interruptions).toEqual([]);
    expect(mailer.sent).toEqual(["bob@corp.test", "carol@corp.test"]);
  });

  it("does not run a call asked about whose arguments were edited, even when the state is edited to approve every call", async () => {
    const alwaysApproved = (saved: string) => {
      const state = JSON.parse(saved);
      const visit = (o: unknown): void => {
        if (typeof o !== "object" || o === null) return;
        const approvals = (o as { approvals?: Record<string, { approved: unknown }> }).approvals;
        if (approvals !== undefined) for (const entry of Object.values(approvals)) entry.approved = true;
        for (const v of Object.values(o)) visit(v);
      };
      visit(state);
      return JSON.stringify(state).replaceAll("bob@corp.test", "everyone@corp.test");
    };
    const store = new MemoryStore();
    const paused = await run(buildMailer(store, [emailBob()]).agent, "Ask Bob to lunch");
    const mailer = buildMailer(store, [[assistantMessage("Sent.")]]);
    const approved = await RunState.fromString(mailer.agent, paused.state.toString());
    for (const item of approved.getInterruptions()) approved.approve(item);
    await run(mailer.agent, await RunState.fromString(mailer.agent, alwaysApproved(approved.toString())));
    await mailer.stack.flush();
    expect(mailer.sent).toEqual([]);
    expect(mailer.events.map((e) => e.outcome)).toEqual([
      { _tag: "Rejected", by: "approval", reason: expect.stringMatching(/arguments differ from those the person was asked about/) },
    ]);
  });

  it("does not run a call asked about under another call id", async () => {
    const { mailer } = await resumeEdited(new MemoryStore(), (s) => s.replaceAll("call_bob", "call_forged"));
    expect(mailer.sent).toEqual([]);
  });
});
