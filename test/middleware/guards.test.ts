import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../src/core/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { finishReasonStop } from "../../src/middleware/finish-reason-stop.ts";
import { guards } from "../../src/middleware/guards.ts";
import { stepLimit } from "../../src/middleware/step-limit.ts";
import { timeLimit } from "../../src/middleware/time-limit.ts";
import { tokenBudget } from "../../src/middleware/token-budget.ts";
import { failingStore, recordingTool, runAgent, stackWithStore } from "./harness.ts";

/** A model that keeps calling a tool, for as long as it is allowed to. */
const looping = { toolCalls: [{ name: "Read", input: { path: "a" } }], usage: { inputTokens: 100, outputTokens: 50 } };
const forever = (n: number) => Array.from({ length: n }, () => looping);

/** A guard ends the run cleanly: the turn completes with the guard's reason, nothing failed. */
const stopped = (turn: { status: string; finishReason?: string; result?: { stoppedBy?: unknown } }) => {
  expect(turn.status).toBe("completed");
  expect(turn.finishReason).toBe("stopped-by-guard");
  return turn.result?.stoppedBy;
};

describe("stepLimit", () => {
  it("stops the run before the step past the limit, saying which limit", async () => {
    const read = recordingTool("Read");
    const { turn, model } = await runAgent(withMiddleware(stackWithStore().stack, stepLimit({ max: 2 })), forever(5), { tools: [read] });
    const error = stopped(turn);
    expect(error).toMatchObject({ kind: "steps", by: "stepLimit", reason: "Step limit reached: 2/2" });
    expect(model.requests).toHaveLength(2);
    expect(turn.steps).toBe(2); // the step the guard stopped before it began is not counted
    expect(read.calls).toHaveLength(2);
  });

  it("lets a run that finishes within the limit complete", async () => {
    const { turn } = await runAgent(withMiddleware(stackWithStore().stack, stepLimit({ max: 2 })), [looping, "done"], {
      tools: [recordingTool("Read")],
    });
    expect(turn).toMatchObject({ status: "completed", text: "done", steps: 2 });
  });
});

describe("tokenBudget", () => {
  it("stops the run before the next step once the run used its tokens, counting input and output, and forgets the count when the run ends", async () => {
    const { stack, store } = stackWithStore();
    const { turn, model } = await runAgent(withMiddleware(stack, tokenBudget({ max: 300 })), forever(5), {
      tools: [recordingTool("Read")],
    });
    expect(stopped(turn)).toMatchObject({ kind: "tokens", reason: "Token limit reached: 300/300 tokens" });
    expect(model.requests).toHaveLength(2);
    expect(await store.get(`tokenBudget:run:${encodeURIComponent(turn.runId)}`)).toBeUndefined();
    expect((store as MemoryStore).size).toBe(0);
  });

  it("keeps each run's count apart, in the store rather than in the middleware", async () => {
    const stack = withMiddleware(stackWithStore().stack, tokenBudget({ max: 200 }));
    const first = await runAgent(stack, [looping, "done"], { tools: [recordingTool("Read")] });
    const second = await runAgent(stack, [looping, "done"], { tools: [recordingTool("Read")] });
    expect([first.turn.status, second.turn.status]).toEqual(["completed", "completed"]);
  });

  it("counts usage past the safe integers (or Infinity) as the whole budget, rather than as nothing", async () => {
    const huge = { ...looping, usage: { inputTokens: 1e16, outputTokens: 0 } };
    const { turn, model } = await runAgent(withMiddleware(stackWithStore().stack, tokenBudget({ max: 1000 })), [huge, huge, huge], {
      tools: [recordingTool("Read")],
    });
    expect(stopped(turn)).toMatchObject({ kind: "tokens" });
    expect(model.requests).toHaveLength(1);
  });

  it("stops the run, failing closed, when the store cannot give the count", async () => {
    const { turn, model } = await runAgent(withMiddleware(stackWithStore(failingStore(["get"])).stack, tokenBudget()), ["never"]);
    expect(turn.status).toBe("failed");
    expect(String((turn.error as Error).message)).toMatch(/tokenBudget.*redis unreachable/);
    expect(model.requests).toHaveLength(0);
  });
});

describe("timeLimit", () => {
  it("starts the clock on run and stops before a step that begins past the limit", async () => {
    let clock = 1_000_000;
    const slowTool = recordingTool("Read", () => {
      clock += 20_000;
      return "slow";
    });
    const stack = withMiddleware(stackWithStore().stack, timeLimit({ maxSeconds: 30, now: () => clock }));
    const { turn, model } = await runAgent(stack, forever(5), { tools: [slowTool] });
    expect(stopped(turn)).toMatchObject({ kind: "time", reason: "Time limit reached: 40.0 s of 30 s" });
    expect(model.requests).toHaveLength(2);
  });

  it("starts the clock on the first step when no run point started it", async () => {
    const store = new MemoryStore();
    const stack = withMiddleware(stackWithStore(store).stack, timeLimit({ maxSeconds: 1, now: () => 5 }));
    const outcome = await stack.run(
      "step",
      { index: 0, messages: [] },
      () => ({ response: { text: "", toolCalls: [], finishReason: "stop", usage: { inputTokens: 0, outputTokens: 0 } }, toolResults: [] }),
      { runId: "r1" },
    );
    expect(outcome._tag).toBe("Completed");
    expect(await store.get("timeLimit:run:r1")).toBe(5);
  });
});

describe("a time limit of years", () => {
  it("lets runs through rather than asking the store for a TTL past the safe integers", async () => {
    for (const middleware of [timeLimit({ maxSeconds: Number.MAX_SAFE_INTEGER }), guards({ maxExecutionTime: 1e13 })]) {
      const { turn } = await runAgent(withMiddleware(stackWithStore().stack, middleware), ["done"]);
      expect(turn.status).toBe("completed");
    }
  });
});

describe("finishReasonStop", () => {
  it("lets the step that ended with a listed reason complete, then stops before the next one", async () => {
    const read = recordingTool("Read");
    const cut = { ...looping, finishReason: "length" as const };
    const { turn, model } = await runAgent(
      withMiddleware(stackWithStore().stack, finishReasonStop({ reasons: ["length"] })),
      [cut, looping, "done"],
      { tools: [read] },
    );
    expect(stopped(turn)).toMatchObject({ kind: "finish-reason", reason: 'The model finished with "length", which stops the run' });
    expect(model.requests).toHaveLength(1);
    expect(read.calls).toHaveLength(1);
  });

  it("does nothing with an empty list, and refuses an unknown reason at configuration", () => {
    expect(finishReasonStop({ reasons: [] }).hooks).toEqual({});
    expect(() => finishReasonStop({ reasons: ["done" as never] })).toThrow(TypeError);
  });
});

describe("guards()", () => {
  it("bundles the guards with seed 000's defaults, each under its own name and priority", () => {
    const stack = withMiddleware(stackWithStore().stack, guards());
    const hooks = stack.explain("step", { index: 0, messages: [] }).map((e) => [e.hook, e.priority]);
    expect(hooks).toEqual([
      ["stepLimit", 10],
      ["tokenBudget", 10],
      ["timeLimit", 10],
    ]);
    // On run: each guard that keeps per-run state deletes it when the run settles.
    expect(stack.explain("run", { prompt: "", messages: [] }).map((e) => e.hook)).toEqual(["stepLimit", "tokenBudget", "timeLimit"]);
  });

  it("switches a guard off with null and adds the finish-reason guard when reasons are given", () => {
    const stack = withMiddleware(stackWithStore().stack, guards({ maxTokens: null, maxExecutionTime: null, finishReasons: ["length"] }));
    expect(stack.explain("step", { index: 0, messages: [] }).map((e) => e.hook)).toEqual(["finishReasonStop", "stepLimit"]);
  });

  it("stops a looping agent through the reference loop", async () => {
    const { turn } = await runAgent(withMiddleware(stackWithStore().stack, guards({ maxSteps: 3 })), forever(10), {
      tools: [recordingTool("Read")],
      maxSteps: 50,
    });
    expect(stopped(turn)).toMatchObject({ kind: "steps" });
  });

  it("refuses floats, negatives and NaN at configuration with a TypeError naming the field", () => {
    expect(() => guards({ maxSteps: 2.5 })).toThrow(/guards: maxSteps must be an integer/);
    expect(() => guards({ maxTokens: -1 })).toThrow(/guards: maxTokens/);
    expect(() => guards({ maxExecutionTime: Number.NaN })).toThrow(/guards: maxExecutionTime/);
    expect(() => stepLimit({ max: Number.POSITIVE_INFINITY })).toThrow(/stepLimit: max/);
  });
});
