/**
 * What the LangChain adapter costs per model call and per tool call, against LangChain's own
 * middleware with the same number of layers, measured on the built package (dist/) in three
 * fresh processes, each reporting every case; the tables give min, median and max over them.
 *
 *   npm run build && npx tsx benchmarks/langchain.bench.ts [--processes 3] [--rounds 3] [--time-ms 300] [--json out.json]
 *
 * Cases, for N = 0, 1, 5, 10 layers (stacks as users make them: `createAgentStack()`, freezing
 * on, the default; the processes run with NODE_ENV=production):
 * - `model/langchain`: the `model_request` node of a `createAgent` with N
 *   `createMiddleware({ wrapModelCall: (request, handler) => handler(request) })`, invoked
 *   directly (`agent.graph.nodes.model_request.bound.invoke(state, {})`) so LangGraph's loop is
 *   left out; the model is `FakeListChatModel` from `@langchain/core/utils/testing`.
 * - `model/onion-around`, `model/onion-ba`: the same node with one `langchainMiddleware(stack)`
 *   whose stack holds N hooks on `modelCall`, `around: (ctx, next) => next()` (the shape of
 *   `wrapModelCall`) or a sync `before` and `after` returning `Continue`. At N = 0 the stack has
 *   no `modelCall` hook and the adapter adds no `wrapModelCall`: the figure is LangChain's alone.
 *   From N = 1 it includes the adapter's fixed cost: mapping messages and the answer, and the
 *   chat model it puts in the agent's model's place (a LangChain model run of its own).
 * - `tool/langchain`, `tool/onion-around`, `tool/onion-ba`: the `tools` node (one tool call, as
 *   LangChain sends each call: `{ ...state, lg_tool_call }`) with N `wrapToolCall` pass-throughs,
 *   or one adapter with N hooks on `toolCall`; the tool returns its input.
 * - `invoke/langchain`, `invoke/onion-around`: a whole `agent.invoke` (two model calls, one tool
 *   call, LangGraph's loop) with N pass-throughs on both wraps, or N around hooks on both points.
 * Each process warms every case once, then runs `rounds` rounds (alternating the order), each
 * the median of mitata samples; a process reports each case's lowest round.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { do_not_optimize, measure } from "mitata";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { FakeToolCallingModel, createAgent, createMiddleware, tool } from "langchain";
import { z } from "zod";
import { fmt, median, parseArgs, textTable } from "./util.ts";

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, "..", "dist");
const sizes = [0, 1, 5, 10] as const;
const families = [
  "model/langchain",
  "model/onion-around",
  "model/onion-ba",
  "tool/langchain",
  "tool/onion-around",
  "tool/onion-ba",
  "invoke/langchain",
  "invoke/onion-around",
] as const;
type Family = (typeof families)[number];

/** One process's figures: ns per call for each family and N. */
interface ProcessReport {
  readonly node: string;
  readonly load: number[][];
  readonly ns: Record<string, number>;
}

/** What `--json` writes. */
export interface LangChainBenchReport {
  readonly suite: "langchain";
  readonly date: string;
  readonly node: string;
  readonly processes: number;
  readonly rounds: number;
  readonly timeMs: number;
  readonly command: string;
  readonly rows: {
    readonly family: Family;
    readonly n: number;
    readonly min: number;
    readonly median: number;
    readonly max: number;
    readonly each: number[];
  }[];
}

const key = (family: Family, n: number): string => `${family}@${n}`;

type Invokable = { invoke(state: unknown, config: unknown): Promise<unknown> };
const node = (agent: unknown, name: string): Invokable => {
  const found = (agent as { graph: { nodes: Record<string, { bound: Invokable } | undefined> } }).graph.nodes[name];
  if (found === undefined) throw new Error(`langchain: no ${name} node (did createAgent change?)`);
  return found.bound;
};

/** The cases, built from the compiled package. */
const build = async (): Promise<{ family: Family; n: number; inner: number; fn: () => Promise<unknown> }[]> => {
  const adapter = (await import(
    pathToFileURL(join(dist, "adapters", "langchain.js")).href
  )) as typeof import("../src/adapters/langchain.ts");
  const onion = (await import(pathToFileURL(join(dist, "index.js")).href)) as typeof import("../src/index.ts");
  type Point = "modelCall" | "toolCall";
  const stackOf = (points: readonly Point[], n: number, shape: "around" | "ba") => {
    let stack = onion.createAgentStack();
    for (const point of points)
      for (let i = 0; i < n; i++)
        stack =
          shape === "around"
            ? stack.use(point, { name: `${point}-${i}`, around: (_ctx, next) => next() })
            : stack.use(point, { name: `${point}-${i}`, before: () => onion.Continue, after: () => onion.Continue });
    return stack;
  };
  const passThroughs = (n: number, wraps: readonly ("wrapModelCall" | "wrapToolCall")[]) =>
    Array.from({ length: n }, (_, i) =>
      createMiddleware({
        name: `pass-${i}`,
        ...(wraps.includes("wrapModelCall") ? { wrapModelCall: (request, handler) => handler(request) } : {}),
        ...(wraps.includes("wrapToolCall") ? { wrapToolCall: (request, handler) => handler(request) } : {}),
      }),
    );
  const echo = tool(async ({ x }) => x, { name: "echo", description: "Echo", schema: z.object({ x: z.string() }) });
  const call = { id: "c1", name: "echo", args: { x: "hi" }, type: "tool_call" as const };
  const toolState = { messages: [new HumanMessage("Hello"), new AIMessage({ content: "", tool_calls: [call] })], lg_tool_call: call };
  const modelState = { messages: [new HumanMessage("Hello")] };
  const agent = (middleware: unknown[], model?: unknown) =>
    createAgent({
      model: (model ?? new FakeListChatModel({ responses: ["ok"] })) as never,
      systemPrompt: "Be brief.",
      tools: [echo],
      middleware: middleware as never,
    });
  const looping = () => new FakeToolCallingModel({ toolCalls: [[{ id: "c1", name: "echo", args: { x: "hi" } }], []] });

  const cases: { family: Family; n: number; inner: number; fn: () => Promise<unknown> }[] = [];
  for (const n of sizes) {
    const model = (family: Family, middleware: unknown[]) => {
      const bound = node(agent(middleware), "model_request");
      cases.push({ family, n, inner: 4, fn: () => bound.invoke(modelState, {}) });
    };
    model("model/langchain", passThroughs(n, ["wrapModelCall"]));
    model("model/onion-around", [adapter.langchainMiddleware(stackOf(["modelCall"], n, "around"))]);
    model("model/onion-ba", [adapter.langchainMiddleware(stackOf(["modelCall"], n, "ba"))]);
    const tools = (family: Family, middleware: unknown[]) => {
      const bound = node(agent(middleware), "tools");
      cases.push({ family, n, inner: 4, fn: () => bound.invoke(toolState, {}) });
    };
    tools("tool/langchain", passThroughs(n, ["wrapToolCall"]));
    tools("tool/onion-around", [adapter.langchainMiddleware(stackOf(["toolCall"], n, "around"))]);
    tools("tool/onion-ba", [adapter.langchainMiddleware(stackOf(["toolCall"], n, "ba"))]);
    const whole = (family: Family, middleware: unknown[]) => {
      const a = agent(middleware, looping());
      cases.push({ family, n, inner: 1, fn: () => a.invoke({ messages: [new HumanMessage("Hello")] } as never) });
    };
    whole("invoke/langchain", passThroughs(n, ["wrapModelCall", "wrapToolCall"]));
    whole("invoke/onion-around", [adapter.langchainMiddleware(stackOf(["modelCall", "toolCall"], n, "around"))]);
  }
  return cases;
};

/** One process: every case, `rounds` rounds, each case's lowest round median. */
const child = async (rounds: number, timeMs: number, out: string): Promise<void> => {
  const load = [loadavg()];
  const cases = await build();
  for (const c of cases) await c.fn(); // warm every path once (and fail early if one is broken)
  const samples = new Map(cases.map((c) => [c, [] as number[]]));
  for (let r = 0; r < rounds; r++) {
    for (const c of r % 2 === 0 ? cases : [...cases].reverse()) {
      const stats = await measure(
        async () => {
          for (let k = 0; k < c.inner; k++) do_not_optimize(await c.fn());
        },
        { min_cpu_time: timeMs * 1e6, batch_samples: 8, min_samples: 8 },
      );
      samples.get(c)?.push(stats.p50 / c.inner);
    }
  }
  load.push(loadavg());
  const ns = Object.fromEntries(cases.map((c) => [key(c.family, c.n), Math.min(...(samples.get(c) ?? []))]));
  writeFileSync(out, JSON.stringify({ node: process.version, load, ns } satisfies ProcessReport));
};

const main = async (): Promise<void> => {
  const args = parseArgs(process.argv.slice(2));
  const rounds = Number(args.get("rounds") ?? 3);
  const timeMs = Number(args.get("time-ms") ?? 300);
  const childOut = args.get("child");
  if (childOut !== undefined) return child(rounds, timeMs, childOut);
  if (!existsSync(join(dist, "adapters", "langchain.js")))
    throw new Error("dist/adapters/langchain.js is missing: run npm run build first (the benchmark measures the built package)");
  const processes = Number(args.get("processes") ?? 3);
  const dir = mkdtempSync(join(tmpdir(), "agent-onion-langchain-bench-"));
  const reports: ProcessReport[] = [];
  try {
    for (let p = 0; p < processes; p++) {
      const out = join(dir, `${p}.json`);
      const run = spawnSync(
        process.execPath,
        ["--import", "tsx", fileURLToPath(import.meta.url), "--child", out, "--rounds", String(rounds), "--time-ms", String(timeMs)],
        {
          stdio: ["ignore", "inherit", "inherit"],
          env: { ...process.env, NODE_ENV: "production" },
        },
      );
      if (run.status !== 0 || !existsSync(out)) throw new Error(`benchmark process ${p + 1} failed (exit ${run.status ?? run.signal})`);
      reports.push(JSON.parse(readFileSync(out, "utf8")) as ProcessReport);
      process.stderr.write(`process ${p + 1}/${processes} done\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const each = (family: Family, n: number): number[] => reports.map((r) => r.ns[key(family, n)] ?? Number.NaN);
  const stat = (family: Family, n: number) => {
    const v = each(family, n);
    return { min: Math.min(...v), median: median(v), max: Math.max(...v) };
  };
  const us = (ns: number): string => fmt(ns / 1000, 1);
  const cell = (family: Family, n: number): string => {
    const s = stat(family, n);
    return `${us(s.median)} (${us(s.min)}–${us(s.max)})`;
  };
  console.log(
    `Node ${process.version}; ${processes} processes x ${rounds} rounds x ${timeMs} ms; load ${reports.map((r) => r.load.map((l) => l[0]?.toFixed(1)).join("->")).join(", ")}`,
  );
  console.log(`µs per call, median over processes (min–max)\n`);
  console.log(
    textTable(
      ["case", ...sizes.map((n) => `N=${n}`)],
      families.map((f) => [f, ...sizes.map((n) => cell(f, n))]),
    ),
  );
  const perLayer = (family: Family): number => (stat(family, 10).median - stat(family, 1).median) / 9;
  const fixed = (onionFamily: Family, theirs: Family): number => stat(onionFamily, 1).median - stat(theirs, 1).median;
  console.log(
    `\nPer layer (N=1 to N=10, medians), ns: model: LangChain ${fmt(perLayer("model/langchain"))}, onion around ${fmt(perLayer("model/onion-around"))}, onion before/after ${fmt(perLayer("model/onion-ba"))}; ` +
      `tool: LangChain ${fmt(perLayer("tool/langchain"))}, onion around ${fmt(perLayer("tool/onion-around"))}, onion before/after ${fmt(perLayer("tool/onion-ba"))}`,
  );
  console.log(
    `Adapter's fixed cost over one LangChain layer (N=1, medians), µs: model call ${us(fixed("model/onion-around", "model/langchain"))}, tool call ${us(fixed("tool/onion-around", "tool/langchain"))}`,
  );
  const out = args.get("json");
  if (out !== undefined) {
    const rows = families.flatMap((family) => sizes.map((n) => ({ family, n, ...stat(family, n), each: each(family, n) })));
    const report: LangChainBenchReport = {
      suite: "langchain",
      date: new Date().toISOString(),
      node: process.version,
      processes,
      rounds,
      timeMs,
      command: `npx tsx benchmarks/langchain.bench.ts --processes ${processes} --rounds ${rounds} --time-ms ${timeMs}`,
      rows,
    };
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  }
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
