/**
 * Heap and time per turn of a long session: the reference agent with the recommended middleware
 * (guards, toolPolicy, redaction, retry, metrics), a scripted model that calls a tool every other
 * request, compaction on (contextBudget 2 000 tokens). Each run is a fresh process started with
 * `--expose-gc` (test/agent/session-memory.ts); the heap is read after full collections.
 *
 *   npx tsx benchmarks/session-memory.bench.ts [--turns 5000] [--runs 3] [--json out.json]
 *
 * Prints, over the runs: heap after 100 turns and after the last, the least-squares slope of heap
 * over turns (bytes per turn, from turn 1 000 on), store keys left, and mean ms per turn early
 * (turns 101–1 000) and late (the last 1 000): min, median and max of each.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { SessionFigures, SessionSample } from "../test/agent/session-memory.ts";
import { fmt, median, parseArgs, textTable } from "./util.ts";

const args = parseArgs(process.argv.slice(2));
const turns = Number(args.get("turns") ?? 5_000);
const runs = Number(args.get("runs") ?? 3);
if (!Number.isInteger(turns) || turns < 1_100) throw new RangeError("--turns must be an integer of at least 1100");
if (!Number.isInteger(runs) || runs < 1) throw new RangeError("--runs must be a positive integer");
const driver = fileURLToPath(new URL("../test/agent/session-memory.ts", import.meta.url));

const meanMs = (samples: readonly SessionSample[], from: number, to: number): number => {
  const within = samples.filter((s) => s.turn > from && s.turn <= to && s.turn !== 100);
  // Each sample's msPerTurn covers the turns since the one before it: weight by that span.
  let ms = 0;
  let count = 0;
  let previous = samples.filter((s) => s.turn <= from).at(-1)?.turn ?? 0;
  for (const s of within) {
    ms += s.msPerTurn * (s.turn - previous);
    count += s.turn - previous;
    previous = s.turn;
  }
  return ms / count;
};

const results: SessionFigures[] = [];
for (let run = 0; run < runs; run++) {
  const child = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", driver, String(turns), "100"], {
    encoding: "utf8",
    env: { ...process.env, AGENT_ONION_STRICT: "0" },
  });
  if (child.status !== 0) throw new Error(`run ${run + 1} failed: ${child.stderr}`);
  results.push(JSON.parse(child.stdout) as SessionFigures);
  console.error(`run ${run + 1} of ${runs} done`);
}

const rows = results.map((r) => {
  const at100 = r.samples.find((s) => s.turn === 100)!;
  const last = r.samples.at(-1)!;
  return {
    heap100: at100.heapUsedBytes / 1048576,
    heapLast: last.heapUsedBytes / 1048576,
    maxHeap: Math.max(...r.samples.map((s) => s.heapUsedBytes)) / 1048576,
    slope: r.slopeBytesPerTurn,
    storeKeys: Math.max(...r.samples.map((s) => s.storeKeys)),
    early: meanMs(r.samples, 100, 1_000),
    late: meanMs(r.samples, turns - 1_000, turns),
    notCompleted: r.notCompleted,
  };
});
const stat = (pick: (row: (typeof rows)[number]) => number, digits: number): string[] => {
  const values = rows.map(pick);
  return [fmt(Math.min(...values), digits), fmt(median(values), digits), fmt(Math.max(...values), digits)];
};
console.log(`session memory: ${turns} turns, ${runs} fresh processes (node --expose-gc), AGENT_ONION_STRICT=0`);
console.log(
  textTable(
    ["figure", "min", "median", "max"],
    [
      ["heap after GC, turn 100 (MiB)", ...stat((r) => r.heap100, 2)],
      [`heap after GC, turn ${turns} (MiB)`, ...stat((r) => r.heapLast, 2)],
      ["highest sample (MiB)", ...stat((r) => r.maxHeap, 2)],
      ["heap slope from turn 1000 (bytes/turn)", ...stat((r) => r.slope, 0)],
      ["store keys left (most at any sample)", ...stat((r) => r.storeKeys, 0)],
      ["ms per turn, turns 101-1000", ...stat((r) => r.early, 3)],
      [`ms per turn, last 1000 turns`, ...stat((r) => r.late, 3)],
      ["turns not completed", ...stat((r) => r.notCompleted, 0)],
    ],
  ),
);
const out = args.get("json");
if (out !== undefined) writeFileSync(out, `${JSON.stringify({ turns, runs, rows, results }, null, 2)}\n`);
