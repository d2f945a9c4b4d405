import { Agent, run, setTracingDisabled, tool, type FunctionTool } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { Replace } from "../../src/core/action.ts";
import type { HookError } from "../../src/core/errors.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { guardTool } from "../../src/adapters/openai-agents/index.ts";

setTracingDisabled(true);

/** A tool that records what it ran with. */
const recorder = () => {
  const ran: string[] = [];
  const t = tool({
    name: "send_email",
    description: "Send an email",
    parameters: z.object({ to: z.string() }),
    execute: async ({ to }) => (ran.push(to), `sent to ${to}`),
  });
  return { ran, tool: t };
};

/** Run one call of send_email, and give the function call results the model read on its second call. */
const runOnce = async (t: FunctionTool<any, any, any>) => {
  const model = new ScriptedModel([[functionCall("send_email", { to: "ada" }, { callId: "c1" })], [assistantMessage("done")]]);
  await run(new Agent({ name: "a", tools: [t], model }), "go");
  return (model.calls[1]?.request.input as Record<string, unknown>[]).filter((item) => item.type === "function_call_result");
};

describe("guardTool and a hook's answer the toolCall point refuses", () => {
  it('a Replace("text") is the hook\'s invalid-action failure: the model reads a rejection naming the hook, and the tool does not run', async () => {
    const { ran, tool: t } = recorder();
    const failures: HookError[] = [];
    const stack = createAgentStack({ onFailure: (e) => failures.push(e) }).use("toolCall", {
      name: "cache",
      before: () => Replace("cached" as never),
    });

    const results = await runOnce(guardTool(stack, t));

    expect(ran).toEqual([]);
    expect(results).toMatchObject([
      {
        callId: "c1",
        output: {
          type: "text",
          text: 'Tool call send_email was rejected by cache: hook "cache" failed in before on toolCall: returned an invalid action: Replace gave toolCall an output it does not take: a tool result is an object { content, isError? }, as Replace({ content: "cached" }) gives, got "cached"',
        },
      },
    ]);
    expect(failures.map((e) => [e.hook, e.kind])).toEqual([["cache", "invalid-action"]]);
  });

  it("failing open, the hook's answer is skipped and the tool runs", async () => {
    const { ran, tool: t } = recorder();
    const stack = createAgentStack().use("toolCall", { name: "cache", failMode: "open", before: () => Replace("cached" as never) });

    const results = await runOnce(guardTool(stack, t));

    expect(ran).toEqual(["ada"]);
    expect(results).toMatchObject([{ callId: "c1", output: { type: "text", text: "sent to ada" } }]);
  });
});
