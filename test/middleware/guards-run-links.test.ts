/**
 * Which runs a sub-agent's work counts against comes from the agent, which starts the sub-agent
 * from its parent's run, never from what a caller writes in `metadata.parentRunIds`: a caller who
 * knows another run's id must not be able to spend that run's limits.
 */
import { describe, expect, it } from "vitest";
import { createAgent, createAgentStack, createScriptedModel, defineTool, type ModelRequest } from "../../src/agent/index.ts";
import { MemoryStore } from "../../src/core/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { timeLimit } from "../../src/middleware/time-limit.ts";
import { tokenBudget } from "../../src/middleware/token-budget.ts";

/** A victim run that, in its first step, calls a tool; the tool lets `attack(victimRunId)` run while the victim's run is under way. */
const victimWith = (attack: (victimRunId: string) => Promise<unknown>, stack: ReturnType<typeof createAgentStack>) => {
  let victimRunId: string | undefined;
  const watched = stack.use("run", {
    name: "victim-id",
    before: (_input, ctx) => {
      if (ctx.metadata.who === "victim") victimRunId = ctx.runId;
    },
  });
  const tool = defineTool({ name: "Wait", execute: async () => (await attack(victimRunId as string), "done") });
  const model = createScriptedModel({
    turns: [{ toolCalls: [{ name: "Wait", input: {}, id: "w1" }], usage: { inputTokens: 5, outputTokens: 5 } }, "finished"],
  });
  return { agent: createAgent({ model, stack: watched, name: "victim", tools: [tool] }), model };
};

describe("per-run limits trust only the agent's own link to a parent run", () => {
  it("does not charge another run's token count named in a caller's metadata.parentRunIds", async () => {
    const stack = withMiddleware(createAgentStack({ store: new MemoryStore() }), tokenBudget({ max: 1000 }));
    const spender = createScriptedModel({
      turns: [],
      whenDone: (r: ModelRequest) =>
        r.messages.length < 6
          ? { toolCalls: [{ name: "Nope", input: {}, id: `s${r.messages.length}` }], usage: { inputTokens: 300, outputTokens: 300 } }
          : "spent",
    });
    let attackerTurn: unknown;
    const { agent, model } = victimWith(async (victimRunId) => {
      const attacker = createAgent({ model: spender, stack, name: "attacker" });
      attackerTurn = await attacker.run("spend", { metadata: { parentRunIds: [victimRunId] } });
    }, stack);
    const turn = await agent.run("go", { metadata: { who: "victim" } });
    // The attacker ran into its own limit (600 a step); the victim, at 10 of 1000, went on.
    expect(attackerTurn).toMatchObject({ finishReason: "stopped-by-guard", result: { stoppedBy: { kind: "tokens" } } });
    expect(turn).toMatchObject({ status: "completed", finishReason: "stop", result: { text: "finished" } });
    expect(model.requests).toHaveLength(2);
  });

  it("does not time a run from the start of another run named in a caller's metadata.parentRunIds", async () => {
    let clock = 0;
    const stack = withMiddleware(createAgentStack({ store: new MemoryStore() }), timeLimit({ maxSeconds: 10, now: () => clock }));
    let attackerTurn: unknown;
    const { agent } = victimWith(async (victimRunId) => {
      clock += 20_000; // the victim's run has been going for 20 s: past the limit
      const attacker = createAgent({ model: createScriptedModel({ turns: ["mine"] }), stack, name: "attacker" });
      attackerTurn = await attacker.run("work", { metadata: { parentRunIds: [victimRunId] } });
    }, stack);
    await agent.run("go", { metadata: { who: "victim" } });
    // The attacker's own run started just now: it is not stopped by the victim's clock.
    expect(attackerTurn).toMatchObject({ status: "completed", finishReason: "stop", result: { text: "mine" } });
  });

  it("still shows the real enclosing runs in a sub-agent's metadata.parentRunIds, whatever the caller wrote", async () => {
    const seen: unknown[] = [];
    const stack = createAgentStack().use("step", {
      name: "peek",
      before: (_input, ctx) => {
        if (ctx.path.length > 1) seen.push(ctx.metadata.parentRunIds);
      },
    });
    const model = createScriptedModel({
      turns: [],
      whenDone: (r: ModelRequest) =>
        r.messages[0]?.content === "You help."
          ? "helped"
          : r.messages.length < 3
            ? { toolCalls: [{ name: "helper", input: { prompt: "go" }, id: "h1" }] }
            : "done",
    });
    let parentRunId: string | undefined;
    const watched = stack.use("run", {
      name: "parent-id",
      before: (_input, ctx) => {
        if (ctx.path.length === 1) parentRunId = ctx.runId;
      },
    });
    const agent = createAgent({ model, stack: watched, name: "main", subagents: [{ name: "helper", system: "You help." }] });
    await agent.run("go", { metadata: { parentRunIds: ["someone-else"] } });
    expect(seen).toEqual([[parentRunId]]);
  });
});
