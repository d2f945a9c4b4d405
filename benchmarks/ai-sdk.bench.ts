/**
 * Hook overhead around one provider call, with N = 0, 1, 5, 20 pass-through layers:
 * agent-onion (`aiSdkMiddleware` inside `wrapLanguageModel`, and `wrapModel`) against the AI
 * SDK's own `wrapLanguageModel` middleware and LangChain's `createAgent` `wrapModelCall`.
 *
 *   npx tsx benchmarks/ai-sdk.bench.ts [--rounds 3] [--time-ms 300] [--json out.json]
 *
 * `npm run bench` runs it (shorter, see run.ts) and writes `benchmarks/results/ai-sdk.json`.
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
 * All stacks use `strict: false` (the production default). The figure is the lowest over
 * rounds of each round's median sample; "per layer" is (t_N − t_0) / N within a family.
 */
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { do_not_optimize, measure } from "mitata";
import type { LanguageModelV3Middleware } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { HumanMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { createAgent, createMiddleware } from "langchain";
import { aiSdkMiddleware } from "../src/ai-sdk.ts";
import { Continue, createAgentStack, wrapModel, type AgentStack, type ModelRequest, type ModelResponse } from "../src/index.ts";
import { fmt, median, parseArgs, textTable } from "./util.ts";

const sizes = [0, 1, 5, 20] as const;

export type AdapterFamily = "bare" | "ai-sdk" | "onion-mw-around" | "onion-mw-ba" | "onion-wrapModel" | "langchain" | "ai-sdk-signal" | "onion-mw-around-signal";

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
  /** Set by `benchmarks/run.ts`. */
  readonly command?: string;
}

const result = {
  content: [{ type: "text" as const, text: "ok" }],
  finishReason: { unified: "stop" as const, raw: "stop" },
  usage: { inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
  warnings: [],
};
const params = { prompt: [{ role: "system" as const, content: "Be brief." }, { role: "user" as const, content: [{ type: "text" as const, text: "Hello" }] }] };
/** The same call with a caller's signal that never aborts. */
const signalled = { ...params, abortSignal: new AbortController().signal };
const request: ModelRequest = { model: "mock-model-id", messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hello" }] };
const response: ModelResponse = { text: "ok", toolCalls: [], finishReason: "stop", usage: { inputTokens: 12, outputTokens: 1 } };

const mock = (): MockLanguageModelV3 => {
  const model = new MockLanguageModelV3({ doGenerate: async () => result });
  // The mock logs every call; that would grow for the whole run. Every case pays the same.
  (model as unknown as { doGenerateCalls: { push(x: unknown): void } }).doGenerateCalls = { push: () => {} };
  return model;
};

const aroundStack = (n: number): AgentStack => {
  let stack = createAgentStack({ strict: false });
  for (let i = 0; i < n; i++) stack = stack.use("modelCall", { name: `pass-${i}`, around: (_ctx, next) => next() });
  return stack;
};
const beforeAfterStack = (n: number): AgentStack => {
  let stack = createAgentStack({ strict: false });
  for (let i = 0; i < n; i++) stack = stack.use("modelCall", { name: `pass-${i}`, before: () => Continue, after: () => Continue });
  return stack;
};

type Fn = () => PromiseLike<unknown>;
interface Case { readonly family: AdapterFamily; readonly n: number; readonly fn: Fn; readonly inner: number }

const build = (): Case[] => {
  const cases: Case[] = [];
  const bare = mock();
  cases.push({ family: "bare", n: 0, inner: 32, fn: () => bare.doGenerate(params) });
  for (const n of sizes) {
    const sdk = wrapLanguageModel({
      model: mock(),
      middleware: Array.from({ length: n }, (): LanguageModelV3Middleware => ({ specificationVersion: "v3", wrapGenerate: ({ doGenerate }) => doGenerate() })),
    });
    cases.push({ family: "ai-sdk", n, inner: 32, fn: () => sdk.doGenerate(params) });
    const around = wrapLanguageModel({ model: mock(), middleware: aiSdkMiddleware(aroundStack(n)) });
    cases.push({ family: "onion-mw-around", n, inner: 32, fn: () => around.doGenerate(params) });
    cases.push({ family: "ai-sdk-signal", n, inner: 32, fn: () => sdk.doGenerate(signalled) });
    cases.push({ family: "onion-mw-around-signal", n, inner: 32, fn: () => around.doGenerate(signalled) });
    const ba = wrapLanguageModel({ model: mock(), middleware: aiSdkMiddleware(beforeAfterStack(n)) });
    cases.push({ family: "onion-mw-ba", n, inner: 32, fn: () => ba.doGenerate(params) });
    const inner = mock();
    const wrapped = wrapModel(aroundStack(n), { id: "mock-model-id", generate: async () => (await inner.doGenerate(params), response) });
    cases.push({ family: "onion-wrapModel", n, inner: 32, fn: () => wrapped.generate(request) });
    const agent = createAgent({
      model: new FakeListChatModel({ responses: ["ok"] }),
      systemPrompt: "Be brief.",
      tools: [],
      middleware: Array.from({ length: n }, (_, i) => createMiddleware({ name: `pass-${i}`, wrapModelCall: (req, handler) => handler(req) })),
    });
    const node = (agent as unknown as { graph: { nodes: Record<string, { bound: { invoke(state: unknown, config: unknown): Promise<unknown> } }> } }).graph.nodes.model_request;
    if (node === undefined) throw new Error("langchain: no model_request node (did createAgent change?)");
    const state = { messages: [new HumanMessage("Hello")] };
    cases.push({ family: "langchain", n, inner: 4, fn: () => node.bound.invoke(state, {}) });
  }
  return cases;
};

const time = async (c: Case, timeMs: number): Promise<number> => {
  const { fn, inner } = c;
  const stats = await measure(async () => {
    for (let k = 0; k < inner; k++) do_not_optimize(await fn());
  }, { min_cpu_time: timeMs * 1e6, batch_samples: 16, min_samples: 8 });
  return stats.p50 / inner;
};

const main = async (): Promise<void> => {
  const args = parseArgs(process.argv.slice(2));
  const rounds = Number(args.get("rounds") ?? 3);
  const timeMs = Number(args.get("time-ms") ?? 300);
  const load = [loadavg()];
  const cases = build();
  for (const c of cases) await c.fn(); // warm every path once (and fail early if one is broken)
  const samples = new Map<Case, number[]>(cases.map((c) => [c, []]));
  for (let r = 0; r < rounds; r++) {
    for (const c of r % 2 === 0 ? cases : [...cases].reverse()) samples.get(c)?.push(await time(c, timeMs));
    process.stderr.write(`round ${r + 1}/${rounds} done\n`);
  }
  load.push(loadavg());
  const ns = (family: string, n: number): number => {
    const c = cases.find((x) => x.family === family && x.n === n);
    return c === undefined ? Number.NaN : Math.min(...(samples.get(c) ?? []));
  };
  const families = ["ai-sdk", "onion-mw-around", "onion-mw-ba", "onion-wrapModel", "langchain", "ai-sdk-signal", "onion-mw-around-signal"];
  const perLayer = (family: string, n: number): number => (ns(family, n) - ns(family, 0)) / n;
  console.log(`Node ${process.version}, ${rounds} rounds x ${timeMs} ms; load ${load.map((l) => l.map((x) => x.toFixed(1)).join(" ")).join(" -> ")}`);
  console.log(`bare mock.doGenerate: ${fmt(ns("bare", 0))} ns/call\n`);
  console.log(textTable(["family", ...sizes.map((n) => `N=${n} ns`), "ns/layer (N=20)"], families.map((f) => [f, ...sizes.map((n) => fmt(ns(f, n))), fmt(perLayer(f, 20), 1)])));
  const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}x`;
  console.log(`\nRatios (total time per call; < 1 means agent-onion is faster)`);
  console.log(textTable(["ratio", ...sizes.map((n) => `N=${n}`)], [
    ["onion-mw-around / ai-sdk", ...sizes.map((n) => ratio(ns("onion-mw-around", n), ns("ai-sdk", n)))],
    ["onion-mw-ba / ai-sdk", ...sizes.map((n) => ratio(ns("onion-mw-ba", n), ns("ai-sdk", n)))],
    ["onion-wrapModel / ai-sdk", ...sizes.map((n) => ratio(ns("onion-wrapModel", n), ns("ai-sdk", n)))],
    ["onion-mw-around / langchain", ...sizes.map((n) => ratio(ns("onion-mw-around", n), ns("langchain", n)))],
    ["onion-mw-around-signal / ai-sdk-signal", ...sizes.map((n) => ratio(ns("onion-mw-around-signal", n), ns("ai-sdk-signal", n)))],
  ]));
  console.log(`\nPer layer at N=20: onion around ${fmt(perLayer("onion-mw-around", 20), 1)} ns, onion before/after ${fmt(perLayer("onion-mw-ba", 20), 1)} ns, ` +
    `AI SDK ${fmt(perLayer("ai-sdk", 20), 1)} ns, LangChain ${fmt(perLayer("langchain", 20), 1)} ns (median of rounds would differ; see --json)`);
  const out = args.get("json");
  if (out !== undefined) {
    const rows: AdapterRow[] = cases.map((c) => ({ family: c.family, n: c.n, ns: Math.min(...(samples.get(c) ?? [])), rounds: samples.get(c) ?? [], median: median(samples.get(c) ?? []) }));
    const report: AdapterReport = { suite: "adapters", date: new Date().toISOString(), node: process.version, rounds, timeMs, load, rows };
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  }
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
