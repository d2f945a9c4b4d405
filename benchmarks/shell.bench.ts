/**
 * The cost of reading shell commands for `Bash(pattern)` conditions: the tree-sitter-based analysis
 * against the hand-written reader it replaced (checked out from git into a temporary folder at run
 * time), for 100 B, 10 KB and 1 MB commands of several shapes, in one run; and the parser's first
 * load. What 1,000 `Bash(...)` condition hooks on one call cost against one is measured on the
 * built package, in fresh processes, by condition-hooks.bench.ts.
 *
 *   npx tsx benchmarks/shell.bench.ts
 *
 * Each figure is the median of several runs of a batch (min and max are printed too); every batch
 * analyses commands it has not seen, so the cache of analyses does not answer. Not part of
 * `npm run bench`: printed, not written anywhere.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { analyseShell, MAX_COMMAND_LENGTH } from "../src/core/match/shell.ts";

type Analyse = (command: string) => unknown;

/** The reader as it was before the parser: the parent of the commit that removed `shell-syntax.ts`. */
const loadOldReader = async (): Promise<{ analyse: Analyse; cleanup: () => void }> => {
  const git = (...args: string[]): string => execFileSync("git", args, { encoding: "utf8" }).trim();
  const removal = git("rev-list", "-n", "1", "HEAD", "--", "src/core/match/shell-syntax.ts");
  const dir = mkdtempSync(join(tmpdir(), "old-shell-reader-"));
  mkdirSync(join(dir, "match"));
  for (const file of ["shell.ts", "shell-syntax.ts", "detail.ts", "replacement.ts"]) {
    writeFileSync(join(dir, "match", file), git("show", `${removal}^:src/core/match/${file}`));
  }
  const module = (await import(pathToFileURL(join(dir, "match", "shell.ts")).href)) as { analyseShell: Analyse };
  return { analyse: module.analyseShell, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
};

const repeat = (unit: string, bytes: number): string => unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);

/** Commands of one size: a realistic mix, a pipeline list, a long `sudo sudo …` chain, stacked wrappers, a here-document. */
const shapes = (bytes: number): Record<string, string> => ({
  mixed: repeat("git status --short && npm test -- --run 2>&1 | grep -E 'FAIL|passed' ; echo \"done: $(date +%s)\"\n", bytes),
  sudo: `${"sudo ".repeat(Math.floor((bytes - 9) / 5))}rm -rf /`,
  wrappers: repeat("timeout 5 nice -n 1 env A=1 stdbuf -oL ", bytes - 10) + " rm -rf /",
  heredoc: `cat > notes.txt <<'EOF'\n${repeat("some text, $x and `y` stay text here\n", bytes - 30)}\nEOF\n`,
});

/** Median, min and max of `runs` timings (ms) of `fn`. */
const time = (runs: number, fn: (run: number) => void): { median: number; min: number; max: number } => {
  const ms: number[] = [];
  for (let r = 0; r < runs; r++) {
    const start = performance.now();
    fn(r);
    ms.push(performance.now() - start);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)]!, min: ms[0]!, max: ms[ms.length - 1]! };
};

const fmt = (ms: number): string => (ms >= 1 ? `${ms.toFixed(1)} ms` : `${(ms * 1000).toFixed(1)} µs`);

const main = async (): Promise<void> => {
  const loadStart = performance.now();
  analyseShell("true");
  console.log(`first analysis (loads tree-sitter and tree-sitter-bash): ${fmt(performance.now() - loadStart)}`);
  const old = await loadOldReader();
  try {
    console.log(`\nper command (median of runs, min–max); commands over ${MAX_COMMAND_LENGTH / 1024} KiB are opaque without parsing`);
    console.log("size    shape     new (tree-sitter)              old (hand-written)");
    let unique = 0;
    for (const [label, bytes, batch, runs] of [
      ["100 B", 100, 2000, 7],
      ["10 KB", 10_000, 40, 7],
      ["50 KB", 50_000, 4, 5],
      ["1 MB", 1_000_000, 1, 3],
    ] as const) {
      for (const [shape, base] of Object.entries(shapes(bytes))) {
        // A comment line makes each command new to the cache without changing what is parsed.
        const commands = Array.from({ length: batch * runs + batch }, () => `${base}\n#${unique++}`);
        let next = 0;
        const take = (): string => commands[next++ % commands.length]!;
        const measure = (analyse: Analyse) => {
          analyse(take()); // warm
          return time(runs, () => {
            for (let i = 0; i < batch; i++) analyse(take());
          });
        };
        const n = measure(analyseShell);
        const o = measure(old.analyse);
        const per = (t: { median: number; min: number; max: number }) =>
          `${fmt(t.median / batch)} (${fmt(t.min / batch)}–${fmt(t.max / batch)})`;
        console.log(`${label.padEnd(8)}${shape.padEnd(10)}${per(n).padEnd(31)}${per(o)}`);
      }
    }
  } finally {
    old.cleanup();
  }
};

await main();
