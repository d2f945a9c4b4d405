import { fc, test } from "@fast-check/vitest";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createAgentStack, type ModelRequest, type ModelResponse } from "../../src/agent/index.ts";
import { Outcome, Reject } from "../../src/core/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { LimitExceededError } from "../../src/middleware/errors.ts";
import { RedactionBlockedError, redaction } from "../../src/middleware/redaction.ts";
import { backoffMs, retry } from "../../src/middleware/retry.ts";
import { runAgent, toolCall } from "./harness.ts";

const request: ModelRequest = { model: "m", messages: [] };
const ok: ModelResponse = { text: "ok", toolCalls: [], finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } };

/** An operation failing its first `n` calls, recording when each call started. */
const flaky = (n: number, error: unknown = new Error("503")) => {
  const at: number[] = [];
  const op = () => {
    at.push(performance.now());
    if (at.length <= n) throw error;
    return ok;
  };
  return { op, at };
};

afterEach(() => vi.useRealTimers());

describe("retry", () => {
  it("calls again after a failure, waiting baseMs, then twice that, until it succeeds", async () => {
    const { op, at } = flaky(2);
    const stack = withMiddleware(createAgentStack(), retry({ attempts: 3, baseMs: 20, jitter: "none" }));
    expect(await stack.run("modelCall", request, op)).toEqual(Outcome.completed(ok));
    expect(at).toHaveLength(3);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(19);
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(39);
  });

  it("stops at its attempt budget and reports the last failure", async () => {
    const { op, at } = flaky(10);
    const stack = withMiddleware(createAgentStack(), retry({ attempts: 4, baseMs: 0 }));
    const outcome = await stack.run("modelCall", request, op);
    expect(outcome._tag === "Failed" && (outcome.error as Error).message).toBe("503");
    expect(at).toHaveLength(4);
  });

  it("asks retryOn about each failure, with the attempt number", async () => {
    const { op, at } = flaky(10, Object.assign(new Error("bad request"), { status: 400 }));
    const asked: number[] = [];
    const stack = withMiddleware(
      createAgentStack(),
      retry({
        baseMs: 0,
        retryOn: (e, { attempt }) => {
          asked.push(attempt);
          return (e as { status: number }).status >= 500;
        },
      }),
    );
    await stack.run("modelCall", request, op);
    expect([at.length, asked]).toEqual([1, [1]]);
  });

  it("does not retry a rejection or a limit's refusal: asking again would not change them", async () => {
    let runs = 0;
    const rejecting = withMiddleware(createAgentStack(), retry({ point: "toolCall", baseMs: 0 })).use("toolCall", {
      name: "policy",
      priority: 500,
      before: () => Reject("no"),
    });
    expect((await rejecting.run("toolCall", toolCall("A"), () => ({ content: "" })))._tag).toBe("Rejected");
    const limited = withMiddleware(createAgentStack(), retry({ baseMs: 0 }));
    await limited.run("modelCall", request, () => {
      runs++;
      throw new LimitExceededError("budget", "spent");
    });
    expect(runs).toBe(1);
  });

  it("does not retry an answer redaction blocked: each attempt is a paid call with the same refusal", async () => {
    const KEY = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
    let calls = 0;
    const stack = withMiddleware(createAgentStack(), redaction({ strategies: { api_key: "block" } }), retry({ attempts: 3, baseMs: 0 }));
    const outcome = await stack.run("modelCall", request, () => (calls++, { ...ok, text: `key ${KEY}` }));
    expect(outcome._tag === "Failed" && outcome.error).toBeInstanceOf(RedactionBlockedError);
    expect(calls).toBe(1);
  });

  it("does not start a wait that would end past maxElapsedMs", async () => {
    const { op, at } = flaky(10);
    const stack = withMiddleware(createAgentStack(), retry({ attempts: 10, baseMs: 1_000, jitter: "none", maxElapsedMs: 500 }));
    await stack.run("modelCall", request, op);
    expect(at).toHaveLength(1);
  });

  it("ends the backoff at once when the run is aborted, leaving no timer behind", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { op, at } = flaky(10);
    const controller = new AbortController();
    const stack = withMiddleware(createAgentStack(), retry({ attempts: 5, baseMs: 60_000, jitter: "none" }));
    const pending = stack.run("modelCall", request, op, { signal: controller.signal });
    await vi.waitFor(() => expect(at).toHaveLength(1));
    expect(vi.getTimerCount()).toBe(1); // the backoff
    controller.abort(new Error("user cancelled"));
    const outcome = await pending;
    expect(outcome._tag).toBe("Failed");
    expect(at).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("refuses a bad configuration with a TypeError naming the field", () => {
    expect(() => retry({ attempts: 0 })).toThrow(/retry: attempts must be an integer >= 1/);
    expect(() => retry({ attempts: 2.5 })).toThrow(/retry: attempts/);
    expect(() => retry({ baseMs: Number.NaN })).toThrow(/retry: baseMs/);
    expect(() => retry({ jitter: "some" as never })).toThrow(/retry: jitter/);
    expect(() => retry({ retryOn: "yes" as never })).toThrow(/retry: retryOn must be a function/);
  });

  test.prop([
    fc.integer({ min: 1, max: 60 }),
    fc.integer({ min: 0, max: 10_000 }),
    fc.integer({ min: 0, max: 100_000 }),
    fc.double({ min: 0, max: 0.999_999, noNaN: true }),
  ])("keeps every backoff within [0, min(maxMs, baseMs·2^(n-1))], and equal jitter in its upper half", (n, baseMs, maxMs, r) => {
    const cap = Math.min(maxMs, baseMs * 2 ** (n - 1));
    const full = backoffMs(n, { baseMs, maxMs, jitter: "full", random: () => r });
    const equal = backoffMs(n, { baseMs, maxMs, jitter: "equal", random: () => r });
    expect(full).toBeGreaterThanOrEqual(0);
    expect(full).toBeLessThanOrEqual(cap);
    expect(equal).toBeGreaterThanOrEqual(cap / 2);
    expect(equal).toBeLessThanOrEqual(cap);
    expect(backoffMs(n, { baseMs, maxMs, jitter: "none" })).toBe(cap);
  });
});

describe("retry inside a hook that answered without waiting", () => {
  it("does not call again for the inside the run abandoned, and reports no failure", async () => {
    const { op, at } = flaky(10);
    const failures: unknown[] = [];
    const late = async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return op();
    };
    const stack = withMiddleware(
      createAgentStack({ onFailure: (error) => void failures.push(error) }),
      retry({ attempts: 5, baseMs: 0 }),
    ).use("modelCall", {
      name: "deadline",
      priority: 0,
      around: (_ctx, next) =>
        Promise.race([
          next(),
          new Promise<Outcome<ModelResponse>>((resolve) =>
            setTimeout(() => resolve(Outcome.completed({ ...ok, text: "slow, try later" })), 5),
          ),
        ]),
    });

    const outcome = await stack.run("modelCall", request, late);
    await new Promise((resolve) => setTimeout(resolve, 60));

    expect(outcome).toMatchObject({ _tag: "Completed", value: { text: "slow, try later" } });
    expect(at).toHaveLength(1);
    expect(failures).toEqual([]);
  });
});

describe("retry through the reference loop", () => {
  it("recovers from a provider failure without the run noticing", async () => {
    const stack = withMiddleware(createAgentStack(), retry({ baseMs: 1 }));
    const { turn, model } = await runAgent(stack, [{ error: new Error("503 overloaded") }, "hello"]);
    expect(turn).toMatchObject({ status: "completed", text: "hello" });
    expect(model.requests).toHaveLength(2);
  });

  it("retries a stream that failed before its first chunk", async () => {
    const stack = withMiddleware(createAgentStack(), retry({ baseMs: 1 }));
    const { turn, model } = await runAgent(stack, [{ text: "never", error: new Error("reset"), errorAfterChunks: 0 }, "streamed answer"], {
      stream: true,
    });
    expect(turn).toMatchObject({ status: "completed", text: "streamed answer" });
    expect(model.modes).toEqual(["stream", "stream"]);
  });

  it("does not retry a stream that already showed text: the reader would see it twice", async () => {
    const stack = withMiddleware(createAgentStack(), retry({ baseMs: 1 }));
    const { turn, model } = await runAgent(
      stack,
      [{ text: "partial answer that breaks", error: new Error("reset"), errorAfterChunks: 2 }, "second"],
      { stream: true },
    );
    expect(turn.status).toBe("failed");
    expect(model.modes).toEqual(["stream"]);
  });

  it("lets retryOn judge the provider's own error on streams too", async () => {
    const overloaded = Object.assign(new Error("overloaded"), { status: 529 });
    const seen: unknown[] = [];
    const stack = withMiddleware(
      createAgentStack(),
      retry({
        baseMs: 1,
        retryOn: (e) => {
          seen.push(e);
          return (e as { status?: number }).status === 529;
        },
      }),
    );
    const { turn } = await runAgent(stack, [{ text: "x", error: overloaded, errorAfterChunks: 0 }, "ok"], { stream: true });
    expect(turn).toMatchObject({ status: "completed", text: "ok" });
    expect(seen).toEqual([overloaded]);
  });
});
