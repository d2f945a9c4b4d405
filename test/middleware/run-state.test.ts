import { describe, expect, it } from "vitest";
import { createAgentStack, type ModelResponse, type RunResult } from "../../src/agent/index.ts";
import { MemoryStore, Priority, Reject } from "../../src/core/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { budget } from "../../src/middleware/budget.ts";
import { guards } from "../../src/middleware/guards.ts";
import { callLimit } from "../../src/middleware/rate-limit.ts";
import { toolCall } from "./harness.ts";

const cut: ModelResponse = { text: "…", toolCalls: [], finishReason: "length", usage: { inputTokens: 10, outputTokens: 10 } };
const result: RunResult = { text: "done", steps: 1, usage: { inputTokens: 10, outputTokens: 10 }, finishReason: "stop", messages: [] };
const runInput = { prompt: "go", messages: [] };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every guard that keeps per-run state, a per-run call limit and a per-run budget, over one store. */
const stackOf = (store: MemoryStore) =>
  withMiddleware(
    createAgentStack({ store }),
    guards({ finishReasons: ["length"] }),
    callLimit({ max: 5 }),
    budget({ limit: 10_000, scope: "run" }),
  );
type Stack = ReturnType<typeof stackOf>;

/** What a run does before it ends: a step that writes the token count and the finish reason, a counted tool call, a model call on the budget. */
const work = async (stack: Stack, runId: string): Promise<void> => {
  expect((await stack.run("step", { index: 0, messages: [] }, () => ({ response: cut, toolResults: [] }), { runId }))._tag).toBe(
    "Completed",
  );
  expect((await stack.run("toolCall", toolCall("Bash"), () => ({ content: "ran" }), { runId }))._tag).toBe("Completed");
  expect((await stack.run("modelCall", { model: "m", messages: [] }, () => cut, { runId }))._tag).toBe("Completed");
};

describe("per-run state is gone when the run ends, however it ends", () => {
  it("keeps keys while the run is under way", async () => {
    const store = new MemoryStore();
    const stack = stackOf(store);
    const keys = ["timeLimit:run:r1", "tokenBudget:run:r1", "finishReasonStop:run:r1", "callLimit:run:r1:Bash", "budget:run:r1"];
    const held = () => Promise.all(keys.map(async (k) => (await store.get(k)) !== undefined));
    let during: boolean[] = [];
    await stack.run(
      "run",
      runInput,
      async () => {
        await work(stack, "r1");
        during = await held();
        return result;
      },
      { runId: "r1" },
    );
    expect(during).toEqual(keys.map(() => true));
    expect(await held()).toEqual(keys.map(() => false));
    expect(store.size).toBe(0);
  });

  it("deletes them when the run failed, or a hook inside refused it", async () => {
    const store = new MemoryStore();
    const stack = stackOf(store);
    const failed = await stack.run(
      "run",
      runInput,
      async () => {
        await work(stack, "r2");
        throw new Error("loop broke");
      },
      { runId: "r2" },
    );
    expect(failed._tag).toBe("Failed");
    const refusing = stack.use("run", { name: "late-no", priority: Priority.innermost, after: () => Reject("no") });
    const refused = await refusing.run(
      "run",
      runInput,
      async () => {
        await work(refusing, "r3");
        return result;
      },
      { runId: "r3" },
    );
    expect(refused._tag).toBe("Rejected");
    expect(store.size).toBe(0);
  });

  it("deletes them when a hook inside threw after the work, or gave up at its timeout", async () => {
    const store = new MemoryStore();
    const throwing = stackOf(store).use("run", {
      name: "broken",
      priority: Priority.innermost,
      failMode: "closed",
      after: () => {
        throw new Error("broke");
      },
    });
    expect(
      (
        await throwing.run(
          "run",
          runInput,
          async () => {
            await work(throwing, "r7");
            return result;
          },
          { runId: "r7" },
        )
      )._tag,
    ).not.toBe("Completed");
    const slow = stackOf(store).use("run", {
      name: "slow",
      priority: Priority.innermost,
      failMode: "closed",
      timeoutMs: 30,
      around: async (_ctx, next) => {
        const outcome = await next();
        await sleep(300);
        return outcome;
      },
    });
    expect(
      (
        await slow.run(
          "run",
          runInput,
          async () => {
            await work(slow, "r8");
            return result;
          },
          { runId: "r8" },
        )
      )._tag,
    ).not.toBe("Completed");
    await slow.flush();
    expect(store.size).toBe(0);
  });

  it("deletes them when the caller aborts or the deadline passes while the loop hangs", async () => {
    const store = new MemoryStore();
    const stack = stackOf(store);
    const controller = new AbortController();
    const aborted = stack.run(
      "run",
      runInput,
      async () => {
        await work(stack, "r4");
        controller.abort();
        return new Promise<never>(() => undefined);
      },
      { runId: "r4", signal: controller.signal },
    );
    expect((await aborted)._tag).toBe("Failed");
    const late = await stack.run(
      "run",
      runInput,
      async () => {
        await work(stack, "r5");
        return new Promise<never>(() => undefined);
      },
      { runId: "r5", timeoutMs: 50 },
    );
    expect(late._tag).toBe("Failed");
    await stack.flush();
    expect(store.size).toBe(0);
  });

  it("leaves a run nested under the same id to the outer one", async () => {
    const store = new MemoryStore();
    const stack = stackOf(store);
    let afterInner = 0;
    await stack.run(
      "run",
      runInput,
      async () => {
        await work(stack, "r6");
        await stack.run("run", runInput, () => result, { runId: "r6" });
        afterInner = store.size;
        return result;
      },
      { runId: "r6" },
    );
    // The nested run deleted the guards' keys (each run point owns them) but not the call count, which the outer run owns.
    expect(afterInner).toBeGreaterThan(0);
    expect(store.size).toBe(0);
  });
});
