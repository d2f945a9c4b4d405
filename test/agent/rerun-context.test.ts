import { describe, expect, it } from "vitest";
import type { Hook, HookContext, Next } from "../../src/core/index.ts";
import { createAgent, createAgentStack, createScriptedModel, type AgentStack } from "../../src/agent/index.ts";
import { lines } from "./helpers.ts";

/** An `around` hook that calls `next()` once more when the first attempt failed. */
const retryOnce: Hook<any, any, any> = {
  name: "retry-once",
  around: async (_ctx: HookContext, next: Next<unknown, unknown>) => {
    const o = await next();
    return o._tag === "Failed" ? next() : o;
  },
};
const stepContext: Hook<any, any, any> = {
  name: "ctx-step",
  before: (s: { index: number }, ctx: HookContext) => void ctx.addContext(`step ${s.index} context`),
};
const runContext: Hook<any, any, any> = { name: "ctx-run", before: (_i: unknown, ctx: HookContext) => void ctx.addContext("Run context.") };

/** One turn whose first model call fails (an around hook retries it), with the two requests and the history. */
const retried = async (stack: AgentStack) => {
  const model = createScriptedModel({ turns: [{ error: new Error("transient 503") }, "answer"] });
  const turn = await createAgent({ model, stack }).run("hello");
  expect(turn.status).toBe("completed");
  return { requests: model.requests.map((r) => lines(r.messages)), history: lines(turn.result!.messages) };
};

describe("hook context when an around hook runs the run or step operation again", () => {
  it("sends the sessionStart and userPrompt context again to a run an around hook retries", async () => {
    const stack = createAgentStack()
      .use("sessionStart", { name: "ctx-start", before: (_i, ctx) => void ctx.addContext("Project uses pnpm.") })
      .use("userPrompt", { name: "ctx-prompt", before: (_i, ctx) => void ctx.addContext("User is on call.") })
      .use("run", runContext)
      .use("run", retryOnce);

    const { requests, history } = await retried(stack);

    const sent = ["user: hello", "system: Project uses pnpm.", "system: User is on call.", "system: Run context."];
    expect(requests).toEqual([sent, sent]);
    expect(history).toEqual([...sent, "assistant: answer"]);
  });

  it("sends a run hook's context once when the hook runs again inside the retrying around hook", async () => {
    const { requests, history } = await retried(createAgentStack().use("run", retryOnce).use("run", runContext));

    expect(requests).toEqual([
      ["user: hello", "system: Run context."],
      ["user: hello", "system: Run context."],
    ]);
    expect(history).toEqual(["user: hello", "system: Run context.", "assistant: answer"]);
  });

  it("sends a retried step with the context its hooks added before the around hook", async () => {
    const { requests, history } = await retried(createAgentStack().use("step", stepContext).use("step", retryOnce));

    expect(requests).toEqual([
      ["user: hello", "system: step 0 context"],
      ["user: hello", "system: step 0 context"],
    ]);
    expect(history).toEqual(["user: hello", "system: step 0 context", "assistant: answer"]);
  });

  it("sends and records a step hook's context once when the hook runs again inside the retrying around hook", async () => {
    const { requests, history } = await retried(createAgentStack().use("step", retryOnce).use("step", stepContext));

    expect(requests).toEqual([
      ["user: hello", "system: step 0 context"],
      ["user: hello", "system: step 0 context"],
    ]);
    expect(history).toEqual(["user: hello", "system: step 0 context", "assistant: answer"]);
  });

  it("sends a sub-agent's run hook context again to its run an around hook retries", async () => {
    const stack = createAgentStack().use("run", runContext).use("run", retryOnce);
    const parent = createScriptedModel({ turns: [{ toolCalls: [{ name: "helper", input: { prompt: "look it up" } }] }, "Done."] });
    const child = createScriptedModel({ turns: [{ error: new Error("transient 503") }, "found it"] });

    const turn = await createAgent({ model: parent, stack, subagents: [{ name: "helper", model: child }] }).run("hello");

    expect(turn).toMatchObject({ status: "completed", text: "Done." });
    const sent = ["user: look it up", "system: Run context."];
    expect(child.requests.map((r) => lines(r.messages))).toEqual([sent, sent]);
  });
});
