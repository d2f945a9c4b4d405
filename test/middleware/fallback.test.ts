import { describe, expect, it } from "vitest";
import { Outcome } from "../../src/core/index.ts";
import {
  createAgentStack,
  createScriptedModel,
  ModelStreamError,
  streamStarter,
  streamThroughStack,
  type ModelRequest,
  type ModelResponse,
} from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { FallbackExhaustedError, LimitExceededError } from "../../src/middleware/errors.ts";
import { fallback } from "../../src/middleware/fallback.ts";
import { RedactionBlockedError, redaction } from "../../src/middleware/redaction.ts";
import { retry } from "../../src/middleware/retry.ts";
import { runAgent } from "./harness.ts";

const request: ModelRequest = { model: "primary", messages: [{ role: "user", content: "hi" }] };
const KEY = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
const down = () => {
  throw new Error("primary down");
};

describe("fallback", () => {
  it("asks the next model when the primary fails, and says which model answered", async () => {
    const backup = createScriptedModel({ id: "backup", turns: ["from backup"] });
    const stack = withMiddleware(createAgentStack(), fallback({ models: [backup] }));
    const outcome = await stack.run("modelCall", request, down);
    expect(outcome).toMatchObject({ _tag: "Completed", value: { text: "from backup", model: "backup" } });
    expect(backup.requests[0]?.model).toBe("backup");
  });

  it("goes down the list, and reports every failure when all fail", async () => {
    const a = createScriptedModel({ id: "a", turns: [{ error: new Error("a down") }] });
    const b = createScriptedModel({ id: "b", turns: [{ error: new Error("b down") }] });
    const outcome = await withMiddleware(createAgentStack(), fallback({ models: [a, b] })).run("modelCall", request, down);
    expect(outcome._tag === "Failed" && outcome.error).toBeInstanceOf(FallbackExhaustedError);
    expect(outcome._tag === "Failed" && (outcome.error as FallbackExhaustedError).errors.map((e) => e.model)).toEqual([
      "primary",
      "a",
      "b",
    ]);
  });

  it("does not fall back from a limit's refusal, or when `when` says no", async () => {
    const backup = createScriptedModel({ id: "backup", turns: ["x", "y"] });
    const stack = withMiddleware(createAgentStack(), fallback({ models: [backup] }));
    await stack.run("modelCall", request, () => {
      throw new LimitExceededError("budget", "spent");
    });
    const picky = withMiddleware(createAgentStack(), fallback({ models: [backup], when: (e) => (e as Error).message !== "primary down" }));
    await picky.run("modelCall", request, down);
    expect(backup.requests).toHaveLength(0);
  });

  it("does not fall back from a redaction block: the primary's answer was refused, not its provider", async () => {
    const backup = createScriptedModel({ id: "backup", turns: ["x"] });
    const stack = withMiddleware(createAgentStack(), redaction({ strategies: { api_key: "block" } }), fallback({ models: [backup] }));
    const outcome = await stack.run("modelCall", request, () => ({
      text: `the key is ${KEY}`,
      toolCalls: [],
      finishReason: "stop" as const,
      usage: { inputTokens: 1, outputTokens: 1 },
    }));
    expect(outcome._tag === "Failed" && outcome.error).toBeInstanceOf(RedactionBlockedError);
    const primary = createScriptedModel({ id: "primary", turns: [`the key is ${KEY}`] });
    const streamed = await streamThroughStack(stack, request, streamStarter(primary)).outcome;
    expect(streamed._tag === "Failed" && streamed.error).toBeInstanceOf(RedactionBlockedError);
    expect(backup.requests).toHaveLength(0);
  });

  it("gives when() the provider's own error on a stream too, not the stream's wrapper", async () => {
    const seen: unknown[] = [];
    const rejected = Object.assign(new Error("bad request"), { status: 400 });
    const primary = createScriptedModel({ id: "primary", turns: [{ text: "never", error: rejected, errorAfterChunks: 0 }] });
    const backup = createScriptedModel({ id: "backup", turns: ["backup answer"] });
    const stack = withMiddleware(
      createAgentStack(),
      fallback({ models: [backup], when: (e) => (seen.push(e), (e as { status?: number }).status !== 400) }),
    );
    const outcome = await streamThroughStack(stack, request, streamStarter(primary)).outcome;
    expect(outcome._tag).toBe("Failed");
    expect(seen).toEqual([rejected]);
    expect(backup.requests).toHaveLength(0);
  });

  it("falls back on a stream that failed before sending anything, and the consumer gets the backup's answer", async () => {
    const primary = createScriptedModel({
      id: "primary",
      turns: [{ text: "never", error: new Error("connect reset"), errorAfterChunks: 0 }],
    });
    const backup = createScriptedModel({ id: "backup", turns: ["backup answer"] });
    const stack = withMiddleware(createAgentStack(), fallback({ models: [backup] }));
    const call = streamThroughStack(stack, request, streamStarter(primary));
    let text = "";
    for await (const part of call.parts) if (part.type === "text-delta") text += part.text;
    expect((await call.done).outcome).toMatchObject({ _tag: "Completed", value: { model: "backup" } });
    expect(text).toBe("backup answer");
  });

  it("never falls back once the stream has emitted: the failure stands", async () => {
    const primary = createScriptedModel({
      id: "primary",
      chunkSize: 4,
      turns: [{ text: "half an answer", error: new Error("cut"), errorAfterChunks: 2 }],
    });
    const backup = createScriptedModel({ id: "backup", turns: ["backup answer"] });
    const stack = withMiddleware(createAgentStack(), fallback({ models: [backup] }));
    const call = streamThroughStack(stack, request, streamStarter(primary));
    let text = "";
    try {
      for await (const part of call.parts) if (part.type === "text-delta") text += part.text;
    } catch {
      // the consumer sees the provider's error
    }
    const { outcome } = await call.done;
    expect(outcome._tag === "Failed" && outcome.error).toBeInstanceOf(ModelStreamError);
    expect(text).toBe("half an ");
    expect(backup.requests).toHaveLength(0);
  });

  it("refuses an empty or malformed list at configuration", () => {
    expect(() => fallback({ models: [] })).toThrow(/fallback: models must be a non-empty list/);
    expect(() => fallback({ models: [{ id: "x" } as never] })).toThrow(/models\[0\] must be a language model/);
  });
});

describe("fallback inside a hook that answered without waiting", () => {
  it("does not call a backup model for the inside the run abandoned: its answer would be dropped, its cost not", async () => {
    const backup = createScriptedModel({ id: "backup", turns: ["from backup"] });
    // The primary fails only after the deadline answered, however late timers fire on this machine.
    let answered!: () => void;
    const deadlinePassed = new Promise<void>((resolve) => (answered = resolve));
    let primaryFailed!: () => void;
    const primaryDone = new Promise<void>((resolve) => (primaryFailed = resolve));
    const stack = withMiddleware(createAgentStack(), fallback({ models: [backup] })).use("modelCall", {
      name: "deadline",
      priority: 0,
      around: (_ctx, next) =>
        Promise.race([
          next(),
          new Promise<Outcome<ModelResponse>>((resolve) =>
            setTimeout(() => {
              resolve(
                Outcome.completed({
                  text: "slow, try later",
                  toolCalls: [],
                  finishReason: "stop",
                  usage: { inputTokens: 0, outputTokens: 0 },
                }),
              );
              answered();
            }, 5),
          ),
        ]),
    });

    const outcome = await stack.run("modelCall", request, async () => {
      await deadlinePassed;
      setTimeout(primaryFailed, 0);
      throw new Error("primary down, late");
    });
    // Fallback hears of the late failure after it was thrown; give it time to (wrongly) call the backup.
    await primaryDone;
    await new Promise((resolve) => setTimeout(resolve, 40));

    expect(outcome).toMatchObject({ _tag: "Completed", value: { text: "slow, try later" } });
    expect(backup.requests).toHaveLength(0);
  });
});

describe("fallback through the reference loop", () => {
  it("retries the primary first, then answers from the backup", async () => {
    const backup = createScriptedModel({ id: "backup", turns: ["saved by backup"] });
    const stack = withMiddleware(createAgentStack(), fallback({ models: [backup] }), retry({ attempts: 2, baseMs: 1 }));
    const { turn, model } = await runAgent(stack, [{ error: new Error("503") }, { error: new Error("503") }]);
    expect(turn).toMatchObject({ status: "completed", text: "saved by backup" });
    expect(model.requests).toHaveLength(2);
  });
});
