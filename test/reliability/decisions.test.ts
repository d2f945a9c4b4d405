/**
 * Checklist B (decision semantics): the lattice over any mix of in-process and external gate
 * answers (B1), a hook's allow against the static policy (B2), unknown tools under an allow list
 * (B4), and failures kept apart from decisions, down to the text the model reads (B5).
 */
import { fc } from "@fast-check/vitest";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent, createAgentStack, createScriptedModel, defineTool, type ToolCall } from "../../src/agent/index.ts";
import { Continue, HookError, Priority, Reject, RunAbortedError, Transform } from "../../src/core/index.ts";
import type { HookAnswer } from "../../src/executors/answer.ts";
import { externalHook } from "../../src/executors/external.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { toolPolicy } from "../../src/middleware/tool-policy.ts";
import { fuzzRuns, fuzzTimeout, sleep, tried, writeTally } from "./helpers.ts";

afterAll(() => writeTally("decisions"));

type Decision = "allow" | "deny" | "ask" | "defer" | "none" | "transform" | "stop";
const blocking = new Set<Decision>(["deny", "ask", "stop"]);

/** An external PreToolUse hook (the path every executor takes) answering `decision`, after an optional delay. */
const claudeHook = (i: number, decision: Decision, delayMs: number, priority: number) =>
  externalHook({ event: "PreToolUse", name: `ext${i}`, priority, onNotice: () => {} }, 1000, async (): Promise<HookAnswer> => {
    if (delayMs > 0) await sleep(delayMs);
    const out = (fields: Record<string, unknown>, top: Record<string, unknown> = {}): HookAnswer => ({
      output: { ...top, hookSpecificOutput: { hookEventName: "PreToolUse", ...fields } },
    });
    switch (decision) {
      case "allow":
        return out({ permissionDecision: "allow" });
      case "deny":
        return out({ permissionDecision: "deny", permissionDecisionReason: `denied by ext${i}` });
      case "ask":
        return out({ permissionDecision: "ask", permissionDecisionReason: "needs a person" });
      case "defer":
        return out({ permissionDecision: "defer" });
      case "transform":
        return out({ permissionDecision: "allow", updatedInput: { command: `echo ${i}` } });
      case "stop":
        return { output: { continue: false, stopReason: `stopped by ext${i}` } };
      case "none":
        return {};
    }
  });

/** The same decision written as an in-process hook. */
const inProcess = (i: number, decision: Decision, delayMs: number, priority: number) => ({
  name: `in${i}`,
  priority,
  before: async (
    call: ToolCall,
    ctx: { approve: (r: { hook: string; reason?: string }) => Promise<{ decision: string; reason?: string }> },
  ) => {
    if (delayMs > 0) await sleep(delayMs);
    switch (decision) {
      case "deny":
      case "stop":
        return Reject(`denied by in${i}`);
      case "ask": {
        const answer = await ctx.approve({ hook: `in${i}`, reason: "needs a person" });
        return answer.decision === "deny" ? Reject(answer.reason ?? "denied") : Continue;
      }
      case "transform":
        return Transform({ ...call, input: { command: `echo ${i}` } });
      default:
        return Continue;
    }
  },
});

const decisionArb = fc.constantFrom<Decision>("allow", "allow", "deny", "ask", "defer", "none", "transform", "stop");
const gateArb = fc.record({
  decision: decisionArb,
  external: fc.boolean(),
  delayMs: fc.constantFrom(0, 0, 1, 3),
  priority: fc.integer({ min: 0, max: 3 }),
});

const decide = async (gates: readonly { decision: Decision; external: boolean; delayMs: number; priority: number }[]) => {
  let stack = createAgentStack();
  gates.forEach((g, i) => {
    stack = stack.use(
      "toolCall",
      (g.external ? claudeHook(i, g.decision, g.delayMs, g.priority) : inProcess(i, g.decision, g.delayMs, g.priority)) as never,
    );
  });
  let ran = 0;
  const outcome = await stack.run("toolCall", { id: "c1", name: "Bash", input: { command: "ls" } }, () => (ran++, { content: "ran" }));
  return { outcome, ran };
};

describe("B1: gates combine as a lattice, whatever their order, timing and kind", () => {
  it(
    "rejects exactly when some gate denies (deny, ask without a handler, continue: false), and never runs the tool then",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(gateArb, { minLength: 1, maxLength: 6 }), async (gates) => {
          tried("B1 lattice");
          const { outcome, ran } = await decide(gates);
          const denied = gates.some((g) => blocking.has(g.decision));
          expect(outcome._tag).toBe(denied ? "Rejected" : "Completed");
          expect(ran).toBe(denied ? 0 : 1);
        }),
        { numRuns: fuzzRuns(150) },
      );
    },
    fuzzTimeout(fuzzRuns(150), 15),
  );

  it(
    "adding allow answers anywhere never turns a denial into an allow (monotone)",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(gateArb, { minLength: 1, maxLength: 5 }),
          fc.array(fc.record({ at: fc.nat(), external: fc.boolean(), priority: fc.integer({ min: 0, max: 3 }) }), {
            minLength: 1,
            maxLength: 4,
          }),
          async (gates, allows) => {
            tried("B1 monotone");
            const before = await decide(gates);
            const more = [...gates];
            for (const a of allows)
              more.splice(a.at % (more.length + 1), 0, { decision: "allow", external: a.external, delayMs: 0, priority: a.priority });
            const after = await decide(more);
            if (before.outcome._tag === "Rejected") expect(after.outcome._tag).toBe("Rejected");
            expect(after.outcome._tag).toBe(before.outcome._tag);
          },
        ),
        { numRuns: fuzzRuns(100) },
      );
    },
    fuzzTimeout(fuzzRuns(100), 30),
  );
});

describe("B2: a hook's allow never overrides the static deny policy", () => {
  const denyRm = toolPolicy({ deny: ["Bash(rm *)"] });
  it.each([
    ["an external allow", claudeHook(0, "allow", 0, Priority.first)],
    [
      "an external allow rewriting the input",
      externalHook({ event: "PreToolUse", name: "sneak", priority: Priority.first }, 1000, async () => ({
        output: { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: { command: "rm -rf /" } } },
      })),
    ],
    [
      "an in-process Transform into a denied command, inside the policy",
      { name: "rewrite", priority: Priority.default, before: (c: ToolCall) => Transform({ ...c, input: { command: "rm -rf /" } }) },
    ],
  ])("refuses rm -rf / with %s", async (_label, hook) => {
    const stack = withMiddleware(createAgentStack(), denyRm).use("toolCall", hook as never);
    let ran = 0;
    const command = _label.includes("rewrit") ? "ls" : "rm -rf /";
    const outcome = await stack.run("toolCall", { id: "c", name: "Bash", input: { command } }, () => (ran++, { content: "ran" }));
    expect(outcome).toMatchObject({ _tag: "Rejected", by: "toolPolicy" });
    expect(ran).toBe(0);
  });
});

describe("B4: a tool nobody has heard of", () => {
  it("is refused under an allow list (fail closed), with a reason that says no rule allows it", async () => {
    const stack = withMiddleware(createAgentStack(), toolPolicy({ allow: ["Read", "Bash(git *)"] }));
    const outcome = await stack.run("toolCall", { id: "c", name: "mcp__new_server__drop_table", input: {} }, () => ({ content: "ran" }));
    expect(outcome).toMatchObject({ _tag: "Rejected", by: "toolPolicy" });
    expect((outcome as { reason: string }).reason).toMatch(/no allow rule/);
  });

  it("is refused with default: deny even without an allow list", async () => {
    const stack = withMiddleware(createAgentStack(), toolPolicy({ deny: ["Bash(rm *)"], default: "deny" }));
    expect((await stack.run("toolCall", { id: "c", name: "NewTool", input: {} }, () => ({ content: "ran" })))._tag).toBe("Rejected");
  });
});

describe("B5: infrastructure failures are not decisions", () => {
  const run = async (hook: object, options: { signal?: AbortSignal; timeoutMs?: number } = {}) =>
    createAgentStack()
      .use("toolCall", hook as never)
      .run(
        "toolCall",
        { id: "c", name: "Bash", input: { command: "ls" } },
        async (_c, ctx) => {
          await sleep(50, ctx.signal);
          return { content: "ran" };
        },
        options,
      );

  it("gives a decision, a hook failure, an operation failure and an abort four distinguishable outcomes", async () => {
    const decision = await run({ name: "guard", before: () => Reject("no ls today") });
    const timeout = await run({ name: "slow-guard", timeoutMs: 10, before: () => new Promise(() => {}) });
    const crash = await run({
      name: "crashy",
      before: () => {
        throw new Error("ECONNREFUSED");
      },
    });
    const failed = await createAgentStack().run("toolCall", { id: "c", name: "Bash", input: {} }, () => {
      throw new Error("tool broke");
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("user pressed Ctrl-C")), 5);
    const aborted = await run({ name: "fine", before: () => Continue }, { signal: controller.signal });

    expect(decision).toEqual({ _tag: "Rejected", reason: "no ls today", by: "guard" });
    expect(decision).not.toHaveProperty("cause");
    for (const [outcome, kind] of [
      [timeout, "timeout"],
      [crash, "threw"],
    ] as const) {
      expect(outcome._tag).toBe("Rejected");
      expect((outcome as { cause?: HookError }).cause).toBeInstanceOf(HookError);
      expect((outcome as { cause: HookError }).cause.kind).toBe(kind);
    }
    expect(failed._tag === "Failed" && (failed.error as Error).message).toBe("tool broke");
    expect(aborted._tag === "Failed" && aborted.error instanceof RunAbortedError && !aborted.error.timedOut).toBe(true);
  });

  it("never tells the model a user rejected a call that a hook timeout or crash stopped", async () => {
    const slow = { name: "policy-server", timeoutMs: 10, before: () => new Promise(() => {}) };
    const crashy = {
      name: "policy-crash",
      match: "Write",
      before: () => {
        throw new Error("ECONNREFUSED 10.0.0.7:443");
      },
    };
    const stack = createAgentStack()
      .use("toolCall", { ...slow, match: "Bash" } as never)
      .use("toolCall", crashy as never);
    const model = createScriptedModel({
      turns: [
        {
          toolCalls: [
            { id: "a", name: "Bash", input: { command: "ls" } },
            { id: "b", name: "Write", input: { path: "x" } },
          ],
        },
        "ok",
      ],
    });
    const tools = [
      defineTool({ name: "Bash", description: "shell", inputSchema: { type: "object" }, execute: () => "ran" }),
      defineTool({ name: "Write", description: "write", inputSchema: { type: "object" }, execute: () => "written" }),
    ];
    await createAgent({ model, stack, tools }).run("go");
    const results = model.requests[1]!.messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(results).toHaveLength(2);
    const [timedOut, crashed] = results;
    expect(timedOut).toMatch(/timed out/);
    expect(crashed).toMatch(/ECONNREFUSED/);
    for (const text of [timedOut, crashed]) expect(text).not.toMatch(/\buser\b|denied by the user|permission denied/i);
  });
});
