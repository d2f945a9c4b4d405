import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { createStack, gate } from "../../src/core/index.ts";
import { linkSignal, throwIfAborted, withDeadline } from "../../src/core/signal.ts";
import { gc as collect } from "../support/gc.ts";

const abortedWithin = (signal: AbortSignal, ms: number): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not aborted within ${ms} ms`)), ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve(signal.reason);
      },
      { once: true },
    );
  });

describe("linkSignal", () => {
  it("follows its parent and stops following once disposed", () => {
    const parent = new AbortController();
    const first = linkSignal(parent.signal);
    const second = linkSignal(parent.signal);
    second.dispose();
    parent.abort("stop");
    expect(first.controller.signal.reason).toBe("stop");
    expect(second.controller.signal.aborted).toBe(false);
  });
});

describe("throwIfAborted", () => {
  it("throws an aborted signal's reason and passes a live one or none", () => {
    expect(() => throwIfAborted(AbortSignal.abort("stop"))).toThrow("stop");
    expect(() => throwIfAborted(new AbortController().signal)).not.toThrow();
    expect(() => throwIfAborted(undefined)).not.toThrow();
  });

  it("throws an AbortError for a lookalike that aborted with no reason and has no throwIfAborted", () => {
    const lookalike = { aborted: true } as unknown as AbortSignal;
    expect(() => throwIfAborted(lookalike)).toThrow(expect.objectContaining({ name: "AbortError" }));
  });
});

describe("withDeadline", () => {
  it("aborts with a TimeoutError when the deadline passes", async () => {
    const deadline = withDeadline(undefined, 20);
    const reason = await abortedWithin(deadline.controller.signal, 2000);
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe("TimeoutError");
  });

  it("still fires when only a pending listener holds it and a collection runs meanwhile", async () => {
    // The shape that lost prompt-hook deadlines with AbortSignal.any + AbortSignal.timeout.
    const waitFor = (signal: AbortSignal) =>
      new Promise<string>((resolve) => {
        const slow = setTimeout(() => resolve("completed"), 1000);
        signal.addEventListener(
          "abort",
          () => {
            clearTimeout(slow);
            resolve("aborted");
          },
          { once: true },
        );
      });
    const outcome = waitFor(withDeadline(new AbortController().signal, 100).controller.signal);
    await new Promise((r) => setTimeout(r, 20));
    collect();
    expect(await outcome).toBe("aborted");
  });

  it("aborts with the parent's reason when the parent aborts first", () => {
    const parent = new AbortController();
    const deadline = withDeadline(parent.signal, 10_000);
    parent.abort("caller gave up");
    expect(deadline.controller.signal.reason).toBe("caller gave up");
    deadline.dispose();
  });

  it("starts aborted under an aborted parent", () => {
    expect(withDeadline(AbortSignal.abort("gone"), 10).controller.signal.reason).toBe("gone");
  });

  it("never fires once disposed", async () => {
    const deadline = withDeadline(undefined, 10);
    deadline.dispose();
    await new Promise((r) => setTimeout(r, 40));
    expect(deadline.controller.signal.aborted).toBe(false);
  });
});

describe("the signal of a run with no caller signal and no deadline", () => {
  it("never aborts, so it keeps no abort listener that an operation forgets to remove", async () => {
    const stack = createStack({ tool: gate<string, string>({ name: "tool" }) });
    const signals = new Set<AbortSignal>();
    for (let i = 0; i < 100; i++)
      await stack.run("tool", "x", (x, ctx) => {
        signals.add(ctx.signal);
        ctx.signal.addEventListener("abort", () => console.log("never"));
        return x;
      });
    expect(signals.size).toBe(1);
    const [signal] = signals;
    expect(signal?.aborted).toBe(false);
    expect(getEventListeners(signal as AbortSignal, "abort")).toHaveLength(0);
  });

  it("handed on to a nested run, is as no signal there: the nested run gets the same one, not a guard of its own", async () => {
    const stack = createStack({ tool: gate<string, string>({ name: "tool" }) });
    let outer: AbortSignal | undefined;
    let inner: AbortSignal | undefined;
    await stack.run("tool", "x", async (x, ctx) => {
      outer = ctx.signal;
      await stack.run("tool", x, (y, nested) => ((inner = nested.signal), y), { signal: ctx.signal });
      return x;
    });
    expect(inner).toBe(outer);
  });
});
