import { describe, expect, it } from "vitest";
import { createAgentStack, type ModelRequest, type ModelResponse } from "../../src/agent/index.ts";
import { MemoryStore, Priority, Reject, type StateStore } from "../../src/core/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { budget } from "../../src/middleware/budget.ts";
import { callLimit, rateLimit } from "../../src/middleware/rate-limit.ts";
import { toolCall } from "./harness.ts";

const request: ModelRequest = { model: "m", messages: [], maxOutputTokens: 100 };
const answer: ModelResponse = { text: "ok", toolCalls: [], finishReason: "stop", usage: { inputTokens: 10, outputTokens: 10 } };
const hangs = (): Promise<never> => new Promise(() => undefined);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A MemoryStore that counts the lease renewals asked of it. */
const renewalsCounted = (): { store: StateStore; memory: MemoryStore; renewals: () => number } => {
  const memory = new MemoryStore();
  let renewals = 0;
  const store = new Proxy(memory, {
    get: (target, prop) => {
      if (prop === "renew") return (...a: Parameters<MemoryStore["renew"]>) => (renewals++, target.renew(...a));
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store, memory, renewals: () => renewals };
};

/** Abort a run whose operation never returns, once it has started. */
const abortedWhileHanging = async <T>(run: (signal: AbortSignal, started: () => void) => Promise<T>): Promise<T> => {
  const controller = new AbortController();
  let started!: () => void;
  const begun = new Promise<void>((resolve) => (started = resolve));
  const outcome = run(controller.signal, started);
  await begun;
  controller.abort(new Error("caller gave up"));
  return outcome;
};

describe("a budget's hold ends exactly once, whatever happens inside", () => {
  const stackOf = (store: StateStore) => withMiddleware(createAgentStack({ store }), budget({ limit: 1_000, holdTtlMs: 60 }));

  it("settles what a completed call used", async () => {
    const store = new MemoryStore();
    expect((await stackOf(store).run("modelCall", request, () => answer))._tag).toBe("Completed");
    expect(await store.used("budget:global")).toBe(20);
  });

  it("refunds a call the provider failed, and one a hook inside failed closed", async () => {
    const store = new MemoryStore();
    expect(
      (
        await stackOf(store).run("modelCall", request, () => {
          throw new Error("overloaded");
        })
      )._tag,
    ).toBe("Failed");
    const inner = stackOf(store).use("modelCall", {
      name: "inner",
      failMode: "closed",
      around: () => {
        throw new Error("inner broke");
      },
    });
    expect((await inner.run("modelCall", request, () => answer))._tag).not.toBe("Completed");
    expect(await store.used("budget:global")).toBe(0);
  });

  it("refunds a call a timed hook inside gave up on", async () => {
    const store = new MemoryStore();
    const timed = stackOf(store).use("modelCall", {
      name: "slow",
      timeoutMs: 20,
      failMode: "closed",
      around: async (_ctx, next) => (await sleep(200), next()),
    });
    expect((await timed.run("modelCall", request, () => answer))._tag).not.toBe("Completed");
    expect(await store.used("budget:global")).toBe(0);
  });

  it("refunds the hold of a call that hangs when the caller aborts, and renews it no more", async () => {
    const { store, memory, renewals } = renewalsCounted();
    const outcome = await abortedWhileHanging((signal, started) =>
      stackOf(store).run("modelCall", request, () => (started(), hangs()), { signal }),
    );
    expect(outcome._tag).toBe("Failed");
    expect(await memory.used("budget:global")).toBe(0);
    const after = renewals();
    await sleep(150); // several leases of 60 ms
    expect(renewals()).toBe(after);
  });
});

describe("a call limit's slot ends exactly once, whatever happens inside", () => {
  const stackOf = (store: StateStore) => withMiddleware(createAgentStack({ store }), callLimit({ max: 5 }));
  const run = (stack: ReturnType<typeof stackOf>, op: () => unknown, signal?: AbortSignal) =>
    stack.run("toolCall", toolCall("Bash"), op as () => never, { runId: "r", ...(signal !== undefined ? { signal } : {}) });
  const counted = (store: StateStore) => store.used("callLimit:run:r:Bash");

  it("counts a call that reached the tool, whether the tool answered or threw", async () => {
    const store = new MemoryStore();
    await run(stackOf(store), () => ({ content: "ran" }));
    await run(stackOf(store), () => {
      throw new Error("tool broke");
    });
    expect(await counted(store)).toBe(2);
  });

  it("gives the slot back for a call a hook inside refused, failed closed or timed out", async () => {
    const store = new MemoryStore();
    const refusing = stackOf(store).use("toolCall", { name: "deny", priority: Priority.innermost, before: () => Reject("no") });
    const failing = stackOf(store).use("toolCall", {
      name: "broken",
      priority: Priority.innermost,
      before: () => {
        throw new Error("broke");
      },
    });
    const slow = stackOf(store).use("toolCall", {
      name: "slow",
      priority: Priority.innermost,
      timeoutMs: 20,
      before: async () => {
        await sleep(200);
      },
    });
    for (const stack of [refusing, failing, slow]) expect((await run(stack, () => ({ content: "ran" })))._tag).toBe("Rejected");
    expect(await counted(store)).toBe(0);
  });

  it("counts the slot of a call that hangs when the caller aborts, and holds no lease after", async () => {
    const { store, memory } = renewalsCounted();
    const outcome = await abortedWhileHanging((signal, started) => run(stackOf(store), () => (started(), hangs()), signal));
    expect(outcome._tag).toBe("Failed");
    // Counted as settled spend, not as a live hold: what was reserved is gone.
    expect(await memory.get("callLimit:run:r:Bash")).toBe(1);
    expect(await memory.used("callLimit:run:r:Bash")).toBe(1);
  });

  it("keeps a sliding window's entry for a call that hangs when the caller aborts, until the window ends", async () => {
    const store = new MemoryStore();
    const stack = withMiddleware(createAgentStack({ store }), rateLimit({ limit: 5, windowMs: 60_000 }));
    await abortedWhileHanging((signal, started) => stack.run("toolCall", toolCall("Bash"), () => (started(), hangs()), { signal }));
    expect(await store.used("rateLimit:global:Bash")).toBe(1);
  });
});
