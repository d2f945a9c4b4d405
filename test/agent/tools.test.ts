import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { Reject, Replace, Transform, type ToolCall } from "../../src/index.ts";
import { createAgent, createAgentStack, createScriptedModel, defineTool } from "../../src/agent/index.ts";
import { bashTool } from "./helpers.ts";

const script = (...calls: { name: string; input: Record<string, unknown>; id?: string }[]) =>
  createScriptedModel({ turns: [{ toolCalls: calls }, "Done."] });

describe("tool calls in the loop", () => {
  it("feeds a rejected call back to the model as an error result that says who rejected it and why", async () => {
    const ran: string[] = [];
    const stack = createAgentStack().use("toolCall", {
      name: "no-rm-rf",
      match: "Bash(rm -rf*)",
      before: () => Reject("Destructive command blocked"),
    });
    const model = script({ name: "Bash", input: { command: "rm -rf /" }, id: "c1" });

    const turn = await createAgent({ model, stack, tools: [bashTool(ran)] }).run("clean up");

    expect(ran).toEqual([]);
    expect(model.requests[1]!.messages.at(-1)).toEqual({
      role: "tool",
      toolCallId: "c1",
      toolName: "Bash",
      isError: true,
      content: "Tool call Bash was rejected by no-rm-rf: Destructive command blocked",
    });
    expect(turn.status).toBe("completed");
  });

  it("runs a call with the input a hook rewrote", async () => {
    const ran: string[] = [];
    const stack = createAgentStack().use("toolCall", {
      name: "dry-run",
      match: "Bash",
      before: (call) => Transform({ ...call, input: { ...call.input, command: `${String(call.input.command)} --dry-run` } } as ToolCall),
    });

    await createAgent({ model: script({ name: "Bash", input: { command: "deploy" } }), stack, tools: [bashTool(ran)] }).run("ship it");

    expect(ran).toEqual(["deploy --dry-run"]);
  });

  it("answers a replaced call from the hook without running the tool (a cache)", async () => {
    const ran: string[] = [];
    const stack = createAgentStack().use("toolCall", { name: "cache", before: () => Replace({ content: "cached: 3 files" }) });
    const model = script({ name: "Bash", input: { command: "ls" } });

    await createAgent({ model, stack, tools: [bashTool(ran)] }).run("list");

    expect(ran).toEqual([]);
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({ role: "tool", content: "cached: 3 files" });
  });

  it("feeds a failed tool back as an error result and goes on", async () => {
    const broken = defineTool({
      name: "Read",
      execute: () => {
        throw new Error("ENOENT: no such file");
      },
    });
    const model = script({ name: "Read", input: { path: "x" } });

    const turn = await createAgent({ model, stack: createAgentStack(), tools: [broken] }).run("read x");

    expect(model.requests[1]!.messages.at(-1)).toMatchObject({
      role: "tool",
      isError: true,
      content: "Tool Read failed: ENOENT: no such file",
    });
    expect(turn).toMatchObject({ status: "completed", text: "Done." });
  });

  it("runs parallel tool calls at once, each through its own chain, and keeps the results in call order", async () => {
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = defineTool<{ n?: unknown }>({
      name: "Slow",
      execute: async ({ n }) => {
        started.push(String(n));
        if (started.length === 3) release();
        await gate;
        return `slow ${String(n)}`;
      },
    });
    const seen: string[] = [];
    const stack = createAgentStack().use("toolCall", {
      name: "per-call",
      before: (call) => void seen.push(`before ${call.id}`),
      after: (_result, call) => void seen.push(`after ${call.id}`),
    });
    const model = script(
      { name: "Slow", input: { n: 1 }, id: "a" },
      { name: "Slow", input: { n: 2 }, id: "b" },
      { name: "Slow", input: { n: 3 }, id: "c" },
    );

    await createAgent({ model, stack, tools: [slow] }).run("go");

    expect(started.sort()).toEqual(["1", "2", "3"]);
    expect(seen.filter((s) => s.startsWith("before"))).toEqual(["before a", "before b", "before c"]);
    expect(seen.filter((s) => s.startsWith("after")).sort()).toEqual(["after a", "after b", "after c"]);
    expect(model.requests[1]!.messages.slice(-3).map((m) => `${m.toolCallId}=${m.content}`)).toEqual(["a=slow 1", "b=slow 2", "c=slow 3"]);
  });

  it("runs a dozen parallel calls under the caller's signal without Node's leak warning, and leaves nothing listening on it", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => void warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      const quick = defineTool<{ n?: unknown }>({
        name: "Quick",
        execute: async ({ n }) => (await new Promise((r) => setTimeout(r, 5)), `ok ${String(n)}`),
      });
      const stack = createAgentStack().use("toolCall", { name: "watch", before: () => undefined });
      const model = script(...Array.from({ length: 12 }, (_, n) => ({ name: "Quick", input: { n } })));
      const caller = new AbortController();
      const turn = await createAgent({ model, stack, tools: [quick] }).run("go", { signal: caller.signal });
      expect(turn.status).toBe("completed");
      await new Promise((r) => setTimeout(r, 5));
      expect(warnings).not.toContain("MaxListenersExceededWarning");
      expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("rejects one parallel call without touching the others", async () => {
    const ran: string[] = [];
    const stack = createAgentStack().use("toolCall", { name: "no-rm", match: "Bash(rm *)", before: () => Reject("no deleting") });
    const model = script({ name: "Bash", input: { command: "ls" }, id: "a" }, { name: "Bash", input: { command: "rm x" }, id: "b" });

    await createAgent({ model, stack, tools: [bashTool(ran)] }).run("go");

    expect(ran).toEqual(["ls"]);
    expect(model.requests[1]!.messages.slice(-2).map((m) => [m.toolCallId, m.isError ?? false])).toEqual([
      ["a", false],
      ["b", true],
    ]);
  });

  it("turns an approval request without an approval handler into a rejection that says so", async () => {
    const ran: string[] = [];
    const stack = createAgentStack().use("toolCall", {
      name: "ask-first",
      before: async (_call, ctx) => {
        const answer = await ctx.approve({ hook: "ask-first", reason: "shell access" });
        return answer.decision === "approve" ? undefined : Reject(answer.reason ?? "denied");
      },
    });
    const model = script({ name: "Bash", input: { command: "ls" } });

    await createAgent({ model, stack, tools: [bashTool(ran)] }).run("go");

    expect(ran).toEqual([]);
    expect(String(model.requests[1]!.messages.at(-1)!.content)).toMatch(/rejected by ask-first: .*no approval handler is configured/);
  });

  it("routes approval requests to the stack's approval handler", async () => {
    const ran: string[] = [];
    const asked: string[] = [];
    const stack = createAgentStack({
      approval: (request) => {
        asked.push(`${request.point} ${request.subject} ${request.reason}`);
        return { decision: "approve" };
      },
    }).use("toolCall", {
      name: "ask-first",
      before: async (_call, ctx) =>
        (await ctx.approve({ hook: "ask-first", reason: "shell access" })).decision === "approve" ? undefined : Reject("denied"),
    });

    await createAgent({ model: script({ name: "Bash", input: { command: "ls" } }), stack, tools: [bashTool(ran)] }).run("go");

    expect(asked).toEqual(["toolCall Bash shell access"]);
    expect(ran).toEqual(["ls"]);
  });

  it("passes the call's id, the run's signal and identity to the tool", async () => {
    const seen: unknown[] = [];
    const probe = defineTool({
      name: "Probe",
      execute: (_input, options) => {
        seen.push({ id: options.toolCallId, session: options.sessionId, path: options.path, aborted: options.signal.aborted });
        return "ok";
      },
    });

    await createAgent({ model: script({ name: "Probe", input: {}, id: "p1" }), stack: createAgentStack(), tools: [probe] }).run("go", {
      sessionId: "s",
    });

    expect(seen).toEqual([{ id: "p1", session: "s", path: ["agent"], aborted: false }]);
  });
});
