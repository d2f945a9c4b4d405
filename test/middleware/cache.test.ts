import { describe, expect, it } from "vitest";
import { createAgentStack, createScriptedModel, type ModelRequest, type ModelResponse } from "../../src/agent/index.ts";
import { MemoryStore } from "../../src/core/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { budget } from "../../src/middleware/budget.ts";
import { cache, stableJson } from "../../src/middleware/cache.ts";
import { failingStore, runAgent, toolCall } from "./harness.ts";

const request: ModelRequest = { model: "m", messages: [{ role: "user", content: "capital of France?" }] };
const answer: ModelResponse = { text: "Paris", toolCalls: [], finishReason: "stop", usage: { inputTokens: 10, outputTokens: 2 } };
const counting = (value: unknown = answer) => {
  const op = Object.assign(
    () => {
      op.calls++;
      return value;
    },
    { calls: 0 },
  );
  return op;
};

describe("cache", () => {
  it("answers a repeated call from the store with Replace, skipping the call, at zero usage", async () => {
    const stack = withMiddleware(createAgentStack(), cache({ ttlMs: 60_000, scope: "global" }));
    const op = counting();
    const first = await stack.run("modelCall", request, op as never);
    const second = await stack.run("modelCall", request, op as never);
    expect(first).toEqual({ _tag: "Completed", value: answer });
    expect(second).toEqual({ _tag: "Completed", value: { ...answer, usage: { inputTokens: 0, outputTokens: 0 } } });
    expect(op.calls).toBe(1);
  });

  it("keeps tenants apart, and does not cache a run without a tenant at all", async () => {
    const stack = withMiddleware(createAgentStack(), cache({ ttlMs: 60_000, scope: "tenant" }));
    const op = counting();
    const as = (metadata: Record<string, unknown>) => stack.run("modelCall", request, op as never, { metadata });
    await as({ tenant: "acme" });
    await as({ tenant: "globex" });
    await as({ tenant: "acme" });
    await as({});
    await as({});
    expect(op.calls).toBe(4);
  });

  it("answers a repeated tool call with a new call id, as a model makes them, from the store", async () => {
    const stack = withMiddleware(
      createAgentStack({ store: new MemoryStore() }),
      cache({ point: "toolCall", match: "WebSearch", scope: "global", ttlMs: 60_000 }),
    );
    const op = counting({ content: "results" });
    for (const id of ["toolu_1", "toolu_2", "toolu_3"])
      await stack.run("toolCall", { id, name: "WebSearch", input: { query: "onions" } }, op as () => { content: string });
    expect(op.calls).toBe(1);
  });

  it("forgets an entry after its TTL", async () => {
    const clock = { now: 0 };
    const stack = withMiddleware(
      createAgentStack({ store: new MemoryStore({ now: () => clock.now }) }),
      cache({ ttlMs: 1_000, scope: "global" }),
    );
    const op = counting();
    await stack.run("modelCall", request, op as never);
    clock.now = 999;
    await stack.run("modelCall", request, op as never);
    clock.now = 1_000;
    await stack.run("modelCall", request, op as never);
    expect(op.calls).toBe(2);
  });

  it("keys by the whole request, in any key order, with a custom key or none", async () => {
    expect(stableJson({ b: 1, a: { d: 1, c: 2 } })).toBe(stableJson({ a: { c: 2, d: 1 }, b: 1 }));
    const stack = withMiddleware(
      createAgentStack(),
      cache({ ttlMs: 60_000, scope: "global", key: (r) => (r.temperature === undefined ? r.model : undefined) }),
    );
    const op = counting();
    await stack.run("modelCall", request, op as never);
    await stack.run("modelCall", { ...request, messages: [] }, op as never);
    await stack.run("modelCall", { ...request, temperature: 1 }, op as never);
    await stack.run("modelCall", { ...request, temperature: 1 }, op as never);
    expect(op.calls).toBe(3);
  });

  it("does not store failed tool results or cut-short answers", async () => {
    const tools = withMiddleware(createAgentStack(), cache({ point: "toolCall", ttlMs: 60_000, scope: "global" }));
    const failing = counting({ content: "boom", isError: true });
    await tools.run("toolCall", toolCall("Search", { q: "x" }), failing as never);
    await tools.run("toolCall", toolCall("Search", { q: "x" }), failing as never);
    expect(failing.calls).toBe(2);
    const models = withMiddleware(createAgentStack(), cache({ ttlMs: 60_000, scope: "global" }));
    const aborted = counting({ ...answer, aborted: true });
    await models.run("modelCall", request, aborted as never);
    await models.run("modelCall", request, aborted as never);
    expect(aborted.calls).toBe(2);
  });

  it("fails open: when the store fails the call runs as a miss, and the failure is counted", async () => {
    const stack = withMiddleware(createAgentStack({ store: failingStore(["get", "set"]) }), cache({ ttlMs: 60_000, scope: "global" }));
    const op = counting();
    expect(await stack.run("modelCall", request, op as never)).toEqual({ _tag: "Completed", value: answer });
    expect(op.calls).toBe(1);
    expect(stack.stats.failOpen).toBe(1);
  });

  it("requires a scope, so that sharing across tenants is a decision", () => {
    expect(() => cache({ ttlMs: 1_000 } as never)).toThrow(/cache: scope must be one of "tenant", "session", "global"/);
    expect(() => cache({ ttlMs: 0.5, scope: "global" })).toThrow(/cache: ttlMs/);
  });

  it("refuses a tenantKey that is not a non-empty string at configuration, naming the field", () => {
    expect(() => cache({ ttlMs: 1_000, scope: "tenant", tenantKey: {} as never })).toThrow(/cache: tenantKey must be a non-empty string/);
  });
});

describe("cache through the reference loop", () => {
  it("serves a second session's identical question from the cache, spending no budget", async () => {
    const store = new MemoryStore();
    const stack = withMiddleware(
      createAgentStack({ store }),
      cache({ ttlMs: 60_000, scope: "tenant" }),
      budget({ limit: 10_000, scope: "tenant" }),
    );
    const model = createScriptedModel({ turns: ["Paris"] });
    const metadata = { tenant: "acme" };
    const first = await runAgent(stack, [], { model, metadata });
    const spent = await store.used("budget:tenant:acme");
    const second = await runAgent(stack, [], { model, metadata });
    expect([first.turn.text, second.turn.text]).toEqual(["Paris", "Paris"]);
    expect(model.requests).toHaveLength(1);
    expect(await store.used("budget:tenant:acme")).toBe(spent);
  });
});
