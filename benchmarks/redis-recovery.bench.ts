/**
 * How fast budgets and limits on Redis admit calls again after the server stalled (SIGSTOP for
 * 3 s, then SIGCONT), was killed (SIGKILL, restarted 1.5 s later) or was restarted cleanly, with
 * three worker processes keeping calls going (test/stores/redis-faults.ts). Each run is a fresh
 * process with its own redis-server; recovery is the time from SIGCONT, or from the start of the
 * new server, to the first admitted call, for each worker and each of its two stacks (a budget; a
 * sliding window, a fixed window and a call limit nested).
 *
 *   npx tsx benchmarks/redis-recovery.bench.ts [--runs 3] [--json out.json]
 *
 * Prints min, median and max over runs of each fault's slowest recovery, and whether the totals
 * were exact after every fault.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { FaultRunFigures } from "../test/stores/redis-faults.ts";
import { fmt, median, parseArgs, textTable } from "./util.ts";

const args = parseArgs(process.argv.slice(2));
const runs = Number(args.get("runs") ?? 3);
if (!Number.isInteger(runs) || runs < 1) throw new RangeError("--runs must be a positive integer");

if (process.argv.includes("--child")) {
  const { redisFaults } = await import("../test/stores/redis-faults.ts");
  process.stdout.write(`${JSON.stringify(await redisFaults())}\n`);
} else {
  const self = fileURLToPath(import.meta.url);
  const results: FaultRunFigures[] = [];
  for (let run = 0; run < runs; run++) {
    const child = spawnSync(process.execPath, ["--import", "tsx", self, "--child"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    if (child.status !== 0) throw new Error(`run ${run + 1} failed`);
    results.push(JSON.parse(child.stdout) as FaultRunFigures);
    console.error(`run ${run + 1} of ${runs} done`);
  }
  const exact = (r: FaultRunFigures): boolean =>
    [r.before, ...r.faults.map((f) => f.after)].every(
      (t) =>
        t.accountingErrors.length === 0 &&
        t.budget.settled === t.budget.spent &&
        t.budget.used === t.budget.spent &&
        [t.limits.sliding, t.limits.fixed, t.limits.calls, t.limits.callsCounter].every((n) => n === t.limits.admitted),
    );
  const stat = (values: number[], digits = 0): string[] => [
    fmt(Math.min(...values), digits),
    fmt(median(values), digits),
    fmt(Math.max(...values), digits),
  ];
  const rows: string[][] = [["calls per second before the faults", ...stat(results.map((r) => r.callsPerSecond))]];
  for (const fault of results[0]!.faults.map((f) => f.fault)) {
    const of = (r: FaultRunFigures) => r.faults.find((f) => f.fault === fault)!;
    rows.push([`${fault}: server down (ms)`, ...stat(results.map((r) => of(r).downMs))]);
    if (fault !== "stall") rows.push([`${fault}: new server answering PING (ms)`, ...stat(results.map((r) => of(r).serverStartMs))]);
    rows.push([`${fault}: slowest recovery (ms)`, ...stat(results.map((r) => Math.max(...of(r).recoveryMs)))]);
    rows.push([`${fault}: fastest recovery (ms)`, ...stat(results.map((r) => Math.min(...of(r).recoveryMs)))]);
    if (fault !== "stall")
      rows.push([
        `${fault}: slowest recovery after PING (ms)`,
        ...stat(results.map((r) => Math.max(...of(r).recoveryMs) - of(r).serverStartMs)),
      ]);
    rows.push([`${fault}: admitted while down`, ...stat(results.map((r) => of(r).admittedWhileDown))]);
    rows.push([`${fault}: refused ${of(results[0]!).graceMs} ms or more after`, ...stat(results.map((r) => of(r).refusedAfterRecovery))]);
  }
  console.log(`redis recovery: ${runs} runs, ${results[0]!.workers} worker processes x ${results[0]!.lanes} lanes`);
  console.log(textTable(["figure", "min", "median", "max"], rows));
  console.log(`totals exact before and after every fault: ${results.filter(exact).length} of ${runs} runs`);
  const out = args.get("json");
  if (out !== undefined) writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
}
