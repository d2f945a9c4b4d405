import { describe, expect, it } from "vitest";
import { createAgent, createAgentStack, createScriptedModel } from "../../src/agent/index.ts";
import { stepType } from "../../src/agent/points.ts";
import { bashTool } from "./helpers.ts";

describe("the agent's step point has a step type", () => {
  it("is tool for a step whose model asked for tools, final for the answer, in a real loop", async () => {
    const seen: string[] = [];
    const stack = createAgentStack()
      .use("step", {
        name: "tool-steps",
        match: { stepType: "tool" },
        after: (result) => void seen.push(`tool: ${result.toolResults.map((r) => r.call.name).join()}`),
      })
      .use("step", { name: "final-steps", match: { stepType: "final" }, observe: (e) => void seen.push(`final: ${e.outcome._tag}`) });
    const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "Bash", input: { command: "ls" } }] }, "Done."] });
    const turn = await createAgent({ model, stack, tools: [bashTool()] }).run("list files");
    await stack.flush();
    expect(turn.status).toBe("completed");
    expect(seen).toEqual(["tool: Bash", "final: Completed"]);
  });

  it("is error for a step that failed", async () => {
    const seen: string[] = [];
    const stack = createAgentStack().use("step", {
      name: "failed-steps",
      match: { stepType: "error" },
      recover: (error) => void seen.push(String(error)),
    });
    const model = createScriptedModel({ turns: [{ error: new Error("provider down") }] });
    await createAgent({ model, stack })
      .run("hi")
      .catch(() => undefined);
    expect(seen).toEqual(["AgentRunError: model failed: provider down"]);
  });

  it("is read from the outcome: tool, final, error, or none for a result without a response", () => {
    const response = (n: number) => ({
      text: "",
      toolCalls: Array.from({ length: n }, (_, i) => ({ id: `${i}`, name: "x", input: {} })),
      finishReason: "stop" as const,
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    expect(stepType({ _tag: "Completed", value: { response: response(2), toolResults: [] } } as never)).toBe("tool");
    expect(stepType({ _tag: "Completed", value: { response: response(0), toolResults: [] } } as never)).toBe("final");
    expect(stepType({ _tag: "Failed", error: new Error("x") })).toBe("error");
    expect(stepType({ _tag: "Completed", value: "not a step result" } as never)).toBeUndefined();
    expect(stepType({ _tag: "Rejected", reason: "no", by: "h" } as never)).toBeUndefined();
  });

  it("refuses a stepType matcher on the toolCall point, which has no step type", () => {
    expect(() => createAgentStack().use("toolCall", { name: "t", match: { stepType: "tool" }, after: () => undefined })).toThrow(
      /match\.stepType needs a point with a step type, and point "toolCall" has none/,
    );
  });
});
