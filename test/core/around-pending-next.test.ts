import { describe, expect, it } from "vitest";
import { NextMisuseError, Outcome, Replace, RunAbortedError, Trace, type HookError } from "../../src/core/index.ts";
import { call, newStack, sleep, type Result } from "./helpers.ts";

/** The lean path runs a chain of plain around hooks nobody records; a trace sends the same chain down the general one. */
const paths = [
  ["lean", {}],
  ["general", { trace: new Trace() }],
] as const;

/** An around hook that keeps what its next() resolved to. */
const keeping = (name: string, priority: number) => {
  const got: Outcome<Result>[] = [];
  const hook = {
    name,
    priority,
    around: async (_c: unknown, next: () => Promise<Outcome<Result>>) => {
      const o = await next();
      got.push(o);
      return o;
    },
  };
  return { hook, got };
};

/** An operation that ends only when its signal aborts, as a well-behaved provider call does. */
const untilAborted = (_input: unknown, ctx: { signal: AbortSignal }) =>
  new Promise<never>((_resolve, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)));

describe("an around hook whose run settles while its next() is pending, or before it calls next() (R4, R7)", () => {
  for (const [path, options] of paths) {
    it(`gets the run's own Failed(RunAbortedError) when the caller aborts, not a NextMisuseError (${path} path)`, async () => {
      const outer = keeping("outer", 1);
      const inner = keeping("inner", 2);
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error("cancel")), 5);

      const outcome = await newStack()
        .use("tool", outer.hook)
        .use("tool", inner.hook)
        .run("tool", call(), untilAborted, { ...options, signal: controller.signal });
      await sleep(5);

      expect(outcome).toMatchObject({ _tag: "Failed", error: { name: "RunAbortedError", cause: { message: "cancel" } } });
      expect(inner.got).toEqual([outcome]);
      expect(outer.got).toEqual([outcome]);
    });

    it(`gets the run's own Failed(RunAbortedError) when the run's deadline passes (${path} path)`, async () => {
      const only = keeping("only", 1);

      const outcome = await newStack()
        .use("tool", only.hook)
        .run("tool", call(), untilAborted, { ...options, timeoutMs: 5 });
      await sleep(5);

      expect(outcome).toMatchObject({ _tag: "Failed", error: { timedOut: true } });
      expect((outcome as { error: unknown }).error).toBeInstanceOf(RunAbortedError);
      expect(only.got).toEqual([outcome]);
    });

    it(`gets what the caller got, not what a hook outside answered after the run settled (${path} path)`, async () => {
      const inner = keeping("inner", 2);
      const controller = new AbortController();
      // Aborts the caller's signal, which settles the run, then answers: too late to count.
      const outer = {
        name: "outer",
        priority: 1,
        around: (_c: unknown, next: () => Promise<unknown>) => {
          void next();
          controller.abort(new Error("budget"));
          return Replace({ content: "late" });
        },
      };

      const outcome = await newStack()
        .use("tool", outer)
        .use("tool", inner.hook)
        .run("tool", call(), untilAborted, { ...options, signal: controller.signal });
      await sleep(5);

      expect(outcome).toMatchObject({ _tag: "Failed", error: { name: "RunAbortedError" } });
      expect(inner.got).toEqual([outcome]);
    });

    it(`gets Failed(OperationAbandonedError), not the answer of a hook outside that did not wait for it (${path} path)`, async () => {
      const inner = keeping("inner", 2);
      const stack = newStack()
        .use("tool", { name: "impatient", priority: 1, around: (_c, next) => (void next(), Replace({ content: "did not wait" })) })
        .use("tool", inner.hook);

      const outcome = await stack.run("tool", call(), async () => (await sleep(5), { content: "late" }), options);
      await sleep(10);

      // The outside's stand-in is not the inside's result: a hook that keeps what its inside gave (a cache) must not keep it.
      expect(outcome).toEqual(Outcome.completed({ content: "did not wait" }));
      expect(inner.got).toMatchObject([{ _tag: "Failed", error: { name: "OperationAbandonedError" } }]);
    });

    it(`gets Failed(OperationAbandonedError) from a next() it first calls after a hook outside answered without waiting (${path} path)`, async () => {
      let got: unknown;
      let ops = 0;
      const stack = newStack()
        .use("tool", {
          name: "deadline",
          priority: 1,
          around: (_c, next) => Promise.race([next(), sleep(5).then(() => Replace({ content: "slow, try later" }))]),
        })
        .use("tool", {
          name: "slow-store",
          priority: 2,
          around: async (_c, next) => {
            await sleep(20);
            got = await next();
            return got as Outcome<Result>;
          },
        });

      const outcome = await stack.run("tool", call(), () => (ops++, { content: "real" }), options);
      await sleep(30);

      expect(outcome).toEqual(Outcome.completed({ content: "slow, try later" }));
      expect(got).toMatchObject({ _tag: "Failed", error: { name: "OperationAbandonedError" } });
      expect(ops).toBe(0);
    });

    it(`refuses a third next() after the run settled, so a hook retrying until it succeeds ends rather than spins (${path} path)`, async () => {
      let calls = 0;
      let ended: unknown;
      const controller = new AbortController();
      const stack = newStack().use("tool", {
        name: "until-it-works",
        around: async (_c, next) => {
          try {
            for (;;) {
              calls++;
              const o = await next();
              if (o._tag !== "Failed") return o;
            }
          } catch (error) {
            ended = error;
            throw error;
          }
        },
      });
      setTimeout(() => controller.abort(new Error("cancel")), 5);

      await stack.run(
        "tool",
        call(),
        async () => {
          await sleep(2);
          throw new Error("down");
        },
        { ...options, signal: controller.signal },
      );
      await sleep(20);

      expect(ended).toBeInstanceOf(NextMisuseError);
      expect(calls).toBeLessThan(10);
    });

    it(`gets the run's outcome from a next() it first calls after the caller aborted, with no misuse and no failure counted (${path} path)`, async () => {
      const failures: HookError[] = [];
      let late: Promise<unknown> | undefined;
      const controller = new AbortController();
      // A closed-mode hook on a gate that has not settled yet (it waits for a slot) when the run does.
      const stack = newStack({ onFailure: (e) => void failures.push(e) }).use("tool", {
        name: "polite",
        around: async (_c, next) => {
          await sleep(10);
          late = next().catch((e: unknown) => e);
          return late as Promise<Outcome<Result>>;
        },
      });
      setTimeout(() => controller.abort(new Error("cancel")), 2);

      const outcome = await stack.run("tool", call(), async () => ({ content: "never" }), { ...options, signal: controller.signal });
      await sleep(15);

      expect(outcome).toMatchObject({ _tag: "Failed", error: { name: "RunAbortedError" } });
      expect(await late).toEqual(outcome);
      expect(failures).toEqual([]);
      expect(stack.stats).toMatchObject({ hookFailures: 0, failOpen: 0 });
    });

    it(`still refuses a next() called after the hook itself settled, as a misuse (${path} path)`, async () => {
      const failures: HookError[] = [];
      let late: Promise<unknown> | undefined;
      let ops = 0;
      const stack = newStack({ onFailure: (e) => void failures.push(e) }).use("tool", {
        name: "late",
        around: (_c, next) => {
          setTimeout(() => (late = next().catch((e: unknown) => e)), 2);
          return Replace({ content: "answered" });
        },
      });

      await stack.run("tool", call(), () => ({ content: `op ${++ops}` }), options);
      await sleep(10);

      expect(await late).toBeInstanceOf(NextMisuseError);
      expect(ops).toBe(0);
      expect(failures.map((e) => [e.hook, e.kind])).toEqual([["late", "next-misuse"]]);
    });

    it(`gets the run's outcome from a second next() called while the first is pending after the run settled, and a refusal, uncounted, from a third (${path} path)`, async () => {
      const seconds: unknown[] = [];
      let ops = 0;
      const controller = new AbortController();
      const failures: HookError[] = [];
      const stack = newStack({ onFailure: (e) => void failures.push(e) }).use("tool", {
        name: "twice",
        around: async (_c, next) => {
          const first = next();
          await sleep(10);
          seconds.push(await next()); // the first is still pending: the operation ignores its signal
          const answered = await first;
          seconds.push(await next().catch((e: unknown) => e)); // it has the outcome already
          return answered;
        },
      });
      setTimeout(() => controller.abort(new Error("cancel")), 2);

      const outcome = await stack.run("tool", call(), async () => (ops++, await sleep(30), { content: "late" }), {
        ...options,
        signal: controller.signal,
      });
      await sleep(35);

      expect(seconds[0]).toEqual(outcome);
      expect(seconds[1]).toBeInstanceOf(NextMisuseError);
      expect((seconds[1] as Error).message).toBe('next() called again after the run settled: hook "twice" already has the run\'s outcome');
      expect(ops).toBe(1);
      expect(failures).toEqual([]);
    });
  }
});
