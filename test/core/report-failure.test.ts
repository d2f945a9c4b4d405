import { describe, expect, it } from "vitest";
import { Continue, HookError, type RunEvent } from "../../src/core/index.ts";
import { call, echo, newStack } from "./helpers.ts";

describe("ctx.reportFailure", () => {
  const failure = () => new HookError("member", "tool", "before", "timeout", 12, new Error("slow"), "settings#/x");

  it("counts a failure a hook handled itself, tells onFailure and the run event, and leaves the outcome alone", async () => {
    const told: HookError[] = [];
    const events: RunEvent<unknown, unknown>[] = [];
    const reported = failure();
    const stack = newStack({ onFailure: (e) => told.push(e) })
      .use("tool", {
        name: "set",
        before: (_c, ctx) => {
          ctx.reportFailure(reported, true);
          return Continue;
        },
      })
      .use("tool", { name: "obs", observe: (e) => void events.push(e as RunEvent<unknown, unknown>) });

    const outcome = await stack.run("tool", call(), echo);
    await stack.flush();

    expect(outcome).toMatchObject({ _tag: "Completed", value: { content: "ran Read" } });
    expect(stack.stats).toMatchObject({ hookFailures: 1, failOpen: 1 });
    expect(told).toEqual([reported]);
    expect(events[0]?.failures).toEqual([reported]);
  });

  it("counts a failure that was not let through without failOpen", async () => {
    const stack = newStack().use("tool", { name: "set", before: (_c, ctx) => (ctx.reportFailure(failure(), false), Continue) });
    await stack.run("tool", call(), echo);
    expect(stack.stats).toMatchObject({ hookFailures: 1, failOpen: 0 });
  });

  it("is ignored once the run settled (a hook still running after its run)", async () => {
    let late: (() => void) | undefined;
    const stack = newStack().use("tool", {
      name: "set",
      before: (_c, ctx) => {
        late = () => ctx.reportFailure(failure(), true);
        return Continue;
      },
    });
    await stack.run("tool", call(), echo);
    late!();
    expect(stack.stats.hookFailures).toBe(0);
  });
});
