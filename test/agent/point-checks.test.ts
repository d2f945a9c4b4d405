import { describe, expect, it } from "vitest";
import { type HookError, Outcome, Replace, Transform } from "../../src/core/index.ts";
import { agentPoints, createAgentStack } from "../../src/agent/index.ts";
import {
  compactionResultCheck,
  modelRequestCheck,
  modelResponseCheck,
  permissionRequestCheck,
  runInputCheck,
  stopDecisionCheck,
  toolCallCheck,
  toolResultCheck,
  userPromptCheck,
} from "../../src/agent/point-checks.ts";

const call = { id: "c1", name: "Bash", input: { command: "ls" } };
const response = { text: "hi", toolCalls: [call], finishReason: "tool-calls", usage: { inputTokens: 1, outputTokens: 2 } };
const messages = [{ role: "user" as const, content: "hi" }];

/** Each check with values it takes, values it refuses, and what it says it expects. */
const corpus = [
  {
    check: toolCallCheck,
    fits: [call, { ...call, name: "Read", input: {} }],
    refused: [null, "ls", { ...call, input: "ls" }, { ...call, input: ["ls"] }, { ...call, id: 1 }, { name: "Bash", input: {} }],
    says: "a tool call is an object { id, name, input }",
  },
  {
    check: toolResultCheck,
    fits: [{ content: "x" }, { content: undefined }, { content: [{ type: "text", text: "x" }], isError: true }],
    refused: ["text", 42, null, [], {}, { content: "x", isError: "yes" }],
    says: "a tool result is an object { content, isError? }",
  },
  {
    check: modelResponseCheck,
    fits: [response, { ...response, toolCalls: [] }],
    refused: [{}, "hi", { ...response, usage: undefined }, { ...response, toolCalls: [{ id: "c1", name: "Bash" }] }],
    says: "the modelCall response is not a response",
  },
  {
    check: modelRequestCheck,
    fits: [
      { model: "m", messages },
      { model: "m", messages: [], tools: [] },
    ],
    refused: [
      { model: "m" },
      { model: 1, messages },
      { model: "m", messages: "hi" },
      { model: "m", messages: ["hi"] },
      { model: "m", messages, tools: {} },
    ],
    says: "a model request is an object { model, messages, tools? }",
  },
  {
    check: stopDecisionCheck,
    fits: [{ stop: true }],
    refused: [{ stop: false }, true, {}, "stop"],
    says: "a stop decision is { stop: true }",
  },
  {
    check: compactionResultCheck,
    fits: [{ messages, summary: "s", removed: 0 }],
    refused: [
      messages,
      { messages, summary: "s" },
      { messages, summary: 1, removed: 1 },
      { messages, summary: "s", removed: -1 },
      { messages: "m", summary: "s", removed: 1 },
    ],
    says: "a compaction result is an object { messages, summary, removed }",
  },
  {
    check: userPromptCheck,
    fits: [{ text: "hi" }],
    refused: ["hi", { text: 1 }, null],
    says: "a user prompt is an object { text }",
  },
  {
    check: runInputCheck,
    fits: [
      { prompt: "p", messages },
      { prompt: "p", messages, system: "s", tools: [] },
    ],
    refused: [{ prompt: "p" }, { prompt: "p", messages, system: 1 }, { prompt: "p", messages, tools: "Bash" }],
    says: "a run's input is an object { prompt, messages, system?, tools? }",
  },
  {
    check: permissionRequestCheck,
    fits: [{ call }, { call, suggestions: [] }],
    refused: [call, { call: { name: "Bash" } }, { call, suggestions: "all" }],
    says: "a permission request is an object { call, suggestions? }",
  },
];

describe("the agent's point checks", () => {
  for (const { check, fits, refused, says } of corpus) {
    it(`take what fits and refuse the rest, saying what is expected: ${says}`, () => {
      for (const value of fits) expect(check(value), JSON.stringify(value)).toBeUndefined();
      for (const value of refused) expect(check(value), JSON.stringify(value)).toContain(says);
    });
  }

  it("say what they got", () => {
    expect(toolResultCheck("cached")).toBe(
      'a tool result is an object { content, isError? }, as Replace({ content: "cached" }) gives, got "cached"',
    );
    expect(stopDecisionCheck({ stop: false })).toBe(
      'a stop decision is { stop: true } (a hook that wants the agent to go on rejects), got {"stop":false}',
    );
  });

  it("are the ones agentPoints declares", () => {
    expect(agentPoints.toolCall).toMatchObject({ input: toolCallCheck, output: toolResultCheck });
    expect(agentPoints.modelCall).toMatchObject({ input: modelRequestCheck, output: modelResponseCheck });
    expect(agentPoints.stop.output).toBe(stopDecisionCheck);
    expect(agentPoints.subagentStop.output).toBe(stopDecisionCheck);
    expect(agentPoints.compaction.output).toBe(compactionResultCheck);
    expect(agentPoints.userPrompt).toMatchObject({ input: userPromptCheck, output: userPromptCheck });
    expect(agentPoints.run.input).toBe(runInputCheck);
    expect(agentPoints.permissionRequest.input).toBe(permissionRequestCheck);
  });
});

describe("a hook's answer the agent's points refuse", () => {
  it("a tool call's input turned into a number fails the hook, closed, before the tool runs", async () => {
    const ran: unknown[] = [];
    const stack = createAgentStack().use("toolCall", { name: "rewrite", before: (c) => Transform({ ...c, input: 42 as never }) });

    const outcome = await stack.run("toolCall", call, (c) => (ran.push(c), { content: "ran" }));

    expect(outcome).toMatchObject({ _tag: "Rejected", by: "rewrite", cause: { kind: "invalid-action", point: "toolCall" } });
    expect(ran).toEqual([]);
  });

  it("a stop decision that is not one fails the hook: closed, the agent goes on with the failure as the reason", async () => {
    const stack = createAgentStack().use("stop", { name: "keep-going", before: () => Replace({ stop: false } as never) });

    const outcome = await stack.run("stop", { reason: "stop", blockedCount: 0 }, () => ({ stop: true }) as const);

    expect(outcome._tag).toBe("Rejected");
    expect(outcome._tag === "Rejected" && outcome.reason).toMatch(/Replace gave stop an output it does not take: a stop decision is/);
  });

  it("a modelCall Replace({}) fails the hook, open by default on an observe point: the model is called", async () => {
    const failures: HookError[] = [];
    const stack = createAgentStack({ onFailure: (e) => failures.push(e) }).use("modelCall", {
      name: "cache",
      before: () => Replace({} as never),
    });

    const outcome = await stack.run("modelCall", { model: "m", messages: [] }, () => response as never);

    expect(outcome).toEqual(Outcome.completed(response));
    expect(failures.map((e) => [e.hook, e.kind])).toEqual([["cache", "invalid-action"]]);
  });

  it("a compaction result that is not one fails the hook, closed when the hook says so", async () => {
    const stack = createAgentStack().use("compaction", {
      name: "summarise",
      failMode: "closed",
      after: () => Replace({ summary: "s" } as never),
    });
    const request = { trigger: "auto", messages, tokens: 10, budget: 5 } as const;

    const outcome = await stack.run("compaction", request, () => ({ messages, summary: "", removed: 0 }));

    expect(outcome).toMatchObject({ _tag: "Rejected", by: "summarise", cause: { kind: "invalid-action", point: "compaction" } });
  });
});
