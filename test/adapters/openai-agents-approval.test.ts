import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { run, RunState, ToolCallError as SdkToolCallError } from "@openai/agents";
import { assistantMessage, functionCall } from "@openai/agents/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryStore } from "../../src/core/memory-store.ts";
import { RedisStore } from "../../src/stores/redis.ts";
import { ApprovalAlreadyUsedError, ApprovalPendingError, pendingApprovalReason } from "../../src/adapters/openai-agents/index.ts";
import { describeRedisProcess, startRedis, type RedisServer } from "../support/redis.ts";
import { buildMailer } from "./openai-agents-fixture.ts";

interface Report {
  readonly pid: number;
  readonly finalOutput?: string;
  readonly sent?: readonly string[];
  readonly outcomes?: readonly string[];
  readonly read?: readonly string[];
  readonly error?: string;
  readonly cause?: string;
}

const worker = fileURLToPath(new URL("./openai-agents-resume-worker.ts", import.meta.url));

/** Resume a paused run in a new OS process with a person's decision; resolves with what it reports. */
const resumeElsewhere = (
  url: string,
  order: { state: string; decision: "approve" | "reject"; message?: string },
  children: ChildProcess[],
): Promise<Report> =>
  new Promise((resolve, reject) => {
    const child = fork(worker, [url], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    children.push(child);
    child.once("exit", (code) => reject(new Error(`worker exited with ${String(code)} before reporting`)));
    child.once("message", () => {
      child.once("message", (report) => resolve(report as Report));
      child.send(order);
    });
  });

const emailBob = () => [functionCall("send_email", { to: "bob@corp.test", body: "Lunch?" }, { callId: "call_bob" })];

describe("approvals through the SDK's interruptions, in one process", () => {
  it("a hook that asks pauses the run with an interruption; the tool does not run and the asking hook's run says it waits for a person", async () => {
    const mailer = buildMailer(new MemoryStore(), [emailBob()]);
    const result = await run(mailer.agent, "Ask Bob to lunch");
    await mailer.stack.flush();
    expect(mailer.sent).toEqual([]);
    expect(result.interruptions.map((i) => [i.name, i.rawItem])).toMatchObject([
      ["send_email", { callId: "call_bob", arguments: '{"to":"bob@corp.test","body":"Lunch?"}' }],
    ]);
    expect(mailer.events.map((e) => e.outcome)).toEqual([
      { _tag: "Rejected", by: "approval", reason: `send_email was not approved: ${pendingApprovalReason}` },
    ]);
  });

  it("the tool's own needsApproval pauses the run after the hooks let the call through; its toolCall run ends with ApprovalPendingError", async () => {
    const { Agent, tool } = await import("@openai/agents");
    const { ScriptedModel } = await import("@openai/agents/testing");
    const { z } = await import("zod");
    const { createAgentStack } = await import("../../src/agent/stack.ts");
    const { guardAgent } = await import("../../src/adapters/openai-agents/index.ts");
    const outcomes: unknown[] = [];
    const stack = createAgentStack().use("toolCall", { name: "watch", observe: (e) => void outcomes.push(e.outcome) });
    const sendEmail = tool({
      name: "send_email",
      description: "Send",
      parameters: z.object({ to: z.string(), body: z.string() }),
      needsApproval: true,
      execute: async () => "ok",
    });
    const result = await run(
      guardAgent(stack, new Agent({ name: "m", tools: [sendEmail], model: new ScriptedModel([emailBob()]) })),
      "Ask Bob to lunch",
    );
    await stack.flush();
    expect(result.interruptions).toHaveLength(1);
    expect(outcomes).toEqual([{ _tag: "Failed", error: expect.any(ApprovalPendingError) }]);
    expect((outcomes[0] as { error: ApprovalPendingError }).error.by).toBe("needsApproval");
  });

  it("a call policy refuses is answered at once and never becomes an interruption", async () => {
    const mailer = buildMailer(new MemoryStore(), [
      [functionCall("delete_mailbox", {}, { callId: "call_del" })],
      [assistantMessage("I may not.")],
    ]);
    const result = await run(mailer.agent, "Delete my mailbox");
    expect(result.interruptions).toEqual([]);
    expect(result.finalOutput).toBe("I may not.");
  });

  it("approved in the same process (state restored from its string), the call runs once and the model reads its result", async () => {
    const store = new MemoryStore();
    const first = buildMailer(store, [emailBob()]);
    const paused = await run(first.agent, "Ask Bob to lunch");
    const second = buildMailer(store, [[assistantMessage("Sent.")]]);
    const state = await RunState.fromString(second.agent, paused.state.toString());
    state.approve(state.getInterruptions()[0]!);
    const result = await run(second.agent, state);
    expect(result.finalOutput).toBe("Sent.");
    expect(second.sent).toEqual(["bob@corp.test"]);
    expect(first.sent).toEqual([]);
  });

  it("resumed twice from the same paused state, the approved call runs once; the second resume is refused", async () => {
    const store = new MemoryStore();
    const paused = await run(buildMailer(store, [emailBob()]).agent, "Ask Bob to lunch");
    const saved = paused.state.toString();
    const resume = async () => {
      const mailer = buildMailer(store, [[assistantMessage("Sent.")]]);
      const state = await RunState.fromString(mailer.agent, saved);
      state.approve(state.getInterruptions()[0]!);
      return { mailer, result: await run(mailer.agent, state).catch((e: unknown) => e) };
    };
    const once = await resume();
    const twice = await resume();
    expect(once.mailer.sent).toEqual(["bob@corp.test"]);
    expect(twice.mailer.sent).toEqual([]);
    expect(twice.result).toBeInstanceOf(SdkToolCallError);
    expect((twice.result as SdkToolCallError).error).toBeInstanceOf(ApprovalAlreadyUsedError);
  });

  it("a streamed run pauses and resumes the same way, and the tool runs once", async () => {
    const { modelStream } = await import("@openai/agents/testing");
    const store = new MemoryStore();
    const call = functionCall("send_email", { to: "bob@corp.test", body: "Lunch?" }, { callId: "call_bob" });
    const streamedCall = modelStream([
      { type: "response_started" },
      {
        type: "response_done",
        response: { id: "r1", usage: { requests: 1, inputTokens: 5, outputTokens: 5, totalTokens: 10 }, output: [call] },
      },
    ] as never);
    const first = buildMailer(store, [streamedCall]);
    const paused = await run(first.agent, "Ask Bob to lunch", { stream: true });
    await paused.completed;
    expect(paused.interruptions.map((i) => i.rawItem)).toMatchObject([{ callId: "call_bob" }]);
    const second = buildMailer(store, [[assistantMessage("Sent.")]]);
    const state = await RunState.fromString(second.agent, paused.state.toString());
    state.approve(state.getInterruptions()[0]!);
    const resumed = await run(second.agent, state, { stream: true });
    await resumed.completed;
    expect(resumed.finalOutput).toBe("Sent.");
    expect([...first.sent, ...second.sent]).toEqual(["bob@corp.test"]);
  });

  it("a Claude Code settings hook that answers ask pauses the run the same way", async () => {
    const { Agent, tool } = await import("@openai/agents");
    const { ScriptedModel } = await import("@openai/agents/testing");
    const { z } = await import("zod");
    const { fromClaudeSettings } = await import("../../src/executors/settings.ts");
    const { guardAgent } = await import("../../src/adapters/openai-agents/index.ts");
    const answer = JSON.stringify({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "emails leave the company" },
    });
    const { stack } = fromClaudeSettings([
      {
        file: "settings.json",
        settings: { hooks: { PreToolUse: [{ matcher: "send_email", hooks: [{ type: "command", command: `echo '${answer}'` }] }] } },
      },
    ]);
    const sent: string[] = [];
    const sendEmail = tool({
      name: "send_email",
      description: "Send",
      parameters: z.object({ to: z.string(), body: z.string() }),
      execute: async ({ to }) => (sent.push(to), "ok"),
    });
    const result = await run(
      guardAgent(stack, new Agent({ name: "m", tools: [sendEmail], model: new ScriptedModel([emailBob()]) })),
      "Ask Bob to lunch",
    );
    expect(sent).toEqual([]);
    expect(result.interruptions.map((i) => i.rawItem)).toMatchObject([{ callId: "call_bob", name: "send_email" }]);
  });

  it("with approvals: 'stack', the stack's own approval handler answers in process and the run never pauses", async () => {
    const { Agent, tool } = await import("@openai/agents");
    const { ScriptedModel } = await import("@openai/agents/testing");
    const { z } = await import("zod");
    const { createAgentStack } = await import("../../src/agent/stack.ts");
    const { withMiddleware } = await import("../../src/middleware/apply.ts");
    const { approval } = await import("../../src/middleware/approval.ts");
    const { guardAgent } = await import("../../src/adapters/openai-agents/index.ts");
    const asked: unknown[] = [];
    const stack = withMiddleware(
      createAgentStack({ approval: (request) => (asked.push(request.input), { decision: "approve" }) }),
      approval({ match: "send_email" }),
    );
    const sent: string[] = [];
    const sendEmail = tool({
      name: "send_email",
      description: "Send",
      parameters: z.object({ to: z.string(), body: z.string() }),
      execute: async ({ to }) => (sent.push(to), "ok"),
    });
    const agent = guardAgent(
      stack,
      new Agent({ name: "m", tools: [sendEmail], model: new ScriptedModel([emailBob(), [assistantMessage("Sent.")]]) }),
      { tools: { approvals: "stack" } },
    );
    const result = await run(agent, "Ask Bob to lunch");
    expect(result.interruptions).toEqual([]);
    expect(sent).toEqual(["bob@corp.test"]);
    expect(asked).toMatchObject([{ id: "call_bob", name: "send_email", input: { to: "bob@corp.test" } }]);
  });
});

// Each resume starts a Node process that loads tsx and the SDK: seconds on a loaded machine.
describeRedisProcess("approvals through the SDK's interruptions, resumed in another OS process", { timeout: 120_000 }, () => {
  let server: RedisServer;
  let store: RedisStore;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    server = await startRedis();
    store = new RedisStore({ connection: server.url, keyPrefix: "openai-agents-test:" });
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await store?.close();
    await server?.stop();
  });

  it("a run paused here resumes in a worker with the person's approval: the email is sent there, once, and a second resume of the same state is refused", async () => {
    const mailer = buildMailer(store, [emailBob()]);
    const paused = await run(mailer.agent, "Ask Bob to lunch");
    expect(paused.interruptions).toHaveLength(1);
    const saved = paused.state.toString();
    expect(mailer.sent).toEqual([]);

    const approved = await resumeElsewhere(server.url, { state: saved, decision: "approve" }, children);
    expect(approved.pid).not.toBe(process.pid);
    expect(approved).toMatchObject({
      finalOutput: "The email is on its way.",
      sent: ["bob@corp.test"],
      outcomes: ["Completed"],
      read: ["sent to bob@corp.test"],
    });

    const again = await resumeElsewhere(server.url, { state: saved, decision: "approve" }, children);
    expect(again.sent).toBeUndefined();
    expect(again.error).toMatch(/ToolCallError/);
    expect(again.cause).toMatch(/ApprovalAlreadyUsedError: send_email call call_bob was approved once and has already run/);
  });

  it("a run paused here resumes in a worker with the person's rejection: nothing is sent and the model reads the person's message", async () => {
    const mailer = buildMailer(store, [[functionCall("send_email", { to: "eve@corp.test", body: "Hi" }, { callId: "call_eve" })]]);
    const paused = await run(mailer.agent, "Write to Eve");
    const rejected = await resumeElsewhere(
      server.url,
      { state: paused.state.toString(), decision: "reject", message: "The user declined: do not email Eve." },
      children,
    );
    expect(rejected).toMatchObject({ finalOutput: "The email is on its way.", sent: [], read: ["The user declined: do not email Eve."] });
  });
});
