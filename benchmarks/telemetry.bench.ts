/**
 * What `metrics()` (and `tracing()`) add to a run, and whether it grows with the number of hooks:
 * `stack.run` on `toolCall` with N sync before/after hooks returning `Continue`, alone, with
 * `metrics()` on the no-op global meter (agent-onion's own work), with `metrics()` on a real SDK
 * `MeterProvider` (what a user with an exporter pays), and with `tracing()` on a real SDK tracer.
 * Each measured call is 32 runs followed by `stack.flush()` and one turn of the event loop, so the
 * observers' delivery and the SDK's export are counted.
 * Runs the built `dist/` (`npm run build` first).
 *
 *   npx tsx benchmarks/telemetry.bench.ts
 *
 * Not part of `npm run bench`: prints one process's numbers; repeat it in fresh processes.
 */
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { do_not_optimize, measure } from "mitata";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { fmt, textTable } from "./util.ts";

// The built package, loaded by URL so that type checking a checkout without dist/ passes.
const dist = (path: string): string => {
  const url = new URL(`../dist/${path}`, import.meta.url);
  if (!existsSync(fileURLToPath(url))) throw new Error("benchmarks/telemetry.bench.ts: dist/ is missing; run `npm run build` first");
  return url.href;
};
const { createAgentStack } = (await import(dist("agent/index.js"))) as typeof import("../src/agent/index.ts");
const { withMiddleware } = (await import(dist("middleware/index.js"))) as typeof import("../src/middleware/index.ts");
const { metrics, tracing } = (await import(dist("otel.js"))) as typeof import("../src/otel.ts");

const sdkMeter = () => {
  const reader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
    exportIntervalMillis: 3_600_000,
  });
  return new MeterProvider({ readers: [reader] }).getMeter("bench");
};
const spans = new InMemorySpanExporter();
const sdkTracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }).getTracer("bench");

const withHooks = (n: number) => {
  let stack = createAgentStack();
  for (let i = 0; i < n; i++) stack = stack.use("toolCall", { name: `h${i}`, before: () => undefined, after: () => undefined });
  return stack;
};

const call = Object.freeze({ id: "c1", name: "Read", input: Object.freeze({ path: "a.txt" }) });
const result = Object.freeze({ content: "ok" });
const op = async () => result;

const rows: string[][] = [];
for (const n of [1, 20, 50]) {
  const base = withHooks(n);
  const variants: [string, ReturnType<typeof createAgentStack>][] = [
    ["plain", base],
    ["metrics (no-op meter)", withMiddleware(base, metrics())],
    ["metrics (SDK meter)", withMiddleware(base, metrics({ meter: sdkMeter() }))],
    ["tracing (SDK tracer, no hook spans)", withMiddleware(base, tracing({ tracer: sdkTracer, hookSpans: false }))],
    ["tracing (SDK tracer, hook spans)", withMiddleware(base, tracing({ tracer: sdkTracer }))],
  ];
  const plain: number[] = [];
  for (const [label, stack] of variants) {
    const stats = await measure(
      async () => {
        for (let k = 0; k < 32; k++) do_not_optimize(await stack.run("toolCall", call, op));
        await stack.flush();
        // The SDK's span processor exports from a macrotask: an application yields to the event
        // loop between requests, and a loop that never did would measure the SDK's backlog instead.
        await new Promise((resolve) => setImmediate(resolve));
        spans.reset();
      },
      { min_cpu_time: 300e6, batch_samples: 8, min_samples: 8 },
    );
    const ns = stats.p50 / 32;
    if (label === "plain") plain.push(ns);
    rows.push([String(n), label, fmt(ns), label === "plain" ? "" : fmt(ns - plain[0]!)]);
  }
}
console.log(`Node ${process.version}; ns per run (median), and what the middleware adds to plain`);
console.log(textTable(["hooks", "case", "ns/run", "added"], rows));
