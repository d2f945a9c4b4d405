/**
 * The reference agent pauses a turn whose tool call asks a person (durable approvals) and goes on
 * with it, once, with the person's decision: the waiting call runs with it, calls that ran before
 * the pause do not run again, and the turn completes as if it had never stopped.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../src/core/index.ts";
import { ApprovalReplayedError, ApprovalTamperedError } from "../../src/core/interrupt.ts";
import {
  createAgent,
  createAgentStack,
  createScriptedModel,
  defineTool,
  type AgentOptions,
  type PermissionDecision,
  type TurnState,
} from "../../src/agent/index.ts";
import { Replace, durableApprovals } from "../../src/core/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { approval } from "../../src/middleware/approval.ts";
import { Trace } from "../../src/core/trace.ts";
import { guardedAgent } from "../fixtures/approvals/guarded-agent.ts";
import { tempDir } from "../executors/helpers.ts";

const setup = (extra: Partial<AgentOptions> = {}) => {
  const file = join(tempDir(), "runs.log");
  writeFileSync(file, "");
  const ran = () =>
    readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => l.split(" ").slice(1).join(" "));
  return { ...guardedAgent(new MemoryStore(), file, extra), ran, file };
};

describe("a turn that waits for approval", () => {
  it("ends interrupted with its pending approvals and a JSON state, running nothing that waits", async () => {
    const { agent, ran } = setup();
    const session = await agent.session({ sessionId: "s1" });
    const turn = await session.prompt("git status && git push origin main");
    expect(turn).toMatchObject({ status: "interrupted", finishReason: "interrupted", steps: 1, text: "" });
    expect(turn.approvals).toHaveLength(1);
    expect(turn.approvals![0]).toMatchObject({
      point: "toolCall",
      hook: "approval",
      subject: "Bash",
      input: { id: "call-1", name: "Bash", input: { command: "git push origin main" } },
    });
    expect(ran()).toEqual(["git status"]);
    expect(JSON.parse(JSON.stringify(turn.state))).toEqual(turn.state);
    expect(turn.state).toMatchObject({
      v: 1,
      sessionId: "s1",
      runId: turn.runId,
      prompt: "git status && git push origin main",
      history: [],
    });
    expect(turn.state!.pause.step.calls.map((c) => [c.call.id, c.result?.content, c.approval?.id])).toEqual([
      ["call-0", "ran git status", undefined],
      ["call-1", undefined, turn.approvals![0]!.id],
    ]);
    // The conversation waits for the turn to finish.
    expect(session.messages).toEqual([]);
  });

  it("resumed with an approval, runs only the waiting call and completes the turn", async () => {
    const { agent, approvals, ran, model } = setup();
    const session = await agent.session({ sessionId: "s2" });
    const paused = await session.prompt("git status && git push origin main");
    const id = paused.approvals![0]!.id;
    const turn = await session.resume(paused.state!, { [id]: { decision: "approve", by: "alice" } }, { approvals });
    expect(turn).toMatchObject({
      status: "completed",
      finishReason: "stop",
      runId: paused.runId,
      steps: 2,
      text: "done (Bash: ran git status; Bash: ran git push origin main)",
    });
    expect(ran()).toEqual(["git status", "git push origin main"]);
    expect(session.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "assistant"]);
    // The model read both results in the order it called the tools.
    expect(
      model.requests
        .at(-1)!
        .messages.filter((m) => m.role === "tool")
        .map((m) => m.toolCallId),
    ).toEqual(["call-0", "call-1"]);
  });

  it("resumed with a denial or a malformed answer, tells the model the call was refused, running nothing", async () => {
    for (const decision of [{ decision: "deny", reason: "not today" }, false, "approve", { decision: "approved" }, {}]) {
      const { agent, approvals, ran } = setup();
      const paused = await agent.run("git push origin main");
      const turn = await agent.resume(paused.state!, { [paused.approvals![0]!.id]: decision }, { approvals });
      expect(turn.status, JSON.stringify(decision)).toBe("completed");
      expect(turn.text).toMatch(/^done \(Bash: Tool call Bash was rejected by approval: Bash was not approved: /);
      expect(ran()).toEqual([]);
    }
  });

  it("an edit runs through the guards again: one the deny rule blocks never runs", async () => {
    const { agent, approvals, ran } = setup();
    const paused = await agent.run("git push origin main");
    const asked = paused.approvals![0]!;
    const edit = { decision: "edit", input: { ...(asked.input as object), input: { command: "rm -rf /tmp/x" } } };
    const turn = await agent.resume(paused.state!, { [asked.id]: edit }, { approvals });
    expect(turn.status).toBe("completed");
    expect(turn.text).toContain('matches deny rule "Bash(rm *)"');
    expect(ran()).toEqual([]);
  });

  it("resumes once: the same state again is refused with ApprovalReplayedError", async () => {
    const { agent, approvals, ran } = setup();
    const paused = await agent.run("git push origin main");
    const decisions = { [paused.approvals![0]!.id]: { decision: "approve" } };
    expect((await agent.resume(paused.state!, decisions, { approvals })).status).toBe("completed");
    await expect(agent.resume(paused.state!, decisions, { approvals })).rejects.toBeInstanceOf(ApprovalReplayedError);
    expect(ran()).toEqual(["git push origin main"]);
  });

  it("a changed token or a call swapped in the state is refused, and a tampered token consumes nothing", async () => {
    const { agent, approvals, ran } = setup();
    const paused = await agent.run("git push origin main");
    const state = paused.state!;
    const id = paused.approvals![0]!.id;
    const withToken = (token: string): TurnState => ({
      ...state,
      pause: {
        ...state.pause,
        step: { ...state.pause.step, calls: state.pause.step.calls.map((c) => ({ ...c, approval: { ...c.approval!, token } })) },
      },
    });
    const token = paused.approvals![0]!.token;
    await expect(
      agent.resume(withToken(`${token.slice(0, -2)}xx`), { [id]: { decision: "approve" } }, { approvals }),
    ).rejects.toBeInstanceOf(ApprovalTamperedError);
    const swapped: TurnState = {
      ...state,
      pause: {
        ...state.pause,
        step: { ...state.pause.step, calls: state.pause.step.calls.map((c) => ({ ...c, call: { ...c.call, id: "other" } })) },
      },
    };
    await expect(agent.resume(swapped, { [id]: { decision: "approve" } }, { approvals })).rejects.toBeInstanceOf(ApprovalTamperedError);
    expect(ran()).toEqual([]);
  });

  it("refuses missing and unknown decisions, and a state of another session, before claiming anything", async () => {
    const { agent, approvals, ran } = setup();
    const session = await agent.session({ sessionId: "s3" });
    const paused = await session.prompt("git push origin main");
    const id = paused.approvals![0]!.id;
    await expect(session.resume(paused.state!, {}, { approvals })).rejects.toThrow(`no decision for approval ${id}`);
    await expect(
      session.resume(paused.state!, { [id]: { decision: "approve" }, x: { decision: "approve" } }, { approvals }),
    ).rejects.toThrow("approval x is not one this turn waits for");
    const other = await agent.session({ sessionId: "s4" });
    await expect(other.resume(paused.state!, { [id]: { decision: "approve" } }, { approvals })).rejects.toThrow("belongs to session s3");
    await expect(session.resume(paused.state!, { [id]: { decision: "approve" } }, {} as never)).rejects.toThrow("options.approvals");
    // None of these consumed the token.
    expect((await session.resume(paused.state!, { [id]: { decision: "approve" } }, { approvals })).status).toBe("completed");
    expect(ran()).toEqual(["git push origin main"]);
  });

  it("a resumed turn whose next step asks again pauses again, and resumes from there", async () => {
    const { agent, approvals, ran } = setup();
    const session = await agent.session({ sessionId: "s5" });
    const first = await session.prompt("git push origin a");
    expect((await session.resume(first.state!, { [first.approvals![0]!.id]: { decision: "approve" } }, { approvals })).status).toBe(
      "completed",
    );
    const second = await session.prompt("git push origin b && git push origin c");
    expect(second.approvals).toHaveLength(2);
    const [b, c] = second.approvals!;
    const done = await session.resume(
      second.state!,
      { [b!.id]: { decision: "approve" }, [c!.id]: { decision: "deny", reason: "c is frozen" } },
      { approvals },
    );
    expect(done.status).toBe("completed");
    expect(done.text).toContain("c is frozen");
    expect(ran()).toEqual(["git push origin a", "git push origin b"]);
    expect(session.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual([
      "git push origin a",
      "git push origin b && git push origin c",
    ]);
  });

  it("records the person's decision in the trace of the resumed turn", async () => {
    const trace = new Trace();
    const { agent, approvals } = setup({ trace });
    const paused = await agent.run("git push origin main");
    const id = paused.approvals![0]!.id;
    expect(trace.entries.filter((e) => e.phase === "approval").map((e) => [e.hook, e.action])).toEqual([["approval", "Reject"]]);
    await agent.resume(paused.state!, { [id]: { decision: "approve", by: "alice" } }, { approvals });
    expect(trace.entries.filter((e) => e.phase === "approval").at(-1)).toMatchObject({
      hook: "approval",
      action: "Continue",
      reason: `approved by alice (resumed approval ${id})`,
    });
  });

  it("a sub-agent's call that asks is refused to the sub-agent's model: its run cannot pause", async () => {
    const { file } = setup();
    const helperModel = createScriptedModel({
      turns: [{ toolCalls: [{ id: "h1", name: "Bash", input: { command: "git push origin main" } }] }, "the push waits"],
    });
    const bash = defineTool<{ command: string }>({ name: "Bash", execute: ({ command }) => `ran ${command}` });
    const root = createScriptedModel({ turns: [{ toolCalls: [{ id: "r1", name: "helper", input: { prompt: "push" } }] }, "ok"] });
    const { agent } = guardedAgent(new MemoryStore(), file, {
      model: root,
      subagents: [{ name: "helper", model: helperModel, tools: [bash] }],
    });
    const turn = await agent.run("delegate");
    expect(turn.status).toBe("completed");
    const seen = helperModel.requests.at(-1)!.messages.find((m) => m.role === "tool");
    expect(seen).toMatchObject({
      isError: true,
      content: expect.stringMatching(
        /^Tool call Bash was rejected by approval: it needs a person's approval \(approval .+\), which a sub-agent cannot wait for$/,
      ),
    });
  });

  it("pauses and resumes a streaming agent the same way", async () => {
    const { agent, approvals, ran } = setup({ stream: true });
    const paused = await agent.run("git status && git push origin main");
    expect(paused.status).toBe("interrupted");
    const turn = await agent.resume(paused.state!, { [paused.approvals![0]!.id]: { decision: "approve" } }, { approvals });
    expect(turn).toMatchObject({ status: "completed", text: "done (Bash: ran git status; Bash: ran git push origin main)" });
    expect(ran()).toEqual(["git status", "git push origin main"]);
  });

  it("lets permissionRequest hooks answer first, and pauses only for the calls none answers", async () => {
    const ran: string[] = [];
    const approvals = durableApprovals({ store: new MemoryStore(), key: "a-test-key-of-at-least-32-bytes!!" });
    const stack = withMiddleware(createAgentStack({ approval: approvals }), approval({ match: "Bash" })).use("permissionRequest", {
      name: "reads-are-fine",
      match: "Bash(git status*)",
      before: () => Replace({ behavior: "allow" } satisfies PermissionDecision),
    });
    const bash = defineTool<{ command: string }>({ name: "Bash", execute: ({ command }) => (ran.push(command), `ran ${command}`) });
    const model = createScriptedModel({
      turns: [
        {
          toolCalls: [
            { id: "a", name: "Bash", input: { command: "git status" } },
            { id: "b", name: "Bash", input: { command: "git push" } },
          ],
        },
        "ok",
      ],
    });
    const agent = createAgent({ model, stack, tools: [bash] });
    const paused = await agent.run("go");
    expect(paused.status).toBe("interrupted");
    expect(paused.approvals!.map((a) => (a.input as { id: string }).id)).toEqual(["b"]);
    expect(ran).toEqual(["git status"]);
    const done = await agent.resume(paused.state!, { [paused.approvals![0]!.id]: { decision: "approve" } }, { approvals });
    expect(done).toMatchObject({ status: "completed", text: "ok" });
    expect(ran).toEqual(["git status", "git push"]);
  });

  it("keeps the paused turn's metadata on resume, under the resuming session's and the caller's", async () => {
    const seen: Record<string, unknown>[] = [];
    const approvals = durableApprovals({ store: new MemoryStore(), key: "a-test-key-of-at-least-32-bytes!!" });
    const stack = withMiddleware(createAgentStack({ approval: approvals }), approval({ match: "Bash" })).use("toolCall", {
      name: "watch",
      before: (_c, ctx) => void seen.push({ ...ctx.metadata }),
    });
    const bash = defineTool<{ command: string }>({ name: "Bash", execute: () => "done" });
    const model = createScriptedModel({
      turns: [],
      whenDone: (r) =>
        r.messages.at(-1)?.role === "tool" ? "ok" : { toolCalls: [{ id: "c1", name: "Bash", input: { command: "git push" } }] },
    });
    const agent = createAgent({ model, stack, tools: [bash], metadata: { tenant: "t1", region: "eu" } });
    const paused = await agent.run("go", { metadata: { ticket: "T-1" } });
    expect(paused.state!.metadata).toMatchObject({ tenant: "t1", region: "eu", ticket: "T-1" });
    const done = await agent.resume(
      paused.state!,
      { [paused.approvals![0]!.id]: { decision: "approve" } },
      { approvals, metadata: { region: "us" } },
    );
    expect(done.status).toBe("completed");
    expect(seen.at(-1)).toMatchObject({ tenant: "t1", ticket: "T-1", region: "us" });
  });
});
