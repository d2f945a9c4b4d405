/**
 * The benchmark cases, shared by the overhead (time) and memory suites so both measure exactly
 * the same functions. Every case is a function `(input) => value | Promise<value>` around the
 * same operation; the suites call it and `await` the result, so every case pays the same harness.
 *
 * Each family is built for N = 0, 1, 5 and 20 no-op hooks (or layers, taps, middlewares).
 * Libraries are imported only when their cases are built, so an isolated run loads only its own.
 */
import type { Effect as EffectType } from "effect";

export const sizes = [0, 1, 5, 20] as const;

/** What every operation receives: a small tool call, as `toolCall` would. */
export interface Input {
  readonly id: string;
  readonly name: string;
  readonly input: { readonly path: string };
}
export const input: Input = Object.freeze({ id: "call-1", name: "Read", input: Object.freeze({ path: "README.md" }) });

/** The operation every case wraps. */
export const asyncOp = async (x: Input): Promise<Input> => x;
export const syncOp = (x: Input): Input => x;

export type OpKind = "async" | "sync";

export interface Family {
  readonly id: string;
  readonly label: string;
  readonly what: string;
  /** Sizes this family is built for (hand-written async and the bare op do not depend on N). */
  readonly sizes: readonly number[];
  readonly ops: readonly OpKind[];
}

/** The case families, in report order. */
export const families: readonly Family[] = [
  { id: "bare", label: "bare operation", what: "`await op(x)` with nothing around it: the floor (harness + the operation)", sizes: [0], ops: ["async", "sync"] },
  { id: "hand-async", label: "hand-written async (a)", what: "an `async` function that awaits the operation and wraps its result in `{ _tag: \"Completed\", value }`: the 0-hook baseline", sizes: [0], ops: ["async", "sync"] },
  { id: "hand-loop", label: "hand-written sync loop (b)", what: "N sync `before(x, ctx)` calls in a loop, the awaited operation, N sync `after(v, x, ctx)` calls in reverse, each result checked against `Continue`: the sync-hooks baseline", sizes, ops: ["async", "sync"] },
  { id: "hand-nested", label: "hand-written nested async (c)", what: "N nested `async (x) => await inner(x)` wrappers around (a): the around baseline", sizes, ops: ["async"] },
  { id: "hand-checked", label: "hand-written checked layers (d)", what: "N layers, each an `async (ctx, next) => await next()` given a fresh `ctx` and `next`, whose promise is followed by one `.then` that checks the answer is an outcome before the layer outside sees it, around (a): the least an onion can do per async layer when, as R4 asks, `next()` resolves to an `Outcome` whatever the hook returned", sizes, ops: ["async"] },
  { id: "hand-guarded", label: "hand-written guarded layers (e)", what: "N layers, each a `(ctx, next) => next()` given a fresh `{ input }` context and a fresh `next` (bound to the layer's state) that refuses a second call, whose answer is checked unless it is `next()`'s own promise, around (a): the least an onion can allocate per layer when, as R4 asks, each hook has its own context and a `next()` that knows whether it was called", sizes, ops: ["async"] },
  { id: "onion-ba", label: "agent-onion before/after", what: "`stack.run` with N hooks, each a sync `before` and a sync `after` returning `Continue` (2N calls)", sizes, ops: ["async", "sync"] },
  { id: "onion-around", label: "agent-onion around", what: "`stack.run` with N `around: (ctx, next) => next()` hooks (each answers with `next()`'s own promise, as koa-compose's layers do; a chain of plain around hooks, so it runs on the lean path of `src/core/around-only.ts`)", sizes, ops: ["async"] },
  { id: "onion-around-async", label: "agent-onion async around", what: "`stack.run` with N `around: async (ctx, next) => await next()` hooks: an `async` function per layer, the shape of (c)", sizes, ops: ["async"] },
  { id: "koa", label: "koa-compose", what: "`compose(layers)(ctx, terminal)` with N `(ctx, next) => next()` layers, a fresh `ctx` per call", sizes, ops: ["async"] },
  { id: "koa-async", label: "koa-compose, async layers", what: "`compose(layers)(ctx, terminal)` with N `async (ctx, next) => await next()` layers, a fresh `ctx` per call: koa-compose with the shape of (c) and of agent-onion async around, for comparing `async` layers like for like", sizes, ops: ["async"] },
  { id: "tapable", label: "tapable", what: "`AsyncSeriesWaterfallHook` with N sync `tap` taps passing the value on, `await hook.promise(x)`, then the operation", sizes, ops: ["async"] },
  { id: "hookable", label: "hookable", what: "`createHooks()` with N sync hooks on one name, `await callHook(name, x)`, then the operation", sizes, ops: ["async"] },
  { id: "effect", label: "Effect", what: "a pre-built `Effect.promise(op)` program with N `Effect.flatMap(Effect.succeed)` layers, run with `Effect.runPromise`", sizes, ops: ["async"] },
  { id: "ai-sdk", label: "AI SDK wrapLanguageModel", what: "`wrapLanguageModel` (ai 6) over a `MockLanguageModelV3` with N pass-through `wrapGenerate: ({ doGenerate }) => doGenerate()` middlewares, calling `doGenerate(params)`", sizes, ops: ["async"] },
];

export interface Case {
  /** `family/op/n`, e.g. `onion-ba/async/20`. */
  readonly id: string;
  readonly family: string;
  readonly op: OpKind;
  readonly n: number;
  readonly fn: (x: Input) => unknown;
  /** Checks what one call returned, so a broken case is never benchmarked. */
  readonly check: (result: unknown) => boolean;
}

export const caseId = (family: string, op: OpKind, n: number): string => `${family}/${op}/${n}`;

const isCompletedInput = (r: unknown): boolean =>
  typeof r === "object" && r !== null && (r as { _tag?: unknown })._tag === "Completed" && (r as { value?: unknown }).value === input;

/** What the hand-written onions (d) and (e) pass between layers: an outcome, as R4's `next()` resolves to. */
type Out = { _tag: string; value?: Input };
const innermost = async (x: Input): Promise<Out> => ({ _tag: "Completed", value: await asyncOp(x) });
/** A hook may answer with anything: the layer outside must get an outcome, so an answer is read once. */
const checkOutcome = (answer: Out): Out => {
  if (typeof answer !== "object" || answer === null || typeof answer._tag !== "string") throw new TypeError("not an outcome");
  return answer;
};
const isInput = (r: unknown): boolean => r === input;

type Builder = (op: OpKind, n: number) => Pick<Case, "fn" | "check"> | Promise<Pick<Case, "fn" | "check">>;

/** The hand-written cases, the same for any engine. */
const Continue = Object.freeze({ _tag: "Continue" as const });
type Decision = { readonly _tag: "Transform" | "Replace"; readonly value: Input } | { readonly _tag: "Reject"; readonly reason: string };
type Action = typeof Continue | Decision;

const handBuilders: Record<string, Builder> = {
  bare: (op) => ({ fn: op === "async" ? asyncOp : syncOp, check: isInput }),
  "hand-async": (op) => ({
    fn: op === "async"
      ? async (x: Input) => ({ _tag: "Completed", value: await asyncOp(x) })
      : async (x: Input) => ({ _tag: "Completed", value: syncOp(x) }),
    check: isCompletedInput,
  }),
  "hand-loop": (op, n) => {
    const ctx = { point: "toolCall" };
    const befores = Array.from({ length: n }, () => (_x: Input, _ctx: unknown): Action => Continue);
    const afters = Array.from({ length: n }, () => (_v: Input, _x: Input, _ctx: unknown): Action => Continue);
    const operation: (x: Input) => Input | Promise<Input> = op === "async" ? asyncOp : syncOp;
    return {
      fn: async (x: Input) => {
        let current = x;
        for (let i = 0; i < befores.length; i++) {
          const r = (befores[i] as (typeof befores)[number])(current, ctx);
          if (r === Continue) continue;
          const a = r as Decision;
          if (a._tag === "Transform") current = a.value;
          else return a._tag === "Reject" ? { _tag: "Rejected", reason: a.reason } : { _tag: "Completed", value: a.value };
        }
        let value = await operation(current);
        for (let i = afters.length - 1; i >= 0; i--) {
          const r = (afters[i] as (typeof afters)[number])(value, current, ctx);
          if (r === Continue) continue;
          const a = r as Decision;
          if (a._tag === "Transform") value = a.value;
          else return a._tag === "Reject" ? { _tag: "Rejected", reason: a.reason } : { _tag: "Completed", value: a.value };
        }
        return { _tag: "Completed", value };
      },
      check: isCompletedInput,
    };
  },
  "hand-nested": (_op, n) => {
    let fn = async (x: Input): Promise<{ _tag: string; value: Input }> => ({ _tag: "Completed", value: await asyncOp(x) });
    for (let i = 0; i < n; i++) {
      const inner = fn;
      fn = async (x) => await inner(x);
    }
    return { fn, check: isCompletedInput };
  },
  "hand-checked": (_op, n) => {
    const hooks = Array.from({ length: n }, () => async (_ctx: { input: Input }, next: () => Promise<Out>) => await next());
    const layer = (i: number, x: Input): Promise<Out> =>
      i === n ? innermost(x) : (hooks[i] as (typeof hooks)[number])({ input: x }, () => layer(i + 1, x)).then(checkOutcome);
    return { fn: (x: Input) => layer(0, x), check: isCompletedInput };
  },
  "hand-guarded": (_op, n) => {
    const hooks = Array.from({ length: n }, () => (_ctx: { input: Input }, next: () => Promise<Out>) => next());
    // A layer's next() must refuse a second call (R4), so each layer has state and its own function.
    class Layer {
      declare readonly i: number;
      declare readonly x: Input;
      declare handed: Promise<Out> | undefined;
      constructor(i: number, x: Input) {
        this.i = i;
        this.x = x;
        this.handed = undefined;
      }
      next(): Promise<Out> {
        if (this.handed !== undefined) return Promise.reject(new TypeError("next() called twice"));
        return (this.handed = layer(this.i + 1, this.x));
      }
    }
    const layer = (i: number, x: Input): Promise<Out> => {
      if (i === n) return innermost(x);
      const l = new Layer(i, x);
      const answer = (hooks[i] as (typeof hooks)[number])({ input: x }, l.next.bind(l));
      // next()'s own promise resolves to an outcome already; anything else is read once.
      return answer === l.handed ? answer : Promise.resolve(answer).then(checkOutcome);
    };
    return { fn: (x: Input) => layer(0, x), check: isCompletedInput };
  },
};

interface KoaCtx { input: Input; output: Input | undefined }
type KoaLayer = (ctx: KoaCtx, next: () => Promise<unknown>) => Promise<unknown>;

/**
 * koa-compose with N layers from `makeLayer` (a function of its own for each, as every other
 * family's hooks are), a fresh context per call and the operation as terminal.
 */
const koaBuilder = (makeLayer: () => KoaLayer): Builder => async (_op, n) => {
  const { default: compose } = await import("koa-compose");
  const composed = compose<KoaCtx>(Array.from({ length: n }, makeLayer));
  const terminal = async (ctx: KoaCtx): Promise<void> => {
    ctx.output = await asyncOp(ctx.input);
  };
  return {
    fn: async (x: Input) => {
      const ctx: KoaCtx = { input: x, output: undefined };
      await composed(ctx, terminal as unknown as () => Promise<void>);
      return ctx.output;
    },
    check: isInput,
  };
};

const peerBuilders: Record<string, Builder> = {
  koa: koaBuilder(() => (_ctx, next) => next()),
  "koa-async": koaBuilder(() => async (_ctx, next) => await next()),
  tapable: async (_op, n) => {
    const { AsyncSeriesWaterfallHook } = await import("tapable");
    const hook = new AsyncSeriesWaterfallHook<[Input]>(["value"]);
    for (let i = 0; i < n; i++) hook.tap(`tap${i}`, (v: Input) => v);
    return { fn: async (x: Input) => await asyncOp(await hook.promise(x)), check: isInput };
  },
  hookable: async (_op, n) => {
    const { createHooks } = await import("hookable");
    const hooks = createHooks<{ call: (x: Input) => void }>();
    for (let i = 0; i < n; i++) hooks.hook("call", (_x: Input) => {});
    return {
      fn: async (x: Input) => {
        await hooks.callHook("call", x);
        return await asyncOp(x);
      },
      check: isInput,
    };
  },
  effect: async (_op, n) => {
    const { Effect } = await import("effect");
    // Pre-built once; the input is read from a variable so no program is built per call.
    let current: Input = input;
    let program: EffectType.Effect<Input> = Effect.promise(() => asyncOp(current));
    for (let i = 0; i < n; i++) program = program.pipe(Effect.flatMap((v) => Effect.succeed(v)));
    const built = program;
    return {
      fn: (x: Input) => {
        current = x;
        return Effect.runPromise(built);
      },
      check: isInput,
    };
  },
  "ai-sdk": async (_op, n) => {
    const { wrapLanguageModel } = await import("ai");
    const { MockLanguageModelV3 } = await import("ai/test");
    type Result = Awaited<ReturnType<InstanceType<typeof MockLanguageModelV3>["doGenerate"]>>;
    const result = {
      content: [{ type: "text", text: "ok" }],
      finishReason: { unified: "stop", raw: "stop" },
      usage: {
        inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 1, text: 1, reasoning: 0 },
      },
      warnings: [],
    } as unknown as Result;
    const model = new MockLanguageModelV3({ doGenerate: () => asyncOp(input).then(() => result) });
    // The mock records every call in an array; that would grow for the whole benchmark and be
    // counted as allocation. Every size pays the same, but we drop it to measure the middleware.
    (model as unknown as { doGenerateCalls: { push(x: unknown): void } }).doGenerateCalls = { push: () => {} };
    const middleware = Array.from({ length: n }, () => ({
      specificationVersion: "v3" as const,
      wrapGenerate: ({ doGenerate }: { doGenerate: () => PromiseLike<unknown> }) => doGenerate(),
    }));
    const wrapped = wrapLanguageModel({ model, middleware: middleware as never });
    const params = { prompt: [] } as unknown as Parameters<typeof wrapped.doGenerate>[0];
    return { fn: (_x: Input) => wrapped.doGenerate(params), check: (r) => r === result };
  },
};

/** agent-onion's cases, loaded from the core so the harness runs (peers only) before the core does. */
const onionBuilders = async (): Promise<Record<string, Builder>> => {
  // `AGENT_ONION_CORE` may point at another build of the core (the profiler uses an unminified bundle).
  const override = process.env.AGENT_ONION_CORE;
  const core = override !== undefined && override !== ""
    ? ((await import(override)) as typeof import("../src/core/index.ts"))
    : await import("../src/core/index.ts");
  const { createStack, gate, Continue: OnionContinue } = core;
  const points = { toolCall: gate<Input, Input>({ name: "toolCall" }) };
  // `strict: false`: what production runs by default (strict mode deep-freezes inputs, a test-time aid).
  const base = createStack(points, { strict: false });
  return {
    "onion-ba": (op, n) => {
      let stack = base;
      for (let i = 0; i < n; i++) stack = stack.use("toolCall", { name: `hook${i}`, before: () => OnionContinue, after: () => OnionContinue });
      const operation = op === "async" ? asyncOp : syncOp;
      return { fn: (x: Input) => stack.run("toolCall", x, operation), check: isCompletedInput };
    },
    "onion-around": (_op, n) => {
      let stack = base;
      for (let i = 0; i < n; i++) stack = stack.use("toolCall", { name: `hook${i}`, around: (_ctx, next) => next() });
      return { fn: (x: Input) => stack.run("toolCall", x, asyncOp), check: isCompletedInput };
    },
    "onion-around-async": (_op, n) => {
      let stack = base;
      for (let i = 0; i < n; i++) stack = stack.use("toolCall", { name: `hook${i}`, around: async (_ctx, next) => await next() });
      return { fn: (x: Input) => stack.run("toolCall", x, asyncOp), check: isCompletedInput };
    },
  };
};

export interface BuiltCases {
  readonly cases: Case[];
  /** Families that could not be built, with the reason (for example, the core does not load yet). */
  readonly skipped: { family: string; reason: string }[];
}

/** Build every case (optionally only those whose id matches `filter`), checking each once. */
export const buildCases = async (filter?: RegExp): Promise<BuiltCases> => {
  const skipped: { family: string; reason: string }[] = [];
  let onion: Record<string, Builder> = {};
  const wanted = (family: string): boolean => {
    const f = families.find((x) => x.id === family);
    return f !== undefined && f.ops.some((op) => f.sizes.some((n) => filter === undefined || filter.test(caseId(family, op, n))));
  };
  try {
    if (wanted("onion-ba") || wanted("onion-around") || wanted("onion-around-async")) onion = await onionBuilders();
  } catch (error) {
    const reason = `agent-onion core did not load: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
    skipped.push({ family: "onion-ba", reason }, { family: "onion-around", reason }, { family: "onion-around-async", reason });
  }
  const builders: Record<string, Builder> = { ...handBuilders, ...peerBuilders, ...onion };
  const cases: Case[] = [];
  for (const family of families) {
    const build = builders[family.id];
    if (build === undefined) continue;
    for (const op of family.ops) {
      for (const n of family.sizes) {
        const id = caseId(family.id, op, n);
        if (filter !== undefined && !filter.test(id)) continue;
        try {
          const built = await build(op, n);
          const result = await built.fn(input);
          if (!built.check(result)) throw new Error(`unexpected result ${JSON.stringify(result)?.slice(0, 200)}`);
          cases.push({ id, family: family.id, op, n, ...built });
        } catch (error) {
          skipped.push({ family: id, reason: error instanceof Error ? error.message.split("\n")[0] ?? "" : String(error) });
        }
      }
    }
  }
  return { cases, skipped };
};
