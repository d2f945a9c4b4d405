import { describe, expect, it } from "vitest";
import { createScriptedModel } from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { rateLimit } from "../../src/middleware/rate-limit.ts";
import { tokenBudget } from "../../src/middleware/token-budget.ts";
import { runAgent, stackWithStore } from "./harness.ts";

/** A streamed answer the provider fails after 30 chunks of 50 characters (1 500 shown, about 375 output tokens). */
const failsPartWay = () =>
  createScriptedModel({
    chunkSize: 50,
    turns: [{ text: "word ".repeat(400), error: new Error("overloaded_error"), errorAfterChunks: 30 }, "done"],
  });

describe("tokenBudget on streams that fail", () => {
  it("counts the tokens a step's stream spent before the provider failed it", async () => {
    const { stack } = stackWithStore();
    // Read inside the run, before tokenBudget deletes the count as the run ends.
    let counted: unknown;
    const peek = withMiddleware(stack, tokenBudget({ max: 10_000 })).use("run", {
      name: "peek",
      priority: 1_000,
      around: async (ctx, next) => {
        const outcome = await next();
        counted = await ctx.store.get(`tokenBudget:run:${encodeURIComponent(ctx.runId)}`);
        return outcome;
      },
    });
    const { turn } = await runAgent(peek, [], { stream: true, model: failsPartWay() });
    expect(turn.status).toBe("failed");
    expect(counted).toBeGreaterThan(375);
  });

  it("stops a step run again after a failed one whose stream used the budget", async () => {
    const { stack } = stackWithStore();
    // An outer hook that runs a failed step once more, as a retrying wrapper would.
    const retried = withMiddleware(stack, tokenBudget({ max: 100 })).use("step", {
      name: "again",
      priority: -1_000_000,
      around: async (_ctx, next) => {
        const first = await next();
        return first._tag === "Failed" ? next() : first;
      },
    });
    const { turn, model } = await runAgent(retried, [], { stream: true, model: failsPartWay() });
    expect(turn).toMatchObject({ status: "completed", finishReason: "stopped-by-guard", result: { stoppedBy: { kind: "tokens" } } });
    expect(model.requests).toHaveLength(1);
  });
});

describe("tokenBudget and rateLimit keys", () => {
  it("work for a session id cut through an emoji (a lone surrogate), which the agent's run ids begin with", async () => {
    const sessionId = "Trip 🌍 plan".slice(0, 6);
    for (const middleware of [tokenBudget({ max: 10_000 }), rateLimit({ point: "modelCall", limit: 10, scope: "session" })]) {
      const { stack } = stackWithStore();
      const { turn } = await runAgent(withMiddleware(stack, middleware), [], {
        model: createScriptedModel({ turns: ["hello"] }),
        sessionId,
      });
      expect(turn.status).toBe("completed");
    }
  });
});
