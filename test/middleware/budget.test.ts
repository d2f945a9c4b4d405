import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createAgentStack,
  createScriptedModel,
  streamStarter,
  streamThroughStack,
  type ModelRequest,
  type ModelResponse,
} from "../../src/agent/index.ts";
import { MemoryStore, type StateStore } from "../../src/core/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import type { ModelStreamError } from "../../src/agent/stream/errors.ts";
import { budget } from "../../src/middleware/budget.ts";
import { LimitExceededError } from "../../src/middleware/errors.ts";
import { StoreUnavailableError } from "../../src/stores/errors.ts";
import { failingStore, runAgent } from "./harness.ts";

const request: ModelRequest = { model: "m", messages: [], maxOutputTokens: 100 };
const answer = (inputTokens: number, outputTokens: number): ModelResponse => ({
  text: "ok",
  toolCalls: [],
  finishReason: "stop",
  usage: { inputTokens, outputTokens },
});
const used = (store: StateStore, key = "budget:global") => store.used(key);
const limited = (o: { _tag: string; error?: unknown }) => o._tag === "Failed" && o.error instanceof LimitExceededError;

afterEach(() => vi.restoreAllMocks());

describe("budget: reserve, settle, refund", () => {
  it("holds the worst case while the call runs and settles what it actually used", async () => {
    const store = new MemoryStore();
    const stack = withMiddleware(createAgentStack({ store }), budget({ limit: 1_000 }));
    let during = -1;
    const outcome = await stack.run("modelCall", request, async () => {
      during = await used(store);
      return answer(30, 12);
    });
    expect(outcome._tag).toBe("Completed");
    expect(during).toBe(100); // no messages: 0 input tokens estimated, plus maxOutputTokens
    expect(await used(store)).toBe(42);
  });

  it("refunds the reservation when the call fails", async () => {
    const store = new MemoryStore();
    const stack = withMiddleware(createAgentStack({ store }), budget({ limit: 1_000 }));
    const outcome = await stack.run("modelCall", request, () => {
      throw new Error("provider down");
    });
    expect(outcome._tag).toBe("Failed");
    expect(await used(store)).toBe(0);
  });

  it("refuses a call whose worst case does not fit, with LimitExceededError, without calling the model", async () => {
    const store = new MemoryStore();
    const stack = withMiddleware(createAgentStack({ store }), budget({ limit: 150 }));
    await stack.run("modelCall", request, () => answer(60, 40));
    let called = false;
    const outcome = await stack.run("modelCall", request, () => {
      called = true;
      return answer(1, 1);
    });
    expect(limited(outcome)).toBe(true);
    expect(outcome._tag === "Failed" && (outcome.error as Error).message).toBe(
      "Budget exhausted (budget): 100 of 150 tokens spent, and this call may need up to 100",
    );
    expect(called).toBe(false);
  });

  it("never lets parallel calls spend past the limit", async () => {
    const store = new MemoryStore();
    const stack = withMiddleware(createAgentStack({ store }), budget({ limit: 1_000 }));
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, () =>
        stack.run("modelCall", request, async () => {
          await new Promise((r) => setTimeout(r, 1));
          return answer(50, 50);
        }),
      ),
    );
    expect(outcomes.filter((o) => o._tag === "Completed")).toHaveLength(10);
    expect(await used(store)).toBe(1_000);
  });

  it("rejects a run at its start when the budget is already spent", async () => {
    const store = new MemoryStore();
    await store.incr("budget:global", 500);
    const stack = withMiddleware(createAgentStack({ store }), budget({ limit: 500 }));
    const outcome = await stack.run("run", { prompt: "hi", messages: [] }, () => ({
      text: "",
      steps: 0,
      usage: { inputTokens: 0, outputTokens: 0 },
      finishReason: "stop" as const,
      messages: [],
    }));
    expect(outcome).toEqual({ _tag: "Rejected", by: "budget", reason: "Budget exhausted (budget): 500 of 500 tokens spent" });
  });

  it("resets after its window, which starts at the first use", async () => {
    const clock = { now: 0 };
    const store = new MemoryStore({ now: () => clock.now });
    const stack = withMiddleware(createAgentStack({ store }), budget({ limit: 100, windowMs: 60_000 }));
    expect((await stack.run("modelCall", request, () => answer(50, 50)))._tag).toBe("Completed");
    expect(limited(await stack.run("modelCall", request, () => answer(1, 1)))).toBe(true);
    clock.now = 60_000;
    expect((await stack.run("modelCall", request, () => answer(1, 1)))._tag).toBe("Completed");
  });

  it("keeps resetting when a call settles after its window ran out (settling starts the next window)", async () => {
    const clock = { now: 0 };
    const store = new MemoryStore({ now: () => clock.now });
    const stack = withMiddleware(createAgentStack({ store }), budget({ limit: 100, windowMs: 60_000 }));
    // The window ends while this call runs; its spend lands in a new window, which must expire too.
    expect((await stack.run("modelCall", request, () => ((clock.now = 60_000), answer(25, 25))))._tag).toBe("Completed");
    expect(await store.used("budget:global")).toBe(50);
    clock.now = 120_001;
    expect(await store.used("budget:global")).toBe(0);
    expect((await stack.run("modelCall", request, () => answer(50, 50)))._tag).toBe("Completed");
  });

  it("keeps tenants apart and refuses a call without a tenant", async () => {
    const store = new MemoryStore();
    const stack = withMiddleware(createAgentStack({ store }), budget({ limit: 100, scope: "tenant" }));
    const as = (metadata: Record<string, unknown>) => stack.run("modelCall", request, () => answer(50, 50), { metadata });
    expect((await as({ tenant: "acme" }))._tag).toBe("Completed");
    expect((await as({ tenant: "globex" }))._tag).toBe("Completed");
    expect(limited(await as({ tenant: "acme" }))).toBe(true);
    const none = await as({});
    expect(none._tag === "Failed" && (none.error as Error).message).toBe(
      "budget cannot account for this call: no tenant in the run metadata (metadata.tenant)",
    );
  });
});

describe("budget on streams", () => {
  it("settles the partial usage of a stream the consumer cut short, and keeps no hold", async () => {
    const store = new MemoryStore();
    const stack = withMiddleware(createAgentStack({ store }), budget({ limit: 10_000 }));
    const model = createScriptedModel({ chunkSize: 4, delayMs: 5, turns: ["a fairly long answer that will be cut"] });
    const call = streamThroughStack(stack, request, streamStarter(model));
    for await (const part of call.parts)
      if (part.type === "text-delta") {
        call.cancel();
        break;
      }
    const { outcome } = await call.done;
    expect(outcome).toMatchObject({ _tag: "Completed", value: { aborted: true } });
    const usage = outcome._tag === "Completed" ? outcome.value.usage : { inputTokens: -1, outputTokens: -1 };
    expect(await used(store)).toBe(usage.inputTokens + usage.outputTokens);
    expect(usage.outputTokens).toBeGreaterThan(0);
  });
});

describe("budget on streams that fail", () => {
  const failing = (errorAfterChunks: number) =>
    createScriptedModel({ chunkSize: 50, turns: [{ text: "word ".repeat(400), error: new Error("overloaded_error"), errorAfterChunks }] });

  it("charges what a stream spent before the provider failed it part-way, rather than refunding it", async () => {
    const store = new MemoryStore();
    const stack = withMiddleware(createAgentStack({ store }), budget({ limit: 10_000 }));
    const call = streamThroughStack(
      stack,
      { model: "m", messages: [{ role: "user", content: "write" }], maxOutputTokens: 4_000 },
      streamStarter(failing(30)),
    );
    let shown = 0;
    for await (const part of call.parts) if (part.type === "text-delta") shown += part.text.length;
    const { outcome } = await call.done;
    expect(shown).toBe(1_500);
    expect(outcome).toMatchObject({ _tag: "Failed", error: { name: "ModelStreamError" } });
    const { usage } = (outcome as { error: ModelStreamError }).error.partial;
    expect(usage.outputTokens).toBeGreaterThan(0);
    expect(await used(store)).toBe(usage.inputTokens + usage.outputTokens);
  });

  it("still refunds a stream that failed before the provider sent anything", async () => {
    const store = new MemoryStore();
    const stack = withMiddleware(createAgentStack({ store }), budget({ limit: 10_000 }));
    const call = streamThroughStack(stack, request, streamStarter(failing(0)));
    for await (const _ of call.parts);
    const { outcome } = await call.done;
    expect(outcome).toMatchObject({ _tag: "Failed", error: { name: "ModelStreamError" } });
    expect(await used(store)).toBe(0);
  });
});

describe("budget: cost in micro-dollars", () => {
  it("prices reservations and charges in whole µ$, rounding up", async () => {
    const store = new MemoryStore();
    const stack = withMiddleware(
      createAgentStack({ store }),
      budget({
        name: "spend",
        unit: "cost",
        limit: 5_000_000,
        price: { m: { input: 3_000_000, output: 15_000_000 }, "*": { input: 1, output: 1 } },
      }),
    );
    await stack.run("modelCall", request, () => answer(1_000, 333));
    // 1000 × 3 µ$ + 333 × 15 µ$ = 7995 µ$
    expect(await store.used("spend:global")).toBe(7_995);
    await stack.run("modelCall", { ...request, model: "other" }, () => answer(1, 1));
    expect(await store.used("spend:global")).toBe(7_996); // 2 / 10^6 µ$ rounds up to 1
  });

  it("refuses float, NaN and missing prices at configuration with a TypeError naming the field", () => {
    expect(() => budget({ limit: 1.5 })).toThrow(/budget: limit must be an integer >= 0, got 1.5/);
    expect(() => budget({ limit: Number.NaN })).toThrow(/budget: limit/);
    expect(() => budget({ unit: "cost", limit: 10 })).toThrow(/needs price/);
    expect(() => budget({ unit: "cost", limit: 10, price: { input: 0.5, output: 1 } })).toThrow(/price.input must be an integer/);
    expect(() => budget({ unit: "cost", limit: 10, price: { m: { input: 1, output: Number.NaN } } })).toThrow(/price\["m"\].output/);
  });

  it("refuses a tenantKey that is not a non-empty string, and a price table that prices no model, naming the field", () => {
    expect(() => budget({ limit: 5, scope: "tenant", tenantKey: {} as never })).toThrow(
      /budget: tenantKey must be a non-empty string, got \{\}/,
    );
    // As for names: a key of spaces is a mistake, not a metadata key anyone sets.
    expect(() => budget({ limit: 5, scope: "tenant", tenantKey: "  " })).toThrow(
      /budget: tenantKey must be a non-empty string, got " {2}"/,
    );
    expect(() => budget({ limit: 5, scope: "tenant", tenantKey: "" })).toThrow(/budget: tenantKey/);
    expect(() => budget({ limit: 5_000_000, unit: "cost", price: {} })).toThrow(
      /budget: price must give \{ input, output \} or price at least one model/,
    );
  });

  it("fails the call (closed) and charges the reservation when a custom charge is not an integer", async () => {
    const store = new MemoryStore();
    const stack = withMiddleware(createAgentStack({ store }), budget({ limit: 100, charge: () => 0.5 }));
    const outcome = await stack.run("modelCall", request, () => answer(1, 1));
    expect(outcome).toMatchObject({
      _tag: "Rejected",
      by: "budget",
      reason: expect.stringContaining("charge must be a non-negative integer number of tokens, got 0.5"),
    });
    // The call ran: its spend is counted at the worst case it was admitted for, not refunded.
    expect(await used(store)).toBe(100);
  });

  it("charges the reservation when a fallback model answered that has no price", async () => {
    const store = new MemoryStore();
    const stack = withMiddleware(
      createAgentStack({ store }),
      budget({ unit: "cost", limit: 10_000, price: { m: { input: 1_000_000, output: 1_000_000 } } }),
    );
    const outcome = await stack.run("modelCall", request, () => ({ ...answer(10, 10), model: "unpriced" }));
    expect(outcome).toMatchObject({ _tag: "Rejected", reason: expect.stringContaining('no price for model "unpriced"') });
    expect(await used(store, "budget:global")).toBe(100);
  });
});

describe("budget: when the store fails", () => {
  it("refuses the call (fail closed) when it cannot reserve, and says the store is the cause", async () => {
    const stack = withMiddleware(createAgentStack({ store: failingStore(["reserve"]) }), budget({ limit: 100 }));
    let called = false;
    const outcome = await stack.run("modelCall", request, () => {
      called = true;
      return answer(1, 1);
    });
    expect(outcome).toMatchObject({ _tag: "Rejected", by: "budget", reason: expect.stringContaining("redis unreachable (reserve)") });
    expect(called).toBe(false);
  });

  it("keeps the answer when settling fails after the call and its retries, and warns that the hold will expire", async () => {
    const warned: string[] = [];
    const stack = withMiddleware(
      createAgentStack({ store: failingStore(["settle"]) }),
      budget({ limit: 100, retryAccountingMs: 300, onAccountingError: (e, what) => void warned.push(`${what}: ${(e as Error).message}`) }),
    );
    const outcome = await stack.run("modelCall", request, () => answer(1, 1));
    expect(outcome._tag).toBe("Completed");
    expect(warned).toEqual([]);
    await stack.flush();
    expect(warned).toEqual(["settle: redis unreachable (settle)"]);
  });

  it("warns through process.emitWarning by default", async () => {
    const emit = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    const stack = withMiddleware(createAgentStack({ store: failingStore(["release"]) }), budget({ limit: 100, retryAccountingMs: 0 }));
    await stack.run("modelCall", request, () => {
      throw new Error("boom");
    });
    await stack.flush();
    expect(emit).toHaveBeenCalledWith(expect.stringContaining("budget: could not release a reservation"), "AgentOnionBudgetWarning");
  });
});

/**
 * A MemoryStore whose listed methods fail the first `times` times as a Redis timeout does: the
 * answer is lost, and the command ran (`ran: true`, the default) or not.
 */
const answerLost = (methods: readonly (keyof StateStore)[], times = 1, base: StateStore = new MemoryStore(), ran = true): StateStore => {
  const left = new Map<string, number>(methods.map((m) => [m, times]));
  return new Proxy(base, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        const n = left.get(String(prop)) ?? 0;
        if (n > 0) left.set(String(prop), n - 1);
        const result: unknown = n === 0 || ran ? await (value as (...a: unknown[]) => unknown).apply(target, args) : undefined;
        if (n === 0) return result;
        throw new StoreUnavailableError("Redis is unavailable: Command timed out", { mayHaveRun: true });
      };
    },
  });
};

describe("budget: reservations that cannot outlive their call", () => {
  it("states what was really spent and what calls under way hold when it refuses", async () => {
    const store = new MemoryStore();
    const stack = withMiddleware(createAgentStack({ store }), budget({ limit: 1_000 }));
    await stack.run("modelCall", request, () => answer(500, 245));
    let release!: () => void;
    const running = stack.run("modelCall", request, () => new Promise<ModelResponse>((r) => (release = () => r(answer(50, 50)))));
    await new Promise((r) => setTimeout(r, 5));
    const refused = await stack.run("modelCall", { ...request, maxOutputTokens: 200 }, () => answer(1, 1));
    expect(refused._tag === "Failed" && (refused.error as Error).message).toBe(
      "Budget exhausted (budget): 745 of 1000 tokens spent, 100 reserved by calls under way, and this call may need up to 200",
    );
    release();
    await running;
    expect(await used(store)).toBe(845);
  });

  it("renews a reservation while its call runs longer than the lease, and holds nothing once it ends", async () => {
    // The store's clock moves only when the test says; the lease is renewed by real timers.
    const clock = { now: 0 };
    const store = new MemoryStore({ now: () => clock.now });
    let renewals = 0;
    const counting = new Proxy(store, {
      get: (target, prop) =>
        prop === "renew"
          ? (...a: Parameters<MemoryStore["renew"]>) => (renewals++, target.renew(...a))
          : ((Reflect.get(target, prop) as unknown as (...a: unknown[]) => unknown).bind?.(target) ?? Reflect.get(target, prop)),
    });
    const stack = withMiddleware(createAgentStack({ store: counting }), budget({ limit: 1_000, holdTtlMs: 60 }));
    const seen: number[] = [];
    const outcome = await stack.run("modelCall", request, async () => {
      // Ten steps of 40 ms: 400 ms of store time, more than six leases, each step after a renewal.
      for (let i = 0; i < 10; i++) {
        const before = renewals;
        await expect.poll(() => renewals, { timeout: 2_000, interval: 5 }).toBeGreaterThan(before);
        clock.now += 40;
        seen.push(await used(store));
      }
      return answer(10, 10);
    });
    expect(outcome._tag).toBe("Completed");
    expect(seen).toEqual(Array(10).fill(100));
    expect(await used(store)).toBe(20);
  });

  it("releases a reservation whose answer was lost though it ran, so it holds nothing after the fault", async () => {
    const store = new MemoryStore();
    const stack = withMiddleware(createAgentStack({ store: answerLost(["reserve"], 1, store) }), budget({ limit: 1_000 }));
    let called = false;
    const outcome = await stack.run("modelCall", request, () => {
      called = true;
      return answer(1, 1);
    });
    expect(outcome).toMatchObject({ _tag: "Rejected", by: "budget" });
    expect(called).toBe(false);
    await stack.flush();
    expect(await used(store)).toBe(0);
    expect((await stack.run("modelCall", request, () => answer(5, 5)))._tag).toBe("Completed");
    expect(await used(store)).toBe(10);
  });

  it("retries a settle whose answer was lost and counts the spend once", async () => {
    const store = new MemoryStore();
    const stack = withMiddleware(createAgentStack({ store: answerLost(["settle"], 2, store) }), budget({ limit: 1_000 }));
    expect((await stack.run("modelCall", request, () => answer(30, 12)))._tag).toBe("Completed");
    await stack.flush();
    expect(await store.get("budget:global")).toBe(42);
    expect(await used(store)).toBe(42);
  });

  it("retries a refund that failed until it lands, so the hold goes before its lease ends", async () => {
    const store = new MemoryStore();
    const stack = withMiddleware(createAgentStack({ store: answerLost(["release"], 3, store, false) }), budget({ limit: 1_000 }));
    await stack.run("modelCall", request, () => {
      throw new Error("provider down");
    });
    expect(await used(store)).toBe(100);
    await stack.flush();
    expect(await used(store)).toBe(0);
  });

  it("deletes a per-run budget's count when its run ends", async () => {
    const store = new MemoryStore();
    const stack = withMiddleware(createAgentStack({ store }), budget({ limit: 1_000, scope: "run", maxOutputTokens: 50 }));
    const { turn } = await runAgent(stack, [{ text: "ok", usage: { inputTokens: 10, outputTokens: 5 } }]);
    expect(turn.error).toBeUndefined();
    expect(turn.status).toBe("completed");
    expect(await store.get(`budget:run:${encodeURIComponent(turn.runId)}`)).toBeUndefined();
    expect(store.size).toBe(0);
  });
});

describe("budget through the reference loop", () => {
  it("lets the first run spend and rejects the next one at its start, in the same store", async () => {
    const stack = withMiddleware(createAgentStack(), budget({ limit: 200, maxOutputTokens: 50 }));
    const first = await runAgent(stack, [{ text: "one", usage: { inputTokens: 150, outputTokens: 50 } }]);
    expect(first.turn.status).toBe("completed");
    const second = await runAgent(stack, ["two"]);
    expect(second.turn).toMatchObject({ status: "rejected", by: "budget", reason: "Budget exhausted (budget): 200 of 200 tokens spent" });
    expect(second.model.requests).toHaveLength(0);
  });

  it("fails a run whose model call does not fit, with the reason in the error", async () => {
    const stack = withMiddleware(createAgentStack(), budget({ limit: 60, maxOutputTokens: 50 }));
    const { turn } = await runAgent(stack, [{ text: "x".repeat(40), usage: { inputTokens: 5, outputTokens: 10 } }, "never"], {});
    expect(turn.status).toBe("completed");
    const again = await runAgent(stack, ["never"]);
    expect(again.turn.status).toBe("failed");
    expect(again.turn.error).toBeInstanceOf(LimitExceededError);
  });
});
