/**
 * Where the time of redacting a 200 KB tool result goes: for each typical input (see
 * redaction-inputs.ts), the CPU time of `scan` with every default detector, what each detector
 * adds to it (the scan without it, subtracted from the whole: the runs of token characters and the
 * stretches of digits that two detectors share count for neither alone), and the same text with
 * its characters beyond Latin-1 replaced by `?`, which the engine holds as a one-byte string (what
 * holding a text as two-byte costs).
 *
 *   npx tsx benchmarks/redaction-passes.ts [--rounds 3] [--dist]
 *
 * `--dist` times the built package (`npm run build` first). Each round is a fresh Node process;
 * in it the variants of a case are timed in turns (each a median of batches of calls, each call
 * followed by a turn of the microtask queue as in redaction.bench.ts), so that the machine's load
 * weighs on all of them alike. The table gives min / median / max over rounds, in µs.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as sources from "../src/middleware/index.ts";
import { sized, typical } from "./redaction-inputs.ts";
import { fmt, median, parseArgs, textTable } from "./util.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const SIZE = 200 * 1024;

/** CPU µs of this process so far. */
const cpu = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** One round, in this process: µs per variant, keyed `kind|variant`. */
const round = async (dist: boolean): Promise<Record<string, number>> => {
  const m = dist ? ((await import(join(root, "dist/index.js"))) as typeof sources) : sources;
  const all = m.defaultDetectors();
  const names = new Map<unknown, string>(Object.entries(m.Detectors).map(([name, d]) => [d, name]));
  const out: Record<string, number> = {};
  for (const [kind, source] of Object.entries(typical)) {
    const text = sized(source, SIZE);
    const variants: [string, string, readonly sources.Detector[]][] = [["all", text, all]];
    for (const d of all) variants.push([`without ${names.get(d) ?? d.kind}`, text, all.filter((x) => x !== d)]);
    // A copy with the characters beyond Latin-1 replaced, held as one byte a character.
    const narrow = Buffer.from(text.replace(/[^\0-\xff]/g, "?"), "latin1").toString("latin1");
    if (narrow !== text) variants.push(["all, held as one-byte", narrow, all]);
    const samples = variants.map((): number[] => []);
    for (let i = 0; i < 5; i++)
      for (const [, t, ds] of variants) {
        m.scan(t, ds);
        await null;
      }
    for (let rep = 0; rep < 24; rep++)
      for (const [i, [, t, ds]] of variants.entries()) {
        const start = cpu();
        for (let k = 0; k < 6; k++) {
          m.scan(t, ds);
          await null;
        }
        samples[i]?.push((cpu() - start) / 6);
      }
    const whole = median(samples[0] as number[]);
    for (const [i, [name]] of variants.entries()) {
      const value = median(samples[i] as number[]);
      out[`${kind}|${name}`] = name.startsWith("without ") ? whole - value : value;
    }
  }
  return out;
};

const main = async (): Promise<void> => {
  const args = parseArgs(process.argv.slice(2));
  if (args.has("child")) {
    process.stdout.write(JSON.stringify(await round(args.has("dist"))));
    return;
  }
  const rounds = Number(args.get("rounds") ?? 3);
  const results: Record<string, number>[] = [];
  for (let r = 0; r < rounds; r++) {
    const stdout = execFileSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), "--child", ...(args.has("dist") ? ["--dist"] : [])],
      { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 },
    );
    results.push(JSON.parse(stdout) as Record<string, number>);
    process.stderr.write(`round ${r + 1}/${rounds} done\n`);
  }
  const keys = Object.keys(results[0] as Record<string, number>);
  const rows = keys.map((key) => {
    const [kind, name] = key.split("|") as [string, string];
    const values = results.map((r) => r[key] as number).sort((a, b) => a - b);
    const label = name === "all" || name.startsWith("all,") ? `${kind}: scan, ${name}` : `${kind}:   ${name.replace("without ", "")} adds`;
    return [label, `${fmt(values[0], 0)} / ${fmt(median(values), 0)} / ${fmt(values.at(-1), 0)}`];
  });
  console.log(
    `Redaction cost by detector, 200 KB inputs, ${rounds} fresh processes, Node ${process.version}, ${args.has("dist") ? "dist/" : "src/"}\n`,
  );
  console.log(textTable(["case", "µs (min / median / max)"], rows));
};

await main();
