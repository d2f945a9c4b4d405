import { describe, expect, it } from "vitest";
import { Reject } from "../../src/index.ts";
import { createAgent, createAgentStack, createScriptedModel } from "../../src/agent/index.ts";
import { lines } from "./helpers.ts";

describe("stop feedback on the last allowed step", () => {
  it("is left out of the history when no step is left to read it, so the next turn does not send two user messages in a row", async () => {
    let blocked = false;
    const stack = createAgentStack().use("stop", {
      name: "tests-gate",
      before: () => (blocked ? undefined : ((blocked = true), Reject("Run the tests first"))),
    });
    const model = createScriptedModel({ turns: ["Done.", "You're welcome."] });
    const session = await createAgent({ model, stack, maxSteps: 1 }).session();

    const first = await session.prompt("fix it");
    await session.prompt("thanks");

    expect(first).toMatchObject({ status: "completed", finishReason: "max-steps", text: "Done." });
    expect(lines(first.result!.messages)).toEqual(["user: fix it", "assistant: Done."]);
    expect(lines(model.requests[1]!.messages)).toEqual(["user: fix it", "assistant: Done.", "user: thanks"]);
  });

  it("still reaches the next step when one is left", async () => {
    let blocked = false;
    const stack = createAgentStack().use("stop", {
      name: "tests-gate",
      before: () => (blocked ? undefined : ((blocked = true), Reject("Run the tests first"))),
    });
    const model = createScriptedModel({ turns: ["Done.", "Tests pass."] });

    const turn = await createAgent({ model, stack, maxSteps: 2 }).run("fix it");

    expect(turn).toMatchObject({ finishReason: "stop", text: "Tests pass." });
    expect(lines(model.requests[1]!.messages)).toEqual([
      "user: fix it",
      "assistant: Done.",
      "user: Stop hook feedback:\nRun the tests first",
    ]);
  });
});
