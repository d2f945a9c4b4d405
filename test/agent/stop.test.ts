import { describe, expect, it } from "vitest";
import { Reject } from "../../src/index.ts";
import { createAgent, createAgentStack, createScriptedModel, type Notification, type StopRequest } from "../../src/agent/index.ts";
import { lines } from "./helpers.ts";

describe("the stop gate", () => {
  it("keeps the agent going once with the reason fed back, then lets it stop", async () => {
    const seen: StopRequest[] = [];
    const stack = createAgentStack().use("stop", {
      name: "tests-first",
      before: (request) => {
        seen.push(request);
        return request.blockedCount === 0 ? Reject("Run the tests before you stop.") : undefined;
      },
    });
    const model = createScriptedModel({ turns: ["I am done.", "Tests pass. Done."] });

    const turn = await createAgent({ model, stack }).run("fix the bug");

    expect(turn).toMatchObject({ status: "completed", text: "Tests pass. Done.", finishReason: "stop", steps: 2 });
    expect(seen).toEqual([
      { reason: "stop", lastMessage: "I am done.", blockedCount: 0 },
      { reason: "stop", lastMessage: "Tests pass. Done.", blockedCount: 1 },
    ]);
    expect(lines(model.requests[1]!.messages).slice(-2)).toEqual([
      "assistant: I am done.",
      "user: Stop hook feedback:\nRun the tests before you stop.",
    ]);
  });

  it("feeds back every blocking hook's reason, asking each hook once", async () => {
    const calls: string[] = [];
    const blocker = (name: string, priority: number) => ({
      name,
      priority,
      before: (r: StopRequest) => {
        calls.push(`${name}@${r.blockedCount}`);
        return r.blockedCount === 0 ? Reject(`${name} says keep going`) : undefined;
      },
    });
    const stack = createAgentStack().use("stop", blocker("lint", 10)).use("stop", blocker("tests", 20)).use("stop", blocker("docs", 30));
    const model = createScriptedModel({ turns: ["done", "really done"] });

    await createAgent({ model, stack }).run("go");

    expect(model.requests[1]!.messages.at(-1)!.content).toBe(
      "Stop hook feedback:\nlint says keep going\ntests says keep going\ndocs says keep going",
    );
    expect(calls).toEqual(["lint@0", "tests@0", "docs@0", "lint@1", "tests@1", "docs@1"]);
  });

  it("stops with stop-rejected-cap after maxStopBlocks consecutive blocks (R13) and says so", async () => {
    const notices: Notification[] = [];
    let asked = 0;
    const stack = createAgentStack().use("stop", {
      name: "never-done",
      before: () => {
        asked++;
        return Reject("keep going");
      },
    });
    const model = createScriptedModel({ turns: [], whenDone: "still here" });

    const turn = await createAgent({ model, stack, maxStopBlocks: 3, onNotification: (n) => notices.push(n) }).run("go");

    expect(turn).toMatchObject({ status: "completed", finishReason: "stop-rejected-cap", steps: 4 });
    expect(model.requests).toHaveLength(4);
    expect(asked).toBe(4);
    expect(notices).toEqual([{ type: "warning", message: "stop was blocked 3 times in a row; stopping anyway (maxStopBlocks 3)" }]);
  });

  it("caps at the default of 8 blocks", async () => {
    const stack = createAgentStack().use("stop", { name: "never-done", before: () => Reject("again") });
    const model = createScriptedModel({ turns: [], whenDone: "..." });

    const turn = await createAgent({ model, stack, maxSteps: 50 }).run("go");

    expect(turn.finishReason).toBe("stop-rejected-cap");
    expect(model.requests).toHaveLength(9);
  });

  it("stops at maxSteps without asking the stop gate", async () => {
    let asked = 0;
    const stack = createAgentStack().use("stop", { name: "count", before: () => void asked++ });
    const model = createScriptedModel({ turns: [], whenDone: { toolCalls: [{ name: "Missing", input: {} }] } });

    const turn = await createAgent({ model, stack, maxSteps: 3 }).run("go");

    expect(turn).toMatchObject({ finishReason: "max-steps", steps: 3 });
    expect(asked).toBe(0);
  });
});
