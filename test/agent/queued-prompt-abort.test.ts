import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { RunAbortedError } from "../../src/index.ts";
import { createAgent, createAgentStack, createScriptedModel } from "../../src/agent/index.ts";
import { settlesWithin } from "../support/timers.ts";

/** A session whose first turn's model answers after `ms`, and the prompts its userPrompt hook saw. */
const slowSession = async (ms: number, signal?: AbortSignal) => {
  const prompts: string[] = [];
  const stack = createAgentStack().use("userPrompt", { name: "see", before: (p) => void prompts.push(p.text) });
  const model = createScriptedModel({ turns: ["first", "third"], firstChunkDelayMs: ms });
  const session = await createAgent({ model, stack }).session(signal === undefined ? {} : { signal });
  return { session, prompts, model };
};

describe("a prompt queued behind a running turn", () => {
  it("is aborted at once when its signal aborts, running no hook, leaving no listener, and later prompts still run in order", async () => {
    const { session, prompts, model } = await slowSession(300);
    const settled: string[] = [];
    const first = session.prompt("long task").then((t) => (settled.push(`first ${t.status}`), t));
    const controller = new AbortController();
    const second = session.prompt("never mind", { signal: controller.signal }).then((t) => (settled.push(`second ${t.status}`), t));
    const third = session.prompt("and then").then((t) => (settled.push(`third ${t.status}`), t));

    setTimeout(() => controller.abort(new Error("cancelled")), 20);
    const aborted = await second;

    expect(settled).toEqual(["second aborted"]);
    expect(aborted).toMatchObject({ status: "aborted", text: "", steps: 0 });
    expect(aborted.error).toBeInstanceOf(RunAbortedError);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    await Promise.all([first, third]);
    expect(settled).toEqual(["second aborted", "first completed", "third completed"]);
    expect(prompts).toEqual(["long task", "and then"]);
    expect(model.requests).toHaveLength(2);
    expect(session.messages.map((m) => m.content)).toEqual(["long task", "first", "and then", "third"]);
  });

  it("is aborted at once when the session's signal aborts", async () => {
    const controller = new AbortController();
    const { session, prompts } = await slowSession(300, controller.signal);
    const first = session.prompt("long task");
    const second = session.prompt("queued");

    setTimeout(() => controller.abort(new Error("session closed by the user")), 20);
    // At the abort, not once the first prompt's 300 ms model answer is done.
    expect(await settlesWithin(200, second)).toBe(true);
    const queued = await second;

    expect(queued.status).toBe("aborted");
    expect((await first).status).toBe("aborted");
    expect(prompts).toEqual(["long task"]);
  });
});
