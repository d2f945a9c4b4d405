import { describe, expect, it, vi } from "vitest";
import { Priority, Reject, Replace, type ApprovalHandler, type ApprovalRequest } from "../../src/core/index.ts";
import { createAgent, createAgentStack, createScriptedModel, type ToolCall } from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { approval } from "../../src/middleware/approval.ts";
import { bashTool } from "../agent/helpers.ts";

const call = (command: string, name = "Bash"): ToolCall => ({ id: "c1", name, input: { command } });
const stackWith = (handler: ApprovalHandler | undefined, options: Parameters<typeof approval>[0] = {}) =>
  withMiddleware(createAgentStack(handler === undefined ? {} : { approval: handler }), approval(options));
const run = (stack: ReturnType<typeof stackWith>, c: ToolCall, ran: unknown[] = []) =>
  stack.run("toolCall", c, (x) => (ran.push(x.input), { content: "ok" }));

describe("approval", () => {
  it("runs the call when the approver approves, after asking with the tool call and a reason", async () => {
    const requests: ApprovalRequest[] = [];
    const stack = stackWith((r) => (requests.push(r), { decision: "approve" }));
    expect(await run(stack, call("ls"))).toEqual({ _tag: "Completed", value: { content: "ok" } });
    expect(requests).toMatchObject([
      { point: "toolCall", hook: "approval", subject: "Bash", reason: "Bash wants to run", input: call("ls") },
    ]);
  });

  it("rejects with the approver's reason on deny, and never runs the tool", async () => {
    const ran: unknown[] = [];
    const outcome = await run(
      stackWith(() => ({ decision: "deny", reason: "not on a Friday" })),
      call("deploy"),
      ran,
    );
    expect(outcome).toMatchObject({ _tag: "Rejected", by: "approval", reason: "Bash was not approved: not on a Friday" });
    expect(ran).toEqual([]);
  });

  it("runs the edited arguments on edit, keeping the call's id and tool", async () => {
    const ran: unknown[] = [];
    const stack = stackWith(({ input }) => ({ decision: "edit", input: { ...(input as ToolCall), input: { command: "ls -la" } } }));
    expect((await run(stack, call("rm -rf /"), ran))._tag).toBe("Completed");
    expect(ran).toEqual([{ command: "ls -la" }]);
  });

  it("refuses an edit that changes the tool or is not a tool call", async () => {
    const renamed = await run(
      stackWith(() => ({ decision: "edit", input: { id: "c1", name: "Write", input: { command: "ls" } } })),
      call("ls"),
    );
    expect(renamed).toMatchObject({
      _tag: "Rejected",
      reason: 'Bash was not approved: the approver\'s edit was refused: the edit changes what guards matched on ("Bash" to "Write")',
    });
    const shapeless = await run(
      stackWith(() => ({ decision: "edit", input: "ls" })),
      call("ls"),
    );
    expect(shapeless).toMatchObject({
      _tag: "Rejected",
      reason: "Bash was not approved: the approver's edit was refused: the edit turns an object into a string",
    });
  });

  it("denies when no answer comes in time, and leaves no timer behind", async () => {
    vi.useFakeTimers();
    try {
      const pending = run(
        stackWith(() => new Promise(() => {}), { timeoutMs: 60_000 }),
        call("ls"),
      );
      await vi.advanceTimersByTimeAsync(60_000);
      expect(await pending).toMatchObject({ _tag: "Rejected", reason: "Bash was not approved: no answer within 60 s" });
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("aborts the approver's signal when the wait times out, and not when the answer comes in time", async () => {
    const signals: AbortSignal[] = [];
    const slow = await run(
      stackWith((r) => (signals.push(r.signal), new Promise(() => {})), { timeoutMs: 20 }),
      call("ls"),
    );
    expect(slow).toMatchObject({ _tag: "Rejected", reason: "Bash was not approved: no answer within 20 ms" });
    expect(signals[0]?.aborted).toBe(true);
    expect((signals[0]?.reason as Error).name).toBe("TimeoutError");
    await run(
      stackWith((r) => (signals.push(r.signal), { decision: "approve" }), { timeoutMs: 20 }),
      call("ls"),
    );
    await new Promise((r) => setTimeout(r, 40));
    expect(signals[1]?.aborted).toBe(false);
  });

  it("aborts the approver's signal with the run's reason when the run is cancelled while it waits", async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const stack = stackWith((r) => ((seen = r.signal), new Promise(() => {})));
    const pending = stack.run("toolCall", call("ls"), () => ({ content: "ok" }), { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 5));
    controller.abort(new Error("user left"));
    expect((await pending)._tag).toBe("Failed");
    expect(seen?.aborted).toBe(true);
    expect((seen?.reason as Error).message).toBe("user left");
  });

  it("withdraws the question when the run settles without waiting for it (a cache answered around it), and leaves no timer", async () => {
    let seen: AbortSignal | undefined;
    const stack = stackWith((r) => ((seen = r.signal), new Promise(() => {})), { timeoutMs: 60_000 }).use("toolCall", {
      name: "serve-stale",
      priority: 0,
      around: (_c, next) => {
        void next();
        return Replace({ content: "cached" });
      },
    });
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const before = timers();
    const outcome = await stack.run("toolCall", call("ls"), () => ({ content: "fresh" }), { signal: new AbortController().signal });
    expect(outcome).toEqual({ _tag: "Completed", value: { content: "cached" } });
    await new Promise((r) => setTimeout(r, 5));
    expect(seen?.aborted).toBe(true);
    expect((seen?.reason as Error).name).toBe("OperationAbandonedError");
    // At most as many as before: an earlier test's short timer may have fired meanwhile; the 60 s wait's must be gone.
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it("keeps an answer that arrives before its deadline's timer fires, when the event loop stalled past both timeouts", async () => {
    // The approver answers at the end of a 1.3 s stall, before any timer due during it has run.
    const stack = stackWith(
      () =>
        new Promise((resolve) =>
          setTimeout(() => {
            const until = performance.now() + 1_300;
            while (performance.now() < until);
            resolve({ decision: "approve" });
          }, 5),
        ),
      { timeoutMs: 100 },
    );
    const outcome = await run(stack, call("ls"));
    expect(outcome).toMatchObject({ _tag: "Completed" });
  });

  it("denies without asking in non-interactive mode, saying why", async () => {
    const handler = vi.fn<ApprovalHandler>(() => ({ decision: "approve" }));
    const outcome = await run(stackWith(handler, { nonInteractive: true }), call("ls"));
    expect(outcome).toMatchObject({
      _tag: "Rejected",
      reason: "Bash needs approval, but this agent runs non-interactively, so no one could approve it",
    });
    expect(handler).not.toHaveBeenCalled();
    const perRun = stackWith(handler, { nonInteractive: (ctx) => ctx.metadata.ci === true });
    expect((await perRun.run("toolCall", call("ls"), () => ({ content: "" }), { metadata: { ci: true } }))._tag).toBe("Rejected");
    expect((await perRun.run("toolCall", call("ls"), () => ({ content: "" }), { metadata: { ci: false } }))._tag).toBe("Completed");
  });

  it("denies, saying no one could approve, when the stack has no approval handler", async () => {
    const outcome = await run(stackWith(undefined), call("ls"));
    expect(outcome).toMatchObject({ _tag: "Rejected", reason: expect.stringContaining("no approval handler is configured") });
  });

  it("asks only for matching tools", async () => {
    const handler = vi.fn<ApprovalHandler>(() => ({ decision: "deny", reason: "no" }));
    const stack = stackWith(handler, { match: "Bash(git push*)" });
    expect((await run(stack, call("git status")))._tag).toBe("Completed");
    expect((await run(stack, call("ls", "Read")))._tag).toBe("Completed");
    expect((await run(stack, call("git push --force")))._tag).toBe("Rejected");
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it("fails closed when the handler throws or answers nonsense", async () => {
    const thrown = await run(
      stackWith(() => {
        throw new Error("UI crashed");
      }),
      call("ls"),
    );
    expect(thrown).toMatchObject({ _tag: "Rejected", by: "approval", reason: expect.stringContaining("UI crashed") });
    const nonsense = await run(
      stackWith(() => ({ decision: "maybe" }) as never),
      call("ls"),
    );
    expect(nonsense).toMatchObject({
      _tag: "Rejected",
      reason:
        'Bash was not approved: the approver\'s answer is not an approval: decision: expected "approve" | "deny" | "edit", got "maybe"',
    });
  });

  it("stops waiting when the run is cancelled", async () => {
    const controller = new AbortController();
    const pending = stackWith(() => new Promise(() => {})).run("toolCall", call("ls"), () => ({ content: "" }), {
      signal: controller.signal,
    });
    controller.abort(new Error("user pressed ctrl-c"));
    expect((await pending)._tag).toBe("Failed");
  });

  it("checks its options when built", () => {
    expect(() => approval({ timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => approval({ nonInteractive: "yes" as never })).toThrow(/nonInteractive/);
    expect(() => approval({ name: "" })).toThrow(/name/);
    expect(() => approval({ priority: Number.NaN })).toThrow(/approval: priority must be a finite number/);
  });

  it("sits inside every guard by its band, whatever order they are registered in", async () => {
    const asked: string[] = [];
    const stack = withMiddleware(
      createAgentStack({ approval: ({ input }) => (asked.push((input as ToolCall).input.command as string), { decision: "approve" }) }),
      approval(),
    ).use("toolCall", { name: "no-curl", priority: Priority.guard, match: "Bash(curl *)", before: () => Reject("no network") });
    expect(stack.explain("toolCall", call("curl x")).map((h) => h.hook)).toEqual(["no-curl", "approval"]);
    expect(await run(stack, call("curl x"))).toMatchObject({ _tag: "Rejected", by: "no-curl" });
    expect((await run(stack, call("ls")))._tag).toBe("Completed");
    expect(asked).toEqual(["ls"]);
  });
});

describe("approval through the reference loop", () => {
  it("tells the model the call was not approved, and runs the approved one", async () => {
    const ran: string[] = [];
    const model = createScriptedModel({
      turns: [
        {
          toolCalls: [
            { name: "Bash", input: { command: "rm -rf build" } },
            { name: "Bash", input: { command: "ls" } },
          ],
        },
        "Done.",
      ],
    });
    const stack = withMiddleware(
      createAgentStack({
        approval: ({ input }) =>
          (input as ToolCall).input.command === "ls" ? { decision: "approve" } : { decision: "deny", reason: "too risky" },
      }),
      approval({ match: "Bash" }),
    );
    const turn = await createAgent({ model, stack, tools: [bashTool(ran)] }).run("clean up");
    expect(turn.status).toBe("completed");
    expect(ran).toEqual(["ls"]);
    const toolMessages = model.requests[1]!.messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(toolMessages[0]).toContain("Bash was not approved: too risky");
    expect(toolMessages[1]).toBe("ran: ls");
  });
});
