/**
 * The CLI as Claude Code runs it, per event: `agent-onion claude-hook` (a process per event) with a
 * `.js` and a `.ts` hook module, beside `node -e 0`; and `agent-onion serve` (a resident process)
 * answering the same event over HTTP, timed by a real HTTP client (keep-alive, one request at a
 * time, as one tool call after another).
 *
 * The package is packed and installed from its tarball into a new ES module project (with tsx, for
 * the `.ts` module), so this measures what a user runs: node_modules/.bin/agent-onion.
 *
 * The per-process cases run in `--rounds` rounds (default 3) of `--samples` fresh processes each,
 * the cases interleaved so a busy machine slows them alike; the ratio to `node -e 0` is given per
 * round (min, median, max over the rounds), for wall and CPU time. The start-up breakdown then
 * times, the same way, processes that import one more part of what `claude-hook` loads than the
 * last: what each part adds, in CPU time.
 *
 *   npx tsx benchmarks/cli.bench.ts [--samples 20] [--rounds 3] [--requests 1000] [--no-breakdown] [--json out.json]
 *
 * Targets: claude-hook with a `.js` module at most 1.5x `node -e 0` (median); serve under 5 ms
 * per event at p50. `npx agent-onion ...` is measured too: what npx adds to every event.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { installProject, packTarball, writeFiles } from "../test/package/project.ts";
import { timeProcess } from "./process-time.ts";
import { fmt, median, parseArgs, textTable } from "./util.ts";

/** The targets: claude-hook (.js) ÷ node -e 0, and serve's p50 in ms. */
export const CLAUDE_HOOK_RATIO = 1.5;
export const SERVE_P50_MS = 5;

export interface CliCase {
  readonly name: string;
  readonly samples: number;
  readonly min: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** Median CPU time (user and system) of the process, for the per-process cases. */
  readonly cpu?: number;
  /** 99th percentile of the CPU time, for the per-process cases. */
  readonly cpuP99?: number;
}

/** A ratio to `node -e 0` over the rounds: each round's median over `node -e 0`'s median in that round. */
export interface RoundRatio {
  readonly name: string;
  readonly wall: readonly number[];
  readonly cpu: readonly number[];
}

/** One step of the start-up breakdown: what it adds to the step before, in median CPU ms. */
export interface StartupStep {
  readonly name: string;
  readonly cpu: number;
  readonly added: number;
}

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
const summary = (name: string, values: readonly number[]): CliCase => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    name,
    samples: sorted.length,
    min: sorted[0] as number,
    p50: median(sorted),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] as number,
  };
};

const guard = (ts: boolean, lean = false) =>
  (lean
    ? `import { Reject, Continue } from "agent-onion/core";\nimport { createAgentStack } from "agent-onion/agent";\n`
    : `import { createAgentStack, Reject, Continue } from "agent-onion";\n`) +
  `const destructive${ts ? ": RegExp" : ""} = /\\brm\\s+-rf\\b/;\n` +
  `export default createAgentStack().use("toolCall", { name: "guard", match: "Bash", before: (call) => (destructive.test(String(call.input.command)) ? Reject("no rm -rf") : Continue) });\n`;

/** An allowed Bash call: the common case, answered with exit 0 and no output. */
const event = JSON.stringify({
  session_id: "bench",
  transcript_path: "/tmp/t.jsonl",
  cwd: "/tmp",
  permission_mode: "default",
  hook_event_name: "PreToolUse",
  tool_name: "Bash",
  tool_input: { command: "npm test", description: "Run the tests" },
  tool_use_id: "toolu_bench",
});

const startServe = (bin: string, cwd: string, module: string): Promise<{ url: string; stop: () => Promise<void> }> =>
  new Promise((resolve, reject) => {
    const child = spawn(bin, ["serve", "--port", "0", "--no-watch", module], { cwd, stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      const match = /listening on (\S+)/.exec(out);
      if (match)
        resolve({ url: match[1] as string, stop: () => new Promise((r) => (child.once("exit", () => r()), child.kill("SIGTERM"))) });
    });
    child.once("exit", (code) => reject(new Error(`serve exited ${code}`)));
  });

const post = (url: string, agent: Agent): Promise<void> =>
  new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", agent, headers: { "content-type": "application/json" } }, (res) => {
      res.resume();
      res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on("error", reject);
    req.end(event);
  });

/**
 * What each part of claude-hook's start-up costs: processes that load one more part than the
 * step before (each chunk of the installed package in the order the command and a hook module
 * load them, with require() as the command does), then the command itself; each step's median
 * CPU time, and what it adds.
 */
const startupBreakdown = (dir: string, hooks: string, bin: string, runs: number): StartupStep[] => {
  const dist = join(dir, "node_modules", "agent-onion", "dist");
  const parts: [string, string[]][] = [
    // The built files look built-ins up (process.getBuiltinModule) rather than import them: what
    // they load is counted with the chunk that asks for it.
    ["chunks/core.js (the engine)", [`${dist}/chunks/core.js`]],
    ["chunks/agent.js (agent points; the loop loads on first use)", [`${dist}/chunks/agent.js`]],
    ["chunks/claude-bridge.js (event translation, answers)", [`${dist}/chunks/claude-bridge.js`]],
    ["index.js (the root entry: middleware and adapter classes and constants)", [`${dist}/index.js`]],
  ];
  const steps: [string, string, string[]][] = [["node -e 0", process.execPath, ["-e", "0"]]];
  const files: string[] = [];
  for (const [name, specs] of parts) {
    files.push(...specs);
    steps.push([name, process.execPath, ["-e", files.map((f) => `require(${JSON.stringify(f)});`).join("")]]);
  }
  steps.push(["claude-hook guard.js (cli/run.js, the module, the answer)", bin, ["claude-hook", "guard.js"]]);
  const cpu = steps.map(() => [] as number[]);
  for (let i = 0; i < runs; i++)
    steps.forEach(([, command, argv], s) => cpu[s]!.push(timeProcess(command, argv, { cwd: hooks, input: event }).cpu));
  const medians = cpu.map(median);
  return steps.map(([name], s) => ({ name, cpu: medians[s]!, added: s === 0 ? medians[0]! : medians[s]! - medians[s - 1]! }));
};

const main = async (): Promise<void> => {
  const args = parseArgs(process.argv.slice(2));
  const samples = Number(args.get("samples") ?? 20);
  const roundCount = Number(args.get("rounds") ?? 3);
  const requests = Number(args.get("requests") ?? 1000);
  const packDir = mkdtempSync(join(tmpdir(), "agent-onion-bench-pack-"));
  const dir = installProject({ "agent-onion": packTarball(packDir), tsx: "^4.20.0" });
  rmSync(packDir, { recursive: true, force: true });
  try {
    writeFiles(dir, {
      "hooks/package.json": { type: "module" },
      "hooks/guard.js": guard(false),
      "hooks/guard.ts": guard(true),
      "hooks/lean.js": guard(false, true),
    });
    const bin = join(dir, "node_modules", ".bin", "agent-onion");
    const hooks = join(dir, "hooks");
    const load = loadavg();
    const cases: [string, string, string[]][] = [
      ["node -e 0", process.execPath, ["-e", "0"]],
      ["claude-hook, .js module", bin, ["claude-hook", "guard.js"]],
      ["claude-hook, .ts module", bin, ["claude-hook", "guard.ts"]],
      ["claude-hook, .js module importing agent-onion/core and /agent", bin, ["claude-hook", "lean.js"]],
      ["npx agent-onion claude-hook, .js module", "npx", ["--no-install", "agent-onion", "claude-hook", "guard.js"]],
    ];
    for (const [, command, argv] of cases) timeProcess(command, argv, { cwd: hooks, input: event }); // warm the disk cache and tsx's
    const times = cases.map(() => [] as { wall: number; cpu: number }[]);
    const rounds: RoundRatio[] = cases.slice(1).map(([name]) => ({ name, wall: [], cpu: [] }));
    for (let round = 0; round < roundCount; round++) {
      const these = cases.map(() => [] as { wall: number; cpu: number }[]);
      for (let i = 0; i < samples; i++)
        cases.forEach(([, command, argv], c) => these[c]!.push(timeProcess(command, argv, { cwd: hooks, input: event })));
      const base = { wall: median(these[0]!.map((t) => t.wall)), cpu: median(these[0]!.map((t) => t.cpu)) };
      rounds.forEach((r, c) => {
        (r.wall as number[]).push(median(these[c + 1]!.map((t) => t.wall)) / base.wall);
        (r.cpu as number[]).push(median(these[c + 1]!.map((t) => t.cpu)) / base.cpu);
      });
      these.forEach((t, c) => times[c]!.push(...t));
    }
    const results: CliCase[] = cases.map(([name], c) => ({
      ...summary(
        name,
        times[c]!.map((t) => t.wall),
      ),
      cpu: median(times[c]!.map((t) => t.cpu)),
      cpuP99: summary(
        name,
        times[c]!.map((t) => t.cpu),
      ).p99,
    }));
    const breakdown = args.has("no-breakdown") ? [] : startupBreakdown(dir, hooks, bin, samples * roundCount);

    for (const module of ["guard.js", "guard.ts"]) {
      const server = await startServe(bin, hooks, module);
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (let i = 0; i < 50; i++) await post(server.url, agent);
        const latencies: number[] = [];
        for (let i = 0; i < requests; i++) {
          const started = process.hrtime.bigint();
          await post(server.url, agent);
          latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
        }
        results.push(summary(`serve, ${module.endsWith(".ts") ? ".ts" : ".js"} module (HTTP round trip)`, latencies));
      } finally {
        agent.destroy();
        await server.stop();
      }
    }

    const node = results[0]!;
    const serve = results.find((r) => r.name.startsWith("serve"))!;
    console.log(
      `CLI per event, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, load ${load.map((l) => l.toFixed(1)).join(" ")}`,
    );
    console.log(
      `Command: npx tsx benchmarks/cli.bench.ts --samples ${samples} --rounds ${roundCount} --requests ${requests}${breakdown.length === 0 ? " --no-breakdown" : ""}\n`,
    );
    console.log(
      textTable(
        ["case", "samples", "min ms", "p50 ms", "p99 ms", "max ms", "p50 ÷ node -e 0", "CPU p50 ms", "CPU p99 ms", "CPU ÷ node -e 0"],
        results.map((r) => [
          r.name,
          String(r.samples),
          fmt(r.min, 1),
          fmt(r.p50, 1),
          fmt(r.p99, 1),
          fmt(r.max, 1),
          r.cpu === undefined ? "" : `${fmt(r.p50 / node.p50, 2)}x`,
          r.cpu === undefined ? "" : fmt(r.cpu, 0),
          r.cpuP99 === undefined ? "" : fmt(r.cpuP99, 0),
          r.cpu === undefined ? "" : `${fmt(r.cpu / node.cpu!, 2)}x`,
        ]),
      ),
    );
    const spread = (values: readonly number[]): string =>
      `${fmt(Math.min(...values), 2)}x / ${fmt(median(values), 2)}x / ${fmt(Math.max(...values), 2)}x`;
    console.log(`\nRatio to node -e 0 (p50), per round of ${samples} processes each: min / median / max over ${roundCount} rounds`);
    console.log(
      textTable(
        ["case", "wall", "CPU"],
        rounds.map((r) => [r.name, spread(r.wall), spread(r.cpu)]),
      ),
    );
    if (breakdown.length > 0) {
      console.log(`\nStart-up of claude-hook (.js), part by part: median CPU of ${samples * roundCount} fresh processes per step`);
      console.log(
        textTable(
          ["step (each also loads the ones above)", "CPU ms", "adds ms"],
          breakdown.map((b) => [b.name, fmt(b.cpu, 1), fmt(b.added, 1)]),
        ),
      );
    }
    const jsRound = rounds[0]!;
    const ratio = median(jsRound.wall);
    const cpuRatio = median(jsRound.cpu);
    const met = ratio <= CLAUDE_HOOK_RATIO && cpuRatio <= CLAUDE_HOOK_RATIO;
    console.log(
      `\nclaude-hook (.js): ${fmt(ratio, 2)}x node -e 0 wall, ${fmt(cpuRatio, 2)}x in CPU (median of ${roundCount} rounds; target: at most ${CLAUDE_HOOK_RATIO}x in both): ${met ? "met" : "NOT met"}`,
    );
    console.log(
      `claude-hook (.ts, through tsx): ${fmt(median(rounds[1]!.wall), 2)}x node -e 0 wall, ${fmt(median(rounds[1]!.cpu), 2)}x in CPU`,
    );
    console.log(
      `claude-hook (.js, importing agent-onion/core and /agent): ${fmt(median(rounds[2]!.wall), 2)}x node -e 0 wall, ${fmt(median(rounds[2]!.cpu), 2)}x in CPU`,
    );
    console.log(
      `serve: p50 ${fmt(serve.p50, 2)} ms per event (target: under ${SERVE_P50_MS} ms): ${serve.p50 < SERVE_P50_MS ? "met" : "NOT met"}`,
    );
    const out = args.get("json");
    if (out)
      writeFileSync(
        out,
        `${JSON.stringify({ suite: "cli", date: new Date().toISOString(), node: process.version, load, cases: results, rounds, breakdown }, null, 2)}\n`,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
