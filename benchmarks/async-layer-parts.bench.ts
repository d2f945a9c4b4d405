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
 * (as `npm run build` bundles it), so they compare with each other; all run in one process,
 * interleaved, and the whole is repeated in `--rounds` fresh processes (median, and the range over
 * rounds). Keep the list short: with two more copies in the process, V8 ran some of them several
 * times slower than the same copy alone, so a new variant's figure is to be checked alone first.
 *
 *   npx tsx benchmarks/async-layer-parts.bench.ts [--rounds 3]
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { rolldown } from "rolldown";
import { fmt, median, parseArgs, textTable } from "./util.ts";

const here = dirname(fileURLToPath(import.meta.url));

/** Text in src/core/dispatch.ts each variant replaces; a patch that no longer applies stops the run. */
const beginCtx = "const ctx = new HookCtx(run, layer.info, this.layerInput, own);";
const reaction = "Promise.resolve(answer).then(this.settleLater.bind(this), this.failLater.bind(this))";
const variants: readonly { readonly name: string; readonly patches: readonly (readonly [string, string])[] }[] = [
  { name: "engine", patches: [] },
  { name: "no context", patches: [[beginCtx, "const ctx = run.ctx;"]] },
  { name: "inert handlers", patches: [[reaction, "Promise.resolve(answer).then(passOn, passOn) as Promise<Outcome>"]] },
  { name: "one handler", patches: [[reaction, "(answer as Promise<Outcome>).then(passOn)"]] },
  { name: "no reaction", patches: [[reaction, "answer as Promise<Outcome>"]] },
];
const passOnDef = "\nconst passOn = (value: unknown): Outcome => value as Outcome;\n";

interface Timed {
  readonly name: string;
  readonly perLayer: number;
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

const engine =
  (dir: string) =>
  async (n: number): Promise<Run> => {
    const core = (await import(pathToFileURL(join(dir, "core.js")).href)) as typeof import("../src/core/index.ts");
    const hook = freshHook();
    let stack = core.createStack({ toolCall: core.gate<object, object>({ name: "toolCall" }) });
    for (let i = 0; i < n; i++) stack = stack.use("toolCall", { name: `a${i}`, around: hook as never });
    return (x) => stack.run("toolCall", x, asyncOp);
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

/** One round, in this process: every variant interleaved, 9 samples each. */
const child = async (root: string): Promise<Timed[]> => {
  const builders: [string, (n: number) => Promise<Run>][] = [
    ["koa-compose", koa],
    ["hand-checked (d)", handChecked],
    ...variants.map((v, i): [string, (n: number) => Promise<Run>] => [v.name, engine(join(root, String(i)))]),
  ];
  const fns: [string, Run, Run][] = [];
  for (const [name, build] of builders) fns.push([name, await build(1), await build(20)]);
  for (const [, one, twenty] of fns) {
    await timeOf(one, 20_000);
    await timeOf(twenty, 5_000);
  }
  const samples = fns.map((): number[] => []);
  for (let s = 0; s < 9; s++)
    for (const [k, [, one, twenty]] of fns.entries()) {
      const t1 = await timeOf(one, 20_000);
      const t20 = await timeOf(twenty, 5_000);
      (samples[k] as number[]).push((t20 - t1) / 19);
    }
  return fns.map(([name], k) => ({ name, perLayer: median(samples[k] as number[]) }));
};

const prepare = async (): Promise<string> => {
  const root = mkdtempSync(join(tmpdir(), "async-layer-parts-"));
  for (const [i, variant] of variants.entries()) {
    const core = join(root, String(i), "core");
    cpSync(join(here, "..", "src", "core"), core, { recursive: true });
    const file = join(core, "dispatch.ts");
    let text = readFileSync(file, "utf8");
    for (const [from, to] of variant.patches) {
      if (!text.includes(from)) throw new Error(`variant "${variant.name}": src/core/dispatch.ts no longer has ${JSON.stringify(from)}`);
      text = text.replace(from, to);
    }
    writeFileSync(file, variant.patches.length > 0 ? text + passOnDef : text);
    const bundle = await rolldown({ input: join(core, "index.ts"), platform: "node", logLevel: "warn" });
    await bundle.write({ file: join(root, String(i), "core.js"), format: "esm" });
    await bundle.close();
  }
  return root;
};

const main = async (): Promise<void> => {
  const args = parseArgs(process.argv.slice(2));
  const dir = args.get("child");
  if (dir !== undefined) {
    process.stdout.write(JSON.stringify(await child(dir)));
    return;
  }
  const rounds = Number(args.get("rounds") ?? 3);
  const root = await prepare();
  try {
    const results: Timed[][] = [];
    for (let r = 0; r < rounds; r++) {
      const out = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--child", root], {
        encoding: "utf8",
        env: { ...process.env, NODE_ENV: "production" },
        stdio: ["ignore", "pipe", "inherit"],
      });
      if (out.status !== 0) throw new Error(`round ${r + 1} failed (exit ${out.status ?? out.signal})`);
      results.push(JSON.parse(out.stdout) as Timed[]);
      console.error(`round ${r + 1}/${rounds} done`);
    }
    const names = (results[0] as Timed[]).map((t) => t.name);
    const of = (name: string): number[] => results.map((round) => (round.find((t) => t.name === name) as Timed).perLayer);
    const koaNs = of("koa-compose");
    const range = (values: number[], digits: number): string =>
      `${fmt(median(values), digits)} (${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)})`;
    console.log(
      textTable(
        ["per async layer", "ns", "÷ koa-compose"],
        names.map((name) => [
          name,
          range(of(name), 0),
          range(
            of(name).map((v, i) => v / (koaNs[i] as number)),
            2,
          ),
        ]),
      ),
    );
    console.log(`\n${rounds} fresh process${rounds === 1 ? "" : "es"}; Node ${process.version}; copies of src/core bundled by rolldown.`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
};

await main();
