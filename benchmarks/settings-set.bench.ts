/**
 * What running the hooks of one event Claude Code's way costs, per tool call, in ms at p50 and
 * p99: the same three shell-form command hooks (`cat > /dev/null`) loaded by `fromClaudeSettings`
 * (one hook set, the three at once) and mounted one after another with `commandHook` (the onion,
 * in sequence); and, in µs, a call no settings hook matches, which pays only the set's matching,
 * beside a stack with no hook at all.
 *
 *   npx tsx benchmarks/settings-set.bench.ts [--samples 60]
 */
import { cpus, loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { measure } from "mitata";
import { agentPoints } from "../src/agent/points.ts";
import { createStack } from "../src/core/stack.ts";
import { commandHook } from "../src/executors/command.ts";
import { fromClaudeSettings } from "../src/executors/settings.ts";
import { fmt, parseArgs, textTable } from "./util.ts";

const main = async (): Promise<void> => {
  const args = parseArgs(process.argv.slice(2));
  const samples = Number(args.get("samples") ?? 60);
  const bashCall = { id: "toolu_1", name: "Bash", input: { command: "ls -la" } };
  const readCall = { id: "toolu_2", name: "Read", input: { file_path: "/tmp/x" } };
  const tool = async () => ({ content: "ok" });
  const base = createStack(agentPoints, { strict: false });
  const handlers = [1, 2, 3].map(() => ({ type: "command", command: "cat > /dev/null", timeout: 10 }));
  const set = fromClaudeSettings(
    { hooks: { PreToolUse: [{ matcher: "Bash", hooks: handlers.map((h, i) => ({ ...h, command: `${h.command} # ${i}` })) }] } },
    { stack: base, cwd: process.cwd() },
  ).stack;
  const onion = [1, 2, 3].reduce(
    (s, i) =>
      s.use(
        "toolCall",
        commandHook({ event: "PreToolUse", name: `sh-${i}`, match: "Bash", command: "cat > /dev/null", timeoutMs: 10_000 }),
      ),
    base,
  );
  const run = (stack: typeof base, call: typeof bashCall | typeof readCall) => async () => {
    const outcome = await stack.run("toolCall", call, tool);
    if (outcome._tag !== "Completed") throw new Error(`unexpected ${outcome._tag}`);
  };
  const before = loadavg();
  const rows: string[][] = [];
  for (const [name, fn] of [
    ["3 hooks from settings, one set (at once)", run(set, bashCall)],
    ["3 commandHooks in the onion (in sequence)", run(onion, bashCall)],
  ] as const) {
    const stats = await measure(fn, { min_samples: samples, max_samples: samples, min_cpu_time: 0, warmup_samples: 3, batch_samples: 0 });
    rows.push([
      name,
      fmt(stats.p50 / 1e6, 2),
      fmt(stats.p99 / 1e6, 2),
      fmt(stats.min / 1e6, 2),
      fmt(stats.max / 1e6, 2),
      "ms",
      String(stats.samples.length),
    ]);
  }
  for (const [name, fn] of [
    ["no settings hook matches (a Read call)", run(set, readCall)],
    ["no hook at all (a Read call, bare stack)", run(base, readCall)],
  ] as const) {
    const stats = await measure(fn);
    rows.push([
      name,
      fmt(stats.p50 / 1e3, 2),
      fmt(stats.p99 / 1e3, 2),
      fmt(stats.min / 1e3, 2),
      fmt(stats.max / 1e3, 2),
      "µs",
      String(stats.samples.length),
    ]);
  }
  console.log(
    `Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), load ${before.map((l) => l.toFixed(2)).join(" ")} -> ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}\n`,
  );
  console.log(textTable(["case (per tool call)", "p50", "p99", "min", "max", "unit", "samples"], rows));
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
