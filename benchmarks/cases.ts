/**
 * The engine's benchmark cases: agent-onion as users run it (the built `dist/`, freezing on, the
 * default), the hand-written code each target compares with, and koa-compose, all around the same
 * operation, `async (x) => x`, on a small frozen tool call. Each case is a function whose result
 * the harness awaits; `check` says what one call must return, so a broken case is never measured.
 */
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export interface Input {
  readonly id: string;
  readonly name: string;
  readonly input: { readonly path: string };
}
export const input: Input = Object.freeze({ id: "call-1", name: "Read", input: Object.freeze({ path: "README.md" }) });

const asyncOp = async (x: Input): Promise<Input> => x;

export interface CaseDef {
  readonly id: string;
  /** What it measures, for the README. */
  readonly what: string;
  readonly build: () => Promise<(x: Input) => unknown>;
  readonly check: (result: unknown) => boolean;
}

const completed = (r: unknown): boolean =>
  (r as { _tag?: unknown; value?: unknown })?._tag === "Completed" && (r as { value: unknown }).value === input;
const isInput = (r: unknown): boolean => r === input;

const here = dirname(fileURLToPath(import.meta.url));
type Core = typeof import("../src/core/index.ts");
/**
 * The built core (`npm run build`), as users import it; with `BENCH_CORE=src`, the sources (through
 * tsx), to try a change without building: figures to compare with each other, never to publish.
 */
const loadCore = async (): Promise<Core> =>
  (await import(
    process.env.BENCH_CORE === "src"
      ? pathToFileURL(join(here, "..", "src", "core", "index.ts")).href
      : pathToFileURL(join(here, "..", "dist", "core", "index.js")).href
  )) as Core;

const onion = async (hooks: (core: Core) => Record<string, unknown>[]): Promise<(x: Input) => unknown> => {
  const c = await loadCore();
  let stack = c.createStack({ toolCall: c.gate<Input, Input>({ name: "toolCall" }) });
  for (const hook of hooks(c)) stack = stack.use("toolCall", hook as never);
  return (x: Input) => stack.run("toolCall", x, asyncOp);
};

const Continue = Object.freeze({ _tag: "Continue" as const });
/** (b): N sync befores in a loop, the awaited operation, N sync afters in reverse, each answer checked. */
const handLoop = (n: number) => {
  const ctx = { point: "toolCall" };
  const befores = Array.from(
    { length: n },
    () =>
      (_x: Input, _ctx: unknown): unknown =>
        Continue,
  );
  const afters = Array.from(
    { length: n },
    () =>
      (_v: Input, _x: Input, _ctx: unknown): unknown =>
        Continue,
  );
  return async (x: Input) => {
    for (let i = 0; i < befores.length; i++)
      if ((befores[i] as (typeof befores)[number])(x, ctx) !== Continue) throw new Error("unexpected");
    const value = await asyncOp(x);
    for (let i = afters.length - 1; i >= 0; i--)
      if ((afters[i] as (typeof afters)[number])(value, x, ctx) !== Continue) throw new Error("unexpected");
    return { _tag: "Completed", value };
  };
};

type Out = { _tag: string; value?: Input };
/** (d): N `async (ctx, next) => await next()` layers, each answer checked to be an outcome by one `.then`: the least an onion that validates each async answer does. */
const handChecked = (n: number) => {
  const check = (a: Out): Out => {
    if (typeof a !== "object" || a === null || typeof a._tag !== "string") throw new TypeError("not an outcome");
    return a;
  };
  const innermost = async (x: Input): Promise<Out> => ({ _tag: "Completed", value: await asyncOp(x) });
  const hooks = Array.from({ length: n }, () => async (_ctx: { input: Input }, next: () => Promise<Out>) => await next());
  const layer = (i: number, x: Input): Promise<Out> =>
    i === n ? innermost(x) : (hooks[i] as (typeof hooks)[number])({ input: x }, () => layer(i + 1, x)).then(check);
  return (x: Input) => layer(0, x);
};

interface KoaCtx {
  input: Input;
  output: Input | undefined;
}
const koa = async (n: number, asyncLayers: boolean) => {
  const { default: compose } = await import("koa-compose");
  const layers = Array.from({ length: n }, () =>
    asyncLayers ? async (_c: KoaCtx, next: () => Promise<unknown>) => await next() : (_c: KoaCtx, next: () => Promise<unknown>) => next(),
  );
  const composed = compose<KoaCtx>(layers);
  const terminal = async (ctx: KoaCtx): Promise<void> => {
    ctx.output = await asyncOp(ctx.input);
  };
  return async (x: Input) => {
    const ctx: KoaCtx = { input: x, output: undefined };
    await composed(ctx, terminal as unknown as () => Promise<void>);
    return ctx.output;
  };
};

const ba = (n: number) => (c: Core) =>
  Array.from({ length: n }, (_, i) => ({ name: `hook${i}`, before: () => c.Continue, after: () => c.Continue }));

/** Every case, in report order. */
export const cases: readonly CaseDef[] = [
  { id: "bare", what: "`await op(x)` alone: the harness and the operation", build: async () => asyncOp, check: isInput },
  {
    id: "hand-async",
    what: '(a) an `async` function awaiting the operation and wrapping its result in `{ _tag: "Completed", value }`',
    build: async () => async (x: Input) => ({ _tag: "Completed", value: await asyncOp(x) }),
    check: completed,
  },
  { id: "onion/0", what: "`stack.run` on a point with no hooks", build: () => onion(() => []), check: completed },
  {
    id: "hand-loop/1",
    what: "(b) 1 sync before and 1 sync after in a loop around the awaited operation",
    build: async () => handLoop(1),
    check: completed,
  },
  { id: "hand-loop/20", what: "(b) with 20 befores and 20 afters", build: async () => handLoop(20), check: completed },
  {
    id: "onion-ba/1",
    what: "`stack.run` with 1 hook with a sync `before` and `after` returning `Continue`",
    build: () => onion(ba(1)),
    check: completed,
  },
  { id: "onion-ba/20", what: "`stack.run` with 20 such hooks (40 calls)", build: () => onion(ba(20)), check: completed },
  {
    id: "onion-ba-observer/20",
    what: "onion-ba/20 plus one no-op observer (`observe: () => {}`)",
    build: () => onion((c) => [...ba(20)(c), { name: "observer", observe: () => {} }]),
    check: completed,
  },
  {
    id: "onion-ba-metrics/20",
    what: "onion-ba/20 plus one observer that reads the outcome, the duration and every decision (what metrics does)",
    build: () =>
      onion((c) => [
        ...ba(20)(c),
        {
          name: "observer",
          observe: (e: { outcome: { _tag: string }; durationMs: number; decisions: readonly unknown[] }) =>
            void (e.outcome._tag, e.durationMs, e.decisions.length),
        },
      ]),
    check: completed,
  },
  {
    id: "koa-async/1",
    what: "koa-compose with 1 `async (ctx, next) => await next()` layer, a fresh ctx per call",
    build: () => koa(1, true),
    check: isInput,
  },
  { id: "koa-async/20", what: "koa-compose with 20 such layers", build: () => koa(20, true), check: isInput },
  {
    id: "hand-checked/1",
    what: "(d) 1 `async (ctx, next) => await next()` layer whose answer is checked to be an outcome by one `.then`",
    build: async () => handChecked(1),
    check: completed,
  },
  { id: "hand-checked/20", what: "(d) with 20 layers", build: async () => handChecked(20), check: completed },
  {
    id: "onion-around-async/1",
    what: "`stack.run` with 1 `around: async (ctx, next) => await next()`",
    build: () => onion(() => [{ name: "a0", around: async (_c: unknown, next: () => Promise<unknown>) => await next() }]),
    check: completed,
  },
  {
    id: "onion-around-async/20",
    what: "`stack.run` with 20 such hooks",
    build: () =>
      onion(() =>
        Array.from({ length: 20 }, (_, i) => ({
          name: `a${i}`,
          around: async (_c: unknown, next: () => Promise<unknown>) => await next(),
        })),
      ),
    check: completed,
  },
  { id: "koa/1", what: "koa-compose with 1 `(ctx, next) => next()` layer", build: () => koa(1, false), check: isInput },
  { id: "koa/20", what: "koa-compose with 20 such layers", build: () => koa(20, false), check: isInput },
  {
    id: "onion-around/1",
    what: "`stack.run` with 1 `around: (ctx, next) => next()` (answers with next()'s own promise)",
    build: () => onion(() => [{ name: "a0", around: (_c: unknown, next: () => Promise<unknown>) => next() }]),
    check: completed,
  },
  {
    id: "onion-around/20",
    what: "`stack.run` with 20 such hooks",
    build: () =>
      onion(() => Array.from({ length: 20 }, (_, i) => ({ name: `a${i}`, around: (_c: unknown, next: () => Promise<unknown>) => next() }))),
    check: completed,
  },
];

/** A tool call of about `bytes` of JSON, made fresh (nothing frozen), for the freezing cost. */
export const toolCallOf = (bytes: number): Record<string, unknown> => {
  const items: Record<string, unknown>[] = [];
  for (let size = 0, i = 0; size < bytes; i++) {
    const item = { id: `item-${i}`, name: `file${i}.ts`, size: i * 17, tags: ["src", "ts"], meta: { owner: `user${i % 7}`, ok: true } };
    size += JSON.stringify(item).length;
    items.push(item);
  }
  return { id: "call-1", name: "Write", input: { path: "out.json", items } };
};

/** The built `deepFreeze`, for the freezing cost. */
export const builtDeepFreeze = async (): Promise<<T>(value: T) => T> => (await loadCore()).deepFreeze;
