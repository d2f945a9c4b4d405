/**
 * Spawn cost of external hooks: one command hook per tool call, in ms at p50 and p99, beside
 * an in-process hook doing the same job. Every case is one `stack.run("toolCall", ...)` with
 * one hook on it; the command hooks read the event JSON on stdin and allow (exit 0).
 *
 *   npx tsx benchmarks/spawn.bench.ts [--samples 100] [--bridge-samples 20] [--json out.json]
 *
 * Cases: an in-process `before` hook; a shell-form command hook (`/bin/sh -c 'cat >/dev/null'`,
 * the cheapest real script); an exec-form command hook running a Node script (node's own
 * start-up dominates); and the other direction, `agent-onion claude-hook` run as Claude Code
 * runs it (node + tsx + the module's stack).
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { measure } from "mitata";
import { agentPoints } from "../src/agent/points.ts";
import { Continue, Reject } from "../src/core/action.ts";
import { createStack } from "../src/core/stack.ts";
import { commandHook } from "../src/executors/command.ts";
import { fmt, parseArgs, textTable } from "./util.ts";

const args = parseArgs(process.argv.slice(2));
const samples = Number(args.get("samples") ?? 100);
const bridgeSamples = Number(args.get("bridge-samples") ?? 20);
const root = fileURLToPath(new URL("..", import.meta.url));
const call = { id: "toolu_1", name: "Bash", input: { command: "ls -la" } };
const tool = async () => ({ content: "ok" });

const base = createStack(agentPoints, { strict: false });
const inProcess = base.use("toolCall", { name: "in-process", before: (c) => (/rm\s+-rf/.test(String(c.input.command)) ? Reject("no") : Continue) });
const shell = base.use("toolCall", commandHook({ event: "PreToolUse", name: "sh", command: "cat > /dev/null", timeoutMs: 10_000 }));
const nodeScript = base.use("toolCall", commandHook({
  event: "PreToolUse", name: "node", command: process.execPath, args: [`${root}test/fixtures/commands/respond.mjs`, "0"], timeoutMs: 10_000,
}));

const bridge = (): Promise<void> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`${root}bin/agent-onion.js`, "claude-hook", `${root}test/fixtures/settings/guard-stack.ts`], { stdio: ["pipe", "ignore", "ignore"] });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`bridge exited ${code}`))));
    child.stdin.end(JSON.stringify({ hook_event_name: "PreToolUse", session_id: "s", cwd: root, tool_name: "Bash", tool_input: call.input, tool_use_id: "t" }));
  });

const run = (stack: typeof inProcess) => async () => {
  const outcome = await stack.run("toolCall", call, tool);
  if (outcome._tag !== "Completed") throw new Error(`unexpected ${outcome._tag}`);
};

const cases: [string, () => Promise<void>, number][] = [
  ["in-process before hook", run(inProcess), Math.max(samples, 1000)],
  ["command hook, shell form (sh: cat >/dev/null)", run(shell), samples],
  ["command hook, exec form (node script)", run(nodeScript), samples],
  ["agent-onion claude-hook (node + tsx + stack)", bridge, bridgeSamples],
];

const rows: string[][] = [];
const results: Record<string, { p50: number; p99: number; avg: number; samples: number }> = {};
for (const [name, fn, n] of cases) {
  const stats = await measure(fn, { min_samples: n, max_samples: n, min_cpu_time: 0, warmup_samples: 3, batch_samples: 0 });
  const ms = (ns: number) => ns / 1e6;
  results[name] = { p50: ms(stats.p50), p99: ms(stats.p99), avg: ms(stats.avg), samples: stats.samples.length };
  rows.push([name, fmt(ms(stats.p50), 3), fmt(ms(stats.p99), 3), fmt(ms(stats.avg), 3), String(stats.samples.length)]);
  console.error(`done: ${name}`);
}

console.log(`Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "?"})\n`);
console.log(textTable(["case (one hook per tool call)", "p50 ms", "p99 ms", "avg ms", "samples"], rows));
if (args.has("json")) writeFileSync(args.get("json")!, JSON.stringify(results, null, 2));
