/**
 * Random compositions of allowed commands and shell fragments (quotes, substitutions, separators,
 * comments, here-documents, braces, blanks bash and the grammar read differently) against a real
 * bash: whatever the attack allow list allows must not run the stand-in. The generator is seeded, so
 * the commands are the same on every run; only those the allow list allows are run through bash.
 */
import { describe, expect, it } from "vitest";
import { ATTACK_ALLOW, allowed, bashRuns, pool } from "../../fixtures/shell-corpus/evaluate.ts";

const T = "touch @V";
const heads = ["echo", "cat", "printf %s", "test -n", "ls", "grep x", "git --version", "echo a"];
/** Programs of the allow list whose own options run code or write files, to compose with in a second run. */
const programs = ["make -f /dev/null", "sort", "wc -l", "xargs echo", "tail -n1", "head -n1", "diff /dev/null", "tar -tf /dev/null"];
const programFragments = [
  "OPTIND=",
  "RANDOM=",
  "'a[$(touch @V)]'",
  "--eval='x:;touch @V'",
  "-E",
  "'X:=$(shell touch @V)'",
  "Y='; touch @V'",
  "-o",
  "--co=sh",
  "-I",
  "'touch @V'",
  "--to-command='touch @V'",
  "--checkpoint-action=exec='touch @V'",
  "-f -",
  "<<< 'x:;touch @V'",
  "x",
  "jobs -x",
];
const fragments = [
  ...heads,
  `'${T}'`,
  `"${T}"`,
  `\`${T}\``,
  `$(${T})`,
  `\${x:-\`${T}\`}`,
  `\${x:-$(${T})}`,
  `"\${x:-\`${T}\`}"`,
  `\${x#\`${T}\`}`,
  `\${x/a/\`${T}\`}`,
  "\\",
  "\\\n",
  "\n",
  ";",
  "&&",
  "||",
  "|",
  "&",
  "#",
  " # ",
  "\r",
  "\t",
  "\v",
  "'",
  '"',
  "`",
  "$",
  "${",
  "}",
  "(",
  ")",
  "{",
  "[[",
  "]]",
  "<<EOF",
  "<<'EOF'",
  "EOF",
  "<<<",
  ">&2",
  "2>&1",
  "$'",
  "\\'",
  '\\"',
  "$((",
  "))",
  "$[",
  "]",
  "=",
  "x=",
  "~",
  "*",
  "[a]",
  "{a,b}",
  "!",
  "-v",
  "a[$(touch @V)]",
  T,
  "touch",
  "@V",
  "--",
];

/** A small seeded generator (mulberry32), so the compositions are the same on every run. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const compositions = (
  seed: number,
  wanted: number,
  starts: readonly string[] = heads,
  parts: readonly string[] = fragments,
): { tried: number; allowedOnes: string[] } => {
  const random = seeded(seed);
  const pick = <X>(xs: readonly X[]): X => xs[Math.floor(random() * xs.length)]!;
  const seen = new Set<string>();
  const allowedOnes: string[] = [];
  for (let i = 0; i < 100_000 && allowedOnes.length < wanted; i++) {
    let command = `${pick(starts)} `;
    const count = 2 + Math.floor(random() * 6);
    for (let k = 0; k < count; k++) command += pick(parts) + pick(["", " ", " ", " "]);
    if (!command.includes("touch") || seen.has(command)) continue;
    seen.add(command);
    if (allowed(command)) allowedOnes.push(command);
  }
  return { tried: seen.size, allowedOnes };
};

describe("random compositions of allowed commands and shell fragments", () => {
  it(`never run the stand-in when ${JSON.stringify(ATTACK_ALLOW)} allows them`, async () => {
    const { tried, allowedOnes } = compositions(18, 3000);
    expect(tried).toBeGreaterThan(1000);
    expect(allowedOnes.length).toBe(3000);
    const ran = await pool(allowedOnes, 8, (c) => bashRuns(c));
    expect(allowedOnes.filter((_, i) => ran[i])).toEqual([]);
  }, 600_000); // hundreds of real bash runs: minutes on a loaded machine; the bound is only against a hang

  it("never run the stand-in through the options, variables and builtins of programs the allow list names", async () => {
    const { tried, allowedOnes } = compositions(7, 1000, [...programs, ...heads], [...programFragments, ...fragments.slice(0, 40)]);
    expect(tried).toBeGreaterThan(1000);
    expect(allowedOnes.length).toBe(1000);
    const ran = await pool(allowedOnes, 8, (c) => bashRuns(c));
    expect(allowedOnes.filter((_, i) => ran[i])).toEqual([]);
  }, 600_000); // hundreds of real bash runs: minutes on a loaded machine; the bound is only against a hang
});
