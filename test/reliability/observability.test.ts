/**
 * Checklist K (errors and observability): what a failure says about itself (K1), that fail-open
 * failures are counted and reported (K2; the metric and span attribute are in
 * test/middleware/metrics and tracing), and that broken or slow telemetry is never on the
 * critical path (K3), under load.
 */
import { describe, expect, it } from "vitest";
import { createAgentStack } from "../../src/agent/index.ts";
import { Continue, HookError, Trace } from "../../src/core/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { metrics } from "../../src/middleware/metrics.ts";
import { tracing } from "../../src/middleware/tracing.ts";
import { call, newStack } from "./helpers.ts";
import { settlesWithin } from "../support/timers.ts";
import { scaled } from "../support/scale.ts";

describe("K1: a failure says which hook, from where, on which point, in which phase, after how long", () => {
  it("fills every field of the HookError and puts them in its message", async () => {
    const failures: HookError[] = [];
    const stack = newStack({ onFailure: (e) => failures.push(e) }).use("tool", {
      name: "policy",
      source: "/repo/.claude/settings.json#/hooks/PreToolUse/0/hooks/1",
      timeoutMs: 20,
      after: () => new Promise(() => {}),
    });
    const trace = new Trace();
    const outcome = await stack.run("tool", call("Bash"), () => ({ content: "" }), { trace });
    const error = failures[0]!;
    expect(error).toBeInstanceOf(HookError);
    expect({ hook: error.hook, point: error.point, phase: error.phase, kind: error.kind, source: error.source }).toEqual({
      hook: "policy",
      point: "tool",
      phase: "after",
      kind: "timeout",
      source: "/repo/.claude/settings.json#/hooks/PreToolUse/0/hooks/1",
    });
    expect(error.elapsedMs).toBeGreaterThanOrEqual(19);
    expect(error.message).toBe(
      'hook "policy" (/repo/.claude/settings.json#/hooks/PreToolUse/0/hooks/1) failed in after on tool: timed out: timed out after 20 ms',
    );
    expect(outcome).toMatchObject({ _tag: "Rejected", by: "policy", reason: error.message });
    expect(trace.entries.at(-1)).toMatchObject({
      hook: "policy",
      phase: "after",
      action: "Failed",
      failMode: "closed",
      source: error.source,
    });
  });

  // The reason of a fail-closed failure is the HookError's message; it reaches the model and
  // terminals through the Rejected reason, so terminal controls and bidi overrides are dropped.
  it("keeps terminal escapes out of a failure reason the model and terminals read", async () => {
    const stack = newStack().use("tool", {
      name: "h",
      before: () => {
        throw new Error("bad input \u001b]52;c;ZWNobyBwd25lZA==\u0007\u001b[2J\u202Egnp.exe");
      },
    });
    const outcome = await stack.run("tool", call(), () => ({ content: "" }));
    expect((outcome as { reason: string }).reason).not.toMatch(/[\u001b\u0007\u202E]/);
  });
});

describe("K2: fail-open is loud", () => {
  it("counts every fail-open failure and reports it to onFailure with its fail mode", async () => {
    const reported: [string, string][] = [];
    const stack = newStack({ onFailure: (e) => reported.push([e.hook, e.kind]) })
      .use("tool", {
        name: "flaky",
        failMode: "open",
        before: () => {
          throw new Error("down");
        },
      })
      .use("watch", { name: "sloppy", after: () => 42 as never });
    for (let i = 0; i < 10; i++) {
      expect((await stack.run("tool", call(), () => ({ content: "ok" })))._tag).toBe("Completed");
      expect((await stack.run("watch", call(), () => ({ content: "ok" })))._tag).toBe("Completed");
    }
    expect(stack.stats).toEqual({ hookFailures: 20, failOpen: 20, observerErrors: 0 });
    expect(reported.filter(([h]) => h === "flaky")).toHaveLength(10);
    expect(reported.filter(([h, k]) => h === "sloppy" && k === "invalid-action")).toHaveLength(10);
  });
});

describe("K3: telemetry that is down or slow is never on the critical path", () => {
  const throwing = () => {
    throw new Error("exporter down");
  };
  /** A meter whose every instrument throws when used. */
  const brokenMeter = new Proxy({}, { get: () => () => ({ record: throwing, add: throwing }) }) as never;
  const brokenTracer = { startSpan: throwing, startActiveSpan: throwing } as never;

  it("keeps 1 000 runs correct and fast with a throwing meter, a throwing tracer and a slow observer", async () => {
    let slowObserved = 0;
    // The exporter finishes only when the test lets it: runs that waited for it would never settle.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const stack = withMiddleware(createAgentStack(), metrics({ meter: brokenMeter }), tracing({ tracer: brokenTracer }))
      .use("toolCall", {
        name: "slow-exporter",
        observe: async () => {
          await released;
          slowObserved++;
        },
      })
      .use("toolCall", { name: "ok", before: () => Continue });
    const running = Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        stack.run("toolCall", { id: `c${i}`, name: "T", input: { i } }, (c) => ({ content: `ran ${String(c.input.i)}` })),
      ),
    );
    expect(await settlesWithin(scaled(20_000), running)).toBe(true);
    const outcomes = await running;
    outcomes.forEach((o, i) => expect(o).toEqual({ _tag: "Completed", value: { content: `ran ${i}` } }));
    expect(slowObserved).toBe(0);
    release();
    await stack.flush();
    expect(slowObserved).toBe(1000);
    expect(stack.stats.hookFailures + stack.stats.observerErrors).toBeGreaterThan(0); // broken telemetry is counted, not silent
  });
});
