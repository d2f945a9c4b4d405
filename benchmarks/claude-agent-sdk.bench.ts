/**
 * What the Claude Agent SDK adapter costs per tool call and per model call, against the SDK's own
 * hooks with the same number of layers, on the built package (`dist/`, so `npm run build` first).
 *
 *   npm run build && npx tsx benchmarks/claude-agent-sdk.bench.ts [--processes 3] [--ms 300] [--e2e-runs 3] [--no-e2e]
 *
 * The driver runs the measurements in `--processes` fresh Node processes and reports each figure's
 * min, median and max over them. In each process:
 *
 * In process (mitata, CPU time, the median of samples of 16 calls; N = 0, 1, 5, 20 layers):
 * - `sdk-hooks` (per tool call): N callbacks on PreToolUse and N on PostToolUse, each
 *   `async () => ({})`, called as Claude Code calls the callbacks of one event (all at once,
 *   awaited together) with the inputs Claude Code sends; the SDK's own way to put N layers around
 *   a tool call. Claude Code also pays one control-channel round trip per callback; the
 *   end-to-end figures below include that, these do not.
 * - `guard` (per tool call): `claudeAgentGuard` over a stack of N toolCall hooks with a sync
 *   `before` and `after` returning `Continue`: the callbacks it registers for a tool call's events
 *   (one on PreToolUse and one on PostToolUse, whatever N), each awaited as Claude Code awaits it.
 * - `direct` (per model call): a streamed Messages API call (fetch, the whole server-sent stream
 *   read) to the rig's mock API on 127.0.0.1.
 * - `gateway` (per model call): the same call through `claudeModelGateway` over a stack of N
 *   `modelCall` hooks `around: (ctx, next) => next()`; with N = 0 the stack has no modelCall hook
 *   and the gateway only relays. The SDK has no hook around a model call to compare with.
 *
 * End to end (`--e2e-runs` queries per family, wall time, the SDK starting the rig's Claude Code,
 * or its own bundled one, against the mock API): one query of 10 Bash tool calls (`true`), then a
 * final answer; the figure is the query's time divided by 10. Families: `plain` (no hooks),
 * `sdk-hooks` (5 callbacks on PreToolUse and 5 on PostToolUse), `guard` (a stack of 5 toolCall
 * hooks), `guard+gateway` (the same, its 11 model calls through the gateway with 5 modelCall hooks).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { do_not_optimize, measure } from "mitata";
import type * as Adapter from "agent-onion/claude-agent-sdk";
import type * as Root from "agent-onion";
import { startMockAnthropic, type MockTurn } from "../test/support/claude-code/mock-anthropic.ts";
import { fmt, median, parseArgs, textTable } from "./util.ts";

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, "..", "dist");
const sizes = [0, 1, 5, 20] as const;
const args = parseArgs(process.argv.slice(2));

const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1e3;
};

/** ns per call: the median of mitata samples of 16 awaited calls each, on CPU time. */
const time = async (fn: () => Promise<unknown>, ms: number): Promise<number> => {
  for (let i = 0; i < 200; i++) await fn();
  const stats = await measure(
    async () => {
      for (let k = 0; k < 16; k++) do_not_optimize(await fn());
    },
    { min_cpu_time: ms * 1e6, batch_samples: 16, min_samples: 8, now: cpuNow },
  );
  return stats.p50 / 16;
};

type Rows = Record<string, number>;

const inProcess = async (ms: number): Promise<Rows> => {
  if (!existsSync(join(dist, "claude-agent-sdk.js"))) throw new Error("dist/ is missing the adapter: run npm run build first");
  const root = (await import(pathToFileURL(join(dist, "index.js")).href)) as typeof Root;
  const adapter = (await import(pathToFileURL(join(dist, "claude-agent-sdk.js")).href)) as typeof Adapter;
  const rows: Rows = {};
  const signal = new AbortController().signal;
  const base = {
    session_id: "5f2b0c1e-0000-4000-8000-000000000001",
    transcript_path: "/home/u/.claude/projects/-repo/5f2b.jsonl",
    cwd: "/repo",
    permission_mode: "default",
  };
  let id = 0;
  const pre = (toolUseId: string) => ({
    ...base,
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command: "npm test", description: "run the tests" },
    tool_use_id: toolUseId,
  });
  const post = (toolUseId: string) => ({
    ...pre(toolUseId),
    hook_event_name: "PostToolUse",
    tool_response: { stdout: "ok", stderr: "", interrupted: false, isImage: false, noOutputExpected: false },
  });
  const batch = (toolUseId: string) => ({
    ...base,
    hook_event_name: "PostToolBatch",
    tool_calls: [{ tool_name: "Bash", tool_input: { command: "npm test" }, tool_use_id: toolUseId, tool_response: "ok" }],
  });
  type Callback = (input: never, id: string, o: { signal: AbortSignal }) => Promise<unknown>;
  const fire = (callbacks: readonly Callback[], input: unknown, toolUseId: string) =>
    Promise.all(callbacks.map((cb) => cb(input as never, toolUseId, { signal })));

  for (const n of sizes) {
    const plain: Callback[] = Array.from({ length: n }, () => async () => ({}));
    rows[`sdk-hooks/${n}`] = await time(async () => {
      const toolUseId = `toolu_${++id}`;
      await fire(plain, pre(toolUseId), toolUseId);
      await fire(plain, post(toolUseId), toolUseId);
    }, ms);
    let stack = root.createAgentStack({ strict: false });
    for (let i = 0; i < n; i++)
      stack = stack.use("toolCall", { name: `pass-${i}`, before: () => root.Continue, after: () => root.Continue });
    const hooks = adapter.claudeAgentGuard(stack).hooks;
    // The callbacks the guard registered for the events of a tool call (PostToolBatch only with toolBatch hooks).
    const of = (event: "PreToolUse" | "PostToolUse" | "PostToolBatch") => (hooks[event]?.[0]?.hooks ?? []) as unknown as Callback[];
    rows[`guard/${n}`] = await time(async () => {
      const toolUseId = `toolu_${++id}`;
      await fire(of("PreToolUse"), pre(toolUseId), toolUseId);
      await fire(of("PostToolUse"), post(toolUseId), toolUseId);
      await fire(of("PostToolBatch"), batch(toolUseId), toolUseId);
    }, ms);
  }

  const api = await startMockAnthropic({ turns: [], whenDone: "The tests pass.", isScripted: () => true }, 0);
  const body = JSON.stringify({
    model: "claude-sonnet-5",
    max_tokens: 1024,
    stream: true,
    system: [{ type: "text", text: "You are a coding agent." }],
    messages: [{ role: "user", content: [{ type: "text", text: "Run the tests." }] }],
    tools: [{ name: "Bash", input_schema: { type: "object" } }],
  });
  const call = async (url: string): Promise<string> => {
    const res = await fetch(`${url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "sk-ant-bench", "anthropic-version": "2023-06-01" },
      body,
    });
    return res.text();
  };
  const gateways = new Map<number, { url: string; close(): Promise<void> }>();
  for (const n of sizes) {
    let stack = root.createAgentStack({ strict: false });
    for (let i = 0; i < n; i++) stack = stack.use("modelCall", { name: `pass-${i}`, around: (_ctx, next) => next() });
    gateways.set(n, await adapter.claudeModelGateway(stack, { upstream: api.url! }));
  }
  // Each figure is the mean of a pass in each order (direct call first, then last), so what runs
  // early (a process still warming its HTTP client and server) does not weigh on one size only.
  const order = ["direct", ...sizes.map((n) => `gateway/${n}`)];
  const passes: Rows[] = [{}, {}];
  for (const [p, keys] of [order, [...order].reverse()].entries())
    for (const key of keys)
      passes[p]![key] = await time(() => call(key === "direct" ? api.url! : gateways.get(Number(key.split("/")[1]))!.url), ms);
  for (const key of order) rows[key === "direct" ? "direct/0" : key] = (passes[0]![key]! + passes[1]![key]!) / 2;
  for (const gateway of gateways.values()) await gateway.close();
  await api.close();
  return rows;
};

/** The Claude Code the end-to-end runs start: the rig's, when installed, else the SDK's bundled one. */
const claudeCode = async (): Promise<string | undefined> => {
  const { cachedBinary } = await import("../test/support/claude-code/availability.ts");
  return existsSync(cachedBinary) ? cachedBinary : undefined;
};

const endToEnd = async (runs: number): Promise<Rows> => {
  const root = (await import(pathToFileURL(join(dist, "index.js")).href)) as typeof Root;
  const adapter = (await import(pathToFileURL(join(dist, "claude-agent-sdk.js")).href)) as typeof Adapter;
  const { query } = await import("@anthropic-ai/claude-agent-sdk");
  const binary = await claudeCode();
  const calls = 10;
  const turns: MockTurn[] = [
    ...Array.from({ length: calls }, (_, i) => ({ toolUses: [{ name: "Bash", input: { command: "true", description: `step ${i}` } }] })),
    "Done.",
  ];
  const layers = 5;
  let toolStack = root.createAgentStack({ strict: false });
  for (let i = 0; i < layers; i++)
    toolStack = toolStack.use("toolCall", { name: `pass-${i}`, before: () => root.Continue, after: () => root.Continue });
  let modelStack = toolStack;
  for (let i = 0; i < layers; i++) modelStack = modelStack.use("modelCall", { name: `model-${i}`, around: (_ctx, next) => next() });
  const plain = Array.from({ length: layers }, () => async () => ({}));
  const rows: Rows = {};
  const families = ["plain", "sdk-hooks", "guard", "guard+gateway"] as const;
  const samples = new Map<string, number[]>(families.map((f) => [f, []]));
  for (let r = 0; r < runs; r++) {
    for (const family of r % 2 === 0 ? families : [...families].reverse()) {
      const home = mkdtempSync(join(tmpdir(), "agent-onion-bench-cc-"));
      const api = await startMockAnthropic({ turns }, 0);
      const gateway = family === "guard+gateway" ? await adapter.claudeModelGateway(modelStack, { upstream: api.url! }) : undefined;
      const env = {
        ...process.env,
        HOME: home,
        CLAUDE_CONFIG_DIR: join(home, ".claude"),
        ANTHROPIC_BASE_URL: gateway?.url ?? api.url!,
        ANTHROPIC_API_KEY: "sk-ant-bench",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_AUTOUPDATER: "1",
      };
      const base = {
        cwd: home,
        env,
        settingSources: [],
        allowedTools: ["Bash"],
        permissionMode: "default" as const,
        ...(binary ? { pathToClaudeCodeExecutable: binary } : {}),
      };
      const options =
        family === "plain"
          ? base
          : family === "sdk-hooks"
            ? { ...base, hooks: { PreToolUse: [{ hooks: plain }], PostToolUse: [{ hooks: plain }] } }
            : adapter.claudeAgentGuard(family === "guard" ? toolStack : modelStack).options(base);
      const started = performance.now();
      let result: { subtype?: string; num_turns?: number } | undefined;
      for await (const m of query({ prompt: "Run the steps.", options })) if (m.type === "result") result = m;
      const elapsed = performance.now() - started;
      await gateway?.close();
      await api.close();
      rmSync(home, { recursive: true, force: true });
      if (result?.subtype !== "success" || api.scripted().length !== calls + 1)
        throw new Error(`${family}: the query did not run its ${calls} calls (${JSON.stringify(result)})`);
      samples.get(family)?.push(elapsed / calls);
    }
  }
  for (const f of families) rows[`e2e-${f}/${layers}`] = median(samples.get(f) ?? []);
  return rows;
};

const child = async (): Promise<void> => {
  const ms = Number(args.get("ms") ?? 300);
  const rows = await inProcess(ms);
  if (!args.has("no-e2e")) Object.assign(rows, await endToEnd(Number(args.get("e2e-runs") ?? 3)));
  process.stdout.write(`${JSON.stringify(rows)}\n`);
};

const driver = (): void => {
  const processes = Number(args.get("processes") ?? 3);
  const load = [loadavg()];
  const results: Rows[] = [];
  for (let p = 0; p < processes; p++) {
    const run = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--child", ...process.argv.slice(2)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, NODE_ENV: "production", AGENT_ONION_STRICT: "0" },
      maxBuffer: 1 << 24,
    });
    if (run.status !== 0) throw new Error(`process ${p + 1} failed (exit ${run.status ?? run.signal})`);
    results.push(JSON.parse(run.stdout.trim().split("\n").at(-1)!) as Rows);
    process.stderr.write(`process ${p + 1}/${processes} done\n`);
  }
  load.push(loadavg());
  const keys = Object.keys(results[0]!);
  const stat = (key: string) => {
    const v = results.map((r) => r[key]!).sort((a, b) => a - b);
    return { min: v[0]!, median: median(v), max: v.at(-1)! };
  };
  const us = (ns: number) => fmt(ns / 1000, 1);
  console.log(
    `Node ${process.version}, ${processes} processes; load ${load.map((l) => l.map((x) => x.toFixed(1)).join(" ")).join(" -> ")}`,
  );
  console.log(`Command: npx tsx benchmarks/claude-agent-sdk.bench.ts ${process.argv.slice(2).join(" ")}`.trim());
  console.log(
    textTable(
      ["case (layers)", "min µs", "median µs", "max µs"],
      keys.filter((k) => !k.startsWith("e2e")).map((k) => [k, us(stat(k).min), us(stat(k).median), us(stat(k).max)]),
    ),
  );
  const e2e = keys.filter((k) => k.startsWith("e2e"));
  if (e2e.length > 0) {
    console.log("\nEnd to end, ms per tool call (query time / 10)");
    console.log(
      textTable(
        ["family (layers)", "min ms", "median ms", "max ms"],
        e2e.map((k) => [k.slice(4), fmt(stat(k).min, 1), fmt(stat(k).median, 1), fmt(stat(k).max, 1)]),
      ),
    );
  }
  const perLayer = (family: string) =>
    sizes
      .slice(1)
      .map((n) => fmt((stat(`${family}/${n}`).median - stat(`${family}/0`).median) / n, 0))
      .join(" / ");
  console.log(
    `\nns per layer (N = 1 / 5 / 20, medians): sdk-hooks ${perLayer("sdk-hooks")}, guard ${perLayer("guard")}, gateway ${perLayer("gateway")}`,
  );
};

if (args.has("child")) await child();
else driver();
