/**
 * Programs an allow list commonly names that run code or write files by their own options, as data:
 * for each, how its option parser reads an option's name, which options run a program or load code
 * (the call is opaque), which name a file or a directory it writes (the write is checked against path
 * rules), and which name a file it reads as code or configuration (opaque when that file is standard
 * input, a device or computed). Options are found conservatively: every word that looks like an option
 * is read as one, so a value that looks like an option can only add a finding, never hide one.
 */
import { readCurl } from "./curl.ts";
import type { ProgramReading } from "./reading.ts";
import type { Word } from "./script.ts";
import { readVitest } from "./vitest.ts";
import { readWrapper, UnknownOption, type WrapperSyntax } from "./wrappers.ts";

/**
 * How a program's parser reads an option's name: `getopt` (GNU getopt_long: `--name`, any unique
 * prefix, exact names first; short letters in clusters), `exact` (argparse without abbreviations, clap:
 * `--name` in full; short letters in clusters), `go` (Go's flag package: `-name` or `--name` in full, no
 * clusters), `tsc` (TypeScript's compiler: `-name` or `--name` in full, any letter case).
 */
export type OptionParser = "getopt" | "exact" | "go" | "tsc";

/** Option names: long ones without their dashes, and short letters. */
export interface OptionNames {
  readonly long?: readonly string[];
  readonly short?: string;
}

/** A program's options that run code or open files, as its own parser reads them. */
export interface ProgramOptions {
  readonly parser: OptionParser;
  /** Options that run a program or load code they name: given at all, the call is opaque. */
  readonly runs?: OptionNames;
  /** Options whose value is a file the program writes. */
  readonly writes?: OptionNames;
  /** Options whose value is a directory the program writes files under (`--outDir d` writes `d/**`). */
  readonly writesUnder?: OptionNames;
  /** Options whose value is a file read as code or configuration: standard input, a device or a computed name is opaque. */
  readonly reads?: OptionNames;
  /** Long options that take no value here though they start like one that does (`tar --checkpoint`). */
  readonly exact?: readonly string[];
  /** Options given as flags that make the program write a file of its own (`tsc --init` writes `tsconfig.json`). */
  readonly creates?: Readonly<Record<string, string>>;
  /** Words after `--` are still options of the program or of what it runs for it (libtest after `cargo test --`). */
  readonly pastDashes?: boolean;
}

/**
 * The programs, by the name they are run as (`tsc` also after `npx`). Each table follows the program's
 * own option list (its `--help` and manual) for the options that run, load, write or read code.
 */
export const PROGRAM_OPTIONS: ReadonlyMap<string, ProgramOptions> = new Map<string, ProgramOptions>([
  // GNU make: `--eval` (and 4.4's `-E`) reads a makefile given right there; `-f -` reads one from standard input.
  ["make", { parser: "getopt", runs: { long: ["eval"], short: "E" }, reads: { long: ["file", "makefile"], short: "f" } }],
  ["sort", { parser: "getopt", runs: { long: ["compress-program"] }, writes: { long: ["output"], short: "o" }, exact: ["check"] }],
  // pytest loads a plugin module named by `-p` (`no:` disables one), imports a warning category's module,
  // runs Python read from standard input in its debugger,
  // reads `addopts` and plugins from `-o`/`-c`, runs remote interpreters (`--tx`), and removes `--basetemp`.
  [
    "pytest",
    {
      parser: "exact",
      // `--pdb` and `--trace` start the debugger, which runs Python read from standard input.
      runs: { long: ["pdbcls", "override-ini", "tx", "rsyncdir", "pythonwarnings", "pdb", "trace"], short: "pWo" },
      writes: { long: ["junitxml", "junit-xml", "resultlog", "result-log", "log-file", "report-log", "debug"] },
      writesUnder: { long: ["basetemp"] },
      reads: { long: ["config-file", "inifile"], short: "c" },
    },
  ],
  // cargo: `--config` sets anything a configuration file can (`build.rustc-wrapper`, a target's `runner`),
  // `-Z` unstable behaviour; libtest's `--logfile` after `--` writes a file.
  [
    "cargo",
    {
      parser: "exact",
      runs: { long: ["config"], short: "Z" },
      writes: { long: ["logfile", "lockfile-path"] },
      writesUnder: { long: ["target-dir", "artifact-dir", "out-dir"] },
      reads: { long: ["manifest-path"] },
      pastDashes: true,
    },
  ],
  // go: `-exec` runs the test binary through a program, `-toolexec` every tool, `-compiler gccgo`
  // another compiler, `-ldflags=-extld=…` another linker; `-overlay` swaps source files; profiles and `-o` are files it writes.
  [
    "go",
    {
      parser: "go",
      runs: { long: ["exec", "toolexec", "compiler", "gccgoflags", "test.exec", "toolchain", "ldflags"] },
      writes: {
        long: ["o", "coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace", "modfile", "json"].flatMap((n) =>
          n === "json" ? [] : [n, `test.${n}`],
        ),
      },
      writesUnder: { long: ["outputdir", "test.outputdir", "pkgdir", "test.gocoverdir", "fuzzcachedir", "test.fuzzcachedir"] },
      reads: { long: ["overlay", "pgo"] },
      pastDashes: true,
    },
  ],
  // tsc: outputs, traces and build info go where these options say; `--init` writes tsconfig.json.
  [
    "tsc",
    {
      parser: "tsc",
      writes: { long: ["outfile", "out", "tsbuildinfofile", "generatecpuprofile"] },
      writesUnder: { long: ["outdir", "declarationdir", "generatetrace"] },
      reads: { long: ["project"], short: "p" },
      creates: { init: "tsconfig.json" },
    },
  ],
]);

export type { ProgramReading } from "./reading.ts";

const has = (names: OptionNames | undefined, name: string, parser: OptionParser, exact: readonly string[]): boolean => {
  const list = names?.long ?? [];
  if (parser === "getopt")
    return !exact.includes(name) && !list.includes(name) ? list.some((o) => o.startsWith(name)) : list.includes(name);
  return list.includes(parser === "tsc" ? name.toLowerCase() : name);
};

/** Standard input, a device or a process's file, by any spelling, or a name computed at run time. */
const unseenFile = (w: Word | undefined): boolean =>
  w === undefined ||
  !w.literal ||
  w.text === "-" ||
  /(?:^|\/)(?:dev|proc)(?:\/|$)/.test(w.text.replace(/\/+/g, "/")) ||
  // Read from another working directory (an earlier `cd /dev`), these name standard input.
  (!w.text.startsWith("/") && /(?:^|\/)(?:stdin|0)$/.test(w.text));

/**
 * Read a program's words (after its name) with its table; `undefined` for a program without one.
 *
 * @example
 * readProgram("sort", [{ text: "-o", literal: true, quoted: false }, { text: "out", literal: true, quoted: false }])?.writes[0]?.path.text // "out"
 */
export const readProgram = (name: string, args: readonly Word[]): ProgramReading | undefined => {
  if (name === "tar") return readTar(args);
  if (name === "curl") return readCurl(args);
  if (name === "vitest") return readVitest(args);
  const table = PROGRAM_OPTIONS.get(name);
  if (table === undefined) return undefined;
  const writes: { path: Word; under: boolean }[] = [];
  const exact = table.exact ?? [];
  let opaque: string | undefined;
  const found = (option: string, value: Word | undefined): void => {
    // A one-letter name is a short option, except for Go's flags, which are all long (`-o`).
    const is = (names: OptionNames | undefined): boolean =>
      option.length === 1 && table.parser !== "go" ? (names?.short ?? "").includes(option) : has(names, option, table.parser, exact);
    if (is(table.runs)) {
      // pytest's `-p no:name` only disables a plugin; a warning filter naming a builtin category imports nothing.
      if (name === "pytest" && (option === "p" || option === "W" || option === "pythonwarnings")) {
        if (value?.literal === true && (option === "p" ? /^no:/.test(value.text) : !/^[^:]*:[^:]*:[^:]*\./.test(value.text))) return;
      }
      if (name === "go" && option === "toolchain") return;
      // The linker's flags run a program only through `-extld`/`-extar` (`-ldflags='-linkmode=external -extld=./w'`).
      if (name === "go" && option === "ldflags" && value?.literal === true && !/ext(?:ld|ar)/.test(value.text)) return;
      opaque ??= `${name} ${option.length === 1 ? "-" : "--"}${option} runs or loads code it names`;
      return;
    }
    if (is(table.writes)) {
      if (name === "pytest" && option === "debug" && value === undefined) value = { text: "pytestdebug.log", literal: true, quoted: false };
      if (value !== undefined) writes.push({ path: value, under: false });
    } else if (is(table.writesUnder)) {
      if (value !== undefined) writes.push({ path: value, under: true });
    } else if (is(table.reads)) {
      if (unseenFile(value)) opaque ??= `${name} reads code or configuration from a file the text does not hold`;
    } else if (table.creates !== undefined) {
      const file = table.creates[table.parser === "tsc" ? option.toLowerCase() : option];
      if (file !== undefined) writes.push({ path: { text: file, literal: true, quoted: false }, under: false });
    }
  };
  let ended = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const t = a.text;
    // A word computed at run time may expand to any option.
    if (!a.literal) {
      opaque ??= `${name} with a word computed at run time, which may be an option that runs code`;
      continue;
    }
    if (t === "--") {
      if (table.pastDashes !== true) ended = true;
      continue;
    }
    // make still reads `NAME=value` after `--` as an assignment (`make -- 'X:=$(shell cmd)'`).
    if (name === "make" && (ended || !t.startsWith("-")) && t.includes("=")) {
      const why = makeAssignment(t);
      if (why !== undefined) opaque ??= why;
      continue;
    }
    if (ended || !t.startsWith("-") || t === "-") continue;
    const long = t.startsWith("--") || table.parser === "go" || (table.parser === "tsc" && t.length > 2);
    if (long) {
      const body = t.replace(/^--?/, "");
      const eq = body.indexOf("=");
      const option = eq < 0 ? body : body.slice(0, eq);
      const glued = eq < 0 ? undefined : { ...a, text: body.slice(eq + 1) };
      const takes = [table.runs, table.writes, table.writesUnder, table.reads].some((n) => has(n, option, table.parser, exact));
      // The value is the next word when it is not glued (pytest's `--debug` takes only a glued one).
      const value = glued ?? (takes && !(name === "pytest" && option === "debug") ? args[i + 1] : undefined);
      if (glued === undefined && value !== undefined && takes) i++;
      found(option, value);
      continue;
    }
    // A cluster of short letters: the first that takes a value takes the rest of the word, or the next word.
    const letters = t.slice(1);
    for (let k = 0; k < letters.length; k++) {
      const letter = letters.charAt(k);
      const takes = [table.runs, table.writes, table.writesUnder, table.reads].some((n) => (n?.short ?? "").includes(letter));
      if (!takes) continue;
      const rest = letters.slice(k + 1);
      const value = rest !== "" ? { ...a, text: rest.replace(/^=/, "") } : args[i + 1];
      if (rest === "" && value !== undefined) i++;
      found(letter, value);
      break;
    }
  }
  // `go -C dir` runs in dir: a relative path it writes is read from there, which the text does not show.
  const moved = name === "go" && args.some((a) => /^--?C(?:=|$)/.test(a.text));
  const placed = moved ? writes.map((w) => (w.path.text.startsWith("/") ? w : { ...w, path: { ...w.path, literal: false } })) : writes;
  return opaque === undefined ? { writes: placed } : { opaque, writes: placed };
};

/** Variables make gives a meaning of its own: the shell recipes run in, options, the makefiles read. */
const makeSpecial =
  /^(?:SHELL|\.SHELLFLAGS|MAKESHELL|MAKEFLAGS|MFLAGS|GNUMAKEFLAGS|MAKEFILES|MAKE|MAKE_COMMAND|\.RECIPEPREFIX|\.DEFAULT_GOAL|\.LOADED|MAKEOVERRIDES)$/;

/**
 * A `NAME=value` argument of make overrides a variable of the makefile: a value holding `$` runs make
 * functions when expanded (`X:=$(shell cmd)` at once), one holding shell syntax is pasted into recipes,
 * and make's own variables change how every recipe runs.
 */
const makeAssignment = (word: string): string | undefined => {
  const m = /^([^=:+?!]*?)\s*(?:::=|:::=|:=|\+=|\?=|!=|=)([^]*)$/.exec(word);
  if (m === null) return "make argument read as an assignment";
  const [, variable, value] = m;
  if (/!=$/.test(word.slice(0, word.indexOf("=") + 1))) return "make != runs its value through a shell";
  if (makeSpecial.test(variable!.trim())) return `make ${variable} changes how recipes run`;
  if (/[$`;&|<>()\\'"\n{}*?[\]~#!]/.test(value!)) return "make variable holding code or shell syntax";
  return undefined;
};

/** GNU tar's options, as its getopt reads them (from `tar --help`). */
const tarSyntax: WrapperSyntax = {
  short: "Acdrtuxg:GnSC:T:X:kUWOmpsf:F:L:Mb:BiH:V:aI:jJzZhK:N:PlRvwo",
  long: Object.fromEntries([
    ...[
      "absolute-names acls anchored append auto-compress backup== block-number bzip2 catenate check-device check-links checkpoint==",
      "clamp-mtime compare compress concatenate confirmation create delay-directory-restore delete dereference diff exclude-backups",
      "exclude-caches exclude-caches-all exclude-caches-under exclude-vcs exclude-vcs-ignores extract force-local format= full-time get",
      "gunzip gzip hard-dereference help ignore-case ignore-command-error ignore-failed-read ignore-zeros incremental interactive",
      "keep-directory-symlink keep-newer-files keep-old-files list lzip lzma lzop multi-volume no-acls no-anchored no-auto-compress",
      "no-check-device no-delay-directory-restore no-ignore-case no-ignore-command-error no-null no-overwrite-dir no-recursion",
      "no-same-owner no-same-permissions no-seek no-selinux no-unquote no-verbatim-files-from no-wildcards no-wildcards-match-slash",
      "no-xattrs null numeric-owner occurrence== old-archive one-file-system one-top-level== overwrite overwrite-dir pax-option=",
      "portability posix preserve-order preserve-permissions quoting-style= read-full-records recursion recursive-unlink remove-files",
      "restrict same-order same-owner same-permissions seek selinux show-defaults show-omitted-dirs show-snapshot-field-ranges",
      "show-stored-names show-transformed-names skip-old-files sparse suffix= test-label to-stdout totals== touch uncompress ungzip",
      "unlink-first unquote update usage utc verbatim-files-from verbose verify version wildcards wildcards-match-slash xattrs xz zstd",
      "add-file= after-date= atime-preserve== blocking-factor= checkpoint-action= directory= exclude-from= exclude-ignore-recursive=",
      "exclude-ignore= exclude-tag-all= exclude-tag-under= exclude-tag= exclude= file= files-from= group-map= group= hole-detection=",
      "index-file= info-script= label= level= listed-incremental= mode= mtime= new-volume-script= newer-mtime= newer= no-quote-chars=",
      "owner-map= owner= quote-chars= record-size= rmt-command= rsh-command= sort= sparse-version= starting-file= strip-components=",
      "tape-length= to-command= transform= use-compress-program= volno-file= warning= xattrs-exclude= xattrs-include= xform=",
    ]
      .join(" ")
      .split(/\s+/)
      .map((item): [string, "none" | "required" | "optional"] =>
        item.endsWith("==") ? [item.slice(0, -2), "optional"] : item.endsWith("=") ? [item.slice(0, -1), "required"] : [item, "none"],
      ),
  ]),
  operands: 0,
  permutes: true,
};

/** The tar options that take a value, as short letters, for the old style's first word (`tar cfC a.tar dir`). */
const tarValued = "gCTXfFLbHVIKN";

/**
 * tar: extracting writes every file the archive holds under the directory `-C` names (all of it: the
 * archive's names are not in the text), anywhere with `-P`; creating, appending or updating writes the
 * archive `-f` names; `-g`, `--index-file` and `--volno-file` write their files; `--remove-files` removes
 * files not known. Options that run a command are read in `shell.ts`'s table of such options.
 */
const readTar = (args: readonly Word[]): ProgramReading => {
  if (args.some((a) => !a.literal)) return { writes: [] };
  // The old style: a first word without a dash is a cluster whose value letters take the next words in turn.
  let words: Word[] = [...args];
  const first = words[0];
  if (first !== undefined && !first.text.startsWith("-") && /^[A-Za-z]+$/.test(first.text)) {
    const expanded: Word[] = [];
    let next = 1;
    for (const letter of first.text) {
      expanded.push({ ...first, text: `-${letter}` });
      if (tarValued.includes(letter) && words[next] !== undefined) expanded.push(words[next++]!);
    }
    words = [...expanded, ...words.slice(next)];
  }
  let call;
  try {
    call = readWrapper(tarSyntax, [{ text: "tar", literal: true, quoted: false }, ...words], (w) => w.text);
  } catch (error) {
    if (error instanceof UnknownOption) return { writes: [{ path: { text: "tar", literal: false, quoted: false }, under: true }] };
    throw error;
  }
  const given = (...names: string[]): boolean => call.options.some((o) => names.includes(o.option));
  const valueOf = (o: { value?: Word | string }): Word | undefined =>
    typeof o.value === "string" ? { text: o.value, literal: true, quoted: false } : o.value;
  const writes: { path: Word; under: boolean }[] = [];
  const unknown = { text: "tar", literal: false, quoted: false };
  const makes = given("-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate", "--concatenate", "--delete");
  const extracts = given("-x", "--extract", "--get");
  for (const o of call.options) {
    const v = valueOf(o);
    if (v === undefined) continue;
    if (["-g", "--listed-incremental", "--index-file", "--volno-file"].includes(o.option)) writes.push({ path: v, under: false });
    if (makes && (o.option === "-f" || o.option === "--file") && v.text !== "-") writes.push({ path: v, under: false });
  }
  if (given("--remove-files")) writes.push({ path: unknown, under: true });
  if (extracts && !given("-O", "--to-stdout")) {
    if (given("-P", "--absolute-names")) writes.push({ path: unknown, under: true });
    // `--one-top-level=DIR` extracts into DIR, read against the directory `-C` names.
    const top = call.options.find((o) => o.option === "--one-top-level" && o.value !== undefined);
    if (top !== undefined) {
      const v = valueOf(top)!;
      const cd = given("-C", "--directory");
      writes.push({ path: v.text.startsWith("/") || !cd ? v : unknown, under: true });
    }
    // Each `-C` is read relative to the one before: only a single one names the directory plainly.
    const dirs = call.options.filter((o) => o.option === "-C" || o.option === "--directory").map(valueOf);
    if (dirs.length === 0) writes.push({ path: { text: ".", literal: true, quoted: false }, under: true });
    else if (dirs.length === 1 && dirs[0] !== undefined) writes.push({ path: dirs[0], under: true });
    else writes.push({ path: unknown, under: true });
  }
  return { writes };
};
