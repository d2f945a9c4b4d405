import { describe, expect, it } from "vitest";
import { createAgent, createAgentStack, createScriptedModel, type LanguageModel } from "../../src/agent/index.ts";
import { fallback, retry, withMiddleware } from "../../src/middleware/index.ts";

const overloaded = () => Object.assign(new Error("overloaded"), { status: 529 });

describe("a streamed turn the caller aborts after a stream failed having produced nothing", () => {
  it("does not count the failed primary stream's estimate when fallback's backup answered and an after hook still runs", async () => {
    const backup: LanguageModel = {
      id: "backup",
      generate: async () => ({
        text: "backup answer",
        toolCalls: [],
        finishReason: "stop",
        usage: { inputTokens: 1000, outputTokens: 500 },
      }),
    };
    const seen: unknown[] = [];
    const stack = withMiddleware(createAgentStack(), fallback({ models: [backup] })).use("modelCall", {
      name: "slow-audit",
      priority: 0,
      after: (response, _input, ctx) => {
        seen.push(response.usage);
        return new Promise<void>((resolve) => {
          const t = setTimeout(resolve, 200);
          ctx.signal.addEventListener("abort", () => (clearTimeout(t), resolve()));
        });
      },
    });
    const primary = createScriptedModel({ turns: [{ text: "x", error: overloaded(), errorAfterChunks: 0 }] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("ctrl-c")), 60);

    const turn = await createAgent({ model: primary, stack, stream: true }).run("please answer the question about the weather", {
      signal: controller.signal,
    });

    expect(seen).toEqual([{ inputTokens: 1000, outputTokens: 500 }]);
    expect(turn.status).toBe("aborted");
    expect(turn.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
  });

  it("does not count the failed attempt's estimate when the caller aborts while retry waits to open the next stream", async () => {
    const stack = withMiddleware(createAgentStack(), retry({ attempts: 2, baseMs: 500, jitter: "none", retryOn: () => true }));
    const model = createScriptedModel({ turns: [{ text: "x", error: overloaded(), errorAfterChunks: 0 }, "never read"] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("ctrl-c")), 50);

    const turn = await createAgent({ model, stack, stream: true }).run("please answer the question about the weather", {
      signal: controller.signal,
    });

    expect(model.requests).toHaveLength(1);
    expect(turn).toMatchObject({ status: "aborted", usage: { inputTokens: 0, outputTokens: 0 } });
  });
});
