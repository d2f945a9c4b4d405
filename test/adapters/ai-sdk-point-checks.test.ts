import { generateText, jsonSchema, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { wrapAiSdkTools } from "../../src/adapters/ai-sdk-tools.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { ToolCallError } from "../../src/agent/wrap-tool.ts";
import { HookError, Replace } from "../../src/core/index.ts";
import { generated, usage } from "./ai-sdk-fixtures.ts";

/** A model that calls `bash` once, then answers with text. */
const callingModel = () => {
  let turn = 0;
  return new MockLanguageModelV3({
    doGenerate: async () =>
      turn++ === 0
        ? {
            content: [{ type: "tool-call", toolCallId: "call-1", toolName: "bash", input: JSON.stringify({ command: "ls" }) }],
            finishReason: { unified: "tool-calls", raw: "tool_use" },
            usage: usage(5, 5),
            warnings: [],
          }
        : (generated("done") as never),
  });
};

const bash = (ran: string[]) => ({
  bash: tool({
    inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } } }),
    execute: async ({ command }) => (ran.push(command), `ran ${command}`),
  }),
});

/** What the model read back as the tool's result on its second call. */
const toolOutputSeen = (model: MockLanguageModelV3) => {
  const message = model.doGenerateCalls[1]?.prompt.find((m) => m.role === "tool");
  const part = message?.role === "tool" ? message.content[0] : undefined;
  return part?.type === "tool-result" ? part.output : undefined;
};

describe("wrapAiSdkTools and a hook's answer the toolCall point refuses (ai 6)", () => {
  it('a Replace("text") is the hook\'s invalid-action failure: a tool error naming the hook, and the tool does not run', async () => {
    const ran: string[] = [];
    const failures: HookError[] = [];
    const stack = createAgentStack({ onFailure: (e) => failures.push(e) }).use("toolCall", {
      name: "cache",
      before: () => Replace("cached" as never),
    });
    const model = callingModel();

    const result = await generateText({ model, tools: wrapAiSdkTools(stack, bash(ran)), prompt: "list", stopWhen: stepCountIs(3) });

    expect(ran).toEqual([]);
    expect(toolOutputSeen(model)).toEqual({
      type: "error-text",
      value:
        'Tool call bash was rejected by cache: hook "cache" failed in before on toolCall: returned an invalid action: Replace gave toolCall an output it does not take: a tool result is an object { content, isError? }, as Replace({ content: "cached" }) gives, got "cached"',
    });
    const error = result.steps[0]?.content.find((p) => p.type === "tool-error");
    expect(error?.type === "tool-error" && error.error).toBeInstanceOf(ToolCallError);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(HookError);
    expect(failures[0]).toMatchObject({ hook: "cache", point: "toolCall", phase: "before", kind: "invalid-action" });
  });

  it("failing open, the hook's answer is skipped and the tool runs", async () => {
    const ran: string[] = [];
    const stack = createAgentStack().use("toolCall", { name: "cache", failMode: "open", before: () => Replace("cached" as never) });
    const model = callingModel();

    await generateText({ model, tools: wrapAiSdkTools(stack, bash(ran)), prompt: "list", stopWhen: stepCountIs(3) });

    expect(ran).toEqual(["ls"]);
    expect(toolOutputSeen(model)).toEqual({ type: "text", value: "ran ls" });
  });
});
