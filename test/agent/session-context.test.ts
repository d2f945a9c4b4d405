import { describe, expect, it } from "vitest";
import { Outcome, Reject, Replace, Transform } from "../../src/index.ts";
import {
  SessionRejectedError,
  createAgent,
  createAgentStack,
  createScriptedModel,
  defineTool,
  type ErrorDecision,
  type Notification,
  type SessionEnd,
  type UserPrompt,
} from "../../src/agent/index.ts";
import { callLimit, retry, withMiddleware } from "../../src/middleware/index.ts";
import { bashTool, lines } from "./helpers.ts";

describe("sessions, prompts and hook-added context", () => {
  it("lets a userPrompt hook rewrite the prompt", async () => {
    const stack = createAgentStack().use("userPrompt", {
      name: "expand",
      before: (p) => Transform({ text: p.text.replace("/test", "Run the test suite.") } as UserPrompt),
    });
    const model = createScriptedModel({ turns: ["ok"] });

    await createAgent({ model, stack }).run("/test");

    expect(lines(model.requests[0]!.messages)).toEqual(["user: Run the test suite."]);
  });

  it("ends the turn with the reason when a userPrompt hook rejects, without calling the model", async () => {
    const stack = createAgentStack().use("userPrompt", {
      name: "no-secrets",
      before: (p) => (p.text.includes("password") ? Reject("Prompt contains a password") : undefined),
    });
    const model = createScriptedModel({ turns: [] });
    const session = await createAgent({ model, stack }).session();

    const turn = await session.prompt("my password is hunter2");

    expect(turn).toMatchObject({ status: "rejected", reason: "Prompt contains a password", by: "no-secrets", text: "" });
    expect(model.requests).toHaveLength(0);
    expect(session.messages).toEqual([]);
  });

  it("keeps sessionStart context for the first model request when an earlier prompt was rejected", async () => {
    const stack = createAgentStack()
      .use("sessionStart", { name: "rules", before: (_s, ctx) => void ctx.addContext("Project rules: be brief.") })
      .use("userPrompt", { name: "no-push", before: (p) => (p.text.includes("push") ? Reject("no pushing") : undefined) });
    const model = createScriptedModel({ turns: ["ok"] });
    const session = await createAgent({ model, stack }).session();
    expect((await session.prompt("push my branch")).status).toBe("rejected");
    await session.prompt("hello");
    expect(lines(model.requests[0]!.messages)).toEqual(["user: hello", "system: Project rules: be brief."]);
  });

  it("keeps sessionStart context for the next turn when a turn failed, since its answer never reached the conversation", async () => {
    const stack = createAgentStack()
      .use("sessionStart", { name: "rules", before: (_s, ctx) => void ctx.addContext("Project rules: never push to main") })
      .use("userPrompt", { name: "echo", before: (p, ctx) => void ctx.addContext(`context for: ${p.text}`) });
    const model = createScriptedModel({ turns: [{ error: new Error("503 overloaded") }, "ok"] });
    const session = await createAgent({ model, stack }).session();

    expect((await session.prompt("first")).status).toBe("failed");
    await session.prompt("second");

    expect(lines(model.requests[0]!.messages)).toEqual([
      "user: first",
      "system: Project rules: never push to main",
      "system: context for: first",
    ]);
    expect(lines(model.requests[1]!.messages)).toEqual([
      "user: second",
      "system: Project rules: never push to main",
      "system: context for: second",
    ]);
  });

  it("drops the context of a prompt whose run was rejected, so it never reaches the next prompt", async () => {
    const stack = createAgentStack()
      .use("userPrompt", { name: "echo", before: (p, ctx) => void ctx.addContext(`context for: ${p.text}`) })
      .use("run", { name: "no-secrets", before: (input) => (input.prompt.includes("secret") ? Reject("not that") : undefined) });
    const model = createScriptedModel({ turns: ["ok"] });
    const session = await createAgent({ model, stack }).session();
    expect((await session.prompt("tell me the secret")).status).toBe("rejected");
    await session.prompt("hello");
    expect(lines(model.requests[0]!.messages)).toEqual(["user: hello", "system: context for: hello"]);
  });

  it("sends the prompt a run hook rewrote, in place of the user's last message", async () => {
    const stack = createAgentStack().use("run", {
      name: "soften",
      before: (input) => Transform({ ...input, prompt: input.prompt.replace("delete everything", "list the files") }),
    });
    const model = createScriptedModel({ turns: ["ok"] });
    const session = await createAgent({ model, stack }).session();
    await session.prompt("delete everything");
    expect(lines(model.requests[0]!.messages)).toEqual(["user: list the files"]);
    expect(lines(session.messages)).toEqual(["user: list the files", "assistant: ok"]);
  });

  it("refuses to open a session when a sessionStart hook rejects", async () => {
    const stack = createAgentStack().use("sessionStart", {
      name: "office-hours",
      match: "resume",
      before: () => Reject("resuming is disabled"),
    });
    const agent = createAgent({ model: createScriptedModel({ turns: [] }), stack });

    await expect(agent.session({ source: "resume" })).rejects.toThrow(SessionRejectedError);
    await expect(agent.session({ source: "resume" })).rejects.toMatchObject({ reason: "resuming is disabled", by: "office-hours" });
    await expect(agent.session({ source: "startup" })).resolves.toBeDefined();
  });

  it("delivers context from every point to the next model request, in order", async () => {
    const stack = createAgentStack()
      .use("sessionStart", { name: "project", before: (_s, ctx) => void ctx.addContext("Project: agent-onion") })
      .use("userPrompt", { name: "time", before: (_p, ctx) => void ctx.addContext("Time: 10:00") })
      .use("run", { name: "rules", before: (_r, ctx) => void ctx.addContext("Rule: be brief") })
      .use("step", { name: "step-note", before: (s, ctx) => void ctx.addContext(`Step ${s.index}`) })
      .use("toolCall", { name: "post-tool", after: (_r, call, ctx) => void ctx.addContext(`Checked ${call.name}`) });
    const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "Bash", input: { command: "ls" } }] }, "done"] });

    await createAgent({ model, stack, tools: [bashTool()] }).run("go");

    expect(lines(model.requests[0]!.messages)).toEqual([
      "user: go",
      "system: Project: agent-onion",
      "system: Time: 10:00",
      "system: Rule: be brief",
      "system: Step 0",
    ]);
    expect(lines(model.requests[1]!.messages).slice(-3)).toEqual(["tool: ran: ls", "system: Checked Bash", "system: Step 1"]);
  });

  it("collects context from several hooks of one point in hook order, as user text when asked", async () => {
    const stack = createAgentStack()
      .use("userPrompt", { name: "b", priority: 20, before: (_p, ctx) => void ctx.addContext("second") })
      .use("userPrompt", { name: "a", priority: 10, before: (_p, ctx) => void ctx.addContext("first") });
    const model = createScriptedModel({ turns: ["ok"] });

    await createAgent({ model, stack, contextRole: "user" }).run("go");

    expect(lines(model.requests[0]!.messages)).toEqual(["user: go", "user: first", "user: second"]);
  });

  it("delivers a modelCall hook's context once when retry() calls the model again, as the hook gave it for the call that answered", async () => {
    let attempt = 0;
    const stack = withMiddleware(
      createAgentStack()
        .use("modelCall", { name: "note", before: (_r, ctx) => void ctx.addContext("Note from modelCall hook") })
        .use("modelCall", { name: "attempt", before: (_r, ctx) => void ctx.addContext(`Attempt ${++attempt}`) }),
      retry({ attempts: 2, baseMs: 0, retryOn: () => true }),
    );
    const model = createScriptedModel({
      turns: [{ error: new Error("503 overloaded") }, { toolCalls: [{ name: "Bash", input: { command: "ls" } }] }, "done"],
    });

    const turn = await createAgent({ model, stack, tools: [bashTool()] }).run("go");

    expect(turn.status).toBe("completed");
    expect(lines(model.requests[2]!.messages).slice(-3)).toEqual([
      "tool: ran: ls",
      "system: Note from modelCall hook",
      "system: Attempt 2",
    ]);
  });

  it("delivers a modelCall or toolCall hook's context once when the error point retries the call", async () => {
    let tries = 0;
    const flaky = defineTool({
      name: "Flaky",
      execute: () => {
        if (++tries < 2) throw new Error("timeout");
        return "ok";
      },
    });
    const stack = createAgentStack()
      .use("modelCall", { name: "model-note", before: (_r, ctx) => void ctx.addContext("Model note") })
      .use("toolCall", { name: "tool-note", before: (_c, ctx) => void ctx.addContext("Tool note") })
      .use("error", { name: "retry", before: () => Replace({ action: "retry" } as ErrorDecision) });
    const model = createScriptedModel({
      turns: [{ error: new Error("503 overloaded") }, { toolCalls: [{ name: "Flaky", input: {} }] }, "done"],
    });

    await createAgent({ model, stack, tools: [flaky] }).run("go");

    expect(lines(model.requests[2]!.messages).slice(-3)).toEqual(["tool: ok", "system: Model note", "system: Tool note"]);
  });

  it("hands the context a failed run used to its retry when the error point retries the whole run", async () => {
    let failOnce = true;
    const stack = createAgentStack()
      .use("sessionStart", { name: "rules", before: (_s, ctx) => void ctx.addContext("Project rules: be brief.") })
      .use("userPrompt", { name: "echo", before: (p, ctx) => void ctx.addContext(`context for: ${p.text}`) })
      .use("run", { name: "run-note", before: (_i, ctx) => void ctx.addContext("Run note") })
      .use("run", {
        name: "flaky-run",
        around: async (_ctx, next) => {
          const outcome = await next();
          if (!failOnce) return outcome;
          failOnce = false;
          return Outcome.failed(new Error("answer lost on the way back"));
        },
      })
      .use("error", {
        name: "retry",
        before: (e, ctx) => {
          if (e.where !== "loop") return undefined;
          ctx.addContext("The last attempt failed; keep it short.");
          return Replace({ action: "retry" } as ErrorDecision);
        },
      });
    const model = createScriptedModel({ turns: ["lost", "ok"] });
    const session = await createAgent({ model, stack }).session();

    const turn = await session.prompt("hello");

    expect(turn).toMatchObject({ status: "completed", text: "ok" });
    const context = ["system: Project rules: be brief.", "system: context for: hello", "system: Run note"];
    expect(lines(model.requests[0]!.messages).slice(1)).toEqual(context);
    // What the error hook added while deciding to retry reaches the retry too.
    expect(lines(model.requests[1]!.messages).slice(1)).toEqual([
      ...context.slice(0, 2),
      "system: The last attempt failed; keep it short.",
      "system: Run note",
    ]);
  });

  it("runs sessionEnd with the reason when a session closes", async () => {
    const ended: SessionEnd[] = [];
    const stack = createAgentStack().use("sessionEnd", { name: "bye", before: (e) => void ended.push(e) });
    const session = await createAgent({ model: createScriptedModel({ turns: [] }), stack }).session({ sessionId: "s9" });

    await session.close("logout");
    await session.close("logout");

    expect(ended).toEqual([{ sessionId: "s9", reason: "logout" }]);
  });

  it("resolves a second close() only once sessionEnd has run, and refuses compact() after close", async () => {
    const ended: string[] = [];
    const stack = createAgentStack().use("sessionEnd", {
      name: "slow-bye",
      before: async () => {
        await new Promise((r) => setTimeout(r, 30));
        ended.push("ended");
      },
    });
    const session = await createAgent({ model: createScriptedModel({ turns: [] }), stack }).session();
    const first = session.close();
    await session.close();
    expect(ended).toEqual(["ended"]);
    await first;
    await expect(session.compact()).rejects.toThrow(/is closed/);
  });

  it("sends notifications through the notification point, where hooks may rewrite them", async () => {
    const received: Notification[] = [];
    const stack = createAgentStack().use("notification", {
      name: "tag",
      before: (n) => Transform({ ...n, message: `[agent] ${n.message}` } as Notification),
    });
    const session = await createAgent({
      model: createScriptedModel({ turns: [] }),
      stack,
      onNotification: (n) => received.push(n),
    }).session();

    await session.notify({ type: "idle_prompt", message: "waiting for input" });

    expect(received).toEqual([{ type: "idle_prompt", message: "[agent] waiting for input" }]);
  });

  it("gives every turn a run id of its own, also in a session resumed with the same id, so run-scoped guards start afresh", async () => {
    // callLimit keeps its count under the runId for days: a reused id would refuse the resumed session's first call.
    const stack = withMiddleware(createAgentStack(), callLimit({ match: "Bash", max: 1 }));
    const runIds: string[] = [];
    const toolResults: string[] = [];
    for (const _request of [1, 2]) {
      const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "Bash", input: { command: "ls" } }] }, "done", "again"] });
      const session = await createAgent({ model, stack, tools: [bashTool()] }).session({ sessionId: "conversation-42" });
      const turn = await session.prompt("list files");
      runIds.push(turn.runId, (await session.prompt("thanks")).runId);
      toolResults.push(turn.result!.messages.find((m) => m.role === "tool")!.content);
    }
    expect(new Set(runIds).size).toBe(4);
    for (const [i, runId] of runIds.entries()) expect(runId).toMatch(new RegExp(`^conversation-42#${(i % 2) + 1}-[0-9a-f]{8}$`));
    expect(toolResults).toEqual(["ran: ls", "ran: ls"]);
  });

  it("gives a resumed session's start, compaction and end runs ids of their own too", async () => {
    const ids: Record<string, string[]> = { sessionStart: [], compaction: [], sessionEnd: [] };
    let stack = createAgentStack();
    for (const point of ["sessionStart", "compaction", "sessionEnd"] as const)
      stack = stack.use(point, {
        name: `id-${point}`,
        before: (_x: unknown, ctx: { readonly runId: string }) => void ids[point]!.push(ctx.runId),
      });
    for (const _resume of [1, 2]) {
      const session = await createAgent({ model: createScriptedModel({ turns: ["ok"] }), stack }).session({ sessionId: "conversation-42" });
      await session.compact();
      await session.close();
    }
    for (const list of Object.values(ids)) {
      expect(list).toHaveLength(2);
      expect(list[0]).not.toBe(list[1]);
    }
  });

  it("runs turns of one session one after another", async () => {
    const model = createScriptedModel({ turns: ["one", "two"], delayMs: 5 });
    const session = await createAgent({ model, stack: createAgentStack() }).session();

    const [a, b] = await Promise.all([session.prompt("1"), session.prompt("2")]);

    expect([a.text, b.text]).toEqual(["one", "two"]);
    expect(lines(model.requests[1]!.messages)).toEqual(["user: 1", "assistant: one", "user: 2"]);
  });

  it("rejects bad options where they are given", () => {
    const model = createScriptedModel({ turns: [] });
    expect(() => createAgent({ model, stack: createAgentStack(), maxSteps: 0 })).toThrow(/maxSteps must be an integer of at least 1/);
    expect(() => createAgent({ model, stack: createAgentStack(), tools: [bashTool(), bashTool()] })).toThrow(
      /two tools or sub-agents are named "Bash"/,
    );
    expect(() => createAgent({ model: {} as never, stack: createAgentStack() })).toThrow(/model must be a LanguageModel/);
  });
});
