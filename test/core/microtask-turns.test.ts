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

/*
 * Hand-written onions of `async (ctx, next) => await next()` layers, one per way of reading a
 * layer's answer, with the engine left out: how many turns a layer takes is then down to the
 * shape alone. Each onion that reads answers turns a hook that throws into a Rejected outcome
 * before the hook outside resumes (R4, R6); the one that hands promises on unread does not.
 */
type Out = { _tag: "Completed"; value: string } | { _tag: "Rejected"; reason: string };
type Next = () => PromiseLike<Out>;
type AsyncHook = (next: Next) => Promise<Out>;
type Onion = (hooks: AsyncHook[]) => () => PromiseLike<Out>;

const read = (answer: unknown): Out => {
  if (typeof answer !== "object" || answer === null || typeof (answer as Out)._tag !== "string") throw new TypeError("not an outcome");
  return answer as Out;
};
const failed = (cause: unknown): Out => ({ _tag: "Rejected", reason: String(cause) });
/** An answer read, or the failure of one that is not an outcome (the synchronous part of each reaction). */
const readOrFail = (answer: unknown): Out => {
  try {
    return read(answer);
  } catch (e) {
    return failed(e);
  }
};
const innermost = async (): Promise<Out> => ({ _tag: "Completed", value: await Promise.resolve("ran") });

/** Each shape, with the turns one of its layers takes. */
const shapes: Record<string, [turns: number, onion: Onion]> = {
  /** koa-compose's way: a layer's promise goes outward as it is. */
  "hands each promise on unread": [
    1,
    (hooks) => {
      const layer = (i: number): Promise<Out> => (i === hooks.length ? innermost() : hooks[i]!(() => layer(i + 1)));
      return () => layer(0);
    },
  ],
  "reads each answer with one .then": [
    2,
    (hooks) => {
      const layer = (i: number): Promise<Out> =>
        i === hooks.length ? innermost() : hooks[i]!(() => layer(i + 1)).then(readOrFail, (e) => failed(e));
      return () => layer(0);
    },
  ],
  "reads each answer with an await of its own": [
    2,
    (hooks) => {
      const layer = async (i: number): Promise<Out> => {
        if (i === hooks.length) return innermost();
        try {
          return read(await hooks[i]!(() => layer(i + 1)));
        } catch (e) {
          return failed(e);
        }
      };
      return () => layer(0);
    },
  ],
  "resolves a promise of its own from the reaction": [
    2,
    (hooks) => {
      const layer = (i: number): Promise<Out> =>
        i === hooks.length
          ? innermost()
          : new Promise<Out>((resolve) => {
              hooks[i]!(() => layer(i + 1)).then(
                (a) => resolve(readOrFail(a)),
                (e) => resolve(failed(e)),
              );
            });
      return () => layer(0);
    },
  ],
  "gives next() a thenable of its own, settled by the reaction": [
    3,
    (hooks) => {
      const layer = (i: number): PromiseLike<Out> => {
        if (i === hooks.length) return innermost();
        const answer = hooks[i]!(() => layer(i + 1));
        return {
          then: (ok, ko) => answer.then(readOrFail, (e) => failed(e)).then(ok, ko),
        };
      };
      return () => layer(0);
    },
  ],
};

/** Microtask turns until `start()`'s promise settles (see `turns` above). */
const turnsOf = async (start: () => PromiseLike<Out>): Promise<number> => {
  let count = 0;
  let done = false;
  const tick = (): void => {
    count++;
    if (!done) queueMicrotask(tick);
  };
  queueMicrotask(tick);
  await start();
  done = true;
  return count;
};

const awaiting: AsyncHook = async (next) => await next();

describe("the least an async layer can take", () => {
  it.each(Object.entries(shapes))("%s", async (name, [least, shape]) => {
    const perLayer = ((await turnsOf(shape(Array(20).fill(awaiting)))) - (await turnsOf(shape([awaiting])))) / 19;
    // Does a hook that throws inside reach the hook outside as an outcome it can read (R4, R6)?
    let seen: unknown;
    const outside: AsyncHook = async (next) => {
      try {
        seen = await next();
      } catch (e) {
        seen = e;
      }
      return seen as Out;
    };
    const throwing: AsyncHook = async () => {
      throw new Error("broken hook");
    };
    await Promise.resolve(shape([outside, throwing])()).catch(() => undefined);
    const reads = (seen as Out | undefined)?._tag === "Rejected";
    expect(reads).toBe(name !== "hands each promise on unread");
    // One turn for the hook's own await; whoever reads the answer adds at least one more.
    expect(perLayer).toBe(least);
    expect(perLayer).toBeGreaterThanOrEqual(reads ? 2 : 1);
  });
});
