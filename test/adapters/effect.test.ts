import { Context, Data, Effect, Layer, ManagedRuntime } from "effect";
import { describe, expect, it } from "vitest";
import { EffectInterruptedError, effectHook, runEffect } from "../../src/adapters/effect.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import type { ToolCall, ToolResult } from "../../src/agent/types.ts";
import { Continue, HookError, Outcome, Reject, RunAbortedError, Transform } from "../../src/core/index.ts";

const call: ToolCall = { id: "c1", name: "Bash", input: { command: "rm -rf /" } };
const ok = (): ToolResult => ({ content: "ran" });

class PolicyError extends Data.TaggedError("PolicyError")<{ readonly detail: string }> {}

class Policy extends Context.Tag("Policy")<Policy, { readonly allows: (command: string) => Effect.Effect<boolean> }>() {}

const hookCause = (outcome: Outcome<unknown>): unknown => {
  if (outcome._tag !== "Rejected") throw new Error(`expected Rejected, got ${outcome._tag}`);
  expect(outcome.cause).toBeInstanceOf(HookError);
  return outcome.cause?.cause;
};

describe("effectHook", () => {
  it("rejects or continues from a before written as an Effect", async () => {
    const stack = createAgentStack().use(
      "toolCall",
      effectHook<ToolCall, ToolResult, "gate">({
        name: "no-rm",
        before: (c) => Effect.succeed(String(c.input.command).startsWith("rm") ? Reject("no rm") : Continue),
      }),
    );
    expect(await stack.run("toolCall", call, ok)).toEqual(Outcome.rejected("no rm", "no-rm"));
    expect(await stack.run("toolCall", { ...call, input: { command: "ls" } }, ok)).toEqual(Outcome.completed({ content: "ran" }));
  });

  it("runs effects that need services on the runtime it is given", async () => {
    const runtime = ManagedRuntime.make(Layer.succeed(Policy, { allows: (command) => Effect.succeed(!command.includes("rm")) }));
    const stack = createAgentStack().use(
      "toolCall",
      effectHook<ToolCall, ToolResult, "gate", Policy>({
        name: "policy",
        runtime,
        before: (c) =>
          Effect.gen(function* () {
            const policy = yield* Policy;
            return (yield* policy.allows(String(c.input.command))) ? Continue : Reject("policy says no");
          }),
      }),
    );
    expect(await stack.run("toolCall", call, ok)).toEqual(Outcome.rejected("policy says no", "policy"));
    await runtime.dispose();
  });

  it("turns a typed failure into a hook failure whose cause is the failure itself (R6)", async () => {
    const failure = new PolicyError({ detail: "policy service down" });
    const stack = createAgentStack().use(
      "toolCall",
      effectHook<ToolCall, ToolResult, "gate">({ name: "policy", before: () => Effect.fail(failure) }),
    );
    expect(hookCause(await stack.run("toolCall", call, ok))).toBe(failure);
  });

  it("turns a defect into a hook failure whose cause is the defect", async () => {
    const defect = new Error("bug");
    const stack = createAgentStack().use(
      "toolCall",
      effectHook<ToolCall, ToolResult, "gate">({ name: "buggy", before: () => Effect.die(defect) }),
    );
    expect(hookCause(await stack.run("toolCall", call, ok))).toBe(defect);
  });

  it("fails open on an observation point, as any hook does by default", async () => {
    const response = { text: "hi", toolCalls: [], finishReason: "stop" as const, usage: { inputTokens: 1, outputTokens: 1 } };
    const stack = createAgentStack().use("modelCall", effectHook({ name: "flaky", before: () => Effect.fail("nope") }));
    expect(await stack.run("modelCall", { model: "m", messages: [] }, () => response)).toEqual(Outcome.completed(response));
    expect(stack.stats.failOpen).toBe(1);
  });

  it("surfaces a fiber interrupted from inside as a typed hook failure", async () => {
    const stack = createAgentStack().use(
      "toolCall",
      effectHook<ToolCall, ToolResult, "gate">({ name: "quits", before: () => Effect.interrupt }),
    );
    expect(hookCause(await stack.run("toolCall", call, ok))).toBeInstanceOf(EffectInterruptedError);
  });

  it("interrupts the fiber when the caller's signal aborts: finalizers run and promises inside see their signal abort", async () => {
    let finalized = false;
    let innerAborted = false;
    const stack = createAgentStack().use(
      "toolCall",
      effectHook<ToolCall, ToolResult, "gate">({
        name: "slow",
        before: () =>
          Effect.tryPromise(
            (signal) =>
              new Promise<never>((_r, reject) =>
                signal.addEventListener("abort", () => {
                  innerAborted = true;
                  reject(signal.reason);
                }),
              ),
          ).pipe(
            Effect.onInterrupt(() =>
              Effect.sync(() => {
                finalized = true;
              }),
            ),
          ),
      }),
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("stop")), 10);
    const outcome = await stack.run("toolCall", call, ok, { signal: controller.signal });
    expect(outcome._tag).toBe("Failed");
    if (outcome._tag === "Failed") expect(outcome.error).toBeInstanceOf(RunAbortedError);
    await new Promise((r) => setTimeout(r, 10));
    expect({ finalized, innerAborted }).toEqual({ finalized: true, innerAborted: true });
  });

  it("interrupts the fiber when the hook's own timeoutMs passes, which is a timeout failure", async () => {
    let finalized = false;
    const stack = createAgentStack().use(
      "toolCall",
      effectHook<ToolCall, ToolResult, "gate">({
        name: "hangs",
        timeoutMs: 20,
        before: () =>
          Effect.never.pipe(
            Effect.onInterrupt(() =>
              Effect.sync(() => {
                finalized = true;
              }),
            ),
          ),
      }),
    );
    const outcome = await stack.run("toolCall", call, ok);
    expect(outcome._tag).toBe("Rejected");
    if (outcome._tag === "Rejected") expect(outcome.cause?.kind).toBe("timeout");
    await new Promise((r) => setTimeout(r, 10));
    expect(finalized).toBe(true);
  });

  it("gives an around hook next() as an Effect, so it can retry in Effect style", async () => {
    let attempts = 0;
    const stack = createAgentStack().use(
      "toolCall",
      effectHook<ToolCall, ToolResult, "gate">({
        name: "retry",
        around: (_ctx, next) =>
          Effect.gen(function* () {
            let outcome = yield* next();
            if (outcome._tag === "Failed") outcome = yield* next();
            return outcome;
          }),
      }),
    );
    const outcome = await stack.run("toolCall", call, () => {
      attempts++;
      if (attempts === 1) throw new Error("flaky");
      return { content: "second time" };
    });
    expect(outcome).toEqual(Outcome.completed({ content: "second time" }));
  });

  it("transforms an output from an after written as an Effect", async () => {
    const stack = createAgentStack().use(
      "toolCall",
      effectHook<ToolCall, ToolResult, "gate">({
        name: "shout",
        after: (r) => Effect.succeed(Transform({ content: String(r.content).toUpperCase() })),
      }),
    );
    expect(await stack.run("toolCall", call, ok)).toEqual(Outcome.completed({ content: "RAN" }));
  });

  it("runs an observer Effect after the run, counting its failure without affecting the outcome", async () => {
    const seen: string[] = [];
    const stack = createAgentStack()
      .use("toolCall", effectHook({ name: "audit", observe: (e) => Effect.sync(() => void seen.push(e.outcome._tag)) }))
      .use("toolCall", effectHook({ name: "broken-audit", observe: () => Effect.fail("disk full") }));
    expect((await stack.run("toolCall", call, ok))._tag).toBe("Completed");
    await stack.flush();
    expect(seen).toEqual(["Completed"]);
    expect(stack.stats.observerErrors).toBe(1);
  });
});

describe("runEffect", () => {
  it("resolves with the value, and rejects with a typed failure itself", async () => {
    expect(await runEffect(Effect.succeed(42))).toBe(42);
    await expect(runEffect(Effect.fail("typed"))).rejects.toBe("typed");
  });
});
