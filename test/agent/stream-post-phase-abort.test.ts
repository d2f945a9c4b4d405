import { describe, expect, it } from "vitest";
import { createAgent, createAgentStack, createScriptedModel, wrapModel, type AgentStack } from "../../src/agent/index.ts";
import { collect, request } from "./stream-helpers.ts";

/** A modelCall `after` hook that waits for its signal, as a slow audit write that honours it does. */
const waitingAfter = () => {
  const seen = { started: false, told: false };
  const stack: AgentStack = createAgentStack().use("modelCall", {
    name: "slow-audit",
    after: (_res, _req, ctx) =>
      new Promise<undefined>((resolve) => {
        seen.started = true;
        ctx.signal.addEventListener("abort", () => ((seen.told = true), resolve(undefined)));
      }),
  });
  return { stack, seen };
};

/** What `promise` settled with, or "still pending" after `ms`: a hang fails the test rather than timing it out. */
const within = <T>(ms: number, promise: Promise<T>): Promise<T | "still pending"> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve("still pending"), ms);
    void promise.then((value) => (clearTimeout(timer), resolve(value)));
  });

const slowModel = () => createScriptedModel({ turns: ["a long streamed answer that takes a while"], chunkSize: 4, delayMs: 10 });

describe("a streamed modelCall's post-phase when the caller aborts", () => {
  it("tells an after hook waiting on its signal at once when the caller aborted the stream, and settles done with the abort, as generate does", async () => {
    const { stack, seen } = waitingAfter();
    const controller = new AbortController();
    const call = wrapModel(stack, slowModel()).streamWithOutcome(request(), { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("ctrl-c")), 25);
    await collect(call.parts);

    const result = await within(1000, call.done);

    expect(seen).toEqual({ started: true, told: true });
    expect(result).toMatchObject({ outcome: { _tag: "Failed", error: { name: "RunAbortedError", cause: { message: "ctrl-c" } } } });
  });

  it("tells an after hook already waiting when the caller aborts during the post-phase", async () => {
    const { stack, seen } = waitingAfter();
    const controller = new AbortController();
    const call = wrapModel(stack, createScriptedModel({ turns: ["short"] })).streamWithOutcome(request(), { signal: controller.signal });
    const parts = collect(call.parts); // they end after the post-phase
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual({ started: true, told: false });

    controller.abort(new Error("ctrl-c"));
    const result = await within(1000, call.done);
    await parts;

    expect(seen.told).toBe(true);
    expect(result).toMatchObject({ outcome: { _tag: "Failed", error: { name: "RunAbortedError" } } });
  });

  it("keeps the post-phase's answer on the partial text when its hooks do not wait", async () => {
    const stack = createAgentStack().use("modelCall", { name: "quick-audit", after: async () => undefined });
    const controller = new AbortController();
    const call = wrapModel(stack, slowModel()).streamWithOutcome(request(), { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("ctrl-c")), 25);
    await collect(call.parts);

    const { outcome } = await call.done;

    expect(outcome).toMatchObject({ _tag: "Completed", value: { aborted: true } });
  });

  it("tells such a hook in the agent too, as its aborted turn returns, rather than letting it outlive the turn", async () => {
    const { stack, seen } = waitingAfter();
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("ctrl-c")), 25);

    const turn = await within(1000, createAgent({ model: slowModel(), stack, stream: true }).run("go", { signal: controller.signal }));
    await new Promise((r) => setImmediate(r));

    expect(turn).toMatchObject({ status: "aborted" });
    expect(seen).toEqual({ started: true, told: true });
  });
});
