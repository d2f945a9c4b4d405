import { describe, expect, it } from "vitest";
import { Continue, type Hook } from "../../src/core/index.ts";
import { call, echo, newStack, type Call, type Result } from "./helpers.ts";

/**
 * How many microtask turns a run takes before its promise settles: a chain of microtasks counts
 * them while the run goes on. The number depends only on how many promise reactions lie on the
 * run's path, not on the machine, so it pins down what a layer costs in promise turns: an `async`
 * around layer must read its hook's answer in one reaction before the hook outside sees it (R4,
 * R6), and that reaction is the only turn a layer may add.
 */
const turns = async (hooks: Hook<Call, Result>[]): Promise<number> => {
  let stack = newStack();
  for (const hook of hooks) stack = stack.use("tool", hook);
  const op = async (c: Call) => echo(c);
  await stack.run("tool", call(), op); // chains are built on first use: count a run like the next ones
  let count = 0;
  let done = false;
  const tick = (): void => {
    count++;
    if (!done) queueMicrotask(tick);
  };
  queueMicrotask(tick);
  const outcome = await stack.run("tool", call(), op);
  done = true;
  expect(outcome).toEqual({ _tag: "Completed", value: { content: "ran Read" } });
  return count;
};

const layers = (n: number, make: (i: number) => Hook<Call, Result>): Hook<Call, Result>[] => Array.from({ length: n }, (_, i) => make(i));

describe("promise turns per layer", () => {
  it("an async around layer that awaits next() adds two turns: its own await and the engine's reading of its answer", async () => {
    const asyncAround = (i: number): Hook<Call, Result> => ({ name: `a${i}`, around: async (_c, next) => await next() });
    const one = await turns(layers(1, asyncAround));
    const twenty = await turns(layers(20, asyncAround));
    expect(twenty - one).toBe(19 * 2);
  });

  it("a layer that answers with next()'s own promise adds none", async () => {
    const passOn = (i: number): Hook<Call, Result> => ({ name: `p${i}`, around: (_c, next) => next() });
    expect(await turns(layers(20, passOn))).toBe(await turns(layers(1, passOn)));
  });

  it("synchronous before and after hooks add none", async () => {
    const sync = (i: number): Hook<Call, Result> => ({ name: `s${i}`, before: () => Continue, after: () => Continue });
    expect(await turns(layers(20, sync))).toBe(await turns([]));
  });
});
