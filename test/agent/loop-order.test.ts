import { describe, expect, it } from "vitest";
import { Transform, Trace } from "../../src/core/index.ts";
import {
  agentPoints,
  createAgent,
  createAgentStack,
  createScriptedModel,
  summarizeOldest,
  type RunInput,
  type StepInput,
} from "../../src/agent/index.ts";
import { bashTool, lines, recorded } from "./helpers.ts";

describe("the reference loop", () => {
  it("drives sessionStart, userPrompt, run, step, modelCall, toolCall, toolBatch, stop and sessionEnd in order", async () => {
    const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "Bash", input: { command: "ls" } }] }, "Done."] });
    const { stack, events } = recorded();
    const agent = createAgent({ model, stack, tools: [bashTool()] });

    const turn = await agent.run("list files");

    expect(turn).toMatchObject({ status: "completed", text: "Done.", finishReason: "stop", steps: 2 });
    expect(events).toEqual([
      "sessionStart> startup",
      "sessionStart< Completed",
      "userPrompt>",
      "userPrompt< Completed",
      "run>",
      "step> 0",
      "modelCall> scripted",
      "modelCall< Completed",
      "toolCall> Bash",
      "toolCall< Completed",
      "step< Completed",
      "toolBatch>",
      "toolBatch< Completed",
      "step> 1",
      "modelCall> scripted",
      "modelCall< Completed",
      "step< Completed",
      "stop>",
      "stop< Completed",
      "run< Completed",
      "sessionEnd> other",
      "sessionEnd< Completed",
    ]);
  });

  it("sends the system prompt, the conversation and the tool results to the model", async () => {
    const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "Bash", input: { command: "ls" }, id: "c1" }] }, "Two files."] });
    const agent = createAgent({ model, stack: createAgentStack(), tools: [bashTool()], system: "Be brief." });

    await agent.run("list files");

    expect(lines(model.requests[0]!.messages)).toEqual(["system: Be brief.", "user: list files"]);
    expect(model.requests[0]!.tools?.map((t) => t.name)).toEqual(["Bash"]);
    expect(model.requests[1]!.messages.slice(2)).toEqual([
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "Bash", input: { command: "ls" } }] },
      { role: "tool", content: "ran: ls", toolCallId: "c1", toolName: "Bash" },
    ]);
  });

  it("keeps the history of a session across prompts", async () => {
    const model = createScriptedModel({ turns: ["Hello!", "You said hi."] });
    const session = await createAgent({ model, stack: createAgentStack() }).session();

    await session.prompt("hi");
    await session.prompt("what did I say?");
    await session.close();

    expect(lines(model.requests[1]!.messages)).toEqual(["user: hi", "assistant: Hello!", "user: what did I say?"]);
    expect(session.closed).toBe(true);
    await expect(session.prompt("again")).rejects.toThrow(/closed/);
  });

  it("gives every point run the session id, the run id, the metadata, the path and the caller's signal", async () => {
    const seen: {
      point: string;
      sessionId: string | undefined;
      runId: string;
      metadata: unknown;
      path: readonly string[];
      signal: boolean;
    }[] = [];
    let stack = createAgentStack();
    for (const point of ["userPrompt", "run", "step", "modelCall", "toolCall", "stop"] as const)
      stack = stack.use(point, {
        name: `see-${point}`,
        before: (
          _i: unknown,
          ctx: { sessionId: string | undefined; runId: string; metadata: unknown; path: readonly string[]; signal: AbortSignal },
        ) =>
          void seen.push({
            point,
            sessionId: ctx.sessionId,
            runId: ctx.runId,
            metadata: ctx.metadata,
            path: ctx.path,
            signal: ctx.signal instanceof AbortSignal,
          }),
      } as never);
    const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "Bash", input: { command: "ls" } }] }, "Done."] });
    const agent = createAgent({ model, stack, tools: [bashTool()], name: "coder", metadata: { tenant: "acme" } });
    const session = await agent.session({ sessionId: "s-1", metadata: { roles: ["dev"] } });

    await session.prompt("go", { signal: new AbortController().signal, metadata: { request: 7 } });

    expect(seen[0]!.runId).toMatch(/^s-1#1-[0-9a-f]{8}$/);
    expect(new Set(seen.map((s) => s.point))).toEqual(new Set(["userPrompt", "run", "step", "modelCall", "toolCall", "stop"]));
    for (const s of seen) {
      expect(s.sessionId).toBe("s-1");
      expect(s.runId).toBe(seen[0]!.runId);
      // The agent adds where the session's transcript is, and the prompt's id (Claude Code's prompt_id).
      expect(s.metadata).toEqual({
        tenant: "acme",
        roles: ["dev"],
        request: 7,
        transcriptPath: session.transcriptPath,
        promptId: expect.any(String),
      });
      expect(s.path).toEqual(["coder"]);
    }
  });

  it("lets a run hook rewrite the system prompt and take tools away (seed 001's onAgentStart)", async () => {
    const stack = createAgentStack().use("run", {
      name: "no-shell",
      before: (input) =>
        Transform({
          ...input,
          system: `${input.system ?? ""} Today is Monday.`,
          tools: (input.tools ?? []).filter((t) => t.name !== "Bash"),
        } as RunInput),
    });
    const ran: string[] = [];
    const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "Bash", input: { command: "ls" } }] }, "Fine."] });

    const turn = await createAgent({ model, stack, tools: [bashTool(ran)], system: "Be brief." }).run("go");

    expect(model.requests[0]!.messages[0]).toEqual({ role: "system", content: "Be brief. Today is Monday." });
    expect(model.requests[0]!.tools).toBeUndefined();
    expect(ran).toEqual([]);
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({
      role: "tool",
      isError: true,
      content: 'Tool Bash failed: unknown tool "Bash"',
    });
    expect(turn.status).toBe("completed");
  });

  it("lets a step hook filter the history the model sees without losing it (seed 001's onInteractionStart)", async () => {
    const stack = createAgentStack().use("step", {
      name: "window",
      before: (input) => Transform({ ...input, messages: input.messages.slice(-1) } as StepInput),
    });
    const model = createScriptedModel({ turns: ["one", "two"] });
    const session = await createAgent({ model, stack }).session();

    await session.prompt("first");
    await session.prompt("second");

    expect(lines(model.requests[1]!.messages)).toEqual(["user: second"]);
    expect(lines(session.messages)).toEqual(["user: first", "assistant: one", "user: second", "assistant: two"]);
  });

  it("records the decisions of every point in one trace", async () => {
    const trace = new Trace();
    const stack = createAgentStack().use("toolCall", { name: "audit", before: () => undefined });
    const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "Bash", input: { command: "ls" } }] }, "ok"] });

    await createAgent({ model, stack, tools: [bashTool()], trace }).run("go");

    expect(trace.entries.map((e) => `${e.point} ${e.hook} ${e.action}`)).toEqual(["toolCall audit Continue"]);
    expect(trace.format()).toContain("audit");
  });
});

describe("one session through every standard point", () => {
  it("fires every standard point for real", async () => {
    // A guard that asks before Broken runs: the question is a permission request first.
    const asking = createAgentStack({ approval: () => ({ decision: "approve" }) }).use("toolCall", {
      name: "ask",
      match: "Broken",
      before: async (_call, ctx) => void (await ctx.approve({ hook: "ask" })),
    });
    const { stack, events } = recorded(asking);
    const model = createScriptedModel({
      turns: [],
      whenDone: (request) => {
        const child = request.messages[0]?.content === "You help.";
        const last = request.messages.at(-1)!;
        if (child) return "helped";
        if (last.role === "user")
          return {
            toolCalls: [
              { name: "helper", input: { prompt: "help" } },
              { name: "Broken", input: {} },
            ],
          };
        return "all done";
      },
    });
    const broken = {
      name: "Broken",
      execute: () => {
        throw new Error("nope");
      },
    };
    const agent = createAgent({
      model,
      stack,
      tools: [broken],
      subagents: [{ name: "helper", system: "You help." }],
      contextBudget: 5,
      compact: summarizeOldest({ keep: 1 }),
    });

    await agent.run("start");

    const fired = new Set(events.map((e) => e.split(/[<>]/)[0]));
    expect([...fired].sort()).toEqual(Object.keys(agentPoints).sort());
  });
});
