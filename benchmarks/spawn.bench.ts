/**
 * Spawn cost of external hooks: one command hook per tool call, in ms at p50 and p99, beside
 * an in-process hook doing the same job. Every case is one `stack.run("toolCall", ...)` with
 * one hook on it; the command hooks read the event JSON on stdin and allow (exit 0).
 *
 *   npx tsx benchmarks/spawn.bench.ts [--samples 100] [--bridge-samples 20] [--json out.json]
 *
 * `npm run bench` runs it (fewer samples, see run.ts) and writes `benchmarks/results/spawn.json`.
 *
 * Cases: an in-process `before` hook; a shell-form command hook (`/bin/sh -c 'cat >/dev/null'`,
 * the cheapest real script); an exec-form command hook running a Node script (node's own
 * start-up dominates); and the other direction, `agent-onion claude-hook` run as Claude Code
 * runs it (node + tsx + the module's stack).
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { measure } from "mitata";
import { agentPoints } from "../src/agent/points.ts";
import { Continue, Reject } from "../src/core/action.ts";
import { createStack } from "../src/core/stack.ts";
import { commandHook } from "../src/executors/command.ts";
import { fmt, parseArgs, textTable } from "./util.ts";

export type SpawnCaseId = "in-process" | "shell" | "node" | "bridge";

export interface SpawnCase {
  readonly id: SpawnCaseId;
  readonly name: string;
  /** Milliseconds per tool call (per event for the bridge). */
  readonly p50: number;
  readonly p99: number;
  readonly avg: number;
  readonly samples: number;
}

/** What `--json` writes (`benchmarks/results/spawn.json` under `npm run bench`). */
export interface SpawnReport {
  readonly suite: "spawn";
  readonly date: string;
  readonly node: string;
  readonly cpu: string;
  readonly cores: number;
  readonly samples: number;
  readonly bridgeSamples: number;
  /** `os.loadavg()` before and after. */
  readonly load: { before: number[]; after: number[] };
  readonly cases: SpawnCase[];
  /** Set by `benchmarks/run.ts`. */
  readonly command?: string;
}

const main = async (): Promise<void> => {
  const args = parseArgs(process.argv.slice(2));
  const samples = Number(args.get("samples") ?? 100);
  const bridgeSamples = Number(args.get("bridge-samples") ?? 20);
  const root = fileURLToPath(new URL("..", import.meta.url));
  const call = { id: "toolu_1", name: "Bash", input: { command: "ls -la" } };
  const tool = async () => ({ content: "ok" });

  const base = createStack(agentPoints, { strict: false });
  const inProcess = base.use("toolCall", {
    name: "in-process",
    before: (c) => (/rm\s+-rf/.test(String(c.input.command)) ? Reject("no") : Continue),
  });
  const shell = base.use("toolCall", commandHook({ event: "PreToolUse", name: "sh", command: "cat > /dev/null", timeoutMs: 10_000 }));
  const nodeScript = base.use(
    "toolCall",
    commandHook({
      event: "PreToolUse",
      name: "node",
      command: process.execPath,
      args: [`${root}test/fixtures/commands/respond.mjs`, "0"],
      timeoutMs: 10_000,
    }),
  );

  const bridge = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [`${root}bin/agent-onion.js`, "claude-hook", `${root}test/fixtures/settings/guard-stack.ts`], {
        stdio: ["pipe", "ignore", "ignore"],
      });
      child.on("error", reject);
      child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`bridge exited ${code}`))));
      child.stdin.end(
        JSON.stringify({
          hook_event_name: "PreToolUse",
          session_id: "s",
          cwd: root,
          tool_name: "Bash",
          tool_input: call.input,
          tool_use_id: "t",
        }),
      );
    });

  const run = (stack: typeof inProcess) => async () => {
    const outcome = await stack.run("toolCall", call, tool);
    if (outcome._tag !== "Completed") throw new Error(`unexpected ${outcome._tag}`);
  };

  const cases: [SpawnCaseId, string, () => Promise<void>, number][] = [
    ["in-process", "in-process before hook", run(inProcess), Math.max(samples, 1000)],
    ["shell", "command hook, shell form (sh: cat >/dev/null)", run(shell), samples],
    ["node", "command hook, exec form (node script)", run(nodeScript), samples],
    ["bridge", "agent-onion claude-hook (node + tsx + stack)", bridge, bridgeSamples],
  ];

  const before = loadavg();
  const rows: string[][] = [];
  const results: SpawnCase[] = [];
  for (const [id, name, fn, n] of cases) {
    const stats = await measure(fn, { min_samples: n, max_samples: n, min_cpu_time: 0, warmup_samples: 3, batch_samples: 0 });
    const ms = (ns: number) => ns / 1e6;
    results.push({ id, name, p50: ms(stats.p50), p99: ms(stats.p99), avg: ms(stats.avg), samples: stats.samples.length });
    rows.push([name, fmt(ms(stats.p50), 3), fmt(ms(stats.p99), 3), fmt(ms(stats.avg), 3), String(stats.samples.length)]);
    console.error(`done: ${name}`);
  }

  console.log(`Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "?"})\n`);
  console.log(textTable(["case (one hook per tool call)", "p50 ms", "p99 ms", "avg ms", "samples"], rows));
  const out = args.get("json");
  if (out !== undefined) {
    const report: SpawnReport = {
      suite: "spawn",
      date: new Date().toISOString(),
      node: process.version,
      cpu: cpus()[0]?.model.trim() ?? "unknown",
      cores: cpus().length,
      samples,
      bridgeSamples,
      load: { before, after: loadavg() },
      cases: results,
    };
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  }
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
