import { describe, expect, it } from "vitest";
import { Transform } from "../../src/index.ts";
import { createAgent, createAgentStack, createScriptedModel, defineTool, type ErrorDecision } from "../../src/agent/index.ts";
import { lines } from "./helpers.ts";

/** A session whose only step hook fails closed in `after`, once, and whose error hook answers `decision`. */
const chargeOnce = async (decision: ErrorDecision) => {
  const charges: string[] = [];
  let down = 1;
  const stack = createAgentStack()
    .use("step", {
      name: "step-audit",
      failMode: "closed",
      after: () => {
        if (down-- > 0) throw new Error("audit sink down");
      },
    })
    .use("error", { name: "decide", after: () => Transform(decision) });
  const charge = defineTool<{ amount?: unknown }>({
    name: "Charge",
    execute: ({ amount }) => {
      charges.push(`charged ${String(amount)}`);
      return `receipt #${charges.length}`;
    },
  });
  const model = createScriptedModel({
    turns: [{ text: "Charging the card.", toolCalls: [{ name: "Charge", input: { amount: 100 } }] }, "Charged."],
  });
  const session = await createAgent({ model, stack, tools: [charge] }).session();
  const turn = await session.prompt("pay my bill");
  return { charges, turn, model, history: lines(session.messages) };
};

describe("a step whose hook fails closed after the step ran", () => {
  it("does not run the step's tools again when the error hook retries: the loop goes on from the step that ran", async () => {
    const { charges, turn, model, history } = await chargeOnce({ action: "retry" });

    expect(charges).toEqual(["charged 100"]);
    expect(turn).toMatchObject({ status: "completed", text: "Charged.", steps: 2 });
    expect(model.requests).toHaveLength(2);
    expect(history).toEqual(["user: pay my bill", "assistant: Charging the card.", "tool: receipt #1", "assistant: Charged."]);
  });

  it("keeps the step's tool results in the history when the error hook recovers, and counts the step", async () => {
    const { charges, turn, history } = await chargeOnce({ action: "recover", value: "Sorry, try again." });

    expect(charges).toEqual(["charged 100"]);
    expect(turn).toMatchObject({ status: "completed", text: "Sorry, try again.", steps: 1 });
    expect(turn.result?.steps).toBe(1);
    expect(history).toEqual(["user: pay my bill", "assistant: Charging the card.", "tool: receipt #1", "assistant: Sorry, try again."]);
  });

  it("counts the step that ran in a turn the error hook fails", async () => {
    const { charges, turn } = await chargeOnce({ action: "fail" });

    expect(charges).toEqual(["charged 100"]);
    expect(turn).toMatchObject({ status: "failed", steps: 1 });
  });
});
