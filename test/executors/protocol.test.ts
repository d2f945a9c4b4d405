/**
 * Every JSON decision kind of Claude Code's protocol, answered by a real child process
 * (test/fixtures/commands/respond.mjs) and run through the real onion.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CompactionRequest, StopRequest, ToolCall } from "../../src/agent/types.ts";
import { createAgent } from "../../src/agent/agent.ts";
import { createScriptedModel } from "../../src/agent/scripted-model.ts";
import { defineTool } from "../../src/agent/tool.ts";
import { Trace } from "../../src/core/trace.ts";
import { commandHook, type CommandHookOptions } from "../../src/executors/command.ts";
import type { ClaudeEvent } from "../../src/executors/events.ts";
import { bash, echoTool, fixture, node, notices, tempDir } from "./helpers.ts";
import { agentStack } from "./stack-helpers.ts";
import { takeWarnings } from "../support/warnings.ts";

const answering = <E extends ClaudeEvent>(event: E, json: unknown, over: Partial<CommandHookOptions<E>> = {}) =>
  commandHook({
    event,
    ...node("respond.mjs", "0", typeof json === "string" ? json : JSON.stringify(json)),
    timeoutMs: 5000,
    ...over,
  } as CommandHookOptions<E>);
const pre = (fields: Record<string, unknown>, top: Record<string, unknown> = {}) => ({
  ...top,
  hookSpecificOutput: { hookEventName: "PreToolUse", ...fields },
});
const reasonOf = (o: { _tag: string }) => (o as { reason?: string }).reason;

const runTool = async (stack: ReturnType<typeof agentStack>, call: ToolCall = bash("ls")) => {
  const seen: ToolCall[] = [];
  const context: string[] = [];
  const outcome = await stack.run(
    "toolCall",
    call,
    (c) => {
      seen.push(c as ToolCall);
      return echoTool(c);
    },
    { onContext: (t) => context.push(t) },
  );
  return { outcome, seen, context };
};

describe("PreToolUse permission decisions", () => {
  it("deny rejects with its reason", async () => {
    const { outcome, seen } = await runTool(
      agentStack().use(
        "toolCall",
        answering("PreToolUse", pre({ permissionDecision: "deny", permissionDecisionReason: "DB writes are off" })),
      ),
    );
    expect(outcome).toMatchObject({ _tag: "Rejected", reason: "DB writes are off" });
    expect(seen).toEqual([]);
  });

  it("allow never loosens a deny from another hook, in either order", async () => {
    for (const [first, second] of [
      ["allow", "deny"],
      ["deny", "allow"],
    ] as const) {
      const stack = agentStack()
        .use(
          "toolCall",
          answering("PreToolUse", pre({ permissionDecision: first, permissionDecisionReason: `${first}!` }), { name: "one" }),
        )
        .use(
          "toolCall",
          answering("PreToolUse", pre({ permissionDecision: second, permissionDecisionReason: `${second}!` }), { name: "two" }),
        );
      const { outcome } = await runTool(stack);
      expect(outcome).toMatchObject({ _tag: "Rejected", reason: "deny!" });
    }
  });

  it("the deprecated top-level approve/block still mean allow/deny", async () => {
    const blocked = await runTool(agentStack().use("toolCall", answering("PreToolUse", { decision: "block", reason: "old style" })));
    expect(blocked.outcome).toMatchObject({ _tag: "Rejected", reason: "old style" });
    const approved = await runTool(agentStack().use("toolCall", answering("PreToolUse", { decision: "approve" })));
    expect(approved.outcome._tag).toBe("Completed");
  });

  it("ask goes to the stack's approval handler, which may approve, deny or edit", async () => {
    const ask = answering("PreToolUse", pre({ permissionDecision: "ask", permissionDecisionReason: "prod deploy" }));
    const requests: unknown[] = [];
    const approving = agentStack({ approval: (r) => (requests.push(r), { decision: "approve" }) }).use("toolCall", ask);
    expect((await runTool(approving)).outcome._tag).toBe("Completed");
    expect(requests[0]).toMatchObject({ point: "toolCall", reason: "prod deploy", input: bash("ls") });
    const denying = agentStack({ approval: () => ({ decision: "deny", reason: "not today" }) }).use("toolCall", ask);
    expect((await runTool(denying)).outcome).toMatchObject({ _tag: "Rejected", reason: "not today" });
    const editing = agentStack({
      approval: (r) => ({ decision: "edit", input: { ...(r.input as object), input: { command: "ls -la" } } }),
    }).use("toolCall", ask);
    expect((await runTool(editing)).seen[0]?.input).toEqual({ command: "ls -la" });
  });

  it("ask without an approval handler is a denial that says no one could approve", async () => {
    const { outcome } = await runTool(agentStack().use("toolCall", answering("PreToolUse", pre({ permissionDecision: "ask" }))));
    expect(reasonOf(outcome)).toMatch(/no approval handler is configured/);
  });

  it("defer lets the call go ahead and leaves a notice", async () => {
    const n = notices();
    const { outcome } = await runTool(
      agentStack().use("toolCall", answering("PreToolUse", pre({ permissionDecision: "defer" }), { onNotice: n.sink })),
    );
    expect(outcome._tag).toBe("Completed");
    expect(n.list).toMatchObject([{ kind: "defer" }]);
  });

  it("updatedInput replaces the tool's input; additionalContext reaches the model", async () => {
    const hook = answering(
      "PreToolUse",
      pre({ permissionDecision: "allow", updatedInput: { command: "ls --color=never" }, additionalContext: "prod box" }),
    );
    const { seen, context } = await runTool(agentStack().use("toolCall", hook));
    expect(seen[0]).toEqual({ id: "toolu_1", name: "Bash", input: { command: "ls --color=never" } });
    expect(context).toEqual(["prod box"]);
  });

  it("__proto__ and constructor keys in updatedInput never reach our objects", async () => {
    const text =
      '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls","__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}}}';
    const { seen } = await runTool(agentStack().use("toolCall", answering("PreToolUse", text)));
    expect(seen[0]?.input).toEqual({ command: "ls" });
    expect(Object.getPrototypeOf(seen[0]?.input)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("exit 2 with JSON on stdout", () => {
  it("blocks with stderr when the JSON carries a reason but makes no blocking decision", async () => {
    const guard = commandHook({
      event: "PreToolUse",
      ...node("respond.mjs", "2", '{"reason":"audit note"}', "rm is not allowed"),
      timeoutMs: 5000,
    });
    expect((await runTool(agentStack().use("toolCall", guard))).outcome).toMatchObject({ _tag: "Rejected", reason: "rm is not allowed" });
    const stop = commandHook({ event: "Stop", ...node("respond.mjs", "2", '{"reason":"ignore me"}', "tests fail"), timeoutMs: 5000 });
    const outcome = await agentStack()
      .use("stop", stop)
      .run("stop", { reason: "end_turn", blockedCount: 0 } satisfies StopRequest, () => ({ stop: true as const }));
    expect(outcome).toMatchObject({ _tag: "Rejected", reason: "tests fail" });
  });

  it("blocks with the JSON's reason when the JSON makes the blocking decision", async () => {
    const deny = JSON.stringify(pre({ permissionDecision: "deny", permissionDecisionReason: "from JSON" }, { reason: "not this" }));
    const guard = commandHook({ event: "PreToolUse", ...node("respond.mjs", "2", deny, "from stderr"), timeoutMs: 5000 });
    expect((await runTool(agentStack().use("toolCall", guard))).outcome).toMatchObject({ _tag: "Rejected", reason: "from JSON" });
    const allow = JSON.stringify(pre({ permissionDecision: "allow", permissionDecisionReason: "fine by me" }));
    const allowing = commandHook({ event: "PreToolUse", ...node("respond.mjs", "2", allow, "from stderr"), timeoutMs: 5000 });
    expect((await runTool(agentStack().use("toolCall", allowing))).outcome).toMatchObject({ _tag: "Rejected", reason: "from stderr" });
    const stop = commandHook({
      event: "Stop",
      ...node("respond.mjs", "2", '{"decision":"block","reason":"from JSON"}', "from stderr"),
      timeoutMs: 5000,
    });
    const outcome = await agentStack()
      .use("stop", stop)
      .run("stop", { reason: "end_turn", blockedCount: 0 } satisfies StopRequest, () => ({ stop: true as const }));
    expect(outcome).toMatchObject({ _tag: "Rejected", reason: "from JSON" });
  });
});

describe("universal fields", () => {
  it("continue: false rejects a tool call, telling stopReason to the user and not to the model", async () => {
    const n = notices();
    const { outcome, seen } = await runTool(
      agentStack().use(
        "toolCall",
        answering(
          "PreToolUse",
          { continue: false, stopReason: "build failed", hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } },
          { name: "gate", onNotice: n.sink },
        ),
      ),
    );
    expect(seen).toEqual([]);
    expect(outcome).toMatchObject({
      _tag: "Rejected",
      reason: 'hook "gate" refused the call and asked to stop the turn (continue: false)',
    });
    expect(n.list).toMatchObject([{ kind: "stopReason", message: "build failed" }]);
  });

  it("continue: false from a hook mounted by hand never tells the model the turn stopped: nothing here ends it, and the turn goes on", async () => {
    const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "Bash", input: { command: "make" } }] }, "I will wait"] });
    const tool = defineTool({ name: "Bash", description: "run", inputSchema: { type: "object" }, execute: () => "ran" });
    const stack = agentStack().use(
      "toolCall",
      answering("PreToolUse", { continue: false, stopReason: "build failed" }, { name: "gate", onNotice: () => {} }),
    );
    const turn = await createAgent({ model, tools: [tool], stack }).run("build");
    expect(turn).toMatchObject({ finishReason: "stop", text: "I will wait" });
    const read = JSON.stringify(model.requests[1]?.messages);
    expect(read).toContain('hook \\"gate\\" refused the call and asked to stop the turn (continue: false)');
    expect(read).not.toContain("stopped the turn");
  });

  it("continue: false on Stop lets the stop happen (that is what it asks for)", async () => {
    const n = notices();
    const stack = agentStack().use(
      "stop",
      answering("Stop", { continue: false, stopReason: "done", decision: "block", reason: "ignored" }, { onNotice: n.sink }),
    );
    const outcome = await stack.run("stop", { reason: "end_turn", blockedCount: 0 } satisfies StopRequest, () => ({ stop: true as const }));
    expect(outcome._tag).toBe("Completed");
    expect(n.list).toMatchObject([{ kind: "stopReason", message: "done" }]);
  });

  it("systemMessage becomes a notice, cleaned of escapes", async () => {
    const n = notices();
    await runTool(
      agentStack().use("toolCall", answering("PreToolUse", { systemMessage: "\u001b[1mheads up\u001b[0m" }, { onNotice: n.sink })),
    );
    expect(n.list).toMatchObject([{ kind: "systemMessage", message: "heads up", event: "PreToolUse" }]);
  });
});

describe("PostToolUse", () => {
  const post = (fields: Record<string, unknown>, top: Record<string, unknown> = {}) => ({
    ...top,
    hookSpecificOutput: { hookEventName: "PostToolUse", ...fields },
  });

  it("updatedToolOutput replaces what the tool returned", async () => {
    const { outcome } = await runTool(agentStack().use("toolCall", answering("PostToolUse", post({ updatedToolOutput: "[redacted]" }))));
    expect(outcome).toEqual({ _tag: "Completed", value: { content: "[redacted]" } });
  });

  it("decision: block cannot undo the call: the model reads the tool's output and, beside it, the reason", async () => {
    const { outcome, context } = await runTool(
      agentStack().use("toolCall", answering("PostToolUse", { decision: "block", reason: "the file has a lint error" })),
    );
    expect(outcome).toEqual({ _tag: "Completed", value: { content: "ran: ls" } });
    expect(context).toEqual(["the file has a lint error"]);
  });

  it("a block with a rewrite: the model reads the rewritten output and the reason", async () => {
    const { outcome, context } = await runTool(
      agentStack().use(
        "toolCall",
        answering("PostToolUse", post({ updatedToolOutput: "[redacted]" }, { decision: "block", reason: "a key was redacted" })),
      ),
    );
    expect(outcome).toEqual({ _tag: "Completed", value: { content: "[redacted]" } });
    expect(context).toEqual(["a key was redacted"]);
  });

  it("permissionDecision: deny, as hookify sends it on PostToolUse, is read as a block", async () => {
    const n = notices();
    const hookify = post({ permissionDecision: "deny" }, { systemMessage: "**[warn-console-log]** console.log left in" });
    const { outcome, context } = await runTool(
      agentStack().use("toolCall", answering("PostToolUse", hookify, { name: "hookify", onNotice: n.sink })),
    );
    expect(outcome).toEqual({ _tag: "Completed", value: { content: "ran: ls" } });
    expect(context).toEqual(['blocked by hook "hookify"']);
    expect(n.list).toMatchObject([{ kind: "systemMessage", message: "**[warn-console-log]** console.log left in" }]);
  });

  it("a hook failing closed withholds the output (the call ran; nothing says it was refused)", async () => {
    const guard = commandHook({
      event: "PostToolUse",
      name: "redact",
      ...node("respond.mjs", "1", "", "scanner crashed"),
      timeoutMs: 5000,
      onNotice: () => {},
    });
    const { outcome } = await runTool(agentStack().use("toolCall", guard));
    expect(outcome).toEqual({
      _tag: "Completed",
      value: { content: 'Bash ran, but its output was withheld: hook "redact" failed: exited with code 1: scanner crashed', isError: true },
    });
  });

  it("receives tool_input and tool_response in its event", async () => {
    const file = join(tempDir(), "post.json");
    const stack = agentStack().use("toolCall", commandHook({ event: "PostToolUse", ...node("record-event.mjs", file), timeoutMs: 5000 }));
    expect((await runTool(stack)).outcome._tag).toBe("Completed");
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({
      hook_event_name: "PostToolUse",
      tool_name: "Bash",
      tool_input: { command: "ls" },
      tool_use_id: "toolu_1",
      tool_response: "ran: ls",
    });
  });
});

describe("PostToolUseFailure", () => {
  it("exit 2 and additionalContext go to the model as context; the failure stays a failure", async () => {
    const context: string[] = [];
    const stack = agentStack()
      .use(
        "toolCall",
        commandHook({ event: "PostToolUseFailure", name: "hint", ...node("respond.mjs", "2", "", "try npm ci first"), timeoutMs: 5000 }),
      )
      .use(
        "toolCall",
        answering(
          "PostToolUseFailure",
          { hookSpecificOutput: { hookEventName: "PostToolUseFailure", additionalContext: "lockfile changed" } },
          { name: "ctx" },
        ),
      );
    const outcome = await stack.run(
      "toolCall",
      bash("npm test"),
      () => {
        throw new Error("Exit code 1");
      },
      { onContext: (t) => context.push(t) },
    );
    expect(outcome._tag).toBe("Failed");
    expect(context.sort()).toEqual(["lockfile changed", "try npm ci first"]);
  });
});

describe("UserPromptSubmit and SessionStart", () => {
  it("plain stdout becomes context", async () => {
    for (const [event, point, input] of [
      ["UserPromptSubmit", "userPrompt", { text: "hi" }],
      ["SessionStart", "sessionStart", { sessionId: "s", source: "startup" }],
    ] as const) {
      const context: string[] = [];
      const hook = commandHook({ event, command: fixture("commands", "plain-context.sh"), timeoutMs: 5000 } as CommandHookOptions<
        typeof event
      >);
      const stack = agentStack().use(point as "userPrompt", hook as never);
      const outcome = await stack.run(point as "userPrompt", input as never, (i) => i as never, { onContext: (t) => context.push(t) });
      expect(outcome._tag).toBe("Completed");
      expect(context).toEqual(["Current branch: main"]);
    }
  });

  it("plain stdout on PreToolUse is not context", async () => {
    const { context } = await runTool(
      agentStack().use("toolCall", commandHook({ event: "PreToolUse", command: fixture("commands", "plain-context.sh"), timeoutMs: 5000 })),
    );
    expect(context).toEqual([]);
  });

  it("decision: block rejects a prompt", async () => {
    const stack = agentStack().use("userPrompt", answering("UserPromptSubmit", { decision: "block", reason: "contains a secret" }));
    expect(await stack.run("userPrompt", { text: "my key is sk-1" }, (p) => p)).toMatchObject({
      _tag: "Rejected",
      reason: "contains a secret",
    });
  });

  it("exit 2 on SessionStart, PostCompact and SessionEnd shows stderr to the user as a notice, and the event goes on", async () => {
    const n = notices();
    const start = agentStack().use(
      "sessionStart",
      commandHook({ event: "SessionStart", ...node("respond.mjs", "2", "", "could not fetch issues"), timeoutMs: 5000, onNotice: n.sink }),
    );
    expect((await start.run("sessionStart", { sessionId: "s", source: "startup" }, (s) => ({ sessionId: s.sessionId })))._tag).toBe(
      "Completed",
    );
    const compact = agentStack().use(
      "compaction",
      commandHook({ event: "PostCompact", ...node("respond.mjs", "2", "", "summary too short"), timeoutMs: 5000, onNotice: n.sink }),
    );
    expect(
      (
        await compact.run("compaction", { trigger: "auto", messages: [], tokens: 10, budget: 5 }, () => ({
          messages: [],
          summary: "s",
          removed: 3,
        }))
      )._tag,
    ).toBe("Completed");
    const end = agentStack().use(
      "sessionEnd",
      commandHook({ event: "SessionEnd", ...node("respond.mjs", "2", "", "could not upload"), timeoutMs: 5000, onNotice: n.sink }),
    );
    expect((await end.run("sessionEnd", { sessionId: "s", reason: "other" }, () => undefined))._tag).toBe("Completed");
    expect(start.stats.hookFailures + compact.stats.hookFailures + end.stats.hookFailures).toBe(0);
    expect(n.list).toMatchObject([
      { kind: "hook-error", event: "SessionStart", message: "could not fetch issues" },
      { kind: "hook-error", event: "PostCompact", message: "summary too short" },
      { kind: "hook-error", event: "SessionEnd", message: "could not upload" },
    ]);
  });

  it("decision: block counts only on events whose decision control lists it (not SessionStart)", async () => {
    const n = notices();
    const stack = agentStack().use("sessionStart", answering("SessionStart", { decision: "block", reason: "x" }, { onNotice: n.sink }));
    expect((await stack.run("sessionStart", { sessionId: "s", source: "startup" }, (s) => ({ sessionId: s.sessionId })))._tag).toBe(
      "Completed",
    );
    expect(stack.stats.hookFailures).toBe(0);
    expect(n.list).toMatchObject([{ kind: "ignored", message: expect.stringMatching(/decision: "block" is ignored on SessionStart/) }]);
  });
});

describe("Stop", () => {
  const stopReq: StopRequest = { reason: "end_turn", blockedCount: 1, lastMessage: "done" };
  it("decision: block keeps the agent going with the reason", async () => {
    const stack = agentStack().use("stop", answering("Stop", { decision: "block", reason: "tests are red" }));
    expect(await stack.run("stop", stopReq, () => ({ stop: true as const }))).toMatchObject({ _tag: "Rejected", reason: "tests are red" });
  });

  it("additionalContext also keeps the agent going, as feedback", async () => {
    const stack = agentStack().use(
      "stop",
      answering("Stop", { hookSpecificOutput: { hookEventName: "Stop", additionalContext: "run the linter" } }),
    );
    expect(await stack.run("stop", stopReq, () => ({ stop: true as const }))).toMatchObject({ _tag: "Rejected", reason: "run the linter" });
  });
});

describe("observation points", () => {
  const compaction: CompactionRequest = { trigger: "auto", messages: [], tokens: 10, budget: 5 };
  it("a block on PreCompact (compaction is an observation point) is an R2 failure, recorded, and the operation goes on", async () => {
    const trace = new Trace();
    const stack = agentStack().use(
      "compaction",
      commandHook({ event: "PreCompact", name: "no-compact", ...node("respond.mjs", "2", "", "keep it"), timeoutMs: 5000 }),
    );
    const outcome = await stack.run("compaction", compaction, () => ({ messages: [], summary: "s", removed: 3 }), { trace });
    expect(outcome._tag).toBe("Completed");
    expect(trace.entries).toMatchObject([{ hook: "no-compact", action: "Failed", failMode: "open" }]);
    expect(stack.stats.failOpen).toBe(1);
  });

  it("a Notification hook's exit code and stderr are ignored, as in Claude Code", async () => {
    const n = notices();
    const stack = agentStack().use(
      "notification",
      commandHook({ event: "Notification", ...node("respond.mjs", "2", "", "x"), timeoutMs: 5000, onNotice: n.sink }),
    );
    await stack.run("notification", { type: "info", message: "hello" }, () => undefined);
    expect(stack.stats.hookFailures).toBe(0);
    expect(n.list).toEqual([]);
  });
});

describe("fields Claude Code does not read are ignored, each with a notice, and the rest of the answer counts", () => {
  it.each([
    [
      "a misspelled field",
      pre({ permissionDecison: "deny" }),
      "hookSpecificOutput.permissionDecison: not a field Claude Code reads on PreToolUse",
    ],
    ["an unknown top-level field", { decison: "block" }, "decison: not a field Claude Code reads on PreToolUse"],
    ["security-guidance's metrics", { metrics: { scanned: 3 } }, "metrics: not a field Claude Code reads on PreToolUse"],
  ])("%s", async (_what, json, notice) => {
    const n = notices();
    const { outcome } = await runTool(agentStack().use("toolCall", answering("PreToolUse", json, { name: "guard", onNotice: n.sink })));
    expect(outcome._tag).toBe("Completed");
    expect(n.list).toMatchObject([{ kind: "ignored", message: notice }]);
  });

  it("a deny beside an unknown field still denies", async () => {
    const { outcome } = await runTool(
      agentStack().use(
        "toolCall",
        answering("PreToolUse", pre({ permissionDecision: "deny", permissionDecisionReason: "no" }, { metrics: {} }), {
          onNotice: () => {},
        }),
      ),
    );
    expect(outcome).toMatchObject({ _tag: "Rejected", reason: "no" });
  });
});

describe("unreadable answers are failures naming the hook and the field", () => {
  it.each([
    ["a wrong value", pre({ permissionDecision: "maybe" }), /hookSpecificOutput\.permissionDecision: Expected "allow", actual "maybe"/],
    [
      "another event's name",
      { hookSpecificOutput: { hookEventName: "PostToolUse" } },
      /hookSpecificOutput\.hookEventName: is "PostToolUse", but the event is PreToolUse/,
    ],
    ["invalid JSON", '{"decision": "block", ', /printed invalid JSON/],
  ])("%s", async (_what, json, message) => {
    const { outcome } = await runTool(agentStack().use("toolCall", answering("PreToolUse", json, { name: "guard" })));
    expect(outcome._tag).toBe("Rejected");
    expect(reasonOf(outcome)).toMatch(message);
  });

  it("a banner printed before the JSON", async () => {
    const { outcome } = await runTool(
      agentStack().use(
        "toolCall",
        commandHook({ event: "PreToolUse", command: fixture("commands", "banner-then-json.sh"), timeoutMs: 5000 }),
      ),
    );
    expect(reasonOf(outcome)).toMatch(/printed text before its JSON/);
  });
});

describe("async command hooks", () => {
  it("return at once, report their answer as a notice, and keep stack.flush() waiting", async () => {
    const n = notices();
    const hook = commandHook({
      event: "PostToolUse",
      async: true,
      ...node("respond.mjs", "2", "", "tests failed"),
      timeoutMs: 5000,
      onNotice: n.sink,
    });
    const stack = agentStack().use("toolCall", hook);
    const { outcome } = await runTool(stack);
    expect(outcome._tag).toBe("Completed");
    expect(n.list).toEqual([]); // the run did not wait for the process

    await stack.flush();
    expect(n.list).toMatchObject([{ kind: "background-result", message: "tests failed" }]);
  });
});

describe("fields Claude Code acts on that an agent loop has no counterpart for", () => {
  it("are read, and told as ignored with why", async () => {
    const n = notices();
    const hook = answering(
      "SessionStart",
      {
        hookSpecificOutput: {
          hookEventName: "SessionStart",
          additionalContext: "ctx",
          sessionTitle: "auth",
          watchPaths: ["/repo/.env"],
          reloadSkills: true,
          initialUserMessage: "go",
        },
        terminalSequence: "\u0007",
      },
      { onNotice: n.sink },
    );
    const context: string[] = [];
    await agentStack()
      .use("sessionStart", hook)
      .run("sessionStart", { sessionId: "s", source: "startup" }, (s) => ({ sessionId: s.sessionId }), {
        onContext: (t) => context.push(t),
      });
    expect(context).toEqual(["ctx"]);
    expect(n.list.map((x) => x.message)).toEqual([
      "initialUserMessage has no counterpart in agent-onion (a session's first message is the caller's); ignored",
      "sessionTitle has no counterpart in agent-onion (sessions have no title); ignored",
      "watchPaths has no counterpart in agent-onion (there is no file watcher); ignored",
      "reloadSkills has no counterpart in agent-onion (there are no skills to rescan); ignored",
      "terminalSequence has no counterpart in agent-onion (there is no terminal); ignored",
    ]);
  });
});

describe("notices of hooks made without onNotice", () => {
  it("say what an answer held that was ignored, once per hook and message, as a process warning", async () => {
    takeWarnings();
    const stack = agentStack().use("toolCall", answering("PreToolUse", { metrics: { ms: 1 } }, { name: "scanner" }));
    for (let i = 0; i < 3; i++) await runTool(stack);
    expect(takeWarnings().filter((w) => w.message.includes("scanner"))).toEqual([
      { type: "AgentOnionHookWarning", message: 'hook "scanner" (PreToolUse): metrics: not a field Claude Code reads on PreToolUse' },
    ]);
  });
});
