/**
 * Per-run limits and sub-agents: a sub-agent runs as a run of its own, inside a tool call of its
 * parent's run. What it spends and how long it takes count against the parent's run too, so a run
 * cannot walk past its token or time limit by handing work to sub-agents.
 */
import { describe, expect, it } from "vitest";
import { createAgent, createAgentStack, createScriptedModel, type ModelRequest } from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { budget } from "../../src/middleware/budget.ts";
import { guards } from "../../src/middleware/guards.ts";
import { callLimit, rateLimit } from "../../src/middleware/rate-limit.ts";
import { stepLimit } from "../../src/middleware/step-limit.ts";
import { timeLimit } from "../../src/middleware/time-limit.ts";
import { tokenBudget } from "../../src/middleware/token-budget.ts";
import { recordingTool } from "./harness.ts";

const isChild = (r: ModelRequest) => r.messages[0]?.content === "You research.";
const researcher = { name: "researcher", system: "You research." };

/** A parent that hands one task to the researcher per step, forever; each researcher step costs `childTokens`. */
const delegating = (childTokens: number, onChildStep: () => void = () => {}, onParentStep: () => void = () => {}) => {
  let childSteps = 0;
  const model = createScriptedModel({
    turns: [],
    whenDone: (r) => {
      if (isChild(r)) {
        childSteps++;
        onChildStep();
        // The researcher keeps working (a tool call to itself is not offered: it asks for a tool it lacks).
        return r.messages.length < 8
          ? {
              toolCalls: [{ name: "Nope", input: {}, id: `c${r.messages.length}` }],
              usage: { inputTokens: childTokens / 2, outputTokens: childTokens / 2 },
            }
          : { text: "Found it.", usage: { inputTokens: childTokens / 2, outputTokens: childTokens / 2 } };
      }
      onParentStep();
      return {
        toolCalls: [{ name: "researcher", input: { prompt: "go" }, id: `p${r.messages.length}` }],
        usage: { inputTokens: 5, outputTokens: 5 },
      };
    },
  });
  return { model, childSteps: () => childSteps };
};

describe("per-run limits count a run's sub-agents", () => {
  it("stops a run whose sub-agents spent its tokens, and stops the sub-agent that spends them", async () => {
    const { model, childSteps } = delegating(400);
    const stack = withMiddleware(createAgentStack(), guards({ maxSteps: 50, maxTokens: 1000, maxExecutionTime: null }));
    const turn = await createAgent({ model, stack, name: "main", subagents: [researcher] }).run("go");
    expect(turn).toMatchObject({ status: "completed", finishReason: "stopped-by-guard", result: { stoppedBy: { kind: "tokens" } } });
    // 10 for the parent's first step, then 400 a researcher step: the third reaches the limit, the fourth never runs.
    expect(childSteps()).toBe(3);
  });

  it("times a sub-agent from the start of its parent's run", async () => {
    let clock = 0;
    const { model, childSteps } = delegating(
      2,
      () => {
        clock += 4_000;
      },
      () => {
        clock += 9_000;
      },
    );
    const stack = withMiddleware(createAgentStack(), timeLimit({ maxSeconds: 10, now: () => clock }));
    const turn = await createAgent({ model, stack, name: "main", subagents: [researcher] }).run("go");
    expect(turn).toMatchObject({ status: "completed", finishReason: "stopped-by-guard", result: { stoppedBy: { kind: "time" } } });
    // The parent's step takes 9 s; the researcher's first step starts at 9 s, its second would at 13 s.
    expect(childSteps()).toBe(1);
  });

  it("keeps a sub-agent's count apart from another run's", async () => {
    const stack = withMiddleware(createAgentStack(), tokenBudget({ max: 1000 }));
    for (let i = 0; i < 2; i++) {
      const { model, childSteps } = delegating(400);
      const turn = await createAgent({ model, stack, name: "main", subagents: [researcher] }).run("go");
      expect(turn.result?.stoppedBy?.kind).toBe("tokens");
      expect(childSteps()).toBe(3);
    }
  });
});

describe("run-scoped limits count a run's sub-agents", () => {
  it("stepLimit: a run with a 4-step limit takes 4 steps with its sub-agents, not 4 each", async () => {
    const { model, childSteps } = delegating(2);
    const stack = withMiddleware(createAgentStack(), stepLimit({ max: 4 }));
    const turn = await createAgent({ model, stack, name: "main", subagents: [researcher] }).run("go");
    expect(turn).toMatchObject({ status: "completed", finishReason: "stopped-by-guard", result: { stoppedBy: { kind: "steps" } } });
    // The parent's first step, then three of the researcher's; the researcher's fourth is refused.
    expect(childSteps()).toBe(3);
  });

  it("callLimit (scope run): a sub-agent's tool calls count against its parent's run", async () => {
    const read = recordingTool("Read");
    const model = createScriptedModel({
      turns: [],
      whenDone: (r) =>
        isChild(r)
          ? r.messages.length < 8
            ? { toolCalls: [{ name: "Read", input: { n: r.messages.length }, id: `c${r.messages.length}` }] }
            : "read enough"
          : r.messages.length < 3
            ? { toolCalls: [{ name: "Read", input: { n: 0 }, id: "p0" }] }
            : r.messages.length < 7
              ? { toolCalls: [{ name: "researcher", input: { prompt: "go" }, id: `p${r.messages.length}` }] }
              : "done",
    });
    const stack = withMiddleware(createAgentStack(), callLimit({ match: "Read", max: 3 }));
    const subagents = [{ ...researcher, tools: [read] }];
    const turn = await createAgent({ model, stack, name: "main", tools: [read], subagents }).run("go");
    expect(turn.status).toBe("completed");
    // One Read of the parent's own and two of the first researcher's; every Read after that is refused, the second researcher's too.
    expect(read.calls).toHaveLength(3);
  });

  it("rateLimit and budget (scope run): a sub-agent's model calls count against its parent's run", async () => {
    for (const middleware of [
      rateLimit({ point: "modelCall", per: "all", limit: 3, scope: "run" }),
      budget({ limit: 300, scope: "run", reserve: () => 100, charge: (r) => r.usage.inputTokens + r.usage.outputTokens }),
    ]) {
      const { model, childSteps } = delegating(100);
      const stack = withMiddleware(createAgentStack(), middleware);
      const turn = await createAgent({ model, stack, name: "main", subagents: [researcher] }).run("go");
      expect(turn.status).not.toBe("running");
      // The parent's first call, then two of the researcher's: its third is refused (the run's fourth call; 310 of 300 tokens).
      expect(childSteps()).toBe(2);
    }
  });
});
