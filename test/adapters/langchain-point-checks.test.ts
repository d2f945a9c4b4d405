import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { langchainMiddleware } from "../../src/adapters/langchain.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { type HookError, Replace } from "../../src/core/index.ts";
import { ask, bashTool, toolThenAnswer, transcript } from "./langchain-fixtures.ts";

describe("langchainMiddleware and a hook's answer the toolCall point refuses", () => {
  it('a Replace("text") is the hook\'s invalid-action failure: the model reads a rejection naming the hook, and the tool does not run', async () => {
    const { bash, ran } = bashTool();
    const failures: HookError[] = [];
    const stack = createAgentStack({ onFailure: (e) => failures.push(e) }).use("toolCall", {
      name: "cache",
      before: () => Replace("cached" as never),
    });

    const messages = await ask(
      createAgent({
        model: toolThenAnswer([{ name: "bash", args: { command: "ls" } }]),
        tools: [bash],
        middleware: [langchainMiddleware(stack)],
      }),
      "list",
    );

    expect(ran).toEqual([]);
    expect(transcript(messages)[2]).toBe(
      'tool(error): Tool call bash was rejected by cache: hook "cache" failed in before on toolCall: returned an invalid action: Replace gave toolCall an output it does not take: a tool result is an object { content, isError? }, as Replace({ content: "cached" }) gives, got "cached"',
    );
    expect(failures.map((e) => [e.hook, e.kind])).toEqual([["cache", "invalid-action"]]);
  });

  it("failing open, the hook's answer is skipped and the tool runs", async () => {
    const { bash, ran } = bashTool();
    const stack = createAgentStack().use("toolCall", { name: "cache", failMode: "open", before: () => Replace("cached" as never) });

    const messages = await ask(
      createAgent({
        model: toolThenAnswer([{ name: "bash", args: { command: "ls" } }]),
        tools: [bash],
        middleware: [langchainMiddleware(stack)],
      }),
      "list",
    );

    expect(ran).toEqual(["ls"]);
    expect(transcript(messages)[2]).toBe("tool: ran: ls");
  });
});
