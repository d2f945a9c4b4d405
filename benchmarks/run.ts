/**
 * `npm run bench`: builds `dist/` and measures the engine as users run it, then writes
 * `benchmarks/results/latest.json` and `benchmarks/README.md` (the table and the command that made
 * it; nothing of earlier runs is kept).
 *
 * Every case is measured in `--rounds` fresh processes (default 3) for time and again for bytes,
 * round by round in alternating order, so that each ratio can be paired within a round; the
 * README gives the median and the range (min to max) over rounds.
 *
 *   npm run bench                    # about 3 minutes on 2 idle cores
 *   npm run bench -- --rounds 5      # more rounds
 *   npm run bench -- --report        # rewrite README.md from results/latest.json
 *   npm run bench -- --cases onion-ba/20,hand-loop/20 --no-bytes   # some cases: print, write nothing
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { figuresStamp } from "../scripts/figures.ts";
import { cases } from "./cases.ts";
import { fmt, median, parseArgs } from "./util.ts";

const here = dirname(fileURLToPath(import.meta.url));
/** The bytes mode's flags: a fixed, large young generation, so no scavenge runs while a case is measured. */
const bytesFlags = ["--expose-gc", "--min-semi-space-size=256", "--max-semi-space-size=256"];
const root = join(here, "..");
const latestPath = join(here, "results", "latest.json");
const readmePath = join(here, "README.md");

interface Results {
  readonly machine: string;
  readonly command: string;
  readonly rounds: number;
  /** Per case: ns per call and bytes per run, one number per round. */
  readonly ns: Record<string, number[]>;
  readonly bytes: Record<string, number[]>;
  readonly freeze: Record<string, { coldUs: number[]; warmUs: number[]; nodes: number }>;
  /** The stamp of the sources measured (scripts/figures.ts), taken when the run started. */
  readonly sources?: string;
}

/** What the engine benchmarks measure: a change here makes the README's figures stale. */
const measured = ["src/core", "benchmarks/cases.ts", "benchmarks/measure.ts"];

const measureIn = (flags: readonly string[], args: readonly string[]): Record<string, number> => {
  const out = spawnSync(process.execPath, [...flags, "--import", "tsx", join(here, "measure.ts"), ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (out.status !== 0) throw new Error(`measure.ts ${args.join(" ")} failed (exit ${out.status ?? out.signal})`);
  return JSON.parse(out.stdout) as Record<string, number>;
};

const machine = (): string => {
  const cpu = readFileSync("/proc/cpuinfo", "utf8").match(/^model name\s*:\s*(.*)$/m)?.[1] ?? cpus()[0]?.model ?? "unknown CPU";
  return `Node ${process.version}, ${cpu}, ${cpus().length} cores, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")} at the start`;
};

const run = (rounds: number, command: string, only?: ReadonlySet<string>, withBytes = true): Results => {
  console.error("building dist/ ...");
  execFileSync("npm", ["run", "build"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  const results: Results = { machine: machine(), command, rounds, ns: {}, bytes: {}, freeze: {}, sources: figuresStamp(root, measured) };
  for (let round = 0; round < rounds; round++) {
    const chosen = only === undefined ? cases : cases.filter((c) => only.has(c.id));
    const order = round % 2 === 0 ? chosen : [...chosen].reverse();
    for (const c of order) {
      (results.ns[c.id] ??= []).push(measureIn([], ["--case", c.id, "--mode", "time"]).ns as number);
      if (withBytes) (results.bytes[c.id] ??= []).push(measureIn(bytesFlags, ["--case", c.id, "--mode", "bytes"]).bytes as number);
    }
    if (only !== undefined) {
      console.error(`round ${round + 1}/${rounds} done`);
      continue;
    }
    for (const size of [2048, 204800]) {
      const r = measureIn([], ["--freeze", String(size)]);
      const entry = (results.freeze[String(size)] ??= { coldUs: [], warmUs: [], nodes: r.nodes as number });
      entry.coldUs.push(r.coldUs as number);
      entry.warmUs.push(r.warmUs as number);
    }
    console.error(`round ${round + 1}/${rounds} done`);
  }
  return results;
};

/** median (min–max) of a list. */
const range = (values: readonly number[], digits: number, unit = ""): string =>
  `${fmt(median(values), digits)}${unit} (${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)})`;

/** Per round: a value computed from the rounds' own measurements. */
const perRound = (r: Results, f: (ns: (id: string) => number) => number): number[] =>
  Array.from({ length: r.rounds }, (_, i) => f((id) => r.ns[id]?.[i] ?? Number.NaN));

const perLayer = (ns: (id: string) => number, family: string): number => (ns(`${family}/20`) - ns(`${family}/1`)) / 19;

interface Target {
  readonly id: string;
  readonly what: string;
  readonly values: number[];
  readonly limit: number | undefined;
  readonly unit: string;
}

const targets = (r: Results): Target[] => [
  {
    id: "T1",
    what: "no hooks: `stack.run` ÷ a hand-written async wrapper (a)",
    values: perRound(r, (ns) => ns("onion/0") / ns("hand-async")),
    limit: 1.3,
    unit: "x",
  },
  {
    id: "T2",
    what: "20 sync before/after hooks ÷ a hand-written loop (b)",
    values: perRound(r, (ns) => ns("onion-ba/20") / ns("hand-loop/20")),
    limit: 2,
    unit: "x",
  },
  {
    id: "T2 + observer",
    what: "T2 with one no-op observer added",
    values: perRound(r, (ns) => ns("onion-ba-observer/20") / ns("hand-loop/20")),
    limit: 2.5,
    unit: "x",
  },
  {
    id: "T2 + reading observer",
    what: "T2 with one observer that reads the outcome, duration and every decision (not a target)",
    values: perRound(r, (ns) => ns("onion-ba-metrics/20") / ns("hand-loop/20")),
    limit: undefined,
    unit: "x",
  },
  {
    id: "T3",
    what: "20 `async` around hooks: ns per layer ÷ koa-compose's per `async` layer",
    values: perRound(r, (ns) => perLayer(ns, "onion-around-async") / perLayer(ns, "koa-async")),
    limit: 1.2,
    unit: "x",
  },
  {
    id: "T3 floor",
    what: "not a target: (d) checked async layers per layer ÷ koa-compose's, the least an onion that reads each async answer into an outcome does",
    values: perRound(r, (ns) => perLayer(ns, "hand-checked") / perLayer(ns, "koa-async")),
    limit: undefined,
    unit: "x",
  },
];

const render = (r: Results): string => {
  const rows = targets(r);
  const met = rows.filter((t) => t.limit !== undefined && median(t.values) <= t.limit).length;
  const limited = rows.filter((t) => t.limit !== undefined).length;
  const bytesPerLayer = (family: string, i: number): number =>
    (((r.bytes[`${family}/20`] as number[])[i] as number) - ((r.bytes[`${family}/1`] as number[])[i] as number)) / 19;
  const shapes = [
    ["before/after hook", "onion-ba", "hand-loop"],
    ["sync around, `(ctx, next) => next()`", "onion-around", "koa"],
    ["async around, `async (ctx, next) => await next()`", "onion-around-async", "koa-async"],
  ] as const;
  const lines = [
    "# Benchmarks",
    "",
    "<!-- Written by `npm run bench` (benchmarks/run.ts). Do not edit by hand; run it again. -->",
    ...(r.sources ? [r.sources] : []),
    "",
    `Machine: ${r.machine}.`,
    `Command: \`${r.command}\`. Raw numbers: [results/latest.json](results/latest.json).`,
    "",
    `Every case runs the built \`dist/\` (what users import) with the defaults users get (inputs and outputs frozen), around the same operation, \`async (x) => x\`, on a small frozen tool call. Each figure is measured in ${r.rounds} fresh Node processes; a cell gives the median and, in brackets, the range over them. Ratios are taken within a round (both sides measured minutes apart at most) and then summarised. Times are CPU time of the measuring process, so other work on a shared machine is mostly left out, but not all: treat them as indicative.`,
    "",
    "## Targets",
    "",
    `${met} of ${limited} met.`,
    "",
    "| id | target | measured | limit | met |",
    "|---|---|--:|--:|:-:|",
    ...rows.map(
      (t) =>
        `| ${t.id} | ${t.what} | ${range(t.values, 2, t.unit)} | ${t.limit === undefined ? "–" : `≤ ${t.limit}${t.unit}`} | ${t.limit === undefined ? "–" : median(t.values) <= t.limit ? "yes" : "**no**"} |`,
    ),
    "",
    "## Time: ns per call",
    "",
    "| case | ns per call | what it measures |",
    "|---|--:|---|",
    ...cases.map((c) => `| \`${c.id}\` | ${range(r.ns[c.id] as number[], 0)} | ${c.what} |`),
    "",
    "## Memory: bytes allocated",
    "",
    "| case | bytes per run |",
    "|---|--:|",
    ...cases.map((c) => `| \`${c.id}\` | ${range(r.bytes[c.id] as number[], 0)} |`),
    "",
    "Per hook (marginal, (bytes at 20 − bytes at 1) ÷ 19), against the hand-written or koa-compose layer of the same shape:",
    "",
    "| shape | agent-onion, bytes per hook | the other, bytes per hook |",
    "|---|--:|--:|",
    ...shapes.map(
      ([shape, ours, theirs]) =>
        `| ${shape} vs \`${theirs}\` | ${range(
          Array.from({ length: r.rounds }, (_, i) => bytesPerLayer(ours, i)),
          0,
        )} | ${range(
          Array.from({ length: r.rounds }, (_, i) => bytesPerLayer(theirs, i)),
          0,
        )} |`,
    ),
    "",
    "## Freezing what hooks receive",
    "",
    "`deepFreeze` of a tool call made fresh (cold: every object is frozen now), and of the same value again (warm: it was frozen by `deepFreeze` before, one lookup).",
    "",
    "| input | objects and arrays | cold, µs | warm, µs |",
    "|---|--:|--:|--:|",
    ...Object.entries(r.freeze).map(
      ([size, f]) => `| ${fmt(Number(size) / 1024, 0)} KB of JSON | ${fmt(f.nodes, 0)} | ${range(f.coldUs, 1)} | ${range(f.warmUs, 3)} |`,
    ),
    "",
    "## Running them",
    "",
    "- `npm run bench` builds `dist/`, measures every case above and rewrites this file (`--rounds N` for more rounds, `--report` to rewrite it from results/latest.json).",
    "- `node --import tsx benchmarks/measure.ts --case onion-ba/20 --mode time` measures one case once (see its header for bytes and freezing).",
    "- `npx tsx benchmarks/ai-sdk.bench.ts`, `npx tsx benchmarks/spawn.bench.ts` and `npx tsx benchmarks/signal.bench.ts` measure the AI SDK adapter, command hooks and run signals; they print their own tables and are not part of this one.",
    "",
  ];
  return lines.join("\n");
};

const main = (): void => {
  const args = parseArgs(process.argv.slice(2));
  if (args.has("report")) {
    if (!existsSync(latestPath)) throw new Error(`no ${latestPath} to report from`);
    writeFileSync(readmePath, render(JSON.parse(readFileSync(latestPath, "utf8")) as Results));
    console.log(`wrote ${readmePath}`);
    return;
  }
  const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`;
  const started = Date.now();
  const only = args.get("cases");
  if (only !== undefined) {
    // Some cases only: print what was measured and the targets they allow; the README stays as it is.
    const ids = new Set(only.split(","));
    const unknown = [...ids].filter((id) => !cases.some((c) => c.id === id));
    if (unknown.length > 0) throw new Error(`no case ${unknown.join(", ")} (known: ${cases.map((c) => c.id).join(", ")})`);
    const results = run(Number(args.get("rounds") ?? 3), command, ids, !args.has("no-bytes"));
    for (const id of ids) {
      const bytes = results.bytes[id];
      console.log(
        `${id.padEnd(24)} ${range(results.ns[id] as number[], 0, " ns").padStart(22)}${bytes ? `  ${range(bytes, 0, " B")}` : ""}`,
      );
    }
    for (const t of targets(results))
      if (t.values.every(Number.isFinite))
        console.log(`${t.id.padEnd(24)} ${range(t.values, 2, t.unit).padStart(22)}  [${t.values.map((v) => v.toFixed(2)).join(", ")}]`);
    return;
  }
  const results = run(Number(args.get("rounds") ?? 3), command);
  mkdirSync(dirname(latestPath), { recursive: true });
  writeFileSync(latestPath, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(readmePath, render(results));
  for (const t of targets(results))
    console.log(
      `${t.id.padEnd(24)} ${range(t.values, 2, t.unit).padStart(22)}  ${t.limit === undefined ? "" : `limit ${t.limit}${t.unit}`}`,
    );
  console.log(`wrote ${latestPath} and ${readmePath} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
};

main();
