import { describe, expect, it } from "vitest";
import { createAgentStack, type AgentStack, type LanguageModel } from "../../src/agent/index.ts";
import { Continue, Priority, Reject, RegistrationError } from "../../src/core/index.ts";
import { withMiddleware, type Middleware } from "../../src/middleware/apply.ts";
import { approval } from "../../src/middleware/approval.ts";
import { budget } from "../../src/middleware/budget.ts";
import { cache } from "../../src/middleware/cache.ts";
import { fallback } from "../../src/middleware/fallback.ts";
import { guards } from "../../src/middleware/guards.ts";
import { metrics } from "../../src/middleware/metrics.ts";
import { callLimit, rateLimit } from "../../src/middleware/rate-limit.ts";
import { redaction } from "../../src/middleware/redaction.ts";
import { retry } from "../../src/middleware/retry.ts";
import { toolPolicy } from "../../src/middleware/tool-policy.ts";
import { truncateOutput } from "../../src/middleware/truncate-output.ts";
import { toolCall } from "./harness.ts";

const inputs = {
  userPrompt: { text: "hello" },
  run: { prompt: "hello", messages: [] },
  step: { index: 0, messages: [] },
  modelCall: { model: "m", messages: [] },
  toolCall: toolCall("Bash", { command: "ls" }),
} as const;
type Shown = keyof typeof inputs;

/** Each point's hooks in the order they run, as `name (phases)`. */
const orderOn = (stack: AgentStack, points: readonly Shown[] = Object.keys(inputs) as Shown[]): Record<string, string[]> =>
  Object.fromEntries(points.map((p) => [p, stack.explain(p, inputs[p] as never).map((e) => `${e.hook} (${e.phases.join(", ")})`)]));

const backup: LanguageModel = {
  id: "backup",
  generate: async () => ({ text: "", toolCalls: [], finishReason: "stop", usage: { inputTokens: 0, outputTokens: 0 } }),
};

/** Every built-in that wraps calls, under its default name (so the names between them apply). */
const everyBuiltIn = (): Middleware[] => [
  guards({ finishReasons: ["length"] }),
  toolPolicy({ deny: ["Bash(rm *)"] }),
  redaction(),
  retry({ attempts: 3 }),
  retry({ point: "toolCall" }),
  fallback({ models: [backup] }),
  cache({ ttlMs: 1000, scope: "global" }),
  cache({ point: "toolCall", ttlMs: 1000, scope: "global" }),
  budget({ limit: 1000, scope: "run" }),
  rateLimit({ limit: 5, windowMs: 1000 }),
  rateLimit({ name: "rpm", point: "modelCall", limit: 5, windowMs: 1000 }),
  callLimit({ max: 5 }),
  truncateOutput({ maxChars: 100 }),
  approval(),
];

describe("where the built-ins go", () => {
  it("places the recommended stack's hooks in this order on each point", () => {
    const stack = withMiddleware(
      createAgentStack(),
      guards({ maxSteps: 20, maxTokens: 32_768, maxExecutionTime: 300 }),
      toolPolicy({ deny: ["Bash(rm *)", "Bash(git push*)"] }),
      redaction(),
      retry({ attempts: 3 }),
      metrics(),
    );
    expect(orderOn(stack)).toEqual({
      userPrompt: ["redaction (before)", "metrics (observe)"],
      run: ["stepLimit (onSettled)", "tokenBudget (onSettled)", "timeLimit (before, onSettled)", "metrics (observe)"],
      step: ["stepLimit (around)", "tokenBudget (around)", "timeLimit (around)", "metrics (observe)"],
      // The observers run after the run settled; they are listed at their priority (the default).
      modelCall: ["redaction:unscanned (around)", "retry (around)", "metrics (observe)", "redaction (around)"],
      toolCall: [
        "redaction (before)",
        "redaction:unscanned (around)",
        "toolPolicy (before)",
        "metrics (observe)",
        "redaction:output (after)",
        "redaction:error (around)",
      ],
    });
  });

  it("orders every built-in by band and name, the same whatever order they are registered in", () => {
    const expected = {
      toolCall: [
        "truncateOutput (after)",
        "redaction (before)",
        "redaction:unscanned (around)",
        "toolPolicy (before)",
        "cache (around)",
        "rateLimit (around)",
        "callLimit (around)",
        "approval (before)",
        "retry (around)",
        "redaction:output (after)",
        "redaction:error (around)",
        "rateLimit:count (around)",
        "callLimit:count (around, onSettled)",
      ],
      modelCall: [
        "redaction:unscanned (around)",
        "cache (around)",
        "budget (around, onSettled)",
        "fallback (around)",
        "retry (around)",
        "rpm (around)",
        "redaction (around)",
      ],
      step: ["finishReasonStop (around)", "stepLimit (around)", "tokenBudget (around)", "timeLimit (around)"],
    };
    const forward = orderOn(withMiddleware(createAgentStack(), everyBuiltIn()), ["toolCall", "modelCall", "step"]);
    expect(forward).toEqual(expected);
    const backward = orderOn(withMiddleware(createAgentStack(), everyBuiltIn().reverse()), ["toolCall", "modelCall", "step"]);
    // Hooks that nothing relates keep registration order among equals: the two limits' hooks swap.
    const swapped = (h: string) =>
      h
        .replace(/^rateLimit/, "X")
        .replace(/^callLimit/, "rateLimit")
        .replace(/^X/, "callLimit");
    const names = (list: string[]) => list.map((h) => h.replace(/ \(.*\)$/, ""));
    expect({ ...backward, toolCall: names(backward.toolCall as string[]) }).toEqual({
      ...expected,
      toolCall: names(expected.toolCall).map(swapped),
    });
  });

  it("registers each built-in on its own, with none of the built-ins it names present", () => {
    for (const middleware of everyBuiltIn()) expect(() => withMiddleware(createAgentStack(), middleware)).not.toThrow();
  });

  it("puts retry inside fallback and a model rate limit inside retry, by name, whatever their registration order", () => {
    const names = (stack: AgentStack) => stack.explain("modelCall", inputs.modelCall).map((e) => e.hook);
    const limit = rateLimit({ point: "modelCall", limit: 5, windowMs: 1000 });
    expect(names(withMiddleware(createAgentStack(), limit, retry(), fallback({ models: [backup] })))).toEqual([
      "fallback",
      "retry",
      "rateLimit",
    ]);
    expect(names(withMiddleware(createAgentStack(), fallback({ models: [backup] }), retry(), limit))).toEqual([
      "fallback",
      "retry",
      "rateLimit",
    ]);
  });

  it("lets a hook of yours be placed by a built-in's name", async () => {
    const seen: string[] = [];
    const stack = withMiddleware(createAgentStack(), toolPolicy({ deny: ["Bash(rm *)"] }), redaction())
      // Outermost but for the name: inside redaction, so it sees the redacted input.
      .use("toolCall", {
        name: "audit-in",
        priority: Priority.outermost,
        after: ["redaction"],
        before: (call) => void seen.push(JSON.stringify(call.input)),
      })
      .use("toolCall", { name: "first-look", before: ["toolPolicy"], after: () => Continue });
    expect(stack.explain("toolCall", inputs.toolCall).map((e) => e.hook)).toEqual([
      "redaction",
      "audit-in",
      "redaction:unscanned",
      "first-look",
      "toolPolicy",
      "redaction:output",
      "redaction:error",
    ]);
    await stack.run("toolCall", toolCall("Bash", { command: "echo bob@example.com" }), () => ({ content: "ok" }));
    expect(seen).toEqual(['{"command":"echo [REDACTED:email]"}']);
  });

  it("places a built-in given a priority by that number alone, without its names", () => {
    const stack = withMiddleware(createAgentStack(), fallback({ models: [backup] }), retry({ priority: Priority.first }));
    expect(stack.explain("modelCall", inputs.modelCall).map((e) => [e.hook, e.priority])).toEqual([
      ["retry", Priority.first],
      ["fallback", Priority.guard],
    ]);
    expect(() => retry({ priority: Number.NaN })).toThrow(/retry: priority must be a finite number/);
    expect(() => redaction({ outputPriority: Number.POSITIVE_INFINITY })).toThrow(/redaction: outputPriority must be a finite number/);
  });

  it("refuses, at registration, a hook of yours whose names close a cycle with a built-in's", () => {
    const stack = withMiddleware(createAgentStack(), retry());
    expect(() => stack.use("modelCall", { name: "fallback", order: { after: ["retry"] }, around: (_ctx, next) => next() })).toThrow(
      RegistrationError,
    );
    expect(() => stack.use("modelCall", { name: "fallback", order: { after: ["retry"] }, around: (_ctx, next) => next() })).toThrow(
      /cycle of names: fallback → retry → fallback/,
    );
  });

  it("keeps a deny by a hook of yours at Priority.innermost from being counted by a call limit", async () => {
    const stack = withMiddleware(createAgentStack(), callLimit({ max: 1 })).use("toolCall", {
      name: "late-deny",
      priority: Priority.innermost,
      before: (c) => (c.id === "no" ? Reject("no") : Continue),
    });
    expect((await stack.run("toolCall", toolCall("Bash", {}, "no"), () => ({ content: "ran" }), { runId: "r" }))._tag).toBe("Rejected");
    expect((await stack.run("toolCall", toolCall("Bash", {}, "yes"), () => ({ content: "ran" }), { runId: "r" }))._tag).toBe("Completed");
  });
});
