/**
 * vitest, which allow lists name with a fixed start (`Bash(npx vitest run:*)`) while its later options
 * load code (`--config`, `--globalSetup`, a reporter given as a module) or write files. Read as its cac
 * parser reads options: `--name value` or `--name=value`, camelCase or kebab-case, dotted sub-options, no
 * abbreviations, short letters in clusters.
 */
import { operandOnly, type ProgramReading } from "./reading.ts";
import type { Word } from "./script.ts";

/** vitest's options that change nothing about what runs or where it writes (camelCase, without `no-`); `true` for those that take a value. */
const vitestHarmless: Readonly<Record<string, boolean>> = {
  run: false,
  watch: false,
  w: false,
  testNamePattern: true,
  t: true,
  update: false,
  u: false,
  silent: false,
  hideSkippedTests: false,
  coverage: false,
  "coverage.enabled": false,
  "coverage.all": false,
  "coverage.include": true,
  "coverage.exclude": true,
  "coverage.clean": false,
  "coverage.skipFull": false,
  mode: true,
  globals: false,
  dom: false,
  maxWorkers: true,
  minWorkers: true,
  fileParallelism: false,
  isolate: false,
  bail: true,
  retry: true,
  testTimeout: true,
  hookTimeout: true,
  teardownTimeout: true,
  slowTestThreshold: true,
  passWithNoTests: false,
  allowOnly: false,
  logHeapUsage: false,
  changed: false,
  related: true,
  shard: true,
  "sequence.shuffle": false,
  "sequence.seed": true,
  "sequence.concurrent": false,
  project: true,
  typecheck: false,
  "typecheck.only": false,
  "typecheck.enabled": false,
  clearScreen: false,
  color: false,
  exclude: true,
  expandSnapshotDiff: false,
  disableConsoleIntercept: false,
  printConsoleTrace: false,
  includeTaskLocation: false,
  dangerouslyIgnoreUnhandledErrors: false,
  help: false,
  h: false,
  version: false,
  v: false,
};
/** vitest's built-in reporters, by name (`--reporter` and `--reporters` take the same). */
const builtinReporters = [
  "default",
  "basic",
  "verbose",
  "dot",
  "json",
  "junit",
  "tap",
  "tap-flat",
  "hanging-process",
  "github-actions",
  "blob",
  "tree",
  "agent",
] as const;
/** Values vitest reads as a built-in choice; any other value is a module it loads. */
const vitestBuiltins: Readonly<Record<string, readonly string[]>> = {
  reporter: builtinReporters,
  reporters: builtinReporters,
  environment: ["node", "jsdom", "happy-dom", "edge-runtime"],
  pool: ["threads", "forks", "vmThreads", "vmForks", "typescript"],
  "coverage.provider": ["v8", "istanbul"],
  "coverage.reporter": [
    "text",
    "html",
    "clover",
    "json",
    "json-summary",
    "lcov",
    "lcovonly",
    "text-summary",
    "text-lcov",
    "teamcity",
    "cobertura",
  ],
};
/** Options that name where vitest writes: a file, or a directory it writes under. */
const vitestWrites = new Set(["outputFile"]);
const vitestWritesUnder = new Set(["coverage.reportsDirectory", "attachmentsDir"]);

const camel = (name: string): string => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * vitest (`vitest run`, `npx vitest run`): options on a list of harmless ones, built-in reporters,
 * environments and pools, and the files `--outputFile` and `--coverage.reportsDirectory` write are
 * read; any other option (`--config`, `--root`, `--globalSetup`, `--setupFiles`, `--inspect`, a
 * reporter or environment given as a module, …) or a word computed at run time is `unknown`: only a rule
 * naming vitest alone allows it.
 *
 * @example
 * readVitest(["run", "--config", "x.ts"].map((text) => ({ text, literal: true, quoted: false }))).unknown // "vitest --config"
 */
export const readVitest = (args: readonly Word[]): ProgramReading => {
  const writes: { path: Word; under: boolean }[] = [];
  let unknown: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const t = a.text;
    if (!a.literal) {
      if (!operandOnly(a)) unknown ??= "vitest with a word computed at run time";
      continue;
    }
    if (t === "--") {
      // After `--` cac hands words to the test files' process.argv: options no longer.
      break;
    }
    if (!t.startsWith("-") || t === "-") continue;
    const long = t.startsWith("--");
    const body = t.replace(/^--?/, "");
    const eq = body.indexOf("=");
    const raw = eq < 0 ? body : body.slice(0, eq);
    // Short letters in a cluster (`-uw`) are flags each; a value letter takes the next word.
    const names = long ? [camel(raw.replace(/^no-/, ""))] : [...raw];
    for (const [k, name] of names.entries()) {
      const last = k === names.length - 1;
      const glued = eq >= 0 && last ? { ...a, text: body.slice(eq + 1) } : undefined;
      // `--outputFile.json=path` names the file of one reporter.
      const base = /^outputFile\./.test(name) ? "outputFile" : name;
      const takesValue =
        vitestHarmless[base] === true || vitestBuiltins[base] !== undefined || vitestWrites.has(base) || vitestWritesUnder.has(base);
      const value =
        glued ??
        (takesValue && last && !raw.startsWith("no-") && args[i + 1] !== undefined && !args[i + 1]!.text.startsWith("-")
          ? args[++i]
          : undefined);
      if (vitestWrites.has(base) || vitestWritesUnder.has(base)) {
        if (value !== undefined) writes.push({ path: value, under: vitestWritesUnder.has(base) });
        continue;
      }
      const builtins = vitestBuiltins[base];
      if (builtins !== undefined) {
        if (value === undefined || !value.literal || !value.text.split(",").every((v) => builtins.includes(v)))
          unknown ??= `vitest --${base} naming a module`;
        continue;
      }
      if (!Object.hasOwn(vitestHarmless, base)) unknown ??= `vitest ${long ? "--" : "-"}${raw}`;
    }
  }
  return { writes, ...(unknown === undefined ? {} : { unknown }) };
};
