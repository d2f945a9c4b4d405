import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { createAgent, createAgentStack, createScriptedModel } from "../../src/agent/index.ts";
import { settlesWithin } from "../support/timers.ts";

describe("a session opened with a signal", () => {
  it("takes a dozen queued prompts with one listener on that signal, no leak warning, and none left once they ended", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => void warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      const user = new AbortController();
      const model = createScriptedModel({ turns: [], whenDone: "answered", delayMs: 1 });
      const session = await createAgent({ model, stack: createAgentStack() }).session({ signal: user.signal });

      const turns = Array.from({ length: 12 }, (_, n) => session.prompt(`question ${n}`));
      const listening = getEventListeners(user.signal, "abort").length;
      const done = await Promise.all(turns);
      await new Promise((r) => setTimeout(r, 5));

      expect(listening).toBe(1);
      expect(done.map((t) => t.status)).toEqual(Array(12).fill("completed"));
      expect(warnings).not.toContain("MaxListenersExceededWarning");
      expect(getEventListeners(user.signal, "abort")).toHaveLength(0);
      expect((await session.prompt("one more")).status).toBe("completed");
      expect(getEventListeners(user.signal, "abort")).toHaveLength(0);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("still aborts the running turn and the queued prompts when that signal aborts", async () => {
    const user = new AbortController();
    const model = createScriptedModel({ turns: [], whenDone: "answered", firstChunkDelayMs: 300 });
    const session = await createAgent({ model, stack: createAgentStack() }).session({ signal: user.signal });
    const turns = [session.prompt("one"), session.prompt("two"), session.prompt("three")];

    setTimeout(() => user.abort(new Error("user left")), 20);
    // At the abort, not after the model's 300 ms first chunk.
    expect(await settlesWithin(200, Promise.all(turns))).toBe(true);
    const done = await Promise.all(turns);

    expect(done.map((t) => t.status)).toEqual(["aborted", "aborted", "aborted"]);
  });
});
