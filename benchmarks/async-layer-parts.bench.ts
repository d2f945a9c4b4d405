/**
 * What each part of an `async` around layer costs. Per layer (time at 20 layers minus time at 1,
 * over 19), `async (ctx, next) => await next()` layers are timed in koa-compose, in the
 * hand-written onion that checks each answer with one `.then` (case (d) of cases.ts), in the
 * engine, and in copies of the engine with one part taken out. Each copy breaks a guarantee, so
 * it is a measurement, never an option:
 *
 * - `no context`: around hooks share the run's context instead of one of their own (the hook
 *   then sees the wrong `ctx.hook`, `ctx.input` and `ctx.signal`);
 * - `inert handlers`: the reaction to the hook's answer passes the answer on as it is, with
 *   handlers made once: nothing validates it or settles the frame (R4, R6);
 * - `one handler`: the same with a single handler, so a rejection passes outward too;
 * - `no reaction`: the hook's own promise is handed outward unread.
 *
 * Every variant, the engine included, is a copy of `src/core` bundled by rolldown into one file
 * (as `npm run build` bundles it), so they compare with each other. Each variant runs in a fresh
 * process of its own, interleaved there with the hand-written references, and ratios are taken
 * within that process; every variant is measured once per round, in `--rounds` rounds (median,
 * and the range over rounds). A new variant's figure is to be checked under plain node first: in
 * the child processes, which run under tsx, copies that make a function per call in the engine (a
 * closure, or a bind of a plain function) ran about three times slower than the same bundle under
 * plain node, while the engine as it is ran the same under both.
 *
 * With `--part observer`, the same for the constant an observer adds to a run: a run of 20 sync
 * before/after hooks with one no-op observer (`observe: () => {}`), against the hand-written loop
 * (case (b)), in the engine, without the observer, and in copies that skip the run's clock
 * reading (`no clock`: its `startedAt` and `durationMs` are then wrong) and also its place in
 * the observer queue (`no clock, no queue`: the observer is never called).
 *
 *   npx tsx benchmarks/async-layer-parts.bench.ts [--rounds 3] [--part async|observer]
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { rolldown } from "rolldown";
import { fmt, median, parseArgs, textTable } from "./util.ts";

const here = dirname(fileURLToPath(import.meta.url));

/** A copy of the engine: text of `src/core/<file>` replaced; a patch that no longer applies stops the run. */
interface Variant {
  readonly name: string;
  /** Observer part: whether the stack has the observer (default true). */
  readonly observed?: boolean;
  readonly patches: readonly (readonly [file: string, from: string, to: string])[];
}
const beginCtx = "const ctx = new HookCtx(run, layer.info, this.layerInput, own);";
const reaction = "Promise.resolve(answer).then(this.settleLater.bind(this), this.failLater.bind(this))";
const asyncVariants: readonly Variant[] = [
  { name: "engine", patches: [] },
  { name: "no context", patches: [["dispatch.ts", beginCtx, "const ctx = run.ctx;"]] },
  {
    name: "inert handlers",
    patches: [["dispatch.ts", reaction, "Promise.resolve(answer).then(passOn, passOn) as Promise<Outcome>"]],
  },
  { name: "one handler", patches: [["dispatch.ts", reaction, "(answer as Promise<Outcome>).then(passOn)"]] },
  { name: "no reaction", patches: [["dispatch.ts", reaction, "answer as Promise<Outcome>"]] },
];
const clock = ["run.ts", "this.origin = rec === Rec.none ? 0 : now();", "this.origin = rec === Rec.none ? 0 : 1;"] as const;
const observerVariants: readonly Variant[] = [
  { name: "engine", patches: [] },
  { name: "no observer", patches: [], observed: false },
  { name: "no clock", patches: [clock] },
  {
    name: "no clock, no queue",
    patches: [clock, ["settle.ts", "if (run.chain.observers.length > 0) run.runtime.observers.enqueue(run);", ""]],
  },
];
const passOnDef = "\nconst passOn = (value: unknown): Outcome => value as Outcome;\n";

interface Timed {
  readonly name: string;
  /** Per layer (async part). */
  readonly perLayer: number;
  /** ns per run: of 20 layers (async part), of the stack (observer part). */
  readonly total: number;
}

type Run = (x: object) => Promise<unknown>;
const input = Object.freeze({ id: "call-1", name: "Read", input: Object.freeze({ path: "README.md" }) });
const asyncOp = async (x: object): Promise<object> => x;
type Hook = (ctx: unknown, next: () => Promise<unknown>) => Promise<unknown>;
/**
 * The layer, compiled anew for each variant: one function shared by all would mix the type
 * feedback of every variant (it slowed the variants down, in the order V8 optimised them).
 */
const freshHook = (): Hook => new Function("return async (_ctx, next) => await next()")() as Hook;

const koa = async (n: number): Promise<Run> => {
  const { default: compose } = await import("koa-compose");
  const hook = freshHook();
  const composed = compose<{ input: object; output: unknown }>(Array.from({ length: n }, () => hook));
  const terminal = async (ctx: { input: object; output: unknown }): Promise<void> => {
    ctx.output = await asyncOp(ctx.input);
  };
  return async (x) => {
    const ctx = { input: x, output: undefined as unknown };
    await composed(ctx, terminal as unknown as () => Promise<void>);
    return ctx.output;
  };
};

const handChecked = async (n: number): Promise<Run> => {
  const check = (a: unknown): unknown => {
    if (typeof a !== "object" || a === null || typeof (a as { _tag?: unknown })._tag !== "string") throw new TypeError("not an outcome");
    return a;
  };
  const innermost = async (x: object) => ({ _tag: "Completed", value: await asyncOp(x) });
  const hook = freshHook();
  const layer = (i: number, x: object): Promise<unknown> =>
    i === n ? innermost(x) : hook({ input: x }, () => layer(i + 1, x)).then(check);
  return (x) => layer(0, x);
};

type Core = typeof import("../src/core/index.ts");
const load = async (dir: string): Promise<Core> => (await import(pathToFileURL(join(dir, "core.js")).href)) as Core;

const engine =
  (dir: string) =>
  async (n: number): Promise<Run> => {
    const core = await load(dir);
    const hook = freshHook();
    let stack = core.createStack({ toolCall: core.gate<object, object>({ name: "toolCall" }) });
    for (let i = 0; i < n; i++) stack = stack.use("toolCall", { name: `a${i}`, around: hook as never });
    return (x) => stack.run("toolCall", x, asyncOp);
  };

/** 20 sync before/after hooks, and with `observed` one no-op observer. */
const observedEngine =
  (dir: string) =>
  async (observed: boolean): Promise<Run> => {
    const core = await load(dir);
    // Compiled anew for each variant, as `freshHook` is.
    const answer = new Function("c", "return () => c")(core.Continue) as () => unknown;
    let stack = core.createStack({ toolCall: core.gate<object, object>({ name: "toolCall" }) });
    for (let i = 0; i < 20; i++) stack = stack.use("toolCall", { name: `h${i}`, before: answer, after: answer } as never);
    if (observed) stack = stack.use("toolCall", { name: "observer", observe: new Function("return () => {}")() as () => void });
    return (x) => stack.run("toolCall", x, asyncOp);
  };

/** (b): 20 sync befores, the awaited operation, 20 sync afters, each answer checked. */
const handLoop = async (): Promise<Run> => {
  const Continue = Object.freeze({ _tag: "Continue" });
  const hooks = Array.from({ length: 20 }, () => (): unknown => Continue);
  return async (x) => {
    for (const before of hooks) if (before() !== Continue) throw new Error("unexpected");
    const value = await asyncOp(x);
    for (let i = hooks.length - 1; i >= 0; i--) if ((hooks[i] as () => unknown)() !== Continue) throw new Error("unexpected");
    return { _tag: "Completed", value };
  };
};

const cpuNs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1e3;
};
const timeOf = async (fn: Run, calls: number): Promise<number> => {
  const start = cpuNs();
  for (let i = 0; i < calls; i++) await fn(input);
  return (cpuNs() - start) / calls;
};

/**
 * One variant, in this process, interleaved with the hand-written references, 9 samples each. A
 * case is a pair of runs whose difference is measured (1 and 20 layers; without and with the
 * observer). One copy of the engine per process: with several, V8 ran some copies several times
 * slower than the same copy alone.
 */
const child = async (dir: string, name: string, part: string): Promise<Timed[]> => {
  const pairs: [string, Run, Run][] = [];
  if (part === "observer") {
    // One stack per process, as in the benchmark: a process running stacks with and without
    // observers optimises the engine for both, and runs both slower.
    const loop = await handLoop();
    pairs.push(["hand-loop (b)", loop, loop]);
    const stack = await observedEngine(dir)(observerVariants.find((v) => v.name === name)?.observed !== false);
    pairs.push([name, stack, stack]);
  } else {
    const builders: [string, (n: number) => Promise<Run>][] = [
      ["koa-compose", koa],
      ["hand-checked (d)", handChecked],
      [name, engine(dir)],
    ];
    for (const [label, build] of builders) pairs.push([label, await build(1), await build(20)]);
  }
  const [calls0, calls1] = part === "observer" ? [20_000, 20_000] : [20_000, 5_000];
  for (const [, a, b] of pairs) {
    await timeOf(a, calls0);
    await timeOf(b, calls1);
  }
  const diffs = pairs.map((): number[] => []);
  const totals = pairs.map((): number[] => []);
  for (let s = 0; s < 9; s++)
    for (const [k, [, a, b]] of pairs.entries()) {
      const ta = await timeOf(a, calls0);
      const tb = await timeOf(b, calls1);
      (diffs[k] as number[]).push((tb - ta) / 19);
      (totals[k] as number[]).push(tb);
    }
  return pairs.map(([name], k) => ({ name, perLayer: median(diffs[k] as number[]), total: median(totals[k] as number[]) }));
};

const prepare = async (variants: readonly Variant[]): Promise<string> => {
  const root = mkdtempSync(join(tmpdir(), "async-layer-parts-"));
  for (const [i, variant] of variants.entries()) {
    const core = join(root, String(i), "core");
    cpSync(join(here, "..", "src", "core"), core, { recursive: true });
    for (const [name, from, to] of variant.patches) {
      const file = join(core, name);
      const text = readFileSync(file, "utf8");
      if (!text.includes(from)) throw new Error(`variant "${variant.name}": src/core/${name} no longer has ${JSON.stringify(from)}`);
      writeFileSync(file, text.replace(from, to) + (to.includes("passOn") ? passOnDef : ""));
    }
    const bundle = await rolldown({ input: join(core, "index.ts"), platform: "node", logLevel: "warn" });
    await bundle.write({ file: join(root, String(i), "core.js"), format: "esm" });
    await bundle.close();
  }
  return root;
};

const main = async (): Promise<void> => {
  const args = parseArgs(process.argv.slice(2));
  const part = args.get("part") ?? "async";
  if (part !== "async" && part !== "observer") throw new Error(`--part ${part}: expected async or observer`);
  const dir = args.get("child");
  if (dir !== undefined) {
    process.stdout.write(JSON.stringify(await child(dir, args.get("name") ?? "engine", part)));
    return;
  }
  const rounds = Number(args.get("rounds") ?? 3);
  const variants = part === "observer" ? observerVariants : asyncVariants;
  const root = await prepare(variants);
  try {
    // Per variant, per round: its figures and the references measured in the same process.
    const results = new Map<string, Timed[][]>(variants.map((v) => [v.name, []]));
    for (let r = 0; r < rounds; r++) {
      const order = [...variants.entries()];
      for (const [i, v] of r % 2 === 0 ? order : order.reverse()) {
        const out = spawnSync(
          process.execPath,
          ["--import", "tsx", fileURLToPath(import.meta.url), "--child", join(root, String(i)), "--name", v.name, "--part", part],
          { encoding: "utf8", env: { ...process.env, NODE_ENV: "production" }, stdio: ["ignore", "pipe", "inherit"] },
        );
        if (out.status !== 0) throw new Error(`${v.name}, round ${r + 1}: failed (exit ${out.status ?? out.signal})`);
        results.get(v.name)?.push(JSON.parse(out.stdout) as Timed[]);
      }
      console.error(`round ${r + 1}/${rounds} done`);
    }
    // A reference's figures are taken from the processes of the first variant, the engine.
    const names = [...((results.get("engine") as Timed[][])[0] as Timed[]).map((t) => t.name), ...variants.slice(1).map((v) => v.name)];
    const pick = (name: string, field: "perLayer" | "total", base?: string): number[] =>
      (results.get(name) ?? (results.get("engine") as Timed[][])).map((round) => {
        const value = (round.find((t) => t.name === name) as Timed)[field];
        return base === undefined ? value : value / (round.find((t) => t.name === base) as Timed)[field];
      });
    const of = (name: string): number[] => pick(name, "perLayer");
    const totals = (name: string): number[] => pick(name, "total");
    const range = (values: number[], digits: number): string =>
      `${fmt(median(values), digits)} (${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)})`;
    // Ratios are taken against the reference measured in the same process.
    if (part === "observer") {
      // What the observer adds: the variant's run less the run without an observer, round by round.
      const bare = totals("no observer");
      const rows = names
        .filter((n) => n !== "hand-loop (b)")
        .map((n) => [
          n,
          range(totals(n), 0),
          range(pick(n, "total", "hand-loop (b)"), 2),
          n === "no observer"
            ? ""
            : range(
                totals(n).map((t, i) => t - (bare[i] as number)),
                0,
              ),
        ]);
      console.log(`hand-loop (b): ${range(totals("hand-loop (b)"), 0)} ns per run\n`);
      console.log(textTable(["20 before/after hooks", "ns per run", "÷ hand-loop", "observer adds, ns"], rows));
    } else {
      console.log(
        textTable(
          ["per async layer", "ns", "÷ koa-compose"],
          names.map((n) => [n, range(of(n), 0), range(pick(n, "perLayer", "koa-compose"), 2)]),
        ),
      );
    }
    console.log(`\n${rounds} fresh process${rounds === 1 ? "" : "es"}; Node ${process.version}; copies of src/core bundled by rolldown.`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
};

await main();
