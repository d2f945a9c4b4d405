/**
 * Where one case spends its time or its allocations, by source line (mapped back to the .ts files).
 *
 *   npx tsx benchmarks/profile.ts --case onion-ba/async/20 [--mode cpu|alloc] [--calls 200000] [--top 25]
 *
 * `cpu` uses the V8 sampling CPU profiler (self time per line); `alloc` uses the sampling heap
 * profiler with a small interval and a young generation large enough that nothing is collected,
 * so every sampled allocation is still there when the profile is taken (bytes per call per line).
 * Without the flags it needs, it re-runs itself with them. The core is bundled with esbuild
 * (unminified, with a source map) so that lines can be told apart; tsx's output is one line per file.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { Session } from "node:inspector/promises";
import { findSourceMap } from "node:module";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildCases, input } from "./cases.ts";
import { fmt, parseArgs, textTable } from "./util.ts";

const flags = ["--expose-gc", "--enable-source-maps", "--min-semi-space-size=512", "--max-semi-space-size=512"];

interface Frame { functionName: string; url: string; lineNumber: number; columnNumber: number }

const root = fileURLToPath(new URL("..", import.meta.url));

/** `file:line` in the original source when a source map is known, else the generated position. */
const where = (f: Frame, wholeLine = false): string => {
  if (f.url === "") return `(${f.functionName || "native"})`;
  let file = f.url.startsWith("file://") ? fileURLToPath(f.url) : f.url;
  let line = f.lineNumber + 1;
  try {
    const map = findSourceMap(f.url) ?? findSourceMap(file);
    // For a whole line (CPU position ticks), take the last mapping on that line rather than one before it.
    let entry = map?.findEntry(f.lineNumber, wholeLine ? 10_000 : f.columnNumber) as { generatedLine?: number; originalSource?: string; originalLine?: number } | undefined;
    if (wholeLine && entry?.generatedLine !== f.lineNumber) entry = map?.findEntry(f.lineNumber, 0) as typeof entry;
    if (entry?.originalSource !== undefined && entry.originalLine !== undefined) {
      file = entry.originalSource.startsWith("file://") ? fileURLToPath(entry.originalSource) : entry.originalSource;
      line = entry.originalLine + 1;
    }
  } catch {
    // keep the generated position
  }
  return `${file.startsWith(root) ? relative(root, file) : file.replace(/^.*node_modules\//, "")}:${line}`;
};

const main = async (): Promise<void> => {
  const args = parseArgs(process.argv.slice(2));
  if (typeof globalThis.gc !== "function") {
    const child = spawnSync(process.execPath, [...flags, "--import", "tsx", fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: "inherit" });
    process.exit(child.status ?? 1);
  }
  const id = args.get("case") ?? "onion-ba/async/20";
  const bundleDir = args.get("bundle") === "false" ? undefined : await bundleCore();
  const mode = args.get("mode") ?? "cpu";
  const top = Number(args.get("top") ?? 25);
  const { cases } = await buildCases(new RegExp(`^${id.replace(/[/]/g, "\\/")}$`));
  const c = cases[0];
  if (c === undefined) throw new Error(`no case ${id}`);
  const calls = Number(args.get("calls") ?? (mode === "cpu" ? 300_000 : 20_000));
  for (let i = 0; i < 20_000; i++) await c.fn(input); // warm up: optimised code, as in the benchmark
  const session = new Session();
  session.connect();
  const rows: string[][] = [];
  if (mode === "cpu") {
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 50 });
    await session.post("Profiler.start");
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) await c.fn(input);
    const ms = performance.now() - t0;
    const { profile } = await session.post("Profiler.stop");
    const byLine = new Map<string, number>();
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    const hits = new Map<number, number>();
    for (const s of profile.samples ?? []) hits.set(s, (hits.get(s) ?? 0) + 1);
    let total = 0;
    for (const [nodeId, count] of hits) {
      const node = nodes.get(nodeId);
      if (node === undefined) continue;
      total += count;
      // positionTicks give lines inside the function; fall back to the function's own line.
      const ticks = node.positionTicks ?? [];
      const frame = node.callFrame as Frame;
      const label = (line: number): string => `${frame.functionName || "(anonymous)"} ${where({ ...frame, lineNumber: line - 1, columnNumber: 0 }, true)}`;
      if (ticks.length === 0) byLine.set(label(frame.lineNumber + 1), (byLine.get(label(frame.lineNumber + 1)) ?? 0) + count);
      else {
        const sum = ticks.reduce((a, t) => a + t.ticks, 0);
        for (const t of ticks) byLine.set(label(t.line), (byLine.get(label(t.line)) ?? 0) + (count * t.ticks) / sum);
      }
    }
    console.log(`${id}: ${fmt((ms * 1e6) / calls, 0)} ns/call while profiling, ${total} samples`);
    for (const [label, count] of [...byLine].sort((a, b) => b[1] - a[1]).slice(0, top))
      rows.push([label, `${fmt((100 * count) / total, 1)}%`, fmt(((ms * 1e6) / calls) * (count / total), 0)]);
    console.log(textTable(["function file:line (self)", "share", "ns/call"], rows));
  } else {
    const gc = globalThis.gc as () => void;
    gc();
    await session.post("HeapProfiler.enable");
    await session.post("HeapProfiler.startSampling", { samplingInterval: 16, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as never);
    const h0 = process.memoryUsage().heapUsed;
    for (let i = 0; i < calls; i++) await c.fn(input);
    const h1 = process.memoryUsage().heapUsed;
    const { profile } = await session.post("HeapProfiler.stopSampling");
    const byFrame = new Map<string, number>();
    let sampled = 0;
    const visit = (node: typeof profile.head, stack: string): void => {
      const self = node.selfSize;
      if (self > 0) {
        const label = `${node.callFrame.functionName || "(anonymous)"} ${where(node.callFrame as Frame)}${stack}`;
        byFrame.set(label, (byFrame.get(label) ?? 0) + self);
        sampled += self;
      }
      for (const child of node.children) visit(child, "");
    };
    visit(profile.head, "");
    console.log(`${id}: ${fmt((h1 - h0) / calls, 1)} B/call by heapUsed; sampled ${fmt(sampled / calls, 1)} B/call (sampling is statistical)`);
    for (const [label, bytes] of [...byFrame].sort((a, b) => b[1] - a[1]).slice(0, top))
      rows.push([label, fmt(bytes / calls, 1)]);
    console.log(textTable(["allocating function (first line)", "B/call"], rows));
  }
  session.disconnect();
  if (bundleDir !== undefined) rmSync(bundleDir, { recursive: true, force: true });
};

/** Bundle `src/core` unminified with an inline source map, and point the cases at it. */
const bundleCore = async (): Promise<string | undefined> => {
  try {
    const { build } = await import("esbuild");
    const dir = mkdtempSync(join(tmpdir(), "agent-onion-profile-"));
    const outfile = join(dir, "core.mjs");
    await build({ entryPoints: [join(root, "src/core/index.ts")], bundle: true, format: "esm", platform: "node", sourcemap: "inline", outfile, logLevel: "error" });
    process.env.AGENT_ONION_CORE = pathToFileURL(outfile).href;
    return dir;
  } catch (error) {
    console.error(`(esbuild unavailable, profiling the tsx-loaded core by function: ${error instanceof Error ? error.message : String(error)})`);
    return undefined;
  }
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
