/**
 * Hook overhead around one provider call, with N = 0, 1, 5, 20 pass-through layers:
 * agent-onion (`aiSdkMiddleware` inside `wrapLanguageModel`, and `wrapModel`) against the AI
 * SDK's own `wrapLanguageModel` middleware and LangChain's `createAgent` `wrapModelCall`.
 *
 *   npm run build && npx tsx benchmarks/ai-sdk.bench.ts [--rounds 3] [--time-ms 300] [--json out.json]
 *     [--from dist|src] [--clock cpu|wall] [--families ai-sdk,onion-mw-around] [--sizes 0,1] [--warmup 2000]
 *     [--freeze on|off]
 *
 * `npm run bench` runs it (shorter, see run.ts) and writes `benchmarks/results/ai-sdk.json`.
 * agent-onion is loaded from the built `dist/` (what users run; `npm run build` first), or from
 * `src/` through tsx with `--from src`. Times are this process's CPU time by default (everything
 * timed runs on the main thread without I/O, so on an idle machine it equals wall time, and on a
 * busy one it leaves out the time other processes held the CPU); `--clock wall` for wall time.
 * `--families` and `--sizes` time only those cases. Every case is called `--warmup` times before
 * any is timed (LangChain's, whose calls take far longer and are timed 4 rather than 32 to a
 * sample, an eighth of that).
 *
 * What is timed, per case (each call awaited; the provider is `MockLanguageModelV3.doGenerate`
 * answering a fixed result, its call log disabled so it does not grow):
 * - `bare`: `mock.doGenerate(params)`, the floor.
 * - `ai-sdk`: `wrapLanguageModel({ model: mock, middleware })` with N middlewares
 *   `wrapGenerate: ({ doGenerate }) => doGenerate()`, calling `wrapped.doGenerate(params)`.
 * - `onion-mw-around` / `onion-mw-ba`: `wrapLanguageModel({ model: mock, middleware:
 *   aiSdkMiddleware(stack) })`, the stack holding N `around: (ctx, next) => next()` hooks (the
 *   same shape as `wrapGenerate`), or N hooks with a sync `before` and `after` returning
 *   `Continue`. This includes the adapter's fixed cost: mapping the SDK's params to a
 *   `ModelRequest` and the result to a `ModelResponse` (N = 0 still pays it).
 * - `ai-sdk-signal` / `onion-mw-around-signal`: `ai-sdk` and `onion-mw-around` called with an
 *   `abortSignal` in the params, as `generateText({ abortSignal })` passes one (a run with a
 *   caller signal must settle when it aborts, R7).
 * - `engine-floor`: not agent-onion's middleware but the least any middleware running the stack
 *   can cost: a `wrapGenerate` that runs `stack.run("modelCall", request, op)` with the same N
 *   around hooks, where the request and response were mapped once, ahead, and `op` awaits
 *   `doGenerate()`. `onion-mw-around` minus this is what the adapter's mapping costs.
 * - `onion-wrapModel`: `wrapModel(stack, model).generate(request)` with the same N around
 *   hooks, where `model.generate` calls `mock.doGenerate(params)` and returns a fixed response:
 *   agent-onion's own provider wrapper, no AI SDK mapping.
 * - `langchain`: the `model_request` node of a `createAgent` (langchain 1.x) with N
 *   `createMiddleware({ wrapModelCall: (req, handler) => handler(req) })`, invoked directly
 *   (`agent.graph.nodes.model_request.bound.invoke(state, {})`) so the LangGraph loop is left
 *   out; the model is `FakeListChatModel` from `@langchain/core/utils/testing` (LangChain cannot
 *   take an AI SDK model). This is the most direct public path to LangChain's `wrapModelCall`
 *   composition; it includes the node's own work (binding tools, building messages, the chat
 *   model's `invoke` with its callback manager), so compare its ns per layer, not its total.
 * All stacks freeze what hooks see (`freeze: true`, the default; R9); `--freeze off` times stacks
 * made with `freeze: false`, the opt-out for hot paths. The figure is the lowest over
 * rounds of each round's median sample; "per layer" is (t_N − t_0) / N within a family.
 */
import { existsSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { do_not_optimize, measure } from "mitata";
import type { LanguageModelV3Middleware } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { HumanMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { createAgent, createMiddleware } from "langchain";
import type { AgentStack, ModelRequest, ModelResponse } from "../src/index.ts";
import { fmt, median, parseArgs, textTable } from "./util.ts";

type Library = typeof import("../src/index.ts");

/** agent-onion as users run it (`dist/`), or its source. */
const load = async (from: string): Promise<Library> => {
  if (from === "src") return import("../src/index.ts");
  if (from !== "dist") throw new Error(`--from ${from}: expected dist or src`);
  const built = new URL("../dist/index.js", import.meta.url);
  if (!existsSync(fileURLToPath(built)))
    throw new Error("benchmarks/ai-sdk.bench.ts: dist/ is missing; run `npm run build` first (or pass --from src)");
  return (await import(built.href)) as Library;
};

let lib: Library;

const allSizes = [0, 1, 5, 20] as const;
let sizes: readonly number[] = allSizes;
/** Whether the stacks freeze what hooks see (`--freeze`). */
let freeze = true;

export type AdapterFamily =
  | "bare"
  | "ai-sdk"
  | "onion-mw-around"
  | "onion-mw-ba"
  | "onion-wrapModel"
  | "langchain"
  | "ai-sdk-signal"
  | "onion-mw-around-signal"
  | "engine-floor";

export interface AdapterRow {
  readonly family: AdapterFamily;
  readonly n: number;
  /** The figure used: the lowest over rounds of the round's median sample, ns per call. */
  readonly ns: number;
  /** Each round's median sample, ns per call. */
  readonly rounds: number[];
  readonly median: number;
}

/** What `--json` writes (`benchmarks/results/ai-sdk.json` under `npm run bench`). */
export interface AdapterReport {
  readonly suite: "adapters";
  readonly date: string;
  readonly node: string;
  readonly rounds: number;
  readonly timeMs: number;
  /** `os.loadavg()` before and after. */
  readonly load: number[][];
  readonly rows: AdapterRow[];
  /** Where agent-onion was loaded from: the built `dist/` or `src/` (reports before this field: `src`). */
  readonly from?: "dist" | "src";
  /** What timed the samples: this process's CPU time, or the wall clock (reports before this field: `wall`). */
  readonly clock?: "cpu" | "wall";
  /** Whether the stacks froze what hooks see (reports before this field: stacks made with `strict: false`). */
  readonly freeze?: boolean;
  /** Set by `benchmarks/run.ts`. */
  readonly command?: string;
}

const result = {
  content: [{ type: "text" as const, text: "ok" }],
  finishReason: { unified: "stop" as const, raw: "stop" },
  usage: { inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
  warnings: [],
};
const params = {
  prompt: [
    { role: "system" as const, content: "Be brief." },
    { role: "user" as const, content: [{ type: "text" as const, text: "Hello" }] },
  ],
};
/** The same call with a caller's signal that never aborts. */
const signalled = { ...params, abortSignal: new AbortController().signal };
const request: ModelRequest = {
  model: "mock-model-id",
  messages: [
    { role: "system", content: "Be brief." },
    { role: "user", content: "Hello" },
  ],
};
const response: ModelResponse = { text: "ok", toolCalls: [], finishReason: "stop", usage: { inputTokens: 12, outputTokens: 1 } };

const mock = (): MockLanguageModelV3 => {
  const model = new MockLanguageModelV3({ doGenerate: async () => result });
  // The mock logs every call; that would grow for the whole run. Every case pays the same.
  (model as unknown as { doGenerateCalls: { push(x: unknown): void } }).doGenerateCalls = { push: () => {} };
  return model;
};

const aroundStack = (n: number): AgentStack => {
  let stack = lib.createAgentStack({ freeze });
  for (let i = 0; i < n; i++) stack = stack.use("modelCall", { name: `pass-${i}`, around: (_ctx, next) => next() });
  return stack;
};
const beforeAfterStack = (n: number): AgentStack => {
  let stack = lib.createAgentStack({ freeze });
  for (let i = 0; i < n; i++) stack = stack.use("modelCall", { name: `pass-${i}`, before: () => lib.Continue, after: () => lib.Continue });
  return stack;
};

type Fn = () => PromiseLike<unknown>;
interface Case {
  readonly family: AdapterFamily;
  readonly n: number;
  readonly fn: Fn;
  readonly inner: number;
}

const build = (families: ReadonlySet<string> | undefined): Case[] => {
  const cases: Case[] = [];
  const bare = mock();
  cases.push({ family: "bare", n: 0, inner: 32, fn: () => bare.doGenerate(params) });
  const { aiSdkMiddleware, wrapModel } = lib;
  for (const n of sizes) {
    const sdk = wrapLanguageModel({
      model: mock(),
      middleware: Array.from(
        { length: n },
        (): LanguageModelV3Middleware => ({ specificationVersion: "v3", wrapGenerate: ({ doGenerate }) => doGenerate() }),
      ),
    });
    cases.push({ family: "ai-sdk", n, inner: 32, fn: () => sdk.doGenerate(params) });
    const around = wrapLanguageModel({ model: mock(), middleware: aiSdkMiddleware(aroundStack(n)) });
    cases.push({ family: "onion-mw-around", n, inner: 32, fn: () => around.doGenerate(params) });
    cases.push({ family: "ai-sdk-signal", n, inner: 32, fn: () => sdk.doGenerate(signalled) });
    cases.push({ family: "onion-mw-around-signal", n, inner: 32, fn: () => around.doGenerate(signalled) });
    const ba = wrapLanguageModel({ model: mock(), middleware: aiSdkMiddleware(beforeAfterStack(n)) });
    cases.push({ family: "onion-mw-ba", n, inner: 32, fn: () => ba.doGenerate(params) });
    const floorStack = aroundStack(n);
    const floor = wrapLanguageModel({
      model: mock(),
      middleware: {
        specificationVersion: "v3",
        wrapGenerate: async ({ doGenerate }) => {
          let result: unknown;
          await floorStack.run("modelCall", request, async () => ((result = await doGenerate()), response));
          return result as Awaited<ReturnType<typeof doGenerate>>;
        },
      },
    });
    cases.push({ family: "engine-floor", n, inner: 32, fn: () => floor.doGenerate(params) });
    const inner = mock();
    const wrapped = wrapModel(aroundStack(n), { id: "mock-model-id", generate: async () => (await inner.doGenerate(params), response) });
    cases.push({ family: "onion-wrapModel", n, inner: 32, fn: () => wrapped.generate(request) });
    const agent = createAgent({
      model: new FakeListChatModel({ responses: ["ok"] }),
      systemPrompt: "Be brief.",
      tools: [],
      middleware: Array.from({ length: n }, (_, i) =>
        createMiddleware({ name: `pass-${i}`, wrapModelCall: (req, handler) => handler(req) }),
      ),
    });
    const node = (
      agent as unknown as { graph: { nodes: Record<string, { bound: { invoke(state: unknown, config: unknown): Promise<unknown> } }> } }
    ).graph.nodes.model_request;
    if (node === undefined) throw new Error("langchain: no model_request node (did createAgent change?)");
    const state = { messages: [new HumanMessage("Hello")] };
    cases.push({ family: "langchain", n, inner: 4, fn: () => node.bound.invoke(state, {}) });
  }
  return families === undefined ? cases : cases.filter((c) => families.has(c.family));
};

/** This process's CPU time in ns (µs resolution; samples are hundreds of µs). */
const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1e3;
};

const time = async (c: Case, timeMs: number, clock: "cpu" | "wall"): Promise<number> => {
  const { fn, inner } = c;
  const stats = await measure(
    async () => {
      for (let k = 0; k < inner; k++) do_not_optimize(await fn());
    },
    { min_cpu_time: timeMs * 1e6, batch_samples: 16, min_samples: 8, ...(clock === "cpu" ? { now: cpuNow } : {}) },
  );
  return stats.p50 / inner;
};

const main = async (): Promise<void> => {
  const args = parseArgs(process.argv.slice(2));
  const rounds = Number(args.get("rounds") ?? 3);
  const timeMs = Number(args.get("time-ms") ?? 300);
  const from = args.get("from") ?? "dist";
  const clock = args.get("clock") ?? "cpu";
  if (clock !== "cpu" && clock !== "wall") throw new Error(`--clock ${clock}: expected cpu or wall`);
  lib = await load(from);
  const frozen = args.get("freeze") ?? "on";
  if (frozen !== "on" && frozen !== "off") throw new Error(`--freeze ${frozen}: expected on or off`);
  freeze = frozen === "on";
  const only = args.get("families")?.split(",");
  if (args.has("sizes")) sizes = (args.get("sizes") ?? "").split(",").map(Number);
  const loads = [loadavg()];
  const cases = build(only === undefined ? undefined : new Set(["bare", ...only]));
  // Warm every path (and fail early if one is broken): the same number of calls for each case, so
  // the JIT has settled on every path before any is timed. With a single call, a process could
  // settle on a slow state of the promise machinery for the whole run (about 1.5x).
  const warmup = Number(args.get("warmup") ?? 2000);
  for (const c of cases) for (let i = 0; i < Math.max(1, Math.ceil(warmup / (32 / c.inner))); i++) await c.fn();
  const samples = new Map<Case, number[]>(cases.map((c) => [c, []]));
  for (let r = 0; r < rounds; r++) {
    for (const c of r % 2 === 0 ? cases : [...cases].reverse()) samples.get(c)?.push(await time(c, timeMs, clock));
    process.stderr.write(`round ${r + 1}/${rounds} done\n`);
  }
  loads.push(loadavg());
  const ns = (family: string, n: number): number => {
    const c = cases.find((x) => x.family === family && x.n === n);
    return c === undefined ? Number.NaN : Math.min(...(samples.get(c) ?? []));
  };
  const families = [
    "ai-sdk",
    "onion-mw-around",
    "onion-mw-ba",
    "engine-floor",
    "onion-wrapModel",
    "langchain",
    "ai-sdk-signal",
    "onion-mw-around-signal",
  ].filter((f) => only?.includes(f) ?? true);
  const perLayer = (family: string, n: number): number => (ns(family, n) - ns(family, 0)) / n;
  console.log(
    `Node ${process.version}, agent-onion from ${from}/, freeze ${frozen}, ${clock} clock, ${rounds} rounds x ${timeMs} ms; load ${loads.map((l) => l.map((x) => x.toFixed(1)).join(" ")).join(" -> ")}`,
  );
  console.log(`bare mock.doGenerate: ${fmt(ns("bare", 0))} ns/call\n`);
  console.log(
    textTable(
      ["family", ...sizes.map((n) => `N=${n} ns`), "ns/layer (N=20)"],
      families.map((f) => [f, ...sizes.map((n) => fmt(ns(f, n))), fmt(perLayer(f, 20), 1)]),
    ),
  );
  const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}x`;
  console.log(`\nRatios (total time per call; < 1 means agent-onion is faster)`);
  const ratios: [string, string][] = [
    ["onion-mw-around", "ai-sdk"],
    ["onion-mw-ba", "ai-sdk"],
    ["engine-floor", "ai-sdk"],
    ["onion-wrapModel", "ai-sdk"],
    ["onion-mw-around", "langchain"],
    ["onion-mw-around-signal", "ai-sdk-signal"],
  ];
  console.log(
    textTable(
      ["ratio", ...sizes.map((n) => `N=${n}`)],
      ratios
        .filter(([a, b]) => families.includes(a) && families.includes(b))
        .map(([a, b]) => [`${a} / ${b}`, ...sizes.map((n) => ratio(ns(a, n), ns(b, n)))]),
    ),
  );
  console.log(
    `\nPer layer at N=20: onion around ${fmt(perLayer("onion-mw-around", 20), 1)} ns, onion before/after ${fmt(perLayer("onion-mw-ba", 20), 1)} ns, ` +
      `AI SDK ${fmt(perLayer("ai-sdk", 20), 1)} ns, LangChain ${fmt(perLayer("langchain", 20), 1)} ns (median of rounds would differ; see --json)`,
  );
  const out = args.get("json");
  if (out !== undefined) {
    const rows: AdapterRow[] = cases.map((c) => ({
      family: c.family,
      n: c.n,
      ns: Math.min(...(samples.get(c) ?? [])),
      rounds: samples.get(c) ?? [],
      median: median(samples.get(c) ?? []),
    }));
    const report: AdapterReport = {
      suite: "adapters",
      date: new Date().toISOString(),
      node: process.version,
      rounds,
      timeMs,
      load: loads,
      rows,
      from: from as "dist" | "src",
      clock,
      freeze,
    };
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  }
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
