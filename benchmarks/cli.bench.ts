/**
 * The CLI as Claude Code runs it, per event: `agent-onion claude-hook` (a process per event) with a
 * `.js` and a `.ts` hook module, beside `node -e 0`; and `agent-onion serve` (a resident process)
 * answering the same event over HTTP, timed by a real HTTP client (keep-alive, one request at a
 * time, as one tool call after another).
 *
 * The package is packed and installed from its tarball into a new ES module project (with tsx, for
 * the `.ts` module), so this measures what a user runs: node_modules/.bin/agent-onion.
 *
 *   npx tsx benchmarks/cli.bench.ts [--samples 30] [--requests 1000] [--json out.json]
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

const guard = (ts: boolean) =>
  `import { createAgentStack, Reject, Continue } from "agent-onion";\n` +
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

const main = async (): Promise<void> => {
  const args = parseArgs(process.argv.slice(2));
  const samples = Number(args.get("samples") ?? 30);
  const requests = Number(args.get("requests") ?? 1000);
  const packDir = mkdtempSync(join(tmpdir(), "agent-onion-bench-pack-"));
  const dir = installProject({ "agent-onion": packTarball(packDir), tsx: "^4.20.0" });
  rmSync(packDir, { recursive: true, force: true });
  try {
    writeFiles(dir, { "hooks/package.json": { type: "module" }, "hooks/guard.js": guard(false), "hooks/guard.ts": guard(true) });
    const bin = join(dir, "node_modules", ".bin", "agent-onion");
    const hooks = join(dir, "hooks");
    const load = loadavg();
    const cases: [string, string, string[]][] = [
      ["node -e 0", process.execPath, ["-e", "0"]],
      ["claude-hook, .js module", bin, ["claude-hook", "guard.js"]],
      ["claude-hook, .ts module", bin, ["claude-hook", "guard.ts"]],
      ["npx agent-onion claude-hook, .js module", "npx", ["--no-install", "agent-onion", "claude-hook", "guard.js"]],
    ];
    for (const [, command, argv] of cases) timeProcess(command, argv, { cwd: hooks, input: event }); // warm the disk cache and tsx's
    const times = cases.map(() => [] as { wall: number; cpu: number }[]);
    for (let i = 0; i < samples; i++)
      cases.forEach(([, command, argv], c) => times[c]!.push(timeProcess(command, argv, { cwd: hooks, input: event })));
    const results: CliCase[] = cases.map(([name], c) => ({
      ...summary(
        name,
        times[c]!.map((t) => t.wall),
      ),
      cpu: median(times[c]!.map((t) => t.cpu)),
    }));

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
    const js = results[1]!;
    const serve = results.find((r) => r.name.startsWith("serve"))!;
    console.log(
      `CLI per event, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, load ${load.map((l) => l.toFixed(1)).join(" ")}`,
    );
    console.log(`Command: npx tsx benchmarks/cli.bench.ts --samples ${samples} --requests ${requests}\n`);
    console.log(
      textTable(
        ["case", "samples", "min ms", "p50 ms", "p99 ms", "max ms", "p50 ÷ node -e 0", "CPU ms (median)", "CPU ÷ node -e 0"],
        results.map((r) => [
          r.name,
          String(r.samples),
          fmt(r.min, 1),
          fmt(r.p50, 1),
          fmt(r.p99, 1),
          fmt(r.max, 1),
          r.cpu === undefined ? "" : `${fmt(r.p50 / node.p50, 2)}x`,
          r.cpu === undefined ? "" : fmt(r.cpu, 0),
          r.cpu === undefined ? "" : `${fmt(r.cpu / node.cpu!, 2)}x`,
        ]),
      ),
    );
    const ratio = js.p50 / node.p50;
    console.log(
      `\nclaude-hook (.js): ${fmt(ratio, 2)}x node -e 0 wall, ${fmt(js.cpu! / node.cpu!, 2)}x in CPU (target: at most ${CLAUDE_HOOK_RATIO}x): ${ratio <= CLAUDE_HOOK_RATIO ? "met" : "NOT met"}`,
    );
    console.log(
      `serve: p50 ${fmt(serve.p50, 2)} ms per event (target: under ${SERVE_P50_MS} ms): ${serve.p50 < SERVE_P50_MS ? "met" : "NOT met"}`,
    );
    const out = args.get("json");
    if (out)
      writeFileSync(
        out,
        `${JSON.stringify({ suite: "cli", date: new Date().toISOString(), node: process.version, load, cases: results }, null, 2)}\n`,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
