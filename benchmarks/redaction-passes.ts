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
 *
 * Measured and not kept, each against the scan of its time on the same inputs, because it cost as
 * much as it saved or more (so a new idea can be checked against this list first):
 * a regular expression for long runs (with or without a look-behind for their start) or for digit
 * stretches (up to 3 times slower on logs), one alternation of every rule's prefix (0.4 to 0.9 ms
 * alone), one regular expression for several of the whole-text passes at once (slower than their
 * sum), a case-insensitive search for the secret-naming words to skip the named-value checks (0.2
 * to 0.5 ms alone, more than it saves), string searches for whole password names (slower than the
 * regular expression: their first letters are common), a table over every code unit for the run
 * characters (no faster), and scanning the text in blocks that fit the first-level cache (no
 * faster: the passes are not bound by memory). Reading the text from a typed array, once measured
 * here as no faster, pays when the copy is made by one native write (`Buffer.write` as UTF-16, a
 * few µs per 200 KB, shared by every pass that reads code units in JavaScript): it is kept, and
 * so is reading four characters at a time in the walk through a run from it. Also:
 * a copy of a two-byte text in Latin-1 (the characters beyond it replaced, at the same places) for
 * the passes that look for ASCII only, which would save about 0.06 ms of the two-byte cost
 * (not the check for invisible characters, which must still read the original) but costs 0.12 to
 * 0.15 ms to make: writing the text into a reused `Buffer` as Latin-1 takes 5 µs
 * (`buffer.latin1Write`), but a string made of those bytes again (`latin1Slice`, in one piece or
 * several) takes about 0.12 ms, so only passes that read bytes rather than strings could use such
 * a copy; trying the IPv4 expression only around a dot between two digits (1.4 to 7 times slower
 * than one search of the whole text, which the engine does fast); one regular expression for every
 * password name, `pwd` included (15 % slower on the source code); the check for characters beyond
 * Latin-1 and the password names in one regular expression (slower than the two apart); a regular
 * expression for colons between hex digits (3 to 5 times slower than the string search); reading
 * the pairs of a run's first window on the way back, so that the walk need not read them again (9
 * to 21 % slower); digit stretches cut at three separators in a row (slower); the walk through a
 * run by a sticky regular expression that stops only at `=` and before a token prefix's first two
 * characters after a character that is not a letter (1.5 to 1.6 times slower on the mix, the lock
 * file and the logs: runs are short, about 26 characters on average, and each resumed search costs
 * more than it saves); the walk's check for a prefix keyed on the character before the pair
 * instead of the pair (more checks, not fewer: hex ids in logs put a digit before a prefix's first
 * letter often; 13 to 29 % slower, but for the source code); a walk that reads one character at a
 * time and branches on letters (1.5 to 1.7 times slower); the window's last three or five
 * characters read at once and the last one outside the class found with `Math.clz32` instead of
 * the backward loop (12 % slower in plain Node); the window search without its bound on what is
 * known (a sentinel instead) or without its range check (a table over every code unit: within 7 %,
 * no clear gain; without the bound, 3 times slower on logs); digit stretches by a regular
 * expression from a digit that follows no digit and separators (1.2 to 3.9 times slower); the
 * check for invisible characters as one search for their explicit ranges (0.097 against 0.070 ms
 * on the mix) or as a greedy run over pairs of Latin-1 code units (no clear gain); the IPv4 and
 * password-name expressions with a look-ahead for a digit or the name first (15 to 40 times
 * slower: the engine then cannot skip); and colons found by a regular expression with the colon
 * first (2 to 8 times slower than the string search).
 * Since the typed copy: the window of the digit stretches decided by a table over its last two
 * characters (5 to 20 % slower), or two windows tested at once while both end outside a stretch
 * (10 to 25 % slower); the loop of one read per window (kept for the digit stretches, where most
 * windows end outside) for the runs (no faster: most characters of code are in a run); a copy of
 * the text as Latin-1 made into a string again (`latin1Slice`, 0.10 to 0.15 ms per 200 KB, as
 * before: allocating the string costs it, not the bytes); colons found by `/:[0-9A-Fa-f:]/` or
 * with a look-behind (3 to 14 times slower than the string search, which skips by `memchr`);
 * password names by `/ss(?:w|phrase)|SS(?:W|PHRASE)/`, case-insensitive classes or literals
 * (no faster), by string searches for `assw`, `assphrase` and their upper case (3 to 6 times
 * slower), and `wd` and `WD` by one alternation (3 times slower than the two string searches);
 * IPv4 addresses tried only after `/\d\.\d/` (2.5 to 5 times slower) or `/\.\d{1,3}\.\d{1,3}\./`
 * (no faster), or only at the start of each stretch of seven digits and dots, found by windows
 * from the typed copy (no word character or dot may stand before one: 2 to 5 % slower on the
 * lock file and the logs, no faster on the mix); and the code units beyond Latin-1 counted 8 or 32 words at a time in a loop
 * rather than 16 unrolled (2 to 3 times slower); one list of at signs shared by the address and
 * URL-password detectors (5 to 10 µs less per 200 KB of text, but `redactor.value` of the lock
 * file 15 to 20 % slower: a list and closures for each short key and value).
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
