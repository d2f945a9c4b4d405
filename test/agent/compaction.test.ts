import { describe, expect, it } from "vitest";
import { Transform } from "../../src/index.ts";
import {
  createAgent,
  createAgentStack,
  createScriptedModel,
  summarizeOldest,
  type CompactionRequest,
  type CompactionResult,
  type Notification,
} from "../../src/agent/index.ts";
import { lines } from "./helpers.ts";

const long = (n: number) => "x".repeat(n);

describe("compaction", () => {
  it("compacts through the compaction point when a request exceeds the budget, and notifies", async () => {
    const seen: CompactionRequest[] = [];
    const notices: Notification[] = [];
    const stack = createAgentStack().use("compaction", { name: "see", before: (r) => void seen.push(r) });
    const model = createScriptedModel({ turns: ["a1", "a2", "a3"] });
    const session = await createAgent({
      model,
      stack,
      contextBudget: 60,
      compact: summarizeOldest({ keep: 2 }),
      onNotification: (n) => notices.push(n),
    }).session();

    await session.prompt(`first ${long(300)}`);
    await session.prompt("second");
    await session.prompt("third");

    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatchObject({ trigger: "auto", budget: 60 });
    expect(seen[0]!.tokens).toBeGreaterThan(60);
    const second = model.requests[1]!.messages;
    expect(second[0]!.role).toBe("system");
    expect(second[0]!.content).toMatch(/^Summary of 1 earlier messages:\nuser: first x+/);
    expect(lines(second.slice(1))).toEqual(["assistant: a1", "user: second"]);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ type: "info" });
    expect(notices[0]!.message).toMatch(/Context compacted \(auto\): 1 messages summarized/);
  });

  it("lets a compaction hook transform the result (post_compaction)", async () => {
    const stack = createAgentStack().use("compaction", {
      name: "keep-goal",
      after: (result) =>
        Transform({ ...result, messages: [{ role: "system", content: "Goal: ship v1." }, ...result.messages] } as CompactionResult),
    });
    const model = createScriptedModel({ turns: ["a1", "a2"] });
    const session = await createAgent({ model, stack, contextBudget: 40 }).session();

    await session.prompt(long(200));
    await session.prompt("next");

    expect(model.requests[1]!.messages[0]).toEqual({ role: "system", content: "Goal: ship v1." });
  });

  it("compacts on demand with trigger manual", async () => {
    const triggers: string[] = [];
    const stack = createAgentStack().use("compaction", { name: "see", before: (r) => void triggers.push(r.trigger) });
    const model = createScriptedModel({ turns: ["one", "two", "three"] });
    const session = await createAgent({
      model,
      stack,
      compact: () => ({ messages: [{ role: "system", content: "earlier: chat" }], summary: "chat", removed: 4 }),
    }).session();

    await session.prompt("hi");
    await session.prompt("again");
    await session.compact();

    expect(triggers).toEqual(["manual"]);
    expect(lines(session.messages)).toEqual(["system: earlier: chat"]);
  });

  it("never leaves a tool result without its call", async () => {
    const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "T", input: {}, id: "t" }] }, "done"] });
    const stack = createAgentStack();
    const seen: CompactionResult[] = [];
    const s = stack.use("compaction", { name: "see", after: (r) => void seen.push(r) });

    await createAgent({ model, stack: s, tools: [{ name: "T", execute: () => long(300) }], contextBudget: 50 }).run(long(100));

    const kept = seen.at(-1)!.messages;
    const toolAt = kept.findIndex((m) => m.role === "tool");
    expect(toolAt === -1 || kept[toolAt - 1]?.role === "assistant").toBe(true);
  });

  it("counts no tokens when no context budget is set, and counts them for a manual compaction", async () => {
    let counted = 0;
    const countTokens = () => (counted++, 10);
    const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "T", input: {}, id: "t" }] }, "done"] });
    const session = await createAgent({
      model,
      stack: createAgentStack(),
      tools: [{ name: "T", execute: () => "ok" }],
      countTokens,
    }).session();

    await session.prompt("go");
    expect(counted).toBe(0);
    await session.compact();
    expect(counted).toBe(1);
  });
});
