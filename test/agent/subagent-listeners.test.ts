import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { createAgent, createAgentStack, createScriptedModel, defineTool } from "../../src/agent/index.ts";
import { settlesWithin } from "../support/timers.ts";

describe("a sub-agent's parallel tool calls", () => {
  it("run a dozen at once without Node's leak warning on the signal of the tool call that started it, and leave nothing listening", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => void warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      const read = defineTool({ name: "Read", execute: async () => (await new Promise((r) => setTimeout(r, 5)), "content") });
      const calls = Array.from({ length: 12 }, (_, n) => ({ name: "Read", input: { path: `f${n}` } }));
      const model = createScriptedModel({
        turns: [{ toolCalls: [{ name: "researcher", input: { prompt: "read all files" } }] }, { toolCalls: calls }, "sub done", "all done"],
      });
      const caller = new AbortController();

      const turn = await createAgent({ model, stack: createAgentStack(), subagents: [{ name: "researcher", tools: [read] }] }).run("go", {
        signal: caller.signal,
      });

      expect(turn).toMatchObject({ status: "completed", text: "all done" });
      await new Promise((r) => setTimeout(r, 5));
      expect(warnings).not.toContain("MaxListenersExceededWarning");
      expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("stop when the caller aborts while the sub-agent runs", async () => {
    const caller = new AbortController();
    const slow = defineTool({
      name: "Slow",
      execute: (_input, { signal }) =>
        new Promise((resolve) => {
          const t = setTimeout(resolve, 5_000, "late");
          signal?.addEventListener("abort", () => (clearTimeout(t), resolve("stopped")));
        }),
    });
    const model = createScriptedModel({
      turns: [{ toolCalls: [{ name: "researcher", input: { prompt: "wait" } }] }, { toolCalls: [{ name: "Slow", input: {} }] }],
      whenDone: "never",
    });
    setTimeout(() => caller.abort(new Error("user cancelled")), 30);

    const running = createAgent({ model, stack: createAgentStack(), subagents: [{ name: "researcher", tools: [slow] }] }).run("go", {
      signal: caller.signal,
    });
    expect(await settlesWithin(2_000, running)).toBe(true); // not after the tool's 5 s
    const turn = await running;

    expect(turn.status).toBe("aborted");
  });
});
