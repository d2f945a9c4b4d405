/**
 * Cost of redaction per KB of tool result: the default detectors now and before the rule-table
 * detectors (loaded from git, see redaction-baseline.ts), on typical tool output (this
 * repository's own source code, its package-lock.json, synthetic service logs, a mix) at 20 KB,
 * 200 KB and 2 MB, and on pathological inputs (long digit runs for the card and phone detectors,
 * one long base64 token, many near-miss addresses, many colons, `=` and password names), whose
 * cost per KB must not grow with their size.
 *
 *   npx tsx benchmarks/redaction.bench.ts [--rounds 5] [--before <ref>] [--json out.json] [--dist] [--typical]
 *
 * `--dist` times the built package (`npm run build` first: dist/index.js) instead of the sources,
 * as an application runs it; `--typical` times the typical tool output only.
 *
 * Each round runs in a fresh Node process (JIT and caches start cold, as in a new agent); a
 * round times each case by the median of repeated calls, in CPU time (`process.cpuUsage`: the
 * work is synchronous on the main thread, so on a busy machine this leaves out the time other
 * processes held the CPU). The table gives min, median and max
 * over rounds, in µs per KB, and the 200 KB figure in ms. `redactor.text` is what `redaction()`
 * runs on a tool result that is one string; `redactor.value` a parsed JSON object of the same
 * size (keys scanned too).
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as sources from "../src/middleware/index.ts";
import { beforeRef, loadDetectorsAt } from "./redaction-baseline.ts";
import { pick, sized, typical } from "./redaction-inputs.ts";
import { fmt, median, parseArgs, textTable } from "./util.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const KB = 1024;

/** Inputs built to make a detector work hard, by size. */
const hostile: Record<string, (size: number) => string> = {
  "digit runs (1 1 1 …)": (n) => "1 ".repeat(n / 2),
  "crafted phone runs": (n) => sized(" +1(1234)11111111111111111111a", n),
  "card-like groups": (n) => sized("4111 1111 1111 111", n),
  "one base64 token": (n) => pick("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", n),
  "one ghp_ token": (n) => "ghp_" + pick("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", n - 4),
  "near-miss addresses": (n) => sized("a@b x@y. user@host mail@", n),
  "long local parts": (n) => sized("a".repeat(70) + "@", n),
  "colons (IPv6 anchors)": (n) => sized("a1:b2:", n),
  "key=value runs": (n) => sized("token=a1b2c3d4e5f6g7h8&", n),
  "password names": (n) => sized("password: x ", n),
  "BEGIN headers": (n) => sized("-----BEGIN RSA PRIVATE KEY-----", n),
  "URL user info": (n) => sized("http://a:b@", n),
};

type Case = { readonly name: string; readonly size: number; readonly run: () => unknown };

/** CPU µs of this process so far (user and system): other processes' time on a shared machine is left out. */
const cpu = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/**
 * Median CPU µs of one call of `run`, over samples of enough calls each to take about 5 ms (the
 * CPU clock counts in µs), filling about `budgetMs`. Each call is followed by a turn of the
 * microtask queue, as between two tool results: the detectors keep what they learnt of a text
 * (its view, runs, digit stretches) only until then, so a loop of calls on the same text without
 * it would time that work once for all of them.
 */
const time = async (run: () => unknown, budgetMs: number): Promise<number> => {
  for (let i = 0; i < 3; i++) {
    run();
    await null;
  }
  const t = performance.now();
  run();
  await null;
  const batch = Math.max(1, Math.ceil(5 / Math.max(0.001, performance.now() - t)));
  const samples: number[] = [];
  const end = performance.now() + budgetMs;
  while (samples.length < 5 || (performance.now() < end && samples.length < 100)) {
    const start = cpu();
    for (let i = 0; i < batch; i++) {
      run();
      await null;
    }
    samples.push((cpu() - start) / batch);
  }
  return median(samples);
};

/** One round, in this process: µs per case. */
const round = async (before: string, dist: boolean, typicalOnly: boolean): Promise<Record<string, number>> => {
  const { defaultDetectors, scan, createRedactor } = dist ? ((await import(join(root, "dist/index.js"))) as typeof sources) : sources;
  const old = await loadDetectorsAt(before);
  const now = defaultDetectors();
  const redactor = createRedactor();
  const cases: Case[] = [];
  for (const [name, text] of Object.entries(typical)) {
    for (const size of [20 * KB, 200 * KB, 2048 * KB]) {
      const input = sized(text, size);
      cases.push({ name: `${name}|scan now`, size, run: () => scan(input, now) });
      cases.push({ name: `${name}|redactor.text now`, size, run: () => redactor.text(input) });
      cases.push({ name: `${name}|scan before`, size, run: () => old.scan(input, old.detectors) });
    }
  }
  // The same JSON as an object (a tool's structured result): every key and string scanned.
  const lock = JSON.parse(typical.json as string) as unknown;
  const lockKb = (typical.json as string).length;
  cases.push({ name: "json object|redactor.value now", size: lockKb, run: () => redactor.value(lock) });
  for (const [name, make] of Object.entries(typicalOnly ? {} : hostile)) {
    for (const size of [200 * KB, 2048 * KB]) {
      const input = make(size);
      cases.push({ name: `${name}|scan now`, size, run: () => scan(input, now) });
      cases.push({ name: `${name}|scan before`, size, run: () => old.scan(input, old.detectors) });
    }
  }
  const out: Record<string, number> = {};
  for (const c of cases) out[`${c.name}|${c.size}`] = await time(c.run, c.size > 1024 * KB ? 600 : 250);
  return out;
};

const main = async (): Promise<void> => {
  const args = parseArgs(process.argv.slice(2));
  const before = beforeRef(args.get("before"));
  if (args.has("child")) {
    process.stdout.write(JSON.stringify(await round(before, args.has("dist"), args.has("typical"))));
    return;
  }
  const rounds = Number(args.get("rounds") ?? 5);
  const results: Record<string, number>[] = [];
  for (let r = 0; r < rounds; r++) {
    const stdout = execFileSync(
      process.execPath,
      [
        ...process.execArgv,
        fileURLToPath(import.meta.url),
        "--child",
        "--before",
        before,
        ...(args.has("dist") ? ["--dist"] : []),
        ...(args.has("typical") ? ["--typical"] : []),
      ],
      { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
    );
    results.push(JSON.parse(stdout) as Record<string, number>);
    process.stderr.write(`round ${r + 1}/${rounds} done\n`);
  }
  const keys = Object.keys(results[0] as Record<string, number>);
  const stats = (key: string) => {
    const values = results.map((r) => r[key] as number).sort((a, b) => a - b);
    return { min: values[0] as number, median: median(values), max: values.at(-1) as number };
  };
  const perKb = (key: string) => {
    const size = Number(key.split("|")[2]);
    const s = stats(key);
    return `${fmt(s.min / (size / KB), 2)} / ${fmt(s.median / (size / KB), 2)} / ${fmt(s.max / (size / KB), 2)}`;
  };
  const rows = keys.map((key) => {
    const [name, what, size] = key.split("|") as [string, string, string];
    const s = stats(key);
    return [
      `${name}: ${what}`,
      `${fmt(Number(size) / KB)} KB`,
      perKb(key),
      `${fmt(s.min / 1000, 3)} / ${fmt(s.median / 1000, 3)} / ${fmt(s.max / 1000, 3)}`,
    ];
  });
  console.log(
    `Redaction cost, ${rounds} fresh processes, Node ${process.version}, ${args.has("dist") ? "dist/" : "src/"}; before = ${before.slice(0, 7)}\n`,
  );
  console.log(textTable(["case", "size", "µs per KB (min / median / max)", "ms per call (min / median / max)"], rows));
  if (args.has("json"))
    writeFileSync(args.get("json") as string, JSON.stringify({ node: process.version, before, rounds, results }, null, 2));
};

await main();
