import { describe, expect, it } from "vitest";
import {
  createAgent,
  createAgentStack,
  createScriptedModel,
  currentInvocation,
  trackInvocations,
  type Invocation,
} from "../../src/agent/index.ts";

describe("agent.run() as one invocation", () => {
  const seen = () => {
    const points: [string, Invocation | undefined][] = [];
    let stack = createAgentStack();
    for (const point of ["sessionStart", "userPrompt", "run", "sessionEnd"] as const)
      stack = stack.use(point, { name: "see", before: () => void points.push([point, currentInvocation()]) });
    return { stack, points };
  };

  it("carries no invocation until some middleware asked, so nobody pays for AsyncLocalStorage unasked", async () => {
    const { stack, points } = seen();
    await createAgent({ model: createScriptedModel({ turns: ["hi"] }), stack }).run("go");
    expect(points.map(([, i]) => i)).toEqual([undefined, undefined, undefined, undefined]);
  });

  it("then gives every point of one run the same invocation, a new one per run, ended once the run settled", async () => {
    trackInvocations();
    const { stack, points } = seen();
    const agent = createAgent({ model: createScriptedModel({ turns: ["one", "two"] }), stack, name: "coder" });
    const ended: string[] = [];
    await agent.run("a");
    const first = points[0]![1]!;
    first.onEnd(() => ended.push("late listener runs at once"));
    await agent.run("b");
    expect(points.map(([p]) => p)).toEqual([
      "sessionStart",
      "userPrompt",
      "run",
      "sessionEnd",
      "sessionStart",
      "userPrompt",
      "run",
      "sessionEnd",
    ]);
    expect(new Set(points.slice(0, 4).map(([, i]) => i))).toEqual(new Set([first]));
    expect(points[4]![1]).not.toBe(first);
    expect(first.agent).toBe("coder");
    expect(ended).toEqual(["late listener runs at once"]);
    expect(currentInvocation()).toBeUndefined();
  });
});
