import { describe, expect, it } from "vitest";
import { Replace, Transform } from "../../src/index.ts";
import {
  createAgent,
  createAgentStack,
  createScriptedModel,
  defineTool,
  type ErrorDecision,
  type ErrorEvent,
  type Notification,
} from "../../src/agent/index.ts";

const overloaded = new Error("529 overloaded");

describe("errors and the error point", () => {
  it("retries a failed model call when an error hook says so (seed 002's on_llm_error)", async () => {
    const seen: ErrorEvent[] = [];
    const stack = createAgentStack().use("error", {
      name: "retry-overloaded",
      match: "model",
      before: (event) => {
        seen.push(event);
        return event.attempt < 3 ? Replace({ action: "retry" } as ErrorDecision) : undefined;
      },
    });
    const model = createScriptedModel({ turns: [{ error: overloaded }, { error: overloaded }, "Recovered."] });

    const turn = await createAgent({ model, stack }).run("go");

    expect(turn).toMatchObject({ status: "completed", text: "Recovered." });
    expect(seen.map((e) => [e.where, e.attempt, (e.error as Error).message])).toEqual([
      ["model", 1, "529 overloaded"],
      ["model", 2, "529 overloaded"],
    ]);
    expect(model.requests).toHaveLength(3);
  });

  it("fails the turn when no hook decides, and reports the error", async () => {
    const model = createScriptedModel({ turns: [{ error: overloaded }] });

    const turn = await createAgent({ model, stack: createAgentStack() }).run("go");

    expect(turn).toMatchObject({ status: "failed", error: overloaded, text: "" });
  });

  it("recovers a failed model call with a response from a hook", async () => {
    const stack = createAgentStack().use("error", {
      name: "fallback",
      after: () => Transform({ action: "recover", value: "The service is busy; try later." } as ErrorDecision),
    });
    const model = createScriptedModel({ turns: [{ error: overloaded }] });

    const turn = await createAgent({ model, stack }).run("go");

    expect(turn).toMatchObject({ status: "completed", text: "The service is busy; try later." });
  });

  it("caps retries at maxRetries and warns", async () => {
    const notices: Notification[] = [];
    const stack = createAgentStack().use("error", { name: "always-retry", before: () => Replace({ action: "retry" } as ErrorDecision) });
    const model = createScriptedModel({ turns: [], whenDone: { error: overloaded } });

    const turn = await createAgent({ model, stack, maxRetries: 2, onNotification: (n) => notices.push(n) }).run("go");

    expect(turn.status).toBe("failed");
    expect(model.requests).toHaveLength(3);
    expect(notices.map((n) => `${n.type}: ${n.message}`)).toEqual([
      "warning: model failed 3 times; not retrying again (maxRetries 2)",
      `error: agent failed: ${overloaded.message}`,
    ]);
  });

  it("retries a failed tool, and recovers one with content", async () => {
    let tries = 0;
    const flaky = defineTool({
      name: "Flaky",
      execute: () => {
        if (++tries < 2) throw new Error("timeout");
        return "ok on try 2";
      },
    });
    const broken = defineTool({
      name: "Broken",
      execute: () => {
        throw new Error("gone");
      },
    });
    const stack = createAgentStack().use("error", {
      name: "tools",
      match: "tool",
      before: (event) =>
        Replace(
          ((event.error as Error).message === "timeout" ? { action: "retry" } : { action: "recover", value: "(no data)" }) as ErrorDecision,
        ),
    });
    const model = createScriptedModel({
      turns: [
        {
          toolCalls: [
            { name: "Flaky", input: {} },
            { name: "Broken", input: {} },
          ],
        },
        "done",
      ],
    });

    await createAgent({ model, stack, tools: [flaky, broken] }).run("go");

    expect(model.requests[1]!.messages.slice(-2).map((m) => [m.content, m.isError ?? false])).toEqual([
      ["ok on try 2", false],
      ["(no data)", false],
    ]);
  });

  it("reports loop failures (a compactor that throws) with where loop", async () => {
    const seen: string[] = [];
    const stack = createAgentStack().use("error", {
      name: "see",
      before: (e) => void seen.push(`${e.where}: ${(e.error as Error).message}`),
    });
    const model = createScriptedModel({ turns: ["x"] });

    const turn = await createAgent({
      model,
      stack,
      contextBudget: 1,
      compact: () => {
        throw new Error("compactor broke");
      },
    }).run("hello there");

    expect(seen).toEqual(["loop: compactor broke"]);
    expect(turn.status).toBe("failed");
  });

  it("gives a retried step the context the error hook added while deciding to retry it", async () => {
    let down = 1;
    const stack = createAgentStack()
      .use("step", {
        name: "flaky-guard",
        failMode: "closed",
        before: () => {
          if (down-- > 0) throw new Error("guard backend down");
        },
      })
      .use("error", {
        name: "retry",
        before: (_e, ctx) => (ctx.addContext("The guard was down; it is back."), Replace({ action: "retry" } as ErrorDecision)),
      });
    const model = createScriptedModel({ turns: ["Done."] });

    await createAgent({ model, stack }).run("go");

    expect(model.requests[0]!.messages.map((m) => m.content)).toEqual(["go", "The guard was down; it is back."]);
  });

  it("sends a step hook that fails closed through the error point, which may retry the step", async () => {
    const seen: string[] = [];
    const flakyStep = (retry: boolean) => {
      let down = 1;
      return createAgentStack()
        .use("step", {
          name: "flaky-guard",
          failMode: "closed",
          before: () => {
            if (down-- > 0) throw new Error("guard backend down");
          },
        })
        .use("error", {
          name: "see",
          before: (e) => {
            seen.push(`${e.where} ${e.attempt}: ${(e.error as Error).message}`);
            return retry ? Replace({ action: "retry" } as ErrorDecision) : undefined;
          },
        });
    };
    const model = createScriptedModel({ turns: ["Done."] });

    const turn = await createAgent({ model, stack: flakyStep(true) }).run("go");

    expect(seen).toEqual(['loop 1: rejected by flaky-guard: hook "flaky-guard" failed in before on step: threw: guard backend down']);
    expect(turn).toMatchObject({ status: "completed", text: "Done.", steps: 1 });
    expect(model.requests).toHaveLength(1);

    // With no hook deciding, the turn fails with that error, reported once.
    seen.length = 0;
    const failed = await createAgent({ model: createScriptedModel({ turns: [] }), stack: flakyStep(false) }).run("go");
    expect(failed.status).toBe("failed");
    expect((failed.error as Error).message).toMatch(/^rejected by flaky-guard: hook "flaky-guard" failed in before on step/);
    expect(seen).toHaveLength(1);
  });

  it("ends an aborted turn as aborted", async () => {
    const controller = new AbortController();
    const model = createScriptedModel({ turns: ["slow answer"], delayMs: 50 });
    const pending = createAgent({ model, stack: createAgentStack() }).run("go", { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("user pressed ctrl-c")), 5);

    const turn = await pending;

    expect(turn.status).toBe("aborted");
  });
});
