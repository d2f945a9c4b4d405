import { describe, expect, it } from "vitest";
import { type HookError, Outcome, Replace, Transform } from "../../src/core/index.ts";
import { agentPoints, createAgentStack } from "../../src/agent/index.ts";
import {
  compactionRequestCheck,
  compactionResultCheck,
  errorDecisionCheck,
  errorEventCheck,
  modelRequestCheck,
  modelResponseCheck,
  nothingCheck,
  notificationCheck,
  permissionDecisionCheck,
  permissionRequestCheck,
  runInputCheck,
  runResultCheck,
  sessionEndCheck,
  sessionInfoCheck,
  sessionStartCheck,
  stepInputCheck,
  stepResultCheck,
  stopDecisionCheck,
  stopRequestCheck,
  subagentStartCheck,
  subagentStopRequestCheck,
  toolBatchCheck,
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
  {
    check: sessionStartCheck,
    fits: [
      { sessionId: "s1", source: "startup" },
      { sessionId: "s1", source: "a-source-added-later" },
    ],
    refused: [{ sessionId: "s1" }, { sessionId: 1, source: "startup" }, "s1"],
    says: "a session start is an object { sessionId, source }",
  },
  {
    check: sessionInfoCheck,
    fits: [{ sessionId: "s1" }, { sessionId: "s1", env: { PATH: "/bin" }, envFile: "/tmp/env" }],
    refused: [{}, { sessionId: "s1", env: { PATH: 1 } }, { sessionId: "s1", env: "PATH=/bin" }, { sessionId: "s1", envFile: 3 }],
    says: "a session is an object { sessionId, env?, envFile? }",
  },
  {
    check: sessionEndCheck,
    fits: [{ sessionId: "s1", reason: "other" }],
    refused: [{ sessionId: "s1" }, { reason: "other" }, null],
    says: "a session end is an object { sessionId, reason }",
  },
  {
    check: nothingCheck,
    fits: [undefined],
    refused: [null, "sent", {}, 0],
    says: "this point yields nothing",
  },
  {
    check: stepInputCheck,
    fits: [
      { index: 0, messages },
      { index: 3, messages: [] },
    ],
    refused: [{ index: -1, messages }, { index: 1.5, messages }, { index: 0 }, { index: 0, messages: [{ role: "user", content: 1 }] }],
    says: "a step is an object { index, messages }",
  },
  {
    check: stepResultCheck,
    fits: [
      { response, toolResults: [] },
      { response, toolResults: [{ call, result: { content: "ok" } }] },
      { response, toolResults: [{ call, result: { content: "waits" }, approval: { id: "a1" } }] },
    ],
    refused: [
      { response: {}, toolResults: [] },
      { response },
      { response, toolResults: [{ call, result: "ok" }] },
      { response, toolResults: [{ call: { name: "Bash" }, result: { content: "" } }] },
      { response, toolResults: [{ call, result: { content: "" }, approval: "yes" }] },
    ],
    says: "a step result is an object { response, toolResults }",
  },
  {
    check: stopRequestCheck,
    fits: [
      { reason: "done", blockedCount: 0 },
      { reason: "done", lastMessage: "bye", blockedCount: 2 },
    ],
    refused: [
      { reason: "done" },
      { reason: 1, blockedCount: 0 },
      { reason: "done", blockedCount: -1 },
      { reason: "d", lastMessage: 1, blockedCount: 0 },
    ],
    says: "a stop request is an object { reason, lastMessage?, blockedCount }",
  },
  {
    check: subagentStopRequestCheck,
    fits: [{ reason: "done", blockedCount: 0, agent: "explorer", path: ["main", "explorer"] }],
    refused: [
      { reason: "done", blockedCount: 0 },
      { reason: "done", blockedCount: 0, agent: "e", path: "main/e" },
    ],
    says: "a sub-agent's stop request is an object",
  },
  {
    check: subagentStartCheck,
    fits: [
      { agent: "explorer", path: ["explorer"] },
      { agent: "explorer", path: [], prompt: "look" },
    ],
    refused: [{ agent: "explorer" }, { agent: "e", path: [1] }, { agent: "e", path: [], prompt: 1 }],
    says: "a sub-agent start is an object { agent, path, prompt? }",
  },
  {
    check: compactionRequestCheck,
    fits: [{ trigger: "auto", messages, tokens: 10, budget: 5 }],
    refused: [
      { trigger: "sometimes", messages, tokens: 10, budget: 5 },
      { trigger: "manual", messages, tokens: -1, budget: 5 },
      { trigger: "auto", tokens: 1, budget: 1 },
    ],
    says: "a compaction request is an object { trigger, messages, tokens, budget }",
  },
  {
    check: errorEventCheck,
    fits: [
      { where: "model", error: new Error("503"), attempt: 1 },
      { where: "loop", error: undefined, attempt: 4 },
    ],
    refused: [{ where: "disk", error: "x", attempt: 1 }, { where: "tool", attempt: 1 }, { where: "tool", error: "x", attempt: 0 }, "boom"],
    says: "an error event is an object { where, error, attempt }",
  },
  {
    check: errorDecisionCheck,
    fits: [{ action: "fail" }, { action: "retry" }, { action: "retry", delayMs: 0 }, { action: "recover", value: undefined }],
    refused: [
      { action: "explode" },
      { action: "retry", delayMs: "soon" },
      { action: "retry", delayMs: -5 },
      { action: "recover" },
      "retry",
    ],
    says: 'an error decision is { action: "fail" }',
  },
  {
    check: notificationCheck,
    fits: [
      { type: "info", message: "hi" },
      { type: "a-type-added-later", message: "" },
    ],
    refused: [{ type: "info" }, { type: 1, message: "hi" }, "hi"],
    says: "a notification is an object { type, message }",
  },
  {
    check: toolBatchCheck,
    fits: [{ calls: [] }, { calls: [{ call, result: { content: "ok", isError: false } }] }],
    refused: [{ calls: [{ call }] }, { calls: [{ call: { name: "Bash" }, result: { content: "" } }] }, { calls: "all" }, []],
    says: "a tool batch is an object { calls }",
  },
  {
    check: permissionDecisionCheck,
    fits: [
      { behavior: "allow" },
      { behavior: "allow", updatedInput: { command: "ls" }, updatedPermissions: [] },
      { behavior: "deny" },
      { behavior: "deny", message: "no", interrupt: true },
    ],
    refused: [{ behavior: "ask" }, { behavior: "allow", updatedInput: "ls" }, { behavior: "deny", interrupt: "yes" }, "allow", null],
    says: 'a permission decision is { behavior: "allow"',
  },
  {
    check: runResultCheck,
    fits: [
      { text: "done", steps: 1, usage: { inputTokens: 1, outputTokens: 2 }, finishReason: "stop", messages },
      {
        text: "",
        steps: 0,
        usage: { inputTokens: 0, outputTokens: 0 },
        finishReason: "stopped-by-guard",
        stoppedBy: { reason: "budget", by: "budget", kind: "tokens" },
        messages: [],
      },
    ],
    refused: [
      { text: "done" },
      { text: "done", steps: 1, usage: { inputTokens: 1 }, finishReason: "stop", messages },
      { text: "done", steps: -1, usage: { inputTokens: 1, outputTokens: 2 }, finishReason: "stop", messages },
      { text: "done", steps: 1, usage: { inputTokens: 1, outputTokens: 2 }, finishReason: "stop", messages, stoppedBy: "budget" },
    ],
    says: "a run's result is an object { text, steps, usage, finishReason, messages",
  },
];

/** Conversations as the loop and every adapter write them, and ones they cannot read. */
const conversations = {
  fits: [
    [],
    messages,
    [
      { role: "system", content: "Be brief" },
      { role: "assistant", content: "", toolCalls: [call] },
      { role: "tool", content: "ok", toolCallId: "c1", toolName: "Bash", isError: true },
    ],
  ],
  refused: [
    "hi",
    ["hi"],
    [{ role: "robot", content: "hi" }],
    [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    [{ role: "user" }],
    [{ role: "assistant", content: "", toolCalls: [{ name: "Bash" }] }],
    [{ role: "tool", content: "", toolCallId: 7 }],
    [{ role: "tool", content: "", isError: "yes" }],
  ],
};

describe("a conversation inside a point's value", () => {
  const checks = {
    modelCall: (m: unknown) => modelRequestCheck({ model: "m", messages: m }),
    run: (m: unknown) => runInputCheck({ prompt: "p", messages: m }),
    step: (m: unknown) => stepInputCheck({ index: 0, messages: m }),
    compaction: (m: unknown) => compactionResultCheck({ messages: m, summary: "s", removed: 0 }),
  };
  for (const [point, check] of Object.entries(checks)) {
    it(`is taken on ${point} when every message has a known role and text content, and refused otherwise`, () => {
      for (const m of conversations.fits) expect(check(m), JSON.stringify(m)).toBeUndefined();
      for (const m of conversations.refused) expect(check(m), JSON.stringify(m)).toContain("messages");
    });
  }

  it("is refused naming the message that is wrong and what is wrong with it", () => {
    expect(modelRequestCheck({ model: "m", messages: [...messages, { role: "user", content: [{ type: "text", text: "x" }] }] })).toMatch(
      /: messages\[1\] content must be a string, got \[\{"type":"text","text":"x"\}\]$/,
    );
    expect(runInputCheck({ prompt: "p", messages: [{ role: "robot", content: "" }] })).toMatch(
      /: messages\[0\] role must be system, user, assistant or tool, got "robot"$/,
    );
  });
});

describe("a model response's other parts", () => {
  it("are taken as the adapters give them (reasoning, files, sources, provider tool results) and refused when not parts", () => {
    const parts = [
      { type: "reasoning", text: "plan", providerMetadata: { anthropic: { signature: "sig" } } },
      { type: "file", mediaType: "image/png", data: "iVBORw0KGgo=" },
      { type: "source", sourceType: "url", id: "s1", url: "https://example.com" },
      { type: "tool-result", toolCallId: "c9", toolName: "web_search", result: {}, providerExecuted: true },
    ];
    expect(modelResponseCheck({ ...response, parts })).toBeUndefined();
    expect(modelResponseCheck({ ...response, parts: [] })).toBeUndefined();
    for (const bad of ["reasoning", ["reasoning"], [{ text: "no type" }], [null]])
      expect(modelResponseCheck({ ...response, parts: bad }), JSON.stringify(bad)).toMatch(/parts \(when given\) a list of parts/);
  });
});

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
    expect(agentPoints.permissionRequest).toMatchObject({ input: permissionRequestCheck, output: permissionDecisionCheck });
    expect(agentPoints.run.output).toBe(runResultCheck);
    expect(agentPoints.sessionStart).toMatchObject({ input: sessionStartCheck, output: sessionInfoCheck });
    expect(agentPoints.sessionEnd).toMatchObject({ input: sessionEndCheck, output: nothingCheck });
    expect(agentPoints.step).toMatchObject({ input: stepInputCheck, output: stepResultCheck });
    expect(agentPoints.stop.input).toBe(stopRequestCheck);
    expect(agentPoints.subagentStop.input).toBe(subagentStopRequestCheck);
    expect(agentPoints.subagentStart).toMatchObject({ input: subagentStartCheck, output: nothingCheck });
    expect(agentPoints.compaction.input).toBe(compactionRequestCheck);
    expect(agentPoints.error).toMatchObject({ input: errorEventCheck, output: errorDecisionCheck });
    expect(agentPoints.notification).toMatchObject({ input: notificationCheck, output: nothingCheck });
    expect(agentPoints.toolBatch).toMatchObject({ input: toolBatchCheck, output: nothingCheck });
    for (const [name, point] of Object.entries(agentPoints)) {
      expect(point.input, `${name} input`).toBeTypeOf("function");
      expect(point.output, `${name} output`).toBeTypeOf("function");
    }
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

describe("a hook's answer on the points that had no checks", () => {
  const failuresOf = () => {
    const failures: HookError[] = [];
    return { failures, stack: createAgentStack({ onFailure: (e) => failures.push(e) }) };
  };

  it("an error decision that is not one fails the hook, open by default: the loop's own decision (fail) stands", async () => {
    const { failures, stack } = failuresOf();
    const s = stack.use("error", { name: "retry-soon", before: () => Replace({ action: "retry", delayMs: "soon" } as never) });

    const outcome = await s.run("error", { where: "model", error: new Error("503"), attempt: 1 }, () => ({ action: "fail" }) as const);

    expect(outcome).toEqual(Outcome.completed({ action: "fail" }));
    expect(failures.map((e) => [e.hook, e.kind, e.point])).toEqual([["retry-soon", "invalid-action", "error"]]);
    expect(failures[0]?.message).toMatch(/Replace gave error an output it does not take: an error decision is/);
  });

  it("a permission decision that is not one fails the hook, closed: nobody is asked and the call is not allowed", async () => {
    const asked: unknown[] = [];
    const stack = createAgentStack().use("permissionRequest", { name: "auto", before: () => Replace({ behavior: "ask" } as never) });

    const outcome = await stack.run("permissionRequest", { call }, (r) => {
      asked.push(r);
      return { behavior: "allow" } as const;
    });

    expect(outcome).toMatchObject({ _tag: "Rejected", by: "auto", cause: { kind: "invalid-action", point: "permissionRequest" } });
    expect(asked).toEqual([]);
  });

  it("a run's result rewritten without its conversation fails the hook, closed", async () => {
    const result = { text: "done", steps: 1, usage: { inputTokens: 1, outputTokens: 1 }, finishReason: "stop", messages } as const;
    const stack = createAgentStack().use("run", { name: "shorten", after: (r) => Transform({ text: r.text } as never) });

    const outcome = await stack.run("run", { prompt: "hi", messages }, () => result);

    expect(outcome).toMatchObject({ _tag: "Rejected", by: "shorten", cause: { kind: "invalid-action", point: "run" } });
  });

  it("a session start rewritten with a numeric id fails the hook, closed, and the session does not open", async () => {
    const stack = createAgentStack().use("sessionStart", {
      name: "renumber",
      before: (s) => Transform({ ...s, sessionId: 42 as never }),
    });

    const outcome = await stack.run("sessionStart", { sessionId: "s1", source: "startup" }, (s) => ({ sessionId: s.sessionId }));

    expect(outcome).toMatchObject({ _tag: "Rejected", by: "renumber", cause: { kind: "invalid-action", point: "sessionStart" } });
  });

  it("a notification rewritten without its message fails the hook, open by default: the notice goes out as it was", async () => {
    const { failures, stack } = failuresOf();
    const sent: unknown[] = [];
    const s = stack.use("notification", { name: "shorten", before: () => Transform({ type: "info" } as never) });

    await s.run("notification", { type: "info", message: "hi" }, (n) => void sent.push(n));

    expect(sent).toEqual([{ type: "info", message: "hi" }]);
    expect(failures.map((e) => [e.hook, e.kind])).toEqual([["shorten", "invalid-action"]]);
  });

  it("a value handed to a point that yields nothing fails the hook; Replace(undefined) still skips the operation", async () => {
    const { failures, stack } = failuresOf();
    const sent: unknown[] = [];
    const loud = stack.use("notification", { name: "loud", before: () => Replace("sent" as never) });
    const quiet = stack.use("notification", { name: "quiet", before: () => Replace(undefined) });

    await loud.run("notification", { type: "info", message: "hi" }, (n) => void sent.push(n));
    await quiet.run("notification", { type: "info", message: "hi" }, (n) => void sent.push(n));

    expect(sent).toEqual([{ type: "info", message: "hi" }]);
    expect(failures.map((e) => [e.hook, e.kind])).toEqual([["loud", "invalid-action"]]);
  });

  it("a tool batch rewritten with a result that is not one fails the hook, closed: the batch is refused", async () => {
    const stack = createAgentStack().use("toolBatch", {
      name: "rewrite",
      before: (b) => Transform({ calls: b.calls.map((c) => ({ ...c, result: "ok" as never })) }),
    });

    const outcome = await stack.run("toolBatch", { calls: [{ call, result: { content: "ok" } }] }, () => undefined);

    expect(outcome._tag).toBe("Rejected");
    expect(outcome._tag === "Rejected" && outcome.reason).toMatch(/Transform gave toolBatch an input it does not take: a tool batch is/);
  });

  it("a step's result replaced by something that is not one fails the hook, open by default: the step's own result stands", async () => {
    const { failures, stack } = failuresOf();
    const own = { response: { ...response, finishReason: "tool-calls" as const }, toolResults: [] };
    const s = stack.use("step", { name: "skip", before: () => Replace({ response: {} } as never) });

    const outcome = await s.run("step", { index: 0, messages }, () => own);

    expect(outcome).toEqual(Outcome.completed(own));
    expect(failures.map((e) => [e.hook, e.kind])).toEqual([["skip", "invalid-action"]]);
  });
});
