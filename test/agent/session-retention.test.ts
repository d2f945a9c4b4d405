/**
 * A session holds what its conversation needs and nothing of a finished turn: the turn's result
 * object (with its messages, usage and run id) is the caller's to keep or drop.
 */
import { describe, expect, it } from "vitest";
import { createAgent, createAgentStack, createScriptedModel } from "../../src/agent/index.ts";
import { gc } from "../support/gc.ts";

const collected = async (ref: WeakRef<object>): Promise<boolean> => {
  for (let i = 0; i < 10 && ref.deref() !== undefined; i++) {
    await new Promise((r) => setImmediate(r));
    gc();
  }
  return ref.deref() === undefined;
};

describe("a session's finished turns", () => {
  it("are not kept by the session once the caller drops their results", async () => {
    const agent = createAgent({ model: createScriptedModel({ turns: [], whenDone: "ok" }), stack: createAgentStack() });
    const session = await agent.session();
    let first: object | undefined = await session.prompt("one");
    const ref = new WeakRef(first);
    first = undefined;
    await session.prompt("two");
    await session.prompt("three");
    expect(await collected(ref)).toBe(true);
    expect(session.messages).toHaveLength(6);
    await session.close();
  });

  it("are not kept when a prompt was cancelled while an earlier turn ran, and the next prompt still waits for that turn", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const model = createScriptedModel({ turns: [], whenDone: "ok" });
    const slow = {
      ...model,
      generate: async (...args: Parameters<typeof model.generate>) => {
        await gate;
        return model.generate(...args);
      },
    };
    const session = await createAgent({ model: slow, stack: createAgentStack() }).session();
    const running = session.prompt("slow");
    const controller = new AbortController();
    let cancelled: object | undefined = session.prompt("cancelled", { signal: controller.signal });
    controller.abort(new Error("changed my mind"));
    const ref = new WeakRef(await (cancelled as Promise<object>));
    cancelled = undefined;
    let third = false;
    const next = session.prompt("after").then(() => (third = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(third).toBe(false);
    release();
    await Promise.all([running, next]);
    expect(await collected(ref)).toBe(true);
    await session.close();
  });
});
