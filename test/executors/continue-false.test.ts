/**
 * `continue: false` from a tool event's hook, and a prompt hook's `ok: false` without
 * `continueOnBlock`, end the turn (Claude Code: "Claude stops processing entirely"): loaded
 * from settings, run by real child processes, inside a real agent loop.
 */
import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/agent.ts";
import { createScriptedModel } from "../../src/agent/scripted-model.ts";
import { createAgentStack, type AgentStack } from "../../src/agent/stack.ts";
import { defineTool } from "../../src/agent/tool.ts";
import { fromClaudeSettings } from "../../src/executors/settings.ts";
import { notices } from "./helpers.ts";

const secret = "Build failed; fix it yourself (a note for the user only)";
const stopping = `echo '${JSON.stringify({ continue: false, stopReason: secret })}'`;

/** A model that runs `make`, then `make deploy`, then answers; and a Bash tool that records what ran. */
const setup = (settings: object, options: Parameters<typeof fromClaudeSettings>[1] = {}) => {
  const ran: string[] = [];
  const bash = defineTool<{ command?: unknown }>({
    name: "Bash",
    description: "run a command",
    inputSchema: { type: "object", properties: { command: { type: "string" } } },
    execute: ({ command }) => (ran.push(String(command)), "ran"),
  });
  const model = createScriptedModel({
    turns: [
      { toolCalls: [{ name: "Bash", input: { command: "make" } }] },
      { toolCalls: [{ name: "Bash", input: { command: "make deploy" } }] },
      "all done",
    ],
  });
  const { stack } = fromClaudeSettings(settings, { cwd: "/tmp", ...options });
  return { ran, model, agent: createAgent({ model, tools: [bash], stack }) };
};
const onTool = (event: string, handler: object, matcher = "Bash") => ({ hooks: { [event]: [{ matcher, hooks: [handler] }] } });
const judge = (verdict: object) =>
  createScriptedModel({ turns: [JSON.stringify(verdict), JSON.stringify(verdict), JSON.stringify(verdict)] });

describe("continue: false from a command hook on a tool event ends the turn", () => {
  it("on PreToolUse: the call runs (as Claude Code runs it), then no later tool runs and no other model call is made", async () => {
    const n = notices();
    const { ran, model, agent } = setup(onTool("PreToolUse", { type: "command", command: stopping }), { onNotice: n.sink });
    const turn = await agent.run("build it");
    expect(ran).toEqual(["make"]);
    expect(model.requests).toHaveLength(1);
    expect(turn).toMatchObject({ status: "completed", finishReason: "stopped-by-guard" });
    expect(turn.result?.stoppedBy).toMatchObject({ reason: secret, kind: "hook" });
    expect(n.list).toContainEqual(expect.objectContaining({ kind: "stopReason", message: secret }));
  });

  it("on PostToolUse: the tool that ran is the last one", async () => {
    const { ran, model, agent } = setup(onTool("PostToolUse", { type: "command", command: stopping }));
    const turn = await agent.run("build it");
    expect(ran).toEqual(["make"]);
    expect(model.requests).toHaveLength(1);
    expect(turn.result?.stoppedBy).toMatchObject({ reason: secret, kind: "hook" });
  });

  it("stopReason is told to the user and never written where the model reads it", async () => {
    const { agent } = setup(onTool("PreToolUse", { type: "command", command: stopping }));
    const turn = await agent.run("build it");
    expect(JSON.stringify(turn.result?.messages)).not.toContain("note for the user only");
    expect(turn.result?.stoppedBy?.reason).toBe(secret);
  });
});

describe("continue: false when the run has no further step", () => {
  it("still ends the turn as stopped by the hook, with maxSteps: 1", async () => {
    const bash = defineTool({ name: "Bash", description: "run", inputSchema: { type: "object" }, execute: () => "ran" });
    const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "Bash", input: { command: "make" } }] }, "all done"] });
    const { stack } = fromClaudeSettings(onTool("PreToolUse", { type: "command", command: stopping }), { cwd: "/tmp" });
    const turn = await createAgent({ model, tools: [bash], stack, maxSteps: 1 }).run("build it");
    expect(turn).toMatchObject({ status: "completed", finishReason: "stopped-by-guard" });
    expect(turn.result?.stoppedBy).toMatchObject({ reason: secret, by: "PreToolUse:command:echo", kind: "hook" });
  });

  it("is forgotten when the run settles: a later call under the same run id is not refused", async () => {
    const { stack } = fromClaudeSettings(onTool("PreToolUse", { type: "command", command: stopping }, "Bash"), { cwd: "/tmp" });
    const run = { runId: "turn-1" };
    const call = (name: string) => stack.run("toolCall", { id: name, name, input: { command: "make" } }, () => ({ content: "ran" }), run);
    const inside: string[] = [];
    const result = { text: "", steps: 1, usage: { inputTokens: 0, outputTokens: 0 }, finishReason: "stop" as const, messages: [] };
    const turn = await stack.run(
      "run",
      { prompt: "build", messages: [] },
      async () => {
        inside.push((await call("Bash"))._tag, (await call("Read"))._tag);
        return result;
      },
      run,
    );
    // `make`, whose hook asked, runs; the run's next call is refused.
    expect(inside).toEqual(["Completed", "Rejected"]);
    expect(turn).toMatchObject({ _tag: "Completed", value: { finishReason: "stopped-by-guard", stoppedBy: { reason: secret } } });
    expect((await call("Read"))._tag).toBe("Completed");
  });
});

describe("after continue: false, the other tool calls of the same step", () => {
  // Answers continue: false at once for `make`; takes 300 ms to allow anything else.
  const slowAllow = `input=$(cat); case "$input" in *'"make"'*) ${stopping};; *) sleep 0.3; exit 0;; esac`;
  const parallel = (tools: readonly { name: string; input: Record<string, unknown> }[], settings: object, stack?: AgentStack) => {
    const ran: string[] = [];
    const tool = (name: string) =>
      defineTool<{ command?: unknown }>({
        name,
        description: "run",
        inputSchema: { type: "object", properties: { command: { type: "string" } } },
        execute: ({ command }) => (ran.push(`${name} ${String(command)}`), "ran"),
      });
    const model = createScriptedModel({ turns: [{ toolCalls: tools }, "all done"] });
    const loaded = fromClaudeSettings(settings, { cwd: "/tmp", ...(stack ? { stack } : {}) });
    return { ran, model, agent: createAgent({ model, tools: [tool("Bash"), tool("Read")], stack: loaded.stack }) };
  };

  it("are refused when their hook allows them after the stop was asked: make runs, make deploy does not", async () => {
    const { ran, model, agent } = parallel(
      [
        { name: "Bash", input: { command: "make" } },
        { name: "Bash", input: { command: "make deploy" } },
      ],
      onTool("PreToolUse", { type: "command", command: slowAllow }),
    );
    const turn = await agent.run("build and deploy");
    expect(ran).toEqual(["Bash make"]);
    expect(model.requests).toHaveLength(1);
    expect(turn.result?.stoppedBy).toMatchObject({ reason: secret, kind: "hook" });
  });

  it("are refused even when no settings hook matches their tool", async () => {
    const approval = createAgentStack().use("toolCall", {
      name: "slow-approval",
      match: "Read",
      before: async () => void (await new Promise((r) => setTimeout(r, 300))),
    });
    const { ran, agent } = parallel(
      [
        { name: "Bash", input: { command: "make" } },
        { name: "Read", input: { command: "notes" } },
      ],
      onTool("PreToolUse", { type: "command", command: stopping }),
      approval,
    );
    const turn = await agent.run("build");
    expect(ran).toEqual(["Bash make"]);
    expect(turn.finishReason).toBe("stopped-by-guard");
  });
});

describe("a prompt hook's ok: false on a tool event", () => {
  it("ends the turn by default (continueOnBlock: false), with the judge's reason for the user", async () => {
    const { ran, model, agent } = setup(onTool("PreToolUse", { type: "prompt", prompt: "Safe? $ARGUMENTS" }), {
      model: judge({ ok: false, reason: "policy says no" }),
    });
    const turn = await agent.run("clean");
    expect(ran).toEqual([]);
    expect(model.requests).toHaveLength(1);
    expect(turn.result?.stoppedBy).toMatchObject({ reason: "policy says no", kind: "hook" });
  });

  it("ends the turn on PostToolUse too", async () => {
    const { ran, model, agent } = setup(onTool("PostToolUse", { type: "prompt", prompt: "Fine? $ARGUMENTS", continueOnBlock: false }), {
      model: judge({ ok: false, reason: "output leaks a key" }),
    });
    const turn = await agent.run("clean");
    expect(ran).toEqual(["make"]);
    expect(model.requests).toHaveLength(1);
    expect(turn.result?.stoppedBy).toMatchObject({ reason: "output leaks a key" });
  });

  it("with continueOnBlock: true only refuses the call, and the model adjusts and goes on", async () => {
    const { ran, model, agent } = setup(onTool("PreToolUse", { type: "prompt", prompt: "Safe? $ARGUMENTS", continueOnBlock: true }), {
      model: judge({ ok: false, reason: "policy says no" }),
    });
    const turn = await agent.run("clean");
    expect(ran).toEqual([]);
    expect(model.requests).toHaveLength(3);
    expect(turn).toMatchObject({ finishReason: "stop", text: "all done" });
    expect(JSON.stringify(model.requests[1]?.messages)).toContain("policy says no");
  });

  it("an exit-2 block from a command hook still only refuses the call (the model reads why)", async () => {
    const { model, agent } = setup(onTool("PreToolUse", { type: "command", command: "echo 'not make' >&2; exit 2" }));
    const turn = await agent.run("build it");
    expect(model.requests).toHaveLength(3);
    expect(turn.finishReason).toBe("stop");
  });
});
