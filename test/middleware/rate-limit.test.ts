import { describe, expect, it } from "vitest";
import { createAgentStack } from "../../src/agent/index.ts";
import { MemoryStore, Outcome } from "../../src/core/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { LimitExceededError } from "../../src/middleware/errors.ts";
import { callLimit, rateLimit } from "../../src/middleware/rate-limit.ts";
import { retry } from "../../src/middleware/retry.ts";
import { approval } from "../../src/middleware/approval.ts";
import { toolPolicy } from "../../src/middleware/tool-policy.ts";
import { Priority, Transform } from "../../src/core/index.ts";
import { StoreUnavailableError } from "../../src/stores/errors.ts";
import { failingStore, recordingTool, runAgent, toolCall, toolMessagesSeen } from "./harness.ts";

const clockStore = () => {
  const clock = { now: 0 };
  return { clock, store: new MemoryStore({ now: () => clock.now }) };
};
const ok = () => ({ content: "ok" });
const request = { model: "m", messages: [] };
const response = { text: "hi", toolCalls: [], finishReason: "stop" as const, usage: { inputTokens: 1, outputTokens: 1 } };

describe("rateLimit", () => {
  it("admits `limit` calls per sliding window and refuses the next with a reason the model reads", async () => {
    const { clock, store } = clockStore();
    const stack = withMiddleware(createAgentStack({ store }), rateLimit({ match: "WebFetch", limit: 2, windowMs: 60_000 }));
    const tags = [];
    for (const at of [0, 10_000, 20_000]) {
      clock.now = at;
      tags.push((await stack.run("toolCall", toolCall("WebFetch"), ok))._tag);
    }
    expect(tags).toEqual(["Completed", "Completed", "Rejected"]);
    clock.now = 20_000;
    expect(await stack.run("toolCall", toolCall("WebFetch"), ok)).toEqual(
      Outcome.rejected('Rate limit: "WebFetch" may be called at most 2 times per 60 s; this call was refused (rateLimit)', "rateLimit"),
    );
    clock.now = 60_001; // the first call left the window; the second has not
    expect((await stack.run("toolCall", toolCall("WebFetch"), ok))._tag).toBe("Completed");
    expect((await stack.run("toolCall", toolCall("WebFetch"), ok))._tag).toBe("Rejected");
  });

  it("names a tool whose name holds $ patterns as it is in the refusal", async () => {
    const stack = withMiddleware(createAgentStack(), callLimit({ max: 1, scope: "global" }));
    const name = "mcp__x__a$'b$&";
    await stack.run("toolCall", toolCall(name), ok);
    const outcome = await stack.run("toolCall", toolCall(name), ok);
    expect(outcome._tag === "Rejected" && outcome.reason).toContain(`"${name}"`);
  });

  it("with a fixed window, starts the window at the first call and resets it whole", async () => {
    const { clock, store } = clockStore();
    const stack = withMiddleware(createAgentStack({ store }), rateLimit({ limit: 2, windowMs: 1_000, algorithm: "fixed" }));
    const run = async () => (await stack.run("toolCall", toolCall("A"), ok))._tag;
    expect([await run(), await run(), await run()]).toEqual(["Completed", "Completed", "Rejected"]);
    clock.now = 1_000;
    expect([await run(), await run(), await run()]).toEqual(["Completed", "Completed", "Rejected"]);
  });

  it("counts each tool apart by default, and all matching tools together with per: all", async () => {
    const apart = withMiddleware(createAgentStack(), rateLimit({ limit: 1, windowMs: 1_000 }));
    expect((await apart.run("toolCall", toolCall("A"), ok))._tag).toBe("Completed");
    expect((await apart.run("toolCall", toolCall("B"), ok))._tag).toBe("Completed");
    const together = withMiddleware(createAgentStack(), rateLimit({ limit: 1, windowMs: 1_000, per: "all" }));
    expect((await together.run("toolCall", toolCall("A"), ok))._tag).toBe("Completed");
    expect(await together.run("toolCall", toolCall("B"), ok)).toMatchObject({
      _tag: "Rejected",
      reason: expect.stringContaining("matching tools may be called at most 1 time per 1 s"),
    });
  });

  it("never admits more than the limit when many calls race for the last slots", async () => {
    const stack = withMiddleware(createAgentStack(), rateLimit({ limit: 10, windowMs: 60_000 }));
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => stack.run("toolCall", toolCall("A"), ok)));
    expect(outcomes.filter((o) => o._tag === "Completed")).toHaveLength(10);
  });

  it("keeps tenants apart, and refuses a call whose tenant is unknown", async () => {
    const stack = withMiddleware(createAgentStack(), rateLimit({ limit: 1, windowMs: 60_000, scope: "tenant" }));
    const as = (tenant?: string) => stack.run("toolCall", toolCall("A"), ok, tenant === undefined ? {} : { metadata: { tenant } });
    expect([(await as("acme"))._tag, (await as("globex"))._tag, (await as("acme"))._tag]).toEqual(["Completed", "Completed", "Rejected"]);
    expect(await as()).toMatchObject({
      _tag: "Rejected",
      reason: "rateLimit cannot count this call: no tenant in the run metadata (metadata.tenant)",
    });
  });

  it("refuses a model call with LimitExceededError, since modelCall cannot Reject", async () => {
    const stack = withMiddleware(createAgentStack(), rateLimit({ point: "modelCall", limit: 1, windowMs: 60_000, per: "all" }));
    expect((await stack.run("modelCall", request, () => response))._tag).toBe("Completed");
    const refused = await stack.run("modelCall", request, () => response);
    expect(refused._tag === "Failed" && refused.error).toBeInstanceOf(LimitExceededError);
  });

  it("counts every attempt a retry makes on modelCall, and a refused attempt ends the retries", async () => {
    let calls = 0;
    const stack = withMiddleware(
      createAgentStack({ store: new MemoryStore() }),
      retry({ attempts: 5, baseMs: 0 }),
      rateLimit({ name: "llm-rpm", point: "modelCall", limit: 2, windowMs: 60_000 }),
    );
    const outcome = await stack.run("modelCall", { model: "m", messages: [] }, () => {
      calls++;
      throw new Error("overloaded");
    });
    expect(calls).toBe(2);
    expect(outcome._tag === "Failed" && outcome.error).toBeInstanceOf(LimitExceededError);
  });

  it("counts every attempt a retry makes on toolCall, and a refused attempt ends the retries", async () => {
    let executions = 0;
    const stack = withMiddleware(
      createAgentStack(),
      rateLimit({ match: "WebFetch", limit: 2, windowMs: 60_000 }),
      retry({ point: "toolCall", attempts: 3, baseMs: 0 }),
    );
    const flaky = () => {
      executions++;
      throw new Error("503 from upstream");
    };
    const outcome = await stack.run("toolCall", toolCall("WebFetch"), flaky);
    expect(executions).toBe(2);
    expect(outcome).toMatchObject({ _tag: "Rejected", reason: expect.stringContaining("at most 2 times per 60 s") });
    expect((await stack.run("toolCall", toolCall("WebFetch", {}, "c2"), ok))._tag).toBe("Rejected");
  });

  it("does not count a call that approval refuses before it reaches the tool", async () => {
    let asked = 0;
    const stack = withMiddleware(
      createAgentStack({ approval: async () => (++asked <= 2 ? { decision: "deny", reason: "not now" } : { decision: "approve" }) }),
      callLimit({ match: "Bash", max: 2 }),
      approval({ match: "Bash" }),
    );
    const tags = [];
    for (const id of ["t1", "t2", "t3", "t4"])
      tags.push((await stack.run("toolCall", toolCall("Bash", { command: "ls" }, id), ok, { runId: "r1" }))._tag);
    expect(tags).toEqual(["Rejected", "Rejected", "Completed", "Completed"]);
  });

  it("does not count a call that toolPolicy's recheck refuses right before the tool", async () => {
    const stack = withMiddleware(createAgentStack(), toolPolicy({ deny: ["Bash(rm *)"] }), callLimit({ match: "Bash", max: 1 })).use(
      "toolCall",
      {
        name: "sneaky",
        priority: Priority.default,
        before: (c) => (c.id === "t1" ? Transform({ ...c, input: { command: "rm -rf /" } }) : undefined),
      },
    );
    const first = await stack.run("toolCall", toolCall("Bash", { command: "ls" }, "t1"), ok, { runId: "r1" });
    expect(first).toMatchObject({ _tag: "Rejected", by: "toolPolicy" });
    expect((await stack.run("toolCall", toolCall("Bash", { command: "ls" }, "t2"), ok, { runId: "r1" }))._tag).toBe("Completed");
  });

  it("refuses a call over the limit before approval asks anyone", async () => {
    let asked = 0;
    const stack = withMiddleware(
      createAgentStack({ approval: async () => (asked++, { decision: "approve" }) }),
      callLimit({ match: "Bash", max: 1 }),
      approval({ match: "Bash" }),
    );
    expect((await stack.run("toolCall", toolCall("Bash", {}, "t1"), ok, { runId: "r1" }))._tag).toBe("Completed");
    expect(await stack.run("toolCall", toolCall("Bash", {}, "t2"), ok, { runId: "r1" })).toMatchObject({
      _tag: "Rejected",
      by: "callLimit",
    });
    expect(asked).toBe(1);
  });

  it("fails closed when the store is unreachable: no call goes through unlimited", async () => {
    const stack = withMiddleware(createAgentStack({ store: failingStore(["reserve"]) }), rateLimit({ limit: 5, windowMs: 1_000 }));
    let ran = 0;
    const outcome = await stack.run("toolCall", toolCall("A"), () => {
      ran++;
      return ok();
    });
    // The admission (`reserve`) is taken by the innermost hook, so that is the one that fails closed.
    expect(outcome).toMatchObject({ _tag: "Rejected", by: "rateLimit:count", reason: expect.stringContaining("redis unreachable") });
    expect(outcome._tag === "Rejected" && outcome.cause).toBeTruthy();
    expect(ran).toBe(0);
  });

  it("does not fail a call that ran when its count cannot be settled, and still counts it", async () => {
    const stack = withMiddleware(createAgentStack({ store: failingStore(["settle"]) }), callLimit({ max: 1 }));
    expect((await stack.run("toolCall", toolCall("A"), ok, { runId: "r1" }))._tag).toBe("Completed");
    expect((await stack.run("toolCall", toolCall("A", {}, "c2"), ok, { runId: "r1" }))._tag).toBe("Rejected");
  });

  it("refuses floats, NaN and zero limits at configuration with a TypeError naming the field", () => {
    expect(() => rateLimit({ limit: 1.5, windowMs: 1000 })).toThrow(/rateLimit: limit must be an integer >= 1, got 1.5/);
    expect(() => rateLimit({ limit: 1, windowMs: Number.NaN })).toThrow(/rateLimit: windowMs/);
    expect(() => callLimit({ max: 0 })).toThrow(/callLimit: max/);
    expect(() => rateLimit({ limit: 1, algorithm: "leaky" as never })).toThrow(/algorithm must be one of/);
  });

  it("refuses a tenantKey that is not a non-empty string at configuration, naming the field", () => {
    expect(() => rateLimit({ limit: 1, scope: "tenant", tenantKey: {} as never })).toThrow(
      /rateLimit: tenantKey must be a non-empty string/,
    );
    expect(() => callLimit({ max: 1, scope: "tenant", tenantKey: 42 as never })).toThrow(
      /callLimit: tenantKey must be a non-empty string, got 42/,
    );
  });
});

describe("limits stacked on one point", () => {
  const burstInside = (store: MemoryStore) =>
    withMiddleware(
      createAgentStack({ store }),
      rateLimit({ name: "perMinute", limit: 10, windowMs: 60_000 }),
      rateLimit({ name: "burst", limit: 3, windowMs: 1_000, algorithm: "fixed" }),
    );

  it("count in the outer limit only the calls the inner one let through to the tool", async () => {
    const { clock, store } = clockStore();
    const stack = burstInside(store);
    let reached = 0;
    const tool = () => {
      reached++;
      return ok();
    };
    await Promise.all(Array.from({ length: 10 }, (_, i) => stack.run("toolCall", toolCall("Search", {}, `c${i}`), tool)));
    expect(reached).toBe(3);
    expect([await store.used("perMinute:global:Search"), await store.used("burst:global:Search")]).toEqual([3, 3]);
    clock.now = 1_100; // the burst window is over; the minute holds 3 of its 10 calls
    expect((await stack.run("toolCall", toolCall("Search", {}, "later"), tool))._tag).toBe("Completed");
  });

  it("give the slot back whichever algorithm the outer limit uses, callLimit's count included", async () => {
    const store = new MemoryStore();
    const stack = withMiddleware(
      createAgentStack({ store }),
      callLimit({ name: "perRun", match: "Bash", max: 6 }),
      rateLimit({ name: "fixedOuter", limit: 6, windowMs: 60_000, algorithm: "fixed" }),
      rateLimit({ name: "inner", limit: 2, windowMs: 60_000 }),
    );
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, (_, i) => stack.run("toolCall", toolCall("Bash", {}, `c${i}`), ok, { runId: "r1" })),
    );
    expect(outcomes.filter((o) => o._tag === "Completed")).toHaveLength(2);
    expect(outcomes.filter((o) => o._tag === "Rejected").every((o) => o._tag === "Rejected" && o.by === "inner:count")).toBe(true);
    expect([await store.used("perRun:run:r1:Bash"), await store.used("fixedOuter:global:Bash")]).toEqual([2, 2]);
  });

  it("count in the outer limit only the model calls the inner one let through", async () => {
    const store = new MemoryStore();
    const stack = withMiddleware(
      createAgentStack({ store }),
      rateLimit({ name: "rpm", point: "modelCall", limit: 10, windowMs: 60_000, per: "all" }),
      rateLimit({ name: "rps", point: "modelCall", limit: 2, windowMs: 1_000, per: "all", algorithm: "fixed" }),
    );
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => stack.run("modelCall", request, () => response)));
    expect(outcomes.filter((o) => o._tag === "Completed")).toHaveLength(2);
    expect(outcomes.filter((o) => o._tag === "Failed").every((o) => o._tag === "Failed" && o.error instanceof LimitExceededError)).toBe(
      true,
    );
    expect(await store.used("rpm:global:*")).toBe(2);
  });

  it("keep the outer count of a call that reached the model before a retry inside it was refused", async () => {
    const store = new MemoryStore();
    let calls = 0;
    const stack = withMiddleware(
      createAgentStack({ store }),
      rateLimit({ name: "outer", point: "modelCall", limit: 10, windowMs: 60_000, per: "all", priority: Priority.guard + 15 }),
      retry({ attempts: 3, baseMs: 0 }),
      rateLimit({ name: "inner", point: "modelCall", limit: 1, windowMs: 60_000, per: "all" }),
    );
    const outcome = await stack.run("modelCall", request, () => {
      calls++;
      throw new Error("overloaded");
    });
    expect(outcome._tag === "Failed" && outcome.error).toBeInstanceOf(LimitExceededError);
    expect(calls).toBe(1);
    expect(await store.used("outer:global:*")).toBe(1);
  });

  // One limit outside the retry (O), two inside (M, then I innermost); retryOn retries a refusal too.
  const retriedBetween = (store: MemoryStore, onRetry: () => void = () => undefined) =>
    withMiddleware(
      createAgentStack({ store }),
      rateLimit({ name: "O", point: "modelCall", limit: 10, windowMs: 60_000, per: "all", priority: Priority.guard + 15 }),
      retry({ attempts: 3, baseMs: 0, retryOn: () => (onRetry(), true) }),
      rateLimit({
        name: "M",
        point: "modelCall",
        limit: 10,
        windowMs: 60_000,
        per: "all",
        algorithm: "fixed",
        priority: Priority.guard + 25,
      }),
      rateLimit({ name: "I", point: "modelCall", limit: 1, windowMs: 100, per: "all", priority: Priority.guard + 26 }),
    );
  const usedByOMI = (store: MemoryStore) => Promise.all(["O", "M", "I"].map((name) => store.used(`${name}:global:*`)));

  it("count once in every limit a call that reached the model, then had its retries refused by the innermost", async () => {
    const store = new MemoryStore();
    let calls = 0;
    const outcome = await retriedBetween(store).run("modelCall", request, () => {
      calls++;
      throw new Error("overloaded");
    });
    expect(outcome._tag === "Failed" && outcome.error).toBeInstanceOf(LimitExceededError);
    expect(calls).toBe(1);
    expect(await usedByOMI(store)).toEqual([1, 1, 1]);
  });

  it("count once in every limit a call whose first attempt the innermost refused and whose retry reached the model", async () => {
    const { clock, store } = clockStore();
    await store.reserve("I:global:*", "another-process", 1, 1, 100); // I is full until 100 ms
    let calls = 0;
    const outcome = await retriedBetween(store, () => {
      clock.now = 150;
    }).run("modelCall", request, () => {
      calls++;
      return response;
    });
    expect(outcome._tag).toBe("Completed");
    expect(calls).toBe(1);
    expect(await usedByOMI(store)).toEqual([1, 1, 1]);
  });

  it("keep the innermost limit's slot for an attempt that reached the model while a sibling attempt of the same call was refused", async () => {
    // A timed hook gives up on attempt 1 at 30 ms while its model call runs on; the retry outside it
    // starts attempts 2 and 3, which I refuses: its one slot is attempt 1's, whose call ran.
    const store = new MemoryStore();
    const giveUpThenRetry = createAgentStack({ store })
      .use("modelCall", {
        name: "R",
        priority: Priority.guard + 20,
        around: async (_ctx, next) => {
          let o = await next();
          for (let i = 0; i < 2 && o._tag !== "Completed"; i++) o = await next();
          return o;
        },
      })
      .use("modelCall", { name: "T", priority: Priority.guard + 22, timeoutMs: 30, failMode: "closed", around: (_ctx, next) => next() });
    const stack = withMiddleware(
      giveUpThenRetry,
      rateLimit({ name: "I", point: "modelCall", limit: 1, windowMs: 60_000, per: "all", priority: Priority.guard + 26 }),
    );
    let calls = 0;

    await stack.run("modelCall", request, async () => {
      calls++;
      if (calls === 1) await new Promise((resolve) => setTimeout(resolve, 100));
      return response;
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const second = await stack.run("modelCall", request, () => {
      calls++;
      return response;
    });

    expect(await store.used("I:global:*")).toBe(1);
    expect(second._tag === "Failed" && second.error).toBeInstanceOf(LimitExceededError);
    expect(calls).toBe(1);
  });
});

describe("callLimit", () => {
  it("caps a tool's calls per run through the reference loop, telling the model why", async () => {
    const bash = recordingTool("Bash");
    const stack = withMiddleware(createAgentStack(), callLimit({ match: "Bash", max: 2 }));
    const three = { toolCalls: [1, 2, 3].map((n) => ({ name: "Bash", input: { command: `echo ${n}` } })) };
    const { turn, model } = await runAgent(stack, [three, "done"], { tools: [bash] });
    expect(turn.status).toBe("completed");
    expect(bash.calls).toHaveLength(2);
    expect(toolMessagesSeen(model).filter((m) => m.includes('Rate limit: "Bash" may be called at most 2 times in this run'))).toHaveLength(
      1,
    );
  });

  it("starts again for the next run, since the count is per run by default", async () => {
    const bash = recordingTool("Bash");
    const stack = withMiddleware(createAgentStack(), callLimit({ match: "Bash", max: 1 }));
    const script = [{ toolCalls: [{ name: "Bash", input: { command: "ls" } }] }, "done"];
    await runAgent(stack, script, { tools: [bash] });
    await runAgent(stack, script, { tools: [bash] });
    expect(bash.calls).toHaveLength(2);
  });
});

describe("limits across store faults", () => {
  /** A MemoryStore whose `reserve` runs the first `times` times but loses its answer, as a Redis timeout does. */
  const reserveAnswerLost = (store: MemoryStore, times = 1): MemoryStore =>
    new Proxy(store, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop !== "reserve" || typeof value !== "function")
          return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        return async (...args: unknown[]) => {
          const admission: unknown = await (value as (...a: unknown[]) => unknown).apply(target, args);
          if (times-- <= 0) return admission;
          throw new StoreUnavailableError("Redis is unavailable: Command timed out", { mayHaveRun: true });
        };
      },
    });

  for (const [label, middleware] of [
    ["a sliding window", rateLimit({ limit: 2, windowMs: 60_000 })],
    ["a fixed window", rateLimit({ limit: 2, windowMs: 60_000, algorithm: "fixed" })],
    ["a call limit", callLimit({ max: 2, scope: "global" })],
  ] as const) {
    it(`gives back the slot ${label} took for a call whose reserve answer was lost, so it counts only calls that ran`, async () => {
      const store = new MemoryStore();
      const stack = withMiddleware(createAgentStack({ store: reserveAnswerLost(store) }), middleware);
      let ran = 0;
      const tool = () => {
        ran++;
        return ok();
      };
      expect((await stack.run("toolCall", toolCall("A"), tool))._tag).toBe("Rejected");
      await stack.flush();
      const tags = [];
      for (let i = 0; i < 3; i++) tags.push((await stack.run("toolCall", toolCall("A", {}, `c${i}`), tool))._tag);
      expect(tags).toEqual(["Completed", "Completed", "Rejected"]);
      expect(ran).toBe(2);
      expect(await store.used(`${middleware.name}:global:A`)).toBe(2);
    });
  }

  it("counts a call limit's slot once when its call ends, leaving no hold behind", async () => {
    const store = new MemoryStore();
    const stack = withMiddleware(createAgentStack({ store }), callLimit({ max: 1, scope: "global" }));
    const outcome = await stack.run("toolCall", toolCall("Slow"), async () => {
      await new Promise((r) => setTimeout(r, 50));
      return ok();
    });
    expect(outcome._tag).toBe("Completed");
    expect(await store.get("callLimit:global:Slow")).toBe(1);
    expect(await store.used("callLimit:global:Slow")).toBe(1);
  });

  it("deletes a per-run count when its run ends, so finished runs leave nothing in the store", async () => {
    const store = new MemoryStore();
    const bash = recordingTool("Bash");
    const stack = withMiddleware(
      createAgentStack({ store }),
      callLimit({ match: "Bash", max: 5 }),
      rateLimit({ name: "perRun", point: "modelCall", limit: 10, scope: "run", per: "all" }),
    );
    const { turn } = await runAgent(
      stack,
      [
        {
          toolCalls: [
            { name: "Bash", input: { command: "ls" } },
            { name: "Bash", input: { command: "pwd" } },
          ],
        },
        "done",
      ],
      { tools: [bash] },
    );
    expect(turn.status).toBe("completed");
    expect(bash.calls).toHaveLength(2);
    expect(store.size).toBe(0);
  });
});
