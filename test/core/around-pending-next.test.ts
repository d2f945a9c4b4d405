import { describe, expect, it } from "vitest";
import { NextMisuseError, Outcome, Replace, RunAbortedError, Trace, type HookError } from "../../src/core/index.ts";
import { call, newStack, sleep, type Result } from "./helpers.ts";

/** The lean path runs a chain of plain around hooks nobody records; a trace sends the same chain down the general one. */
const paths = [["lean", {}], ["general", { trace: new Trace() }]] as const;

/** An around hook that keeps what its next() resolved to. */
const keeping = (name: string, priority: number) => {
  const got: Outcome<Result>[] = [];
  const hook = { name, priority, around: async (_c: unknown, next: () => Promise<Outcome<Result>>) => { const o = await next(); got.push(o); return o; } };
  return { hook, got };
};

/** An operation that ends only when its signal aborts, as a well-behaved provider call does. */
const untilAborted = (_input: unknown, ctx: { signal: AbortSignal }) =>
  new Promise<never>((_resolve, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)));

describe("an around hook whose next() is still pending when its run settles (R4, R7)", () => {
  for (const [path, options] of paths) {
    it(`gets the run's own Failed(RunAbortedError) when the caller aborts, not a NextMisuseError (${path} path)`, async () => {
      const outer = keeping("outer", 1);
      const inner = keeping("inner", 2);
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error("cancel")), 5);

      const outcome = await newStack().use("tool", outer.hook).use("tool", inner.hook).run("tool", call(), untilAborted, { ...options, signal: controller.signal });
      await sleep(5);

      expect(outcome).toMatchObject({ _tag: "Failed", error: { name: "RunAbortedError", cause: { message: "cancel" } } });
      expect(inner.got).toEqual([outcome]);
      expect(outer.got).toEqual([outcome]);
    });

    it(`gets the run's own Failed(RunAbortedError) when the run's deadline passes (${path} path)`, async () => {
      const only = keeping("only", 1);

      const outcome = await newStack().use("tool", only.hook).run("tool", call(), untilAborted, { ...options, timeoutMs: 5 });
      await sleep(5);

      expect(outcome).toMatchObject({ _tag: "Failed", error: { timedOut: true } });
      expect((outcome as { error: unknown }).error).toBeInstanceOf(RunAbortedError);
      expect(only.got).toEqual([outcome]);
    });

    it(`gets what the caller got, not what a hook outside answered after the run settled (${path} path)`, async () => {
      const inner = keeping("inner", 2);
      const controller = new AbortController();
      // Aborts the caller's signal, which settles the run, then answers: too late to count.
      const outer = { name: "outer", priority: 1, around: (_c: unknown, next: () => Promise<unknown>) => { void next(); controller.abort(new Error("budget")); return Replace({ content: "late" }); } };

      const outcome = await newStack().use("tool", outer).use("tool", inner.hook).run("tool", call(), untilAborted, { ...options, signal: controller.signal });
      await sleep(5);

      expect(outcome).toMatchObject({ _tag: "Failed", error: { name: "RunAbortedError" } });
      expect(inner.got).toEqual([outcome]);
    });

    it(`gets the outcome the run settled with when a hook outside answered without waiting for it (${path} path)`, async () => {
      const inner = keeping("inner", 2);
      const stack = newStack()
        .use("tool", { name: "impatient", priority: 1, around: (_c, next) => (void next(), Replace({ content: "did not wait" })) })
        .use("tool", inner.hook);

      const outcome = await stack.run("tool", call(), async () => (await sleep(5), { content: "late" }), options);
      await sleep(10);

      expect(outcome).toEqual(Outcome.completed({ content: "did not wait" }));
      expect(inner.got).toEqual([outcome]);
    });

    it(`still refuses a next() called after the run settled, as a misuse (${path} path)`, async () => {
      const failures: HookError[] = [];
      let late: Promise<unknown> | undefined;
      const controller = new AbortController();
      const stack = newStack({ onFailure: (e) => void failures.push(e) }).use("tool", {
        name: "late",
        around: async (_c, next) => {
          await sleep(10);
          late = next().catch((e: unknown) => e);
          return undefined;
        },
      });
      setTimeout(() => controller.abort(new Error("cancel")), 2);

      await stack.run("tool", call(), async () => ({ content: "never" }), { ...options, signal: controller.signal });
      await sleep(15);

      expect(await late).toBeInstanceOf(NextMisuseError);
      expect(failures.map((e) => [e.hook, e.kind])).toEqual([["late", "next-misuse"]]);
    });
  }
});
