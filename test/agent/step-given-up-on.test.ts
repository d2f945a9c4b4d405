import { describe, expect, it } from "vitest";
import { OperationAbandonedError, Transform } from "../../src/index.ts";
import {
  createAgent,
  createAgentStack,
  createScriptedModel,
  defineTool,
  type LanguageModel,
  type ModelRequest,
} from "../../src/agent/index.ts";
import { lines } from "./helpers.ts";

/**
 * A session whose step hook gives up on the step after 100 ms (failing closed) while a slow tool
 * runs next to a fast Charge, and whose error hook retries.
 */
const timedOutStep = async () => {
  const charges: string[] = [];
  const slowSignals: AbortSignal[] = [];
  const stack = createAgentStack()
    .use("step", { name: "step-timer", failMode: "closed", timeoutMs: 100, around: (_ctx, next) => next() })
    .use("error", { name: "decide", after: () => Transform({ action: "retry" }) });
  const charge = defineTool<{ amount?: unknown }>({
    name: "Charge",
    execute: ({ amount }) => {
      charges.push(`charged ${String(amount)}`);
      return `receipt #${charges.length}`;
    },
  });
  const slow = defineTool({
    name: "Slow",
    execute: (_input, { signal }) => {
      slowSignals.push(signal);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve("ok"), 2000);
        signal.addEventListener("abort", () => (clearTimeout(timer), resolve("stopped")), { once: true });
      });
    },
  });
  // Asks for both tools until it has read their results, so a step run again would charge again.
  const answer = (request: ModelRequest) =>
    request.messages.some((m) => m.role === "tool")
      ? "Charged."
      : {
          text: "Charging, then the slow part.",
          toolCalls: [
            { name: "Charge", input: { amount: 100 } },
            { name: "Slow", input: {} },
          ],
        };
  const model = createScriptedModel({ turns: [], whenDone: answer });
  const session = await createAgent({ model, stack, tools: [charge, slow] }).session();
  const turn = await session.prompt("pay my bill");
  return { charges, slowSignals, turn, model, history: lines(session.messages) };
};

describe("a step a timed step hook gives up on while its tools run", () => {
  it("tells the step's running tools, and does not run the tools that ran again when the error hook retries", async () => {
    const { charges, slowSignals, turn, model, history } = await timedOutStep();

    expect(charges).toEqual(["charged 100"]);
    expect(slowSignals).toHaveLength(1);
    expect(slowSignals[0]?.aborted).toBe(true);
    expect(slowSignals[0]?.reason).toBeInstanceOf(OperationAbandonedError);
    expect(model.requests).toHaveLength(2);
    expect(turn).toMatchObject({ status: "completed", text: "Charged.", steps: 2 });
    expect(history.slice(0, 3)).toEqual(["user: pay my bill", "assistant: Charging, then the slow part.", "tool: receipt #1"]);
    expect(history[3]).toMatch(/^tool: Tool Slow failed: .*step-timer/);
    expect(history[4]).toBe("assistant: Charged.");
    expect(history).toHaveLength(5);
  });

  it("runs the step again when it was given up on before its model answered (no tool ran), and tells the abandoned model call", async () => {
    const signals: AbortSignal[] = [];
    const stack = createAgentStack()
      .use("step", { name: "step-timer", failMode: "closed", timeoutMs: 100, around: (_ctx, next) => next() })
      .use("error", { name: "decide", after: () => Transform({ action: "retry" }) });
    // The first request hangs until it is told to stop; the second answers.
    const model: LanguageModel = {
      id: "slow-then-fast",
      generate: (_request, { signal }) => {
        if (signal !== undefined) signals.push(signal);
        if (signals.length > 1)
          return Promise.resolve({ text: "Done.", toolCalls: [], finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } });
        return new Promise((_resolve, reject) => signal?.addEventListener("abort", () => reject(signal.reason), { once: true }));
      },
    };
    const session = await createAgent({ model, stack }).session();
    const turn = await session.prompt("hello");

    expect(turn).toMatchObject({ status: "completed", text: "Done.", steps: 1 });
    expect(signals).toHaveLength(2);
    expect(signals[0]?.aborted).toBe(true);
    expect(lines(session.messages)).toEqual(["user: hello", "assistant: Done."]);
  });
});
