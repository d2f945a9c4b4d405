import { describe, expect, it } from "vitest";
import { type HookError, Replace } from "../../src/index.ts";
import { createAgent, createAgentStack, createScriptedModel, defineTool } from "../../src/agent/index.ts";

const model = () => createScriptedModel({ turns: ["hi"] });

describe("the agent's entry points refuse what they would otherwise drop", () => {
  it("createAgent refuses a misspelt option, naming the option meant, before complaining of a missing stack", () => {
    expect(() => createAgent({ model: model(), tool: [] } as never)).toThrow(
      /^createAgent: unknown option "tool" \(did you mean "tools"\?\); its options are model, tools, stack, /,
    );
  });

  it("createAgent refuses a misspelt field of a sub-agent, naming the sub-agent", () => {
    const subagents = [{ name: "helper", description: "helps", tool: [] }];
    expect(() => createAgent({ model: model(), stack: createAgentStack(), subagents } as never)).toThrow(
      /^createAgent: subagent "helper": unknown option "tool" \(did you mean "tools"\?\)/,
    );
  });

  it("defineTool refuses a tool without an execute function", () => {
    expect(() => defineTool({ name: "x" } as never)).toThrow(/^defineTool: tool "x" needs an execute function, got undefined/);
  });

  it("defineTool refuses a misspelt field", () => {
    expect(() => defineTool({ name: "x", execute: () => "", inputschema: {} } as never)).toThrow(
      /^defineTool: unknown option "inputschema" \(did you mean "inputSchema"\?\)/,
    );
  });

  it("createScriptedModel refuses a misspelt option and a missing list of turns", () => {
    expect(() => createScriptedModel({ turn: ["x"] } as never)).toThrow(
      /^createScriptedModel: unknown option "turn" \(did you mean "turns"\?\)/,
    );
    expect(() => createScriptedModel({} as never)).toThrow(/^createScriptedModel: turns must be a list of turns, got undefined/);
  });
});

describe("a hook that answers a tool call with what is not a tool result", () => {
  it("is that hook's invalid-action failure: the model reads a rejection naming the hook and what a tool result is", async () => {
    const ran: string[] = [];
    const failures: HookError[] = [];
    const tool = defineTool<{ command?: unknown }>({ name: "Bash", execute: ({ command }) => ran.push(String(command)) });
    const stack = createAgentStack({ onFailure: (e) => failures.push(e) }).use("toolCall", {
      name: "cache",
      before: () => Replace("cached" as never),
    });
    const scripted = createScriptedModel({ turns: [{ toolCalls: [{ name: "Bash", input: { command: "ls" }, id: "c1" }] }, "Done."] });

    await createAgent({ model: scripted, tools: [tool], stack }).run("go");

    expect(ran).toEqual([]);
    expect(failures.map((e) => [e.hook, e.point, e.phase, e.kind])).toEqual([["cache", "toolCall", "before", "invalid-action"]]);
    expect(scripted.requests[1]!.messages.at(-1)).toEqual({
      role: "tool",
      toolCallId: "c1",
      toolName: "Bash",
      isError: true,
      content:
        'Tool call Bash was rejected by cache: hook "cache" failed in before on toolCall: returned an invalid action: Replace gave toolCall an output it does not take: a tool result is an object { content, isError? }, as Replace({ content: "cached" }) gives, got "cached"',
    });
  });

  it("runs the tool instead when the hook fails open", async () => {
    const stack = createAgentStack().use("toolCall", { name: "cache", failMode: "open", before: () => Replace("cached" as never) });
    const scripted = createScriptedModel({ turns: [{ toolCalls: [{ name: "Bash", input: { command: "ls" }, id: "c1" }] }, "Done."] });

    await createAgent({ model: scripted, tools: [defineTool({ name: "Bash", execute: () => "ran" })], stack }).run("go");

    expect(scripted.requests[1]!.messages.at(-1)).toMatchObject({ role: "tool", content: "ran" });
    expect(stack.stats.failOpen).toBe(1);
  });

  it("takes a tool result a hook gives in the tool's place", async () => {
    const stack = createAgentStack().use("toolCall", { name: "cache", before: () => Replace({ content: "cached" }) });
    const scripted = createScriptedModel({ turns: [{ toolCalls: [{ name: "Bash", input: { command: "ls" }, id: "c1" }] }, "Done."] });

    await createAgent({ model: scripted, tools: [defineTool({ name: "Bash", execute: () => "ran" })], stack }).run("go");

    expect(scripted.requests[1]!.messages.at(-1)).toMatchObject({ role: "tool", content: "cached" });
  });
});
