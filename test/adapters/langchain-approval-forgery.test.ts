/**
 * langchainMiddleware approvals against a graph state changed between the pause and the resume:
 * LangGraph hands the resume value to the interrupt of the same task and index, whatever that
 * interrupt asks now, so an answer must be bound to the question it answers.
 */
import { Command, MemorySaver } from "@langchain/langgraph";
import { AIMessage, HumanMessage, createAgent, fakeModel } from "langchain";
import { describe, expect, it } from "vitest";
import { langchainMiddleware } from "../../src/adapters/langchain.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { MemoryStore } from "../../src/core/index.ts";
import { approval, withMiddleware } from "../../src/middleware/index.ts";
import { answer, bashTool, transcript } from "./langchain-fixtures.ts";

const thread = { configurable: { thread_id: "forgery" } };

const pushAgent = (store?: MemoryStore) => {
  const { bash, ran } = bashTool();
  const stack = withMiddleware(createAgentStack(), approval({ match: "bash" }));
  const model = fakeModel()
    .respondWithTools([{ name: "bash", args: { command: "git push origin feature" }, id: "c1" }])
    .respond(answer("pushed"));
  const agent = createAgent({
    model,
    tools: [bash],
    middleware: [langchainMiddleware(stack, store !== undefined ? { store } : {})],
    checkpointer: new MemorySaver(),
  });
  return { agent, ran };
};

/** Rewrite the paused call's arguments in the graph's state, as an API that updates a thread's state can. */
const editPausedCall = async (agent: ReturnType<typeof createAgent>, args: Record<string, unknown>) => {
  const graph = (
    agent as unknown as {
      graph: {
        getState: (config: object) => Promise<{ values: { messages: unknown[] } }>;
        updateState: (config: object, values: object) => Promise<unknown>;
      };
    }
  ).graph;
  const state = await graph.getState(thread);
  const messages = state.values.messages as AIMessage[];
  const asked = messages.findLast((m) => AIMessage.isInstance(m) && (m.tool_calls?.length ?? 0) > 0) as AIMessage;
  const edited = new AIMessage({
    ...(asked.id !== undefined ? { id: asked.id } : {}),
    content: asked.content as string,
    tool_calls: asked.tool_calls!.map((c) => ({ ...c, args })),
  });
  await graph.updateState(thread, { messages: [edited] });
};

describe("langchainMiddleware approvals, against a state changed after the question", () => {
  it("does not run a call whose arguments were changed between the question and the approval, and says why", async () => {
    const { agent, ran } = pushAgent(new MemoryStore());
    await agent.invoke({ messages: [new HumanMessage("push it")] }, thread);
    await editPausedCall(agent, { command: "git push --force origin main" });
    const done = await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), thread);
    expect(ran).toEqual([]);
    expect(transcript(done.messages).find((l) => l.startsWith("tool"))).toMatch(/not an approval of this call/);
  });

  it("runs the call the person was asked about, once", async () => {
    const { agent, ran } = pushAgent(new MemoryStore());
    await agent.invoke({ messages: [new HumanMessage("push it")] }, thread);
    await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), thread);
    expect(ran).toEqual(["git push origin feature"]);
  });
});

describe("langchainMiddleware approvals without a store, against a state changed after the question", () => {
  it("does not run a call whose arguments were changed between the question and the approval, and says why", async () => {
    const { agent, ran } = pushAgent();
    await agent.invoke({ messages: [new HumanMessage("push it")] }, thread);
    await editPausedCall(agent, { command: "git push --force origin main" });
    const done = await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), thread);
    expect(ran).toEqual([]);
    expect(transcript(done.messages).find((l) => l.startsWith("tool"))).toMatch(/not an approval of this call/);
  });

  it("runs the call the person was asked about, once, in the process that asked", async () => {
    const { agent, ran } = pushAgent();
    await agent.invoke({ messages: [new HumanMessage("push it")] }, thread);
    await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), thread);
    expect(ran).toEqual(["git push origin feature"]);
  });
});
