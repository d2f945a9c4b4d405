/**
 * What the OpenAI Agents adapter costs per model call and per tool call, against the SDK's own
 * way of layering the same calls, with N = 0, 1, 5, 20 pass-through layers, on the built
 * package (`dist/`), each case measured in three fresh Node processes.
 *
 *   npm run build && npx tsx benchmarks/openai-agents.bench.ts [--processes 3] [--time-ms 200] [--json out.json]
 *
 * The SDK has no model middleware and no per-call tool middleware of its own beyond tool
 * guardrails, so "the SDK's own layers" are what an SDK user writes today:
 * - model call, `sdk`: N nested pass-through `Model` decorators (`getResponse: (r) => inner.getResponse(r)`);
 *   `onion-around` / `onion-ba`: `guardModel(stack)` with N `around: (ctx, next) => next()` hooks, or N hooks
 *   with a sync `before` and `after` returning `Continue`. Each calls `getResponse(request)` as the runner does;
 *   the model answers a fixed response. N = 0 is the model itself (a stack without hooks is not wrapped);
 *   N >= 1 includes the adapter's fixed cost (mapping the request and the response).
 * - tool call, the path the runner takes for one function call: `needsApproval`, the tool input
 *   guardrails, `invokeFunctionTool`, the tool output guardrails. `sdk`: N input and N output
 *   guardrails answering `allow` (each layer sees the call before and the result after, as one
 *   before/after hook does); `onion-around` / `onion-ba`: `guardTool(stack)` with N hooks, no guardrails.
 * - a whole run, `run(agent, input)`: the model calls one tool, then answers (two model calls, one
 *   tool call, the SDK's runner, tracing off). `sdk`: N model decorators and N tool guardrail pairs;
 *   `onion`: `guardAgent(stack)` with N around hooks on `modelCall` and N on `toolCall`.
 * All stacks use `strict: false` (the production default). Per process, a case's figure is the
 * median sample of CPU time per call (see `time`); the table gives min / median / max over the processes.
 */
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { do_not_optimize } from "mitata";
import {
  Agent,
  RunContext,
  Usage,
  invokeFunctionTool,
  run,
  runToolInputGuardrails,
  runToolOutputGuardrails,
  setTracingDisabled,
  tool,
  ToolGuardrailFunctionOutputFactory,
  type FunctionTool,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type StreamEvent,
} from "@openai/agents";
import { z } from "zod";
import { fmt, median, parseArgs, textTable } from "./util.ts";

setTracingDisabled(true);

const sizes = [0, 1, 5, 20] as const;
const dist = new URL("../dist/", import.meta.url);

type Onion = typeof import("../src/index.ts");
type Adapter = typeof import("../src/adapters/openai-agents/index.ts");

export interface OpenAiAgentsRow {
  readonly kind: "model" | "tool" | "run";
  readonly family: "bare" | "sdk" | "onion-around" | "onion-ba" | "onion";
  readonly n: number;
  /** Each process's median sample of CPU time, ns per call (per run for `run`). */
  readonly samples: number[];
}

/** What `--json` writes. */
export interface OpenAiAgentsReport {
  readonly suite: "openai-agents";
  readonly date: string;
  readonly node: string;
  readonly processes: number;
  readonly timeMs: number;
  readonly load: number[][];
  readonly rows: OpenAiAgentsRow[];
}

const usage = new Usage({ requests: 1, inputTokens: 12, outputTokens: 3, totalTokens: 15 });
const text: ModelResponse = {
  usage,
  output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "ok" }] }],
};
const call: ModelResponse = {
  usage,
  output: [{ type: "function_call", callId: "call_1", name: "lookup", arguments: '{"q":"tides"}', status: "completed" }],
};
const request: ModelRequest = {
  systemInstructions: "Be brief.",
  input: [{ type: "message", role: "user", content: "Hello" }],
  modelSettings: {},
  tools: [],
  handoffs: [],
  outputType: "text",
  tracing: false,
};

/** A model that calls `lookup` once, then answers: stateless, so every run and call is the same. */
const fixedModel = (): Model => ({
  getResponse: async (req) =>
    Array.isArray(req.input) && req.input.some((i) => (i as { type?: string }).type === "function_call_result") ? text : call,
  getStreamedResponse: async function* (): AsyncIterable<StreamEvent> {
    throw new Error("not streamed here");
  },
});
/** A model that always answers text, for the per-call model cases. */
const textModel = (): Model => ({ getResponse: async () => text, getStreamedResponse: fixedModel().getStreamedResponse });

const decorate = (model: Model, n: number): Model => {
  let m = model;
  for (let i = 0; i < n; i++) {
    const inner = m;
    m = { getResponse: (r) => inner.getResponse(r), getStreamedResponse: (r) => inner.getStreamedResponse(r) };
  }
  return m;
};

const lookup = () =>
  tool({ name: "lookup", description: "Look up", parameters: z.object({ q: z.string() }), execute: async ({ q }) => `found ${q}` });
const guardrails = (n: number) => ({
  inputGuardrails: Array.from({ length: n }, (_, i) => ({
    type: "tool_input" as const,
    name: `in-${i}`,
    run: async () => ToolGuardrailFunctionOutputFactory.allow(),
  })),
  outputGuardrails: Array.from({ length: n }, (_, i) => ({
    type: "tool_output" as const,
    name: `out-${i}`,
    run: async () => ToolGuardrailFunctionOutputFactory.allow(),
  })),
});

type Fn = () => PromiseLike<unknown>;
interface Case {
  readonly kind: OpenAiAgentsRow["kind"];
  readonly family: OpenAiAgentsRow["family"];
  readonly n: number;
  readonly inner: number;
  readonly fn: Fn;
}

const build = async (): Promise<Case[]> => {
  const onion = (await import(new URL("index.js", dist).href)) as Onion;
  const adapter = (await import(new URL("adapters/openai-agents/index.js", dist).href)) as Adapter;
  const stack = (point: "modelCall" | "toolCall" | "both", n: number, shape: "around" | "ba") => {
    let s = onion.createAgentStack({ strict: false });
    const points = point === "both" ? (["modelCall", "toolCall"] as const) : ([point] as const);
    for (const p of points)
      for (let i = 0; i < n; i++)
        s =
          shape === "around"
            ? s.use(p, { name: `pass-${i}`, around: (_ctx, next) => next() })
            : s.use(p, { name: `pass-${i}`, before: () => onion.Continue, after: () => onion.Continue });
    return s;
  };
  /** The runner's path for one function call (see the top of this file). */
  const toolPath = (t: FunctionTool<any, any, any>): Fn => {
    const agent = new Agent({ name: "bench" });
    const toolCall = {
      type: "function_call" as const,
      callId: "call_1",
      name: "lookup",
      arguments: '{"q":"tides"}',
      status: "completed" as const,
    };
    return async () => {
      const context = new RunContext();
      if (await t.needsApproval(context, { q: "tides" }, toolCall.callId)) throw new Error("unexpected approval");
      await runToolInputGuardrails({ guardrails: t.inputGuardrails ?? [], context, agent, toolCall });
      const output = await invokeFunctionTool({ tool: t, runContext: context, input: toolCall.arguments, details: { toolCall } });
      return runToolOutputGuardrails({ guardrails: t.outputGuardrails ?? [], context, agent, toolCall, toolOutput: output });
    };
  };
  const cases: Case[] = [];
  for (const n of sizes) {
    if (n === 0) {
      const bare = textModel();
      cases.push({ kind: "model", family: "bare", n, inner: 256, fn: () => bare.getResponse(request) });
      cases.push({ kind: "tool", family: "bare", n, inner: 32, fn: toolPath(lookup()) });
      const agent = new Agent({ name: "bench", tools: [lookup()], model: fixedModel() });
      cases.push({ kind: "run", family: "bare", n, inner: 2, fn: () => run(agent, "Hello") });
      continue;
    }
    const sdkModel = decorate(textModel(), n);
    cases.push({ kind: "model", family: "sdk", n, inner: 256, fn: () => sdkModel.getResponse(request) });
    const around = adapter.guardModel(stack("modelCall", n, "around"), textModel());
    cases.push({ kind: "model", family: "onion-around", n, inner: 256, fn: () => around.getResponse(request) });
    const ba = adapter.guardModel(stack("modelCall", n, "ba"), textModel());
    cases.push({ kind: "model", family: "onion-ba", n, inner: 256, fn: () => ba.getResponse(request) });

    cases.push({ kind: "tool", family: "sdk", n, inner: 32, fn: toolPath({ ...lookup(), ...guardrails(n) }) });
    cases.push({
      kind: "tool",
      family: "onion-around",
      n,
      inner: 32,
      fn: toolPath(adapter.guardTool(stack("toolCall", n, "around"), lookup())),
    });
    cases.push({ kind: "tool", family: "onion-ba", n, inner: 32, fn: toolPath(adapter.guardTool(stack("toolCall", n, "ba"), lookup())) });

    const sdkAgent = new Agent({ name: "bench", tools: [{ ...lookup(), ...guardrails(n) }], model: decorate(fixedModel(), n) });
    cases.push({ kind: "run", family: "sdk", n, inner: 2, fn: () => run(sdkAgent, "Hello") });
    const onionAgent = adapter.guardAgent(stack("both", n, "around"), new Agent({ name: "bench", tools: [lookup()], model: fixedModel() }));
    cases.push({ kind: "run", family: "onion", n, inner: 2, fn: () => run(onionAgent, "Hello") });
  }
  return cases;
};

/**
 * The median of samples of `inner` awaited calls, each timed with the process's CPU time: the
 * machine is shared, and CPU time leaves out what other processes held the CPU (everything
 * measured runs on the main thread without I/O). Samples are taken for `timeMs` of CPU time.
 */
const time = async (c: Case, timeMs: number): Promise<number> => {
  const { fn, inner } = c;
  const samples: number[] = [];
  let spent = 0;
  while (spent < timeMs * 1000 || samples.length < 16) {
    const start = process.cpuUsage();
    for (let k = 0; k < inner; k++) do_not_optimize(await fn());
    const used = process.cpuUsage(start);
    const us = used.user + used.system;
    spent += us;
    samples.push((us * 1000) / inner);
  }
  return median(samples);
};

/** One fresh process: every case once, in the order given; prints `{ key: ns }` as JSON. */
const child = async (timeMs: number, reverse: boolean): Promise<void> => {
  const cases = await build();
  for (const c of cases) await c.fn(); // warm every path once (and fail early if one is broken)
  const out: Record<string, number> = {};
  for (const c of reverse ? [...cases].reverse() : cases) out[`${c.kind}/${c.family}/${c.n}`] = await time(c, timeMs);
  process.stdout.write(JSON.stringify(out));
};

const main = async (): Promise<void> => {
  const args = parseArgs(process.argv.slice(2));
  const timeMs = Number(args.get("time-ms") ?? 200);
  if (args.has("child")) return child(timeMs, args.get("child") === "reverse");
  if (!existsSync(fileURLToPath(new URL("adapters/openai-agents/index.js", dist))))
    throw new Error("benchmarks/openai-agents.bench.ts measures the built package: run `npm run build` first");
  const processes = Number(args.get("processes") ?? 3);
  const load = [loadavg()];
  const runs: Record<string, number>[] = [];
  for (let p = 0; p < processes; p++) {
    const self = fileURLToPath(import.meta.url);
    const r = spawnSync(
      process.execPath,
      ["--import", "tsx", self, "--child", p % 2 === 0 ? "forward" : "reverse", "--time-ms", String(timeMs)],
      { encoding: "utf8", maxBuffer: 1 << 24 },
    );
    if (r.status !== 0) throw new Error(`benchmark process ${p + 1} failed: ${r.stderr}`);
    runs.push(JSON.parse(r.stdout) as Record<string, number>);
    process.stderr.write(`process ${p + 1}/${processes} done\n`);
  }
  load.push(loadavg());
  const rows: OpenAiAgentsRow[] = Object.keys(runs[0] ?? {}).map((key) => {
    const [kind, family, n] = key.split("/") as [OpenAiAgentsRow["kind"], OpenAiAgentsRow["family"], string];
    return { kind, family, n: Number(n), samples: runs.map((r) => r[key] as number) };
  });
  const cell = (samples: readonly number[], scale: number, digits: number) =>
    `${fmt(Math.min(...samples) / scale, digits)} / ${fmt(median(samples) / scale, digits)} / ${fmt(Math.max(...samples) / scale, digits)}`;
  console.log(
    `Node ${process.version}, ${processes} fresh processes x ${timeMs} ms per case; load ${load.map((l) => l.map((x) => x.toFixed(1)).join(" ")).join(" -> ")}`,
  );
  for (const [kind, unit, scale, digits] of [
    ["model", "ns per model call", 1, 0],
    ["tool", "ns per tool call", 1, 0],
    ["run", "µs per run", 1000, 1],
  ] as const) {
    const of = rows.filter((r) => r.kind === kind).sort((a, b) => a.n - b.n || a.family.localeCompare(b.family));
    console.log(`\n${kind}: ${unit}, min / median / max over processes`);
    console.log(
      textTable(
        ["family", "N", "time"],
        of.map((r) => [r.family, String(r.n), cell(r.samples, scale, digits)]),
      ),
    );
    const per = (family: string) => {
      const at = (n: number) => median(of.find((r) => r.family === family && r.n === n)?.samples ?? []);
      return ((at(20) - at(1)) / 19 / scale).toFixed(digits + 1);
    };
    console.log(
      `per layer (median, (t20 - t1) / 19): ${[...new Set(of.filter((r) => r.n > 0).map((r) => r.family))].map((f) => `${f} ${per(f)}`).join(", ")}`,
    );
  }
  const out = args.get("json");
  if (out !== undefined) {
    const report: OpenAiAgentsReport = {
      suite: "openai-agents",
      date: new Date().toISOString(),
      node: process.version,
      processes,
      timeMs,
      load,
      rows,
    };
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  }
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
