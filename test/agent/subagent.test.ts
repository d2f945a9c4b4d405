import { describe, expect, it } from "vitest";
import { Reject, Transform } from "../../src/index.ts";
import { createAgent, createAgentStack, createScriptedModel, type ModelRequest, type SubagentStopRequest } from "../../src/agent/index.ts";
import { bashTool, recorded } from "./helpers.ts";

/** Answers by who is asking: the sub-agent's requests carry its system prompt. */
const byAgent = (parent: string[], child: string[]) => {
  const p = [...parent];
  const c = [...child];
  return (request: ModelRequest) => {
    const isChild = request.messages[0]?.content === "You research.";
    const next = isChild ? c.shift() : p.shift();
    if (next === "CALL") return { toolCalls: [{ name: "researcher", input: { prompt: "find the docs" }, id: "t1" }] };
    return next ?? "(nothing left)";
  };
};

describe("sub-agents", () => {
  it("run through the same stack with their path, end at subagentStop, and answer as a tool result", async () => {
    const { stack, events } = recorded(createAgentStack(), ["run", "modelCall", "toolCall", "stop", "subagentStop"]);
    const paths: string[] = [];
    const seen: SubagentStopRequest[] = [];
    const s = stack
      .use("modelCall", { name: "paths", before: (_r, ctx) => void paths.push(ctx.path.join("/")) })
      .use("subagentStop", { name: "see", before: (r) => void seen.push(r) });
    const model = createScriptedModel({ turns: [], whenDone: byAgent(["CALL", "The docs are at /docs."], ["Found: /docs"]) });

    const turn = await createAgent({ model, stack: s, name: "main", subagents: [{ name: "researcher", system: "You research." }] }).run(
      "where are the docs?",
    );

    expect(turn.text).toBe("The docs are at /docs.");
    expect(paths).toEqual(["main", "main/researcher", "main"]);
    expect(events).toEqual([
      "run>",
      "modelCall> scripted",
      "modelCall< Completed",
      "toolCall> researcher",
      "run>",
      "modelCall> scripted",
      "modelCall< Completed",
      "subagentStop> researcher",
      "subagentStop< Completed",
      "run< Completed",
      "toolCall< Completed",
      "modelCall> scripted",
      "modelCall< Completed",
      "stop>",
      "stop< Completed",
      "run< Completed",
    ]);
    expect(seen).toEqual([
      { reason: "stop", lastMessage: "Found: /docs", blockedCount: 0, agent: "researcher", path: ["main", "researcher"] },
    ]);
    expect(model.requests[2]!.messages.at(-1)).toMatchObject({ role: "tool", toolName: "researcher", content: "Found: /docs" });
  });

  it("keeps a sub-agent going when subagentStop rejects", async () => {
    const stack = createAgentStack().use("subagentStop", {
      name: "cite",
      before: (r) => (r.blockedCount === 0 ? Reject("Cite a source.") : undefined),
    });
    const model = createScriptedModel({ turns: [], whenDone: byAgent(["CALL", "ok"], ["It is /docs.", "It is /docs (README)."]) });

    await createAgent({ model, stack, subagents: [{ name: "researcher", system: "You research." }] }).run("go");

    const last = model.requests.at(-1)!.messages.at(-1)!;
    expect(last).toMatchObject({ role: "tool", content: "It is /docs (README)." });
  });

  it("reports a sub-agent's failure to the error point once, and the parent's model reads it", async () => {
    const errors: string[] = [];
    const stack = createAgentStack().use("error", {
      name: "log",
      before: (e) => void errors.push(`${e.where}: ${e.error instanceof Error ? e.error.message : String(e.error)}`),
    });
    const parent = byAgent(["CALL", "ok"], []);
    const model = createScriptedModel({
      turns: [],
      whenDone: (request) => {
        if (request.messages[0]?.content === "You research.") throw new Error("provider down");
        return parent(request);
      },
    });

    const turn = await createAgent({ model, stack, subagents: [{ name: "researcher", system: "You research." }] }).run("go");

    expect(turn.status).toBe("completed");
    expect(errors).toEqual(["model: provider down"]);
    expect(model.requests.at(-1)!.messages.at(-1)).toMatchObject({
      role: "tool",
      isError: true,
      content: "Tool researcher failed: model failed: provider down",
    });
  });

  it("lets a toolCall guard refuse to start a sub-agent", async () => {
    const stack = createAgentStack().use("toolCall", { name: "no-subagents", match: "researcher", before: () => Reject("not now") });
    const model = createScriptedModel({ turns: [], whenDone: byAgent(["CALL", "ok"], []) });

    await createAgent({ model, stack, subagents: [{ name: "researcher", system: "You research." }] }).run("go");

    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({
      isError: true,
      content: "Tool call researcher was rejected by no-subagents: not now",
    });
  });

  it("gives a sub-agent only its own tools", async () => {
    const ran: string[] = [];
    const model = createScriptedModel({
      turns: [],
      whenDone: (request: ModelRequest) => {
        const isChild = request.messages[0]?.content === "You research.";
        if (isChild) return request.messages.length === 2 ? { toolCalls: [{ name: "Bash", input: { command: "ls" } }] } : "child done";
        return request.messages.length === 1 ? { toolCalls: [{ name: "researcher", input: { prompt: "x" } }] } : "parent done";
      },
    });

    await createAgent({
      model,
      stack: createAgentStack(),
      tools: [bashTool(ran)],
      subagents: [{ name: "researcher", system: "You research." }],
    }).run("go");

    expect(ran).toEqual([]);
    expect(model.requests[1]!.tools).toBeUndefined();
  });
});

describe("what a turn reports it spent", () => {
  it("counts a sub-agent's model calls in the turn's usage, while result.usage counts the agent's own", async () => {
    const parent = createScriptedModel({
      turns: [
        { toolCalls: [{ name: "researcher", input: { prompt: "find the docs" }, id: "t1" }], usage: { inputTokens: 10, outputTokens: 10 } },
        { text: "done", usage: { inputTokens: 10, outputTokens: 10 } },
      ],
    });
    const child = createScriptedModel({ turns: [{ text: "found", usage: { inputTokens: 7000, outputTokens: 3000 } }] });
    const turn = await createAgent({ model: parent, stack: createAgentStack(), subagents: [{ name: "researcher", model: child }] }).run(
      "go",
    );
    expect(turn.status).toBe("completed");
    expect(turn.usage).toEqual({ inputTokens: 7020, outputTokens: 3020 });
    expect(turn.result?.usage).toEqual({ inputTokens: 20, outputTokens: 20 });
  });

  it("reports the tokens of a model call whose step was aborted while its tools ran", async () => {
    const model = createScriptedModel({
      turns: [{ toolCalls: [{ name: "Slow", input: {}, id: "t1" }], usage: { inputTokens: 100, outputTokens: 50 } }],
    });
    const controller = new AbortController();
    const slow = { name: "Slow", execute: () => new Promise<string>((r) => setTimeout(() => r("late"), 200)) };
    setTimeout(() => controller.abort(new Error("user left")), 30);
    const turn = await createAgent({ model, stack: createAgentStack(), tools: [slow] }).run("go", { signal: controller.signal });
    expect(turn.status).toBe("aborted");
    expect(turn.usage).toEqual({ inputTokens: 100, outputTokens: 50 });
  });

  it("sends a sub-agent the prompt a run hook rewrote", async () => {
    const parent = createScriptedModel({
      turns: [{ toolCalls: [{ name: "researcher", input: { prompt: "secret 123" }, id: "t1" }] }, "done"],
    });
    const child = createScriptedModel({ turns: ["found"] });
    const stack = createAgentStack().use("run", {
      name: "redact",
      before: (input) => Transform({ ...input, prompt: input.prompt.replace("123", "[redacted]") }),
    });
    await createAgent({ model: parent, stack, subagents: [{ name: "researcher", model: child }] }).run("go");
    expect(child.requests[0]?.messages.at(-1)?.content).toBe("secret [redacted]");
  });

  it("reports the steps and tokens already spent when the turn fails", async () => {
    const model = createScriptedModel({
      turns: [{ toolCalls: [{ name: "Bash", input: { command: "ls" }, id: "t1" }], usage: { inputTokens: 100, outputTokens: 10 } }],
      whenDone: "throw",
    });
    const turn = await createAgent({ model, stack: createAgentStack(), tools: [bashTool()] }).run("go");
    expect(turn.status).toBe("failed");
    expect([turn.steps, turn.usage]).toEqual([1, { inputTokens: 100, outputTokens: 10 }]);
  });
});
