/**
 * npm reads every option before a `--` as configuration, whatever the subcommand, and several settings
 * name what it runs: `--script-shell` (the program that runs a package script), `--node-options`
 * (`NODE_OPTIONS` for the script: `--import=data:…` runs code given right there), `--prefix` (another
 * project's scripts), `--userconfig` (a file of such settings). So `Bash(npm run *)` would allow
 * `npm run build --node-options=--import=data:text/javascript,…`. Options are read with an explicit list
 * of settings that change nothing about what runs; any other option, or a word computed at run time
 * before `--`, makes the command opaque. Words after `--` go to the script, quoted by npm: an option
 * among them counts as a setting this reader does not know, since it is an option of what the script runs.
 */
import type { Word } from "./script.ts";

/** npm settings that change nothing about what runs, without their `no-` prefix; `true` for those that take a value. */
const harmless: Readonly<Record<string, boolean>> = {
  silent: false,
  quiet: false,
  loglevel: true,
  "if-present": false,
  "ignore-scripts": false,
  workspace: true,
  workspaces: false,
  ws: false,
  "include-workspace-root": false,
  json: false,
  color: false,
  verbose: false,
  "dry-run": false,
  audit: false,
  fund: false,
  save: false,
  "save-dev": false,
  "save-exact": false,
  "save-optional": false,
  "save-peer": false,
  "save-prod": false,
  production: false,
  omit: true,
  include: true,
  "legacy-peer-deps": false,
  "strict-peer-deps": false,
  "prefer-offline": false,
  "prefer-online": false,
  offline: false,
  "foreground-scripts": false,
  force: false,
  depth: true,
  all: false,
  long: false,
  parseable: false,
  progress: false,
  "package-lock": false,
  message: true,
  tag: true,
  yes: false,
  version: false,
  help: false,
};
/**
 * Settings that name a program, code or a place npm (or a tool a script starts, like node-gyp) runs
 * or writes: given, or given as any abbreviation npm would expand to one, the command is opaque.
 */
const naming = [
  "script-shell",
  "shell",
  "node-options",
  "prefix",
  "userconfig",
  "globalconfig",
  "global",
  "location",
  "editor",
  "browser",
  "git",
  "viewer",
  "init-module",
  "onload-script",
  "node-gyp",
  "python",
  "call",
  "package",
  "logs-dir",
  "cache",
  "tmp",
];
/** Short options npm maps to harmless settings (`-w` and `-m` take a value); `-c`, `-C`, `-g` and `-L` are `--call`, `--prefix`, `--global` and `--location`. */
const harmlessShort = new Set([
  "-s",
  "-q",
  "-d",
  "-dd",
  "-ddd",
  "-D",
  "-S",
  "-E",
  "-O",
  "-P",
  "-B",
  "-f",
  "-l",
  "-p",
  "-y",
  "-v",
  "-h",
  "-ws",
]);
const shortWithValue = new Set(["-w", "-m"]);

/** How npm's options bear on what it runs. */
export interface NpmReading {
  /** Why a setting makes the command opaque (it names what runs), if one does. */
  readonly opaque?: string;
  /** A setting this reader does not know: npm hands it to the script's environment (`npm_config_watch`). */
  readonly unknown: boolean;
}

/**
 * Read npm's options before `--` (`args` are the words after `npm`): a setting that names what runs
 * makes it opaque; one not on the list of harmless settings, or an option after `--` (handed to what the
 * script runs), makes the call count as computed at run time, so only a rule naming npm alone
 * (`Bash(npm *)`) allows it.
 *
 * @example
 * readNpm(["run", "build", "--script-shell=./x"].map((text) => ({ text, literal: true, quoted: false }))).opaque
 * // "npm --script-shell=./x names what runs"
 */
export const readNpm = (args: readonly Word[]): NpmReading => {
  let unknown = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.literal) return { opaque: "npm with a word computed at run time before --", unknown: true };
    const t = a.text;
    // After `--`, npm appends the words to the script's command line: an option there is an option of
    // whatever the script runs (`npm run test -- --config ./x.ts` hands vitest a config that runs code).
    if (t === "--") return { unknown: unknown || args.slice(i + 1).some((w) => !w.literal || w.text.startsWith("-")) };
    if (!t.startsWith("-")) continue;
    if (t.startsWith("--")) {
      const equals = t.indexOf("=");
      const name = t
        .slice(2, equals < 0 ? undefined : equals)
        .toLowerCase()
        .replaceAll("_", "-")
        .replace(/^no-/, "");
      if (name === "" || naming.some((n) => n.startsWith(name))) return { opaque: `npm ${t} names what runs`, unknown: true };
      if (!Object.hasOwn(harmless, name)) {
        unknown = true;
        continue;
      }
      // The value of `--workspace x`: the next word, unless it is an option, which is then read as one.
      if (harmless[name] === true && equals < 0 && args[i + 1]?.text.startsWith("-") === false) i++;
      continue;
    }
    if (shortWithValue.has(t)) {
      if (args[i + 1]?.text.startsWith("-") === false) i++;
      continue;
    }
    if (/[cCgL]/.test(t)) return { opaque: `npm ${t} names what runs`, unknown: true };
    if (!harmlessShort.has(t)) unknown = true;
  }
  return { unknown };
};
