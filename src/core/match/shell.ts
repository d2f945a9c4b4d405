/**
 * What a shell command runs, for `Bash(pattern)` conditions. The text is parsed by tree-sitter-bash
 * and read into simple commands (`shell/script.ts`); this module follows each one through what it
 * runs in turn: wrappers (`sudo`, `timeout 5`, `env FOO=1`, `xargs`; `shell/wrappers.ts`), shells
 * given a script (`bash -c '…'`, `bash <<< '…'`), `eval` and `trap` of literal code, and
 * `find -exec`. Every layer is listed, so a condition on `rm *` sees `rm` in `sudo rm -rf /` and one
 * on `sudo *` still sees the `sudo`.
 *
 * The analysis fails closed by construction: what it does not understand makes the command opaque
 * (a command name known only at run time, code a shell reads from a pipe, a builtin that evaluates
 * arithmetic on its arguments, an alias, a wrapper option its table does not list, …). An opaque
 * command matches every deny condition and satisfies no allow condition.
 *
 * One command is analysed once however many conditions ask: results are kept in a small cache keyed
 * by the command text.
 */
import { UNREADABLE_DETAIL } from "./detail.ts";
import { type FilledIn, fillsIn, findFillsIn } from "./replacement.ts";
import {
  changesWhatRuns,
  declarationProblem,
  harmlessInEnvironment,
  isHarmlessDevice,
  MAX_NESTING,
  readScript,
  type SimpleCommand,
  type Stdin,
  type Word,
} from "./shell/script.ts";
import { readNpm } from "./shell/npm.ts";
import { PROGRAM_OPTIONS, readProgram } from "./shell/programs.ts";
import { readSed } from "./shell/sed.ts";
import { readWrapper, SHELL_WRAPPERS, UnknownOption, type WrapperSyntax } from "./shell/wrappers.ts";

export { SHELL_WRAPPERS, type WrapperSyntax } from "./shell/wrappers.ts";
export { MAX_NESTING } from "./shell/script.ts";
export { MAX_COMMAND_LENGTH, MAX_HERE_DOCUMENTS } from "./shell/parser.ts";

/**
 * What a listed command is: a command as bash or a wrapper runs it (`"command"`), shell syntax that
 * runs no program (`"syntax"`: `[[ … ]]`), assignments before the command of the next layer
 * (`"prefix"`: `FOO=1 git status`), or a command run by path listed by its bare name for deny rules
 * (`"basename"`: `rm -rf /` for `/bin/rm -rf /`). An allow rule must cover every `"command"`.
 */
export type ShellRole = "command" | "syntax" | "prefix" | "basename";

/** One command the shell runs (or a layer of one: `sudo rm x` and `rm x`), whitespace-normalised. */
export interface ShellCall {
  readonly text: string;
  /** Every word is known before it runs: nothing in it expands. */
  readonly literal: boolean;
  readonly role: ShellRole;
  /**
   * A second text of a call whose words hold a blank (`'git diff' x`), those words quoted: bash reads one
   * word where the first text reads two, so an allow rule must cover this text too. Not in `commands`.
   */
  readonly requoted?: true;
}

/** The simple commands of a shell text, and what is unknown about it until it runs. */
export interface ShellAnalysis {
  /** Each simple command, and each command it runs through a wrapper, whitespace-normalised, without duplicates. */
  readonly commands: readonly string[];
  /** The same commands with what is known about each. */
  readonly calls: readonly ShellCall[];
  /** Something expands at run time (`$VAR`, `$(…)`, a glob), so the texts are not exactly what will run. */
  readonly dynamic: boolean;
  /** Something the analysis does not understand may run: no pattern can rule it out. */
  readonly opaque: boolean;
  /** Why it is opaque, for explanations. */
  readonly reason?: string;
  /**
   * Files the command itself opens by name: its redirections (`> f`, `>> f`, `&> f`, `< f`), the file
   * `source` reads, and the files git is told to write (`--output`). A path is `literal` when it is
   * known before the command runs and does not depend on a directory the command changes to
   * (`cd x && echo > f`).
   */
  readonly files: readonly ShellFile[];
}

/** A file a shell command opens by name, and whether it writes it. */
export interface ShellFile {
  readonly path: string;
  readonly literal: boolean;
  readonly writes: boolean;
}

/** Shells whose script this analysis reads (bash's grammar covers theirs). */
const bashLike = new Set(["bash", "sh", "dash", "ash", "rbash", "hush"]);
/** Shells with a language of their own: a script they run is opaque (a script file is not). */
const otherShells = new Set([
  "zsh",
  "rzsh",
  "ksh",
  "ksh93",
  "rksh",
  "mksh",
  "lksh",
  "pdksh",
  "oksh",
  "yash",
  "posh",
  "fish",
  "csh",
  "tcsh",
  "es",
  "rc",
  "elvish",
  "nu",
  "xonsh",
  "pwsh",
  "osh",
  "ysh",
]);
/** Reserved words: as a command name they mean the grammar read a compound command as words. */
const reserved = new Set([
  "!",
  "{",
  "}",
  "[[",
  "]]",
  "if",
  "then",
  "elif",
  "else",
  "fi",
  "case",
  "esac",
  "for",
  "select",
  "while",
  "until",
  "do",
  "done",
  "in",
  "function",
]);
/** Builtins that only look names up, print or change shell state in ways that run nothing. */
const opaqueBuiltins: Readonly<Record<string, string>> = {
  alias: "an alias renames what a command runs",
  enable: "enable loads or disables builtins",
  compgen: "compgen -C and -F run code",
  complete: "complete -C and -F run code",
  bind: "bind -x runs code",
  fc: "fc runs commands from history",
  history: "history can feed commands to fc",
  let: "let evaluates arithmetic, which evaluates code held in variables",
};
/** Options of `shopt` that change nothing about what runs. */
const safeShopt = new Set([
  "globstar",
  "nullglob",
  "dotglob",
  "nocaseglob",
  "failglob",
  "nocasematch",
  "lastpipe",
  "inherit_errexit",
  "globasciiranges",
  "checkwinsize",
  "histappend",
  "extglob",
]);
/**
 * Variables `read`, `printf -v`, `mapfile`, `getopts` and `wait -p` assign: a subscript there is
 * evaluated, and a variable a shell reads as code (`printf -v PS4 '$(…)'`) changes what runs.
 */
const namesOk = (words: readonly Word[]): boolean => words.every((w) => w.literal && !/[[\]]/.test(w.text) && !changesWhatRuns(w.text));

/** Whether a word computed at run time may become several words: unquoted, with an expansion outside quotes (`"a"$x`), or an array or the positional parameters (`"$@"`, `"${a[@]}"`). */
const maySplit = (w: Word): boolean => !w.quoted || w.splits === true || /\$\{?[@*]|\[[@*]\]/.test(w.text);

/** A word that reads as an assignment where it stands before a command name. */
const looksAssigned = /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/;

/** Programs that run a package's program named by their first word (after a subcommand for some). */
const packageRunners = new Set(["npx", "bunx", "pnpx", "pnpm", "yarn", "npm"]);

/** Programs read by a reader of their own rather than by `PROGRAM_OPTIONS`. */
const readByTable = new Set(["tar", "curl", "vitest"]);

/** How many wrappers and assignments one simple command may stack before it counts as opaque. */
const maxLevels = 16;
/** How many analyses the cache keeps. */
const cacheSize = 256;
const cache = new Map<string, ShellAnalysis | undefined>();
let lastCommand: string | undefined;
let lastAnalysis: ShellAnalysis | undefined;
let analyses = 0;

/**
 * How many commands were analysed (not answered from the cache) since the process started: tests use
 * it to check that a command is analysed once per call however many conditions read it.
 *
 * @example
 * const before = shellAnalysisCount(); analyseShell("ls -la /tmp/x1"); shellAnalysisCount() - before // 1
 */
export const shellAnalysisCount = (): number => analyses;

/**
 * Analyse a shell command; `undefined` when it cannot be read (a syntax error, an unbalanced quote,
 * `UNREADABLE_DETAIL`, a text longer than `MAX_COMMAND_LENGTH`). Callers treat `undefined` as opaque.
 *
 * @example
 * analyseShell("FOO=1 sudo rm -rf /tmp/x")?.commands
 * // ["FOO=1 sudo rm -rf /tmp/x", "sudo rm -rf /tmp/x", "rm -rf /tmp/x"]
 */
export const analyseShell = (command: string): ShellAnalysis | undefined => {
  // The conditions of one call ask about the same string one after another: compare it first.
  if (command === lastCommand) return lastAnalysis;
  if (command === UNREADABLE_DETAIL) return undefined;
  let analysis = cache.get(command);
  if (analysis === undefined && !cache.has(command)) {
    analyses++;
    analysis = new Analysis().script(command, 0);
    // A bounded cache: when full, the oldest entry goes.
    if (cache.size >= cacheSize) cache.delete(cache.keys().next().value!);
    cache.set(command, analysis);
  }
  lastCommand = command;
  lastAnalysis = analysis;
  return analysis;
};

/**
 * Split a shell command into the simple commands it runs (see `analyseShell`); `undefined` when it
 * cannot be read, which callers must treat as "could be anything".
 *
 * @example
 * splitShellCommand(`ls && echo "a; b" | grep a; $(rm -rf /)`)
 * // ["ls", "echo a; b", "grep a", "rm -rf /", "$(rm -rf /)"]
 */
export const splitShellCommand = (command: string): string[] | undefined => {
  const analysis = analyseShell(command);
  return analysis === undefined ? undefined : [...analysis.commands];
};

/**
 * The first simple command of a text, as words with quotes removed, and whether each is known before
 * it runs; `undefined` when the text cannot be read. Used to find the program a command hook starts.
 *
 * @example
 * firstCommand('FOO=1 "$DIR"/hook.sh --fast')?.map((w) => w.text) // ["FOO=1", "$DIR/hook.sh", "--fast"]
 */
export const firstCommand = (command: string): readonly Word[] | undefined => readScript(command)?.commands[0]?.words;

/**
 * True for a `NAME=value` word before a command's name (an assignment, not the program it runs).
 *
 * @example
 * isAssignment(firstCommand("FOO=1 ./hook.sh")![0]!) // true
 */
export const isAssignment = (word: Word): boolean => word.assigns !== undefined;

/** An assignment that leaves what a program does as the text says (see `harmlessInEnvironment`). */
const harmlessWord = (w: Word): boolean => {
  const eq = w.text.indexOf("=");
  const name = w.assigns ?? (eq < 0 ? w.text : w.text.slice(0, eq));
  return harmlessInEnvironment(name, w.literal && eq >= 0 ? w.text.slice(eq + 1) : undefined);
};

/** Assignments before a command name (not alone) that hand a program a variable not known to be harmless. */
const givesEnvironment = (words: readonly Word[]): boolean => {
  const at = words.findIndex((w) => w.assigns === undefined);
  return at > 0 && words.slice(0, at).some((w) => !harmlessWord(w));
};

/** Code a command runs: a script's text, `"unseen"` when the text does not hold it, or `undefined` when it runs no code of its own. */
type Code = { readonly text: string; readonly literal: boolean } | "unseen" | undefined;

/** What the command at one level was handed by the levels before it. */
interface Context {
  /** A replacement string an outer xargs, parallel or find -exec fills in at run time. */
  readonly filled: FilledIn | undefined;
  /** An outer xargs appends words read at run time. */
  readonly appended: boolean;
}

class Opaque extends Error {}

class Analysis {
  private readonly calls = new Map<string, ShellCall>();
  private readonly files: ShellFile[] = [];
  /** A command changes the working directory (`cd`, `pushd`, `popd`): relative paths are then not known. */
  private movesDirectory = false;
  /** A command that may create a symbolic link or move a file runs (`ln -s /etc src/e`, `git checkout`). */
  private mayLink = false;
  /** Simple commands read, and whether one may run more than once or later than written (a loop, a function). */
  private simple = 0;
  private repeats = false;
  private dynamic = false;
  /** Files opened by the text's first command, which runs alone before any other: no link made by the text can lie on their path. */
  private readonly early = new Set<number>();
  /** `set -a` is given: every assignment is exported to the programs run after it. */
  private exportsAll = false;
  /** Assignments standing alone (`X=1;`) to variables not known to be harmless, exported after `set -a`. */
  private readonly bare: Word[] = [];
  /** Scripts and `find -exec` commands read so far: code that may run later (`trap`) or several commands in turn. */
  private nestedRuns = 0;

  script(text: string, depth: number): ShellAnalysis | undefined {
    if (depth > MAX_NESTING) return undefined;
    const read = readScript(text, depth);
    if (read === undefined) return undefined;
    try {
      for (const [i, f] of read.files.entries()) {
        if (read.leadingFiles !== undefined && i < read.leadingFiles) this.early.add(this.files.length);
        this.files.push({ path: f.target.text, literal: f.target.literal, writes: f.writes });
      }
      this.read(read.commands, depth, read.opaque, read.dynamic, read.repeats === true, read.leadingFiles !== undefined);
    } catch (error) {
      if (error instanceof Opaque) return this.result(error.message);
      if (error instanceof Unreadable) return undefined;
      throw error;
    }
    return this.result(undefined);
  }

  private result(reason: string | undefined): ShellAnalysis {
    if (this.exportsAll) for (const w of this.bare) this.keep({ text: w.text, literal: w.literal, role: "command" });
    const calls = [...this.calls.values()];
    return {
      commands: [...new Set(calls.filter((c) => c.requoted !== true).map((c) => c.text))],
      files: this.files.map((f, i) =>
        f.literal &&
        ((this.movesDirectory && !f.path.startsWith("/")) || (this.mayLink && (this.simple > 1 || this.repeats) && !this.early.has(i)))
          ? { ...f, literal: false }
          : f,
      ),
      calls,
      dynamic: this.dynamic || reason !== undefined,
      opaque: reason !== undefined,
      ...(reason === undefined ? {} : { reason }),
    };
  }

  private read(
    commands: readonly SimpleCommand[],
    depth: number,
    opaque: string | undefined,
    dynamic: boolean,
    repeats: boolean,
    leads: boolean,
  ): void {
    this.dynamic ||= dynamic;
    this.simple += commands.length;
    this.repeats ||= repeats;
    for (const [i, c] of commands.entries()) {
      const before = this.files.length;
      const runs = this.nestedRuns;
      this.visit(c.words, c.stdin, depth, { filled: undefined, appended: false }, c.syntax === true);
      // What the first command opens by its own words (`source f`, `sed -i f`) it opens before any other
      // runs, unless it runs a script (a trap's runs later) or `find -exec` commands in turn.
      if (i === 0 && leads && this.nestedRuns === runs) for (let k = before; k < this.files.length; k++) this.early.add(k);
    }
    if (opaque !== undefined) throw new Opaque(opaque);
  }

  private add(words: readonly Word[], role: ShellRole): void {
    const text = words
      .map((w) => w.text)
      .join(" ")
      .replace(/\s+/g, " ")
      .trim();
    if (text === "") return;
    const literal = words.every((w) => w.literal);
    this.keep({ text, literal, role });
    // A known word holding a blank (`'git diff' x`, `git\\ diff`, `FOO='1 '`) is one word to bash but reads
    // as two in the text a rule matches, and a quoted or escaped name that looks like an assignment
    // (`'FOO=1' npm test`, `\\FOO=1 npm test`) is a program's name: the call is kept a second time with those
    // words quoted, so a deny still matches the first text and an allow must also match the second.
    if (!literal) return;
    const name = words.findIndex((w) => w.assigns === undefined);
    const odd = (w: Word, i: number): boolean => /\s/.test(w.text) || (i === name && looksAssigned.test(w.text));
    if (words.some(odd))
      this.keep({
        text: words.map((w, i) => (odd(w, i) ? `'${w.text.replaceAll("'", "'\\''")}'` : w.text)).join(" "),
        literal,
        role,
        requoted: true,
      });
  }

  private keep(call: ShellCall): void {
    const key = `${call.literal ? 1 : 0}${call.requoted === true ? 1 : 0}${call.role}\u0000${call.text}`;
    if (!this.calls.has(key)) this.calls.set(key, call);
  }

  /** Code given as text (a `-c` script, `eval`'s words, a here-text): analysed as a script of its own. */
  private run(code: Code, depth: number, context: Context, why: string): void {
    if (code === undefined) return;
    if (code === "unseen") throw new Opaque(why);
    if (!code.literal) throw new Opaque(`${why} computed at run time`);
    if (context.filled?.(code.text) === true) throw new Opaque("a script holds text filled in at run time");
    this.nestedRuns++;
    const sub = new Analysis();
    const inner = sub.script(code.text, depth + 1);
    if (inner === undefined) throw new Unreadable();
    // `eval 'cd /tmp'` and `source` move this shell too.
    this.movesDirectory ||= sub.movesDirectory;
    this.mayLink ||= sub.mayLink;
    this.exportsAll ||= sub.exportsAll;
    this.bare.push(...sub.bare);
    this.simple += sub.simple;
    this.repeats ||= sub.repeats;
    for (const c of inner.calls) this.keep(c);
    this.files.push(...inner.files);
    this.dynamic ||= inner.dynamic;
    if (inner.opaque) throw new Opaque(inner.reason ?? "opaque");
  }

  /** One simple command, then what it runs, level by level. */
  private visit(start: readonly Word[], stdin: Stdin, depth: number, outer: Context, syntax: boolean): void {
    if (syntax) return this.add(start, "syntax");
    let words = start;
    let context = outer;
    let named = false;
    for (let level = 0; words.length > 0; level++) {
      if (level === maxLevels) throw new Opaque("more wrappers than any real command stacks");
      const head = words[0]!;
      // Variables given to the program that may change what it runs or where it reads and writes
      // (`DOCKER_HOST=ssh://h docker ps`): an allow rule must name them as written, as in Claude Code.
      // The rule that covers the whole text covers the command it names without them.
      const exposes = level === 0 && head.assigns !== undefined && givesEnvironment(words);
      if (exposes) named = true;
      if (level === 0 && words.every((w) => w.assigns !== undefined)) this.bare.push(...words.filter((w) => !harmlessWord(w)));
      this.add(words, exposes || (head.assigns === undefined && !named) ? "command" : "prefix");
      if (head.assigns === undefined) named = false;
      if (head.assigns !== undefined) {
        words = words.slice(1);
        continue;
      }
      // After a wrapper, `FOO=1 rm` runs a program named `FOO=1`; reading on to `rm` fails towards the
      // rule on both sides (a deny sees `rm`, an allow must cover `FOO=1 rm` as written).
      if (level > 0 && head.literal && /^[A-Za-z_][A-Za-z0-9_]*=/.test(head.text)) {
        words = words.slice(1);
        continue;
      }
      if (!head.literal) throw new Opaque("a command name is computed at run time");
      if (context.filled?.(head.text) === true) throw new Opaque("a command name is filled in at run time");
      if (!head.quoted && reserved.has(head.text)) throw new Opaque(`the reserved word ${head.text} read as a command name`);
      // `/bin/rm` runs `rm`: list it by its bare name too, so a condition on `rm *` sees it.
      const name = head.text.slice(head.text.lastIndexOf("/") + 1);
      if (name !== head.text && name !== "") this.add([{ ...head, text: name }, ...words.slice(1)], "basename");
      const args = words.slice(1);
      if (!bashLike.has(name) && !leavesLinks(name, args)) this.mayLink = true;
      this.builtin(name, args, stdin, depth, context);
      if (bashLike.has(name)) {
        const code = this.shellCode(args, stdin, context);
        // A script file is not read here: what it runs may make links.
        if (code === undefined) this.mayLink = true;
        this.run(code, depth, context, "a shell reads a script");
      }
      if (otherShells.has(name)) this.otherShell(args, context);
      if (name === "find") this.find(args, stdin, depth, context);
      if (name === "sed") this.sed(words, context);
      this.program(name, args, context, start.slice(0, start.length - words.length));
      const commandOptions = COMMAND_OPTIONS.get(name);
      if (commandOptions !== undefined && (context.appended || runsGivenCommand(commandOptions, args)))
        throw new Opaque(`${name} runs a command given in its options`);
      const syntaxOf = SHELL_WRAPPERS.get(name);
      if (syntaxOf === undefined) return;
      const next = this.wrapper(name, syntaxOf, words, stdin, depth, context);
      if (next === undefined) return;
      words = next.words;
      context = next.context;
    }
  }

  /** Builtins whose arguments are code or names with subscripts. */
  private builtin(name: string, args: readonly Word[], stdin: Stdin, depth: number, context: Context): void {
    const why = opaqueBuiltins[name];
    if (why !== undefined) throw new Opaque(why);
    switch (name) {
      case "eval": {
        if (context.appended) throw new Opaque("eval of words read at run time");
        // eval reads a first `--` as the end of its options, as builtins do.
        const code = args[0]?.text === "--" && args[0].literal ? args.slice(1) : args;
        if (code.length > 0)
          this.run({ text: code.map((a) => a.text).join(" "), literal: code.every((a) => a.literal) }, depth, context, "eval runs code");
        return;
      }
      case "trap":
        return this.trap(args, depth, context);
      case "source":
      case ".": {
        if (context.appended) throw new Opaque("source of a file named at run time");
        const file = args[0]?.text === "--" ? args[1] : args[0];
        // The shell reads the file itself, as it would a redirection's (`source .env` under `Read(**/.env)`).
        if (file !== undefined) this.files.push({ path: file.text, literal: file.literal, writes: false });
        if (file !== undefined) this.run(scriptFile(file, stdin), depth, context, "source reads a script");
        return;
      }
      case "mapfile":
      case "readarray":
        if (args.some((a) => /^-[^-]*C/.test(a.text)) || !namesOk(args))
          throw new Opaque(`${name} -C runs a callback, and a subscript in its name is evaluated`);
        this.assigned(args.slice(-1));
        return;
      case "read":
      case "getopts":
        if (!namesOk(args)) throw new Opaque(`${name} evaluates the subscript of the name it assigns`);
        this.assigned(name === "getopts" ? args.slice(1, 2) : args.filter((a) => !a.text.startsWith("-")));
        return;
      case "printf":
      case "wait": {
        const at = args.findIndex((a) => a.text === (name === "printf" ? "-v" : "-p"));
        if (at >= 0 && !namesOk(args.slice(at + 1, at + 2))) throw new Opaque(`${name} evaluates the subscript of the name it assigns`);
        if (at >= 0) this.assigned(args.slice(at + 1, at + 2));
        if (
          args.some((a) => !a.literal && /^-/.test(a.text)) ||
          (at < 0 && args.some((a) => /^-[^-]*[vp]/.test(a.text) && a.text !== "--"))
        )
          throw new Opaque(`${name} options computed at run time`);
        // A first word computed at run time may be the option itself (`printf $o 'a[$(…)]' x` with `o=-v`).
        const first = args[0];
        if (first !== undefined && !first.literal && (args.length > 1 || maySplit(first)))
          throw new Opaque(`${name} options computed at run time`);
        return;
      }
      case "test":
      case "[": {
        for (let i = 0; i < args.length; i++) {
          if ((args[i]!.text === "-v" || args[i]!.text === "-R") && !namesOk(args.slice(i + 1, i + 2)))
            throw new Opaque("test -v evaluates the subscript of the name it tests");
          if (!args[i]!.literal && (args[i + 1]?.text === "-v" || i === 0)) throw new Opaque("test with an operator computed at run time");
          // A word computed at run time may be `-v` (or split into `-v` and a name): the word after it is then a name whose subscript is evaluated.
          const next = args[i + 1];
          if (!args[i]!.literal && (maySplit(args[i]!) || (next !== undefined && (!next.literal || next.text.includes("[")))))
            throw new Opaque("test with an operator computed at run time");
        }
        return;
      }
      case "declare":
      case "typeset":
      case "local":
      case "export":
      case "readonly":
      case "unset": {
        const problem = declarationProblem(
          name,
          args.map((a) =>
            /^[A-Za-z_][A-Za-z0-9_]*=/.test(a.text) && a.literal ? { ...a, assigns: a.text.slice(0, a.text.indexOf("=")) } : a,
          ),
        );
        if (problem !== undefined) throw new Opaque(problem);
        // A variable exported to every later program: an allow rule must name it as written.
        if (name === "export" || args.some((a) => /^-[^-]*x/.test(a.text)))
          for (const a of args)
            if (!a.text.startsWith("-") && !harmlessWord(a)) this.keep({ text: a.text, literal: a.literal, role: "command" });
        return;
      }
      case "npm": {
        if (context.appended) throw new Opaque("npm given words read at run time");
        const read = readNpm(args);
        if (read.opaque !== undefined) throw new Opaque(read.opaque);
        // A setting npm reads but this reader does not know: only a rule naming npm alone allows it.
        if (read.unknown)
          this.keep({ text: ["npm", ...args.map((a) => a.text)].join(" ").replace(/\s+/g, " "), literal: false, role: "command" });
        return;
      }
      case "git":
        gitRunsCode(args, context.appended);
        for (const w of gitOutputs(args))
          this.files.push({ path: w.text, literal: w.literal && context.filled?.(w.text) !== true, writes: true });
        return;
      case "cd":
      case "pushd":
      case "popd":
        this.movesDirectory = true;
        return;
      case "hash":
        if (args.some((a) => !a.literal || /^-[^-]*p/.test(a.text))) throw new Opaque("hash -p makes a name run another program");
        return;
      case "shopt":
        if (args.some((a) => !a.literal || (!/^-/.test(a.text) && !safeShopt.has(a.text))))
          throw new Opaque("shopt option that changes what runs");
        return;
      case "set":
        if (
          args.some((a) => !a.literal && /^[-+]/.test(a.text)) ||
          args.some((a) => /^[-+][^-]*k/.test(a.text) || a.text === "keyword" || a.text === "functrace")
        ) {
          throw new Opaque("set -k makes later words assignments");
        }
        // Every later assignment is then exported to the programs the text runs.
        if (args.some((a) => /^-[^-]*a/.test(a.text) || a.text === "allexport")) this.exportsAll = true;
        return;
      default:
    }
  }

  /** Names a builtin assigns (`read X`, `printf -v X`): exported to later programs after `set -a`, so kept as assignments. */
  private assigned(names: readonly Word[]): void {
    for (const n of names) {
      const w = { text: `${n.text}=`, literal: n.literal, quoted: false, assigns: n.text };
      if (!harmlessWord(w)) this.bare.push(w);
    }
  }

  /** `trap 'code' SIG`: the code runs later; literal code is analysed, anything else is opaque. */
  private trap(args: readonly Word[], depth: number, context: Context): void {
    let rest = args;
    if (rest[0]?.text === "--") rest = rest.slice(1);
    const first = rest[0];
    if (first === undefined || /^-[lpP]+$/.test(first.text)) return;
    if (!first.literal) throw new Opaque("trap of code computed at run time");
    if (first.text === "-" || first.text === "") return;
    this.run({ text: first.text, literal: true }, depth, context, "trap runs code");
  }

  /** A shell runs its `-c` string, else its first operand as a script file, else (or with `-s`) what it reads on standard input. */
  private shellCode(args: readonly Word[], stdin: Stdin, context: Context): Code {
    let runsString = false;
    let readsStdin = false;
    let operand: Word | undefined;
    for (let i = 0; i < args.length; i++) {
      const w = args[i]!;
      const t = w.text;
      if (!w.literal) throw new Opaque("a shell option computed at run time");
      if (t === "--version" || t === "--help") return undefined;
      if (t === "--" || t === "-" || !/^[-+]/.test(t)) {
        operand = t === "--" || t === "-" ? args[i + 1] : w;
        break;
      }
      if (t.startsWith("--")) {
        if (t === "--rcfile" || t === "--init-file") {
          // An interactive shell runs this file first: standard input or a computed name is code the text does not hold.
          const file = args[++i];
          if (file === undefined || scriptFile(file, { kind: "unseen" }) !== undefined)
            throw new Opaque(`a shell's ${t} reads code the text does not hold`);
        } else if (
          !/^--(?:login|noprofile|norc|posix|restricted|verbose|debugger|noediting|pretty-print|dump-strings|dump-po-strings|wordexp)$/.test(
            t,
          )
        )
          throw new Opaque(`shell option ${t}`);
        continue;
      }
      const letters = t.slice(1);
      if (!/^[abcefhiklmnprstuvxBCDEHPTsoO]+$/.test(letters)) throw new Opaque(`shell option ${t}`);
      runsString ||= letters.includes("c");
      readsStdin ||= letters.includes("s");
      i += letters.match(/[oO]/g)?.length ?? 0;
    }
    if (runsString) {
      if (operand === undefined) return "unseen";
      return { text: operand.text, literal: operand.literal };
    }
    if (context.appended) throw new Opaque("a shell given its script at run time");
    if (readsStdin || operand === undefined) return hereText(stdin);
    return scriptFile(operand, stdin);
  }

  /** A shell with a language of its own runs a script file as given; a script from `-c` or standard input is opaque. */
  private otherShell(args: readonly Word[], context: Context): void {
    const operand = args.find((a) => !/^[-+]/.test(a.text));
    const options = args.slice(0, operand === undefined ? args.length : args.indexOf(operand));
    if (
      context.appended ||
      operand === undefined ||
      !operand.literal ||
      options.some((o) => !o.literal || /^[-+][^-]*[csi]/.test(o.text) || o.text.startsWith("--"))
    ) {
      throw new Opaque("a shell with a language of its own runs a script");
    }
  }

  /**
   * A program whose own options run code or write files (`make --eval`, `sort -o`, `tar -x`,
   * `python3 -m pytest -p`, `npx tsc --outDir`): read with its table in `shell/programs.ts`. `before` are
   * the words before it in the simple command: assignments there reach make as variables.
   */
  private program(name: string, args: readonly Word[], context: Context, before: readonly Word[]): void {
    let program = name;
    let rest = args;
    if (/^python[0-9.]*$/.test(name)) {
      const at = args.findIndex((a) => !/^-/.test(a.text) || /^-[A-Za-z]*m/.test(a.text));
      const word = args[at]?.text ?? "";
      const module = /^-[A-Za-z]*m$/.test(word) ? args[at + 1]?.text : /^-[A-Za-z]*m(.+)$/.exec(word)?.[1];
      if (module !== "pytest") return;
      program = "pytest";
      rest = args.slice(/^-[A-Za-z]*m$/.test(word) ? at + 2 : at + 1);
    } else if (name === "py.test") program = "pytest";
    else if (packageRunners.has(name)) {
      // `npx vitest`, `bunx vitest`, `pnpm exec vitest`, `pnpm vitest`, `yarn dlx vitest`, `npm exec -- vitest`.
      let from = 0;
      const sub = args[0]?.text;
      if (name === "npm") {
        if (sub !== "exec" && sub !== "x") return;
        const dashes = args.findIndex((a) => a.text === "--");
        from = dashes < 0 ? 1 : dashes + 1;
      } else if (name === "pnpm" || name === "yarn") from = sub === "exec" || sub === "dlx" ? 1 : 0;
      const at = args.findIndex((a, i) => i >= from && !a.text.startsWith("-"));
      if (at < 0) return;
      // `npx tsc@5` runs tsc (of version 5); a scoped name keeps its leading `@`.
      program = args[at]!.text.replace(/(?!^)@[^/]*$/, "");
      rest = args.slice(at + 1);
    }
    if (!readByTable.has(program) && !PROGRAM_OPTIONS.has(program)) return;
    if (context.appended) throw new Opaque(`${program} given words read at run time`);
    if (program === "make")
      for (const w of before) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(w.text)) continue;
        const read = readProgram("make", [w.literal ? w : { ...w, literal: true }]);
        if (read?.opaque !== undefined || !w.literal) throw new Opaque(`a variable set for make holds code: ${read?.opaque ?? "computed"}`);
      }
    const read = readProgram(program, rest);
    if (read === undefined) return;
    if (read.opaque !== undefined) throw new Opaque(read.opaque);
    // An option the table does not know: only a rule naming the program alone allows the call.
    if (read.unknown !== undefined)
      this.keep({ text: [name, ...args.map((a) => a.text)].join(" ").replace(/\s+/g, " "), literal: false, role: "command" });
    for (const w of read.reads ?? [])
      this.files.push({ path: w.text, literal: w.literal && context.filled?.(w.text) !== true, writes: false });
    for (const w of read.writes) {
      const text = w.under ? `${w.path.text.replace(/\/+$/, "")}/**` : w.path.text;
      if (w.path.literal && isHarmlessDevice(text)) continue;
      this.files.push({ path: text, literal: w.path.literal && context.filled?.(w.path.text) !== true, writes: true });
    }
  }

  /** `sed`'s `e` runs a shell command (opaque); its `w`, `r` and `-i` files are files the command opens. */
  private sed(words: readonly Word[], context: Context): void {
    if (context.appended) throw new Opaque("sed given words read at run time");
    const read = readSed(words);
    if ("opaque" in read) throw new Opaque(read.opaque);
    // A path `find -exec` or `xargs -I` fills in (`{}`) is known only when it runs.
    for (const f of read.files)
      if (!(f.path.literal && isHarmlessDevice(f.path.text)))
        this.files.push({ path: f.path.text, literal: f.path.literal && context.filled?.(f.path.text) !== true, writes: f.writes });
  }

  /**
   * `find … -exec cmd {} ;` runs `cmd` for each file; a computed word could hide an `-exec`.
   * `-fprint`, `-fprint0`, `-fprintf` and `-fls` write the file they name; `-delete` removes files
   * known only when it runs, a write of a path that is not known.
   */
  private find(args: readonly Word[], stdin: Stdin, depth: number, context: Context): void {
    if (args.some((a) => !a.literal)) throw new Opaque("find with a word computed at run time may run anything");
    if (context.appended) throw new Opaque("find given words read at run time");
    for (let i = 0; i < args.length; i++) {
      const t = args[i]!.text;
      if (/^-(?:fprint0?|fprintf|fls)$/.test(t)) {
        const file = args[i + 1];
        if (file !== undefined && !isHarmlessDevice(file.text)) this.files.push({ path: file.text, literal: true, writes: true });
        continue;
      }
      if (t === "-delete") this.files.push({ path: "-delete", literal: false, writes: true });
      if (!/^-(?:exec|execdir|ok|okdir)$/.test(args[i]!.text)) continue;
      this.nestedRuns++;
      let j = i + 1;
      while (j < args.length && args[j]!.text !== ";" && args[j]!.text !== "+") j++;
      this.visit(args.slice(i + 1, j), stdin, depth, { filled: either(context.filled, findFillsIn), appended: context.appended }, false);
      i = j;
    }
  }

  /** A wrapper's own words: what it runs next, or `undefined` when it runs nothing more. */
  private wrapper(
    name: string,
    syntax: WrapperSyntax,
    words: readonly Word[],
    stdin: Stdin,
    depth: number,
    context: Context,
  ): { words: readonly Word[]; context: Context } | undefined {
    let call;
    try {
      call = readWrapper(syntax, words, (w) => w.text);
    } catch (error) {
      if (error instanceof UnknownOption) throw new Opaque(`${name} ${error.message}: an option its table does not list`);
      throw error;
    }
    const command = call.command;
    const own = words.slice(0, words.length - command.length);
    if (own.some((w) => !w.literal)) throw new Opaque(`${name} with an option computed at run time`);
    const given = (list: readonly string[] | undefined): boolean => call.options.some((o) => list?.includes(o.option) === true);
    // Paths the command it runs names are then relative to a directory the text does not show.
    if (syntax.chdir !== undefined && (syntax.chdir.length === 0 || given(syntax.chdir))) this.movesDirectory = true;
    if (given(syntax.lookup)) return undefined;
    if (syntax.only !== undefined && !given(syntax.only)) return undefined;
    if (given(syntax.runs)) throw new Opaque(`${name} runs a program its options name`);
    const valueOf = (v: Word | string | undefined): Word | undefined =>
      typeof v === "string" ? { text: v, literal: true, quoted: false } : v;
    for (const o of call.options) {
      const v = valueOf(o.value);
      if (v === undefined) continue;
      if (syntax.writes?.includes(o.option) === true && !isHarmlessDevice(v.text))
        this.files.push({ path: v.text, literal: v.literal && context.filled?.(v.text) !== true, writes: true });
      if (syntax.setsEnv?.includes(o.option) === true) {
        const variable = v.text.includes("=") ? v.text.slice(0, v.text.indexOf("=")) : v.text;
        const value = v.literal && v.text.includes("=") ? v.text.slice(variable.length + 1) : undefined;
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable) || changesWhatRuns(variable, value))
          throw new Opaque(`${name} ${o.option} ${variable} changes what runs`);
        // As a variable before the command: an allow rule must name it as written.
        if (v.text.includes("=") && !harmlessWord(v)) this.add([{ ...v, assigns: variable }, ...command], "command");
      }
    }
    // A file its words name that it writes: script's session log, the file flock locks.
    const file =
      syntax.writesFirstWord !== undefined
        ? (command[0] ?? valueOf(syntax.writesFirstWord))
        : syntax.createsOperand === true
          ? call.operands[0]
          : undefined;
    if (file !== undefined && !isHarmlessDevice(file.text))
      this.files.push({ path: file.text, literal: file.literal && context.filled?.(file.text) !== true, writes: true });
    const script = call.options.find((o) => syntax.script?.includes(o.option) === true);
    if (script !== undefined) {
      if (name === "env") throw new Opaque("env -S splits a string into a command");
      const value = script.value;
      const code =
        typeof value === "string"
          ? { text: value, literal: true }
          : value === undefined
            ? "unseen"
            : { text: value.text, literal: value.literal };
      this.run(code, depth, context, `${name} runs a script`);
      return undefined;
    }
    if (syntax.viaShell === true && !given(syntax.exec)) throw new Opaque(`${name} runs its words through a shell`);
    let rest = command;
    if (syntax.assigns === true) {
      // Variables to set come first; the command is the first word without `=`.
      while (rest[0]?.text.includes("=")) {
        const variable = rest[0].text.slice(0, rest[0].text.indexOf("="));
        if (
          !/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable) ||
          changesWhatRuns(variable, rest[0].literal ? rest[0].text.slice(variable.length + 1) : undefined)
        )
          throw new Opaque(`${name} ${variable}=… changes what runs`);
        rest = rest.slice(1);
      }
      if (rest.length > 0 && rest.length < command.length) this.add(rest, "command");
      const set = command.length - rest.length;
      if (rest.length > 0 && command.slice(0, set).some((w) => !harmlessWord(w)))
        this.add(
          command.map((w, i) => (i < set ? { ...w, assigns: w.text.slice(0, w.text.indexOf("=")) } : w)),
          "command",
        );
    }
    if (given(syntax.direct)) return { words: rest, context };
    if (syntax.shell !== undefined && rest.length === 0) {
      const startsShell = syntax.shell.length === 0 || given(syntax.shell);
      if (startsShell) {
        if (context.appended) throw new Opaque(`${name} given its command at run time`);
        this.run(hereText(stdin), depth, context, `${name} starts a shell that reads standard input`);
        return undefined;
      }
    }
    if (syntax.shell !== undefined && syntax.shell.length === 0 && syntax.permutes === true && rest.length > 0) {
      throw new Opaque(`${name} passes its words to a shell as a script file and arguments`);
    }
    if (rest.length === 0) {
      if (context.appended && !given(syntax.lookup)) throw new Opaque(`${name} given its command at run time`);
      if (name === "xargs")
        return { words: [{ text: "echo", literal: true, quoted: false }], context: { filled: context.filled, appended: true } };
      return undefined;
    }
    const filled = either(
      context.filled,
      fillsIn(
        name,
        call.options.map((o) => ({ option: o.option, value: typeof o.value === "string" ? o.value : o.value?.text })),
      ),
    );
    return { words: rest, context: { filled, appended: context.appended || syntax.appends === true } };
  }
}

class Unreadable extends Error {}

/**
 * Programs known to create no symbolic link and move no file (the commands they run are listed, and
 * judged, on their own). Any other program may (`ln -s /etc src/e`, `cp -a`, `tar x`, `git checkout` of
 * a committed link), so a path a redirection of the same command opens may then lead elsewhere
 * (`ln -s /etc src/e && echo x > src/e/f.ts`): the paths are not known before it runs.
 */
const linkFree = new Set([
  ...["echo", "printf", "cat", "test", "[", "true", "false", ":", "ls", "grep", "egrep", "fgrep", "rg", "head", "tail", "wc"],
  ...["sort", "uniq", "cut", "tr", "pwd", "date", "basename", "dirname", "realpath", "readlink", "stat", "file", "which"],
  ...["type", "sleep", "seq", "expr", "jq", "diff", "cmp", "mkdir", "touch", "find", "sed", "du", "df", "env", "timeout"],
  ...["nice", "nohup", "time", "stdbuf", "command", "builtin", "cd", "pushd", "popd", "export", "declare", "typeset", "local"],
  ...["readonly", "unset", "set", "shopt", "read", "eval", "exit", "return", "shift", "wait", "trap", "hash", "sudo", "xargs"],
]);
/** git subcommands that write nothing into the work tree. */
const gitLinkFree = new Set([
  ...["status", "log", "diff", "show", "rev-parse", "ls-files", "blame", "describe", "shortlog", "grep", "cat-file", "rev-list"],
  ...["show-ref", "for-each-ref", "ls-tree", "name-rev", "merge-base", "version", "add", "commit", "branch", "tag", "remote"],
  ...["fetch", "push", "config", "init", "hash-object", "update-index", "reflog", "count-objects", "fsck", "ls-remote"],
  ...["format-patch", "archive", "bundle"],
]);
const leavesLinks = (name: string, args: readonly Word[]): boolean => {
  if (name === "git") {
    const sub = args.find((a, i) => !a.text.startsWith("-") && !/^(?:-C|--git-dir|--work-tree|-c)$/.test(args[i - 1]?.text ?? ""));
    return sub?.literal === true && gitLinkFree.has(sub.text);
  }
  return linkFree.has(name);
};

const either = (a: FilledIn | undefined, b: FilledIn | undefined): FilledIn | undefined =>
  a === undefined ? b : b === undefined ? a : (script) => a(script) || b(script);

/**
 * git runs shell commands it is given in configuration (`git -c alias.x='!cmd' x`, `core.pager`,
 * `core.sshCommand`) and through a few subcommands (`rebase --exec`, `bisect run`, `submodule foreach`,
 * `difftool --extcmd`, `filter-branch`): those calls are opaque, so `Bash(git *)` does not allow them.
 */
const gitRunsCode = (args: readonly Word[], appended: boolean): void => {
  let i = 0;
  for (; i < args.length; i++) {
    const t = args[i]!.text;
    // A word computed at run time here may be `-c …` or the subcommand: it could be anything.
    if (!args[i]!.literal) throw new Opaque("git option computed at run time");
    if (t === "-c" || t.startsWith("--config-env") || t.startsWith("--exec-path=") || /^-c./.test(t))
      throw new Opaque("git -c can define commands git runs");
    if (t === "-C" || t === "--git-dir" || t === "--work-tree" || t === "--namespace" || t === "--super-prefix") i++;
    else if (!t.startsWith("-")) break;
  }
  const sub = args[i]?.text;
  const rest = args.slice(i + 1);
  const texts = rest.map((a) => a.text);
  // A word computed at run time may expand to an option that runs a command (`git ls-remote "$o" r`
  // with `o=--upload-pack=…`): after a subcommand that has such options, it is opaque.
  // Words xargs appends are such words too (`echo --upload-pack=… r | xargs git ls-remote`).
  if (appended && (sub === undefined || gitRunningSubcommands.has(sub))) throw new Opaque(`git ${sub ?? ""} given words read at run time`);
  if (sub !== undefined && gitRunningSubcommands.has(sub) && rest.some((a) => !a.literal))
    throw new Opaque(`git ${sub} with a word computed at run time`);
  const runs =
    (sub === "rebase" && texts.some((r) => r === "-x" || r.startsWith("--exec") || /^-[^-]*x/.test(r))) ||
    (sub === "bisect" && texts[0] === "run") ||
    (sub === "submodule" && texts.includes("foreach")) ||
    (sub === "difftool" && texts.some((r) => r === "-x" || r.startsWith("--extcmd") || r.startsWith("--tool") || /^-[^-]*[xt]/.test(r))) ||
    (sub === "mergetool" && texts.some((r) => r.startsWith("--tool") || /^-[^-]*t/.test(r))) ||
    // clone's -u runs an upload-pack, its -c/--config sets configuration (an alias, a pager) in the new repository.
    (sub === "clone" && texts.some((r) => /^-[^-]*[uc]/.test(r) || runsCommandOption(r, sub, ["config"]))) ||
    (sub === "ls-remote" && texts.some((r) => /^-[^-]*u/.test(r))) ||
    (sub === "grep" && texts.some((r) => /^-[^-]*O/.test(r))) ||
    sub === "filter-branch" ||
    // Remote helpers run what their URL says (`git remote-ext o 'cmd'` runs cmd); internal helpers
    // (`submodule--helper foreach`, `bisect--helper --bisect-run`) take the commands of their public forms.
    sub?.startsWith("remote-") === true ||
    sub?.includes("--") === true ||
    texts.some((r) => runsCommandOption(r, sub, gitCommandOptions, sub !== undefined && gitRunningSubcommands.has(sub) ? 1 : 3));
  if (runs) throw new Opaque(`git ${sub} runs commands it is given`);
  if (sub === "config") gitConfig(rest);
};

/**
 * Where git is told to write files: `--output=<file>` (diff, log, show, archive), `--output-directory`
 * and `-o` (format-patch, archive), abbreviations included as git's option parser reads them;
 * `checkout-index --prefix`; the work tree given by `--work-tree` (checkout, restore, reset write
 * there); the directory `clone`, `worktree add` and `submodule add` create, and the file `bundle
 * create` writes. A file written so may be one a later git command reads as configuration
 * (`git checkout-index --prefix=.git/ config`). A relative path after `-C` is not known.
 */
const gitOutputs = (args: readonly Word[]): Word[] => {
  const out: Word[] = [];
  const valueOf = (i: number): Word | undefined => {
    const t = args[i]!.text;
    return t.includes("=") ? { ...args[i]!, text: t.slice(t.indexOf("=") + 1) } : args[i + 1];
  };
  let moved = false;
  let i = 0;
  for (; i < args.length; i++) {
    const t = args[i]!.text;
    if (t === "--work-tree" || t.startsWith("--work-tree=")) {
      const v = valueOf(i);
      if (v !== undefined) out.push(v);
      if (!t.includes("=")) i++;
    } else if (t === "-C") {
      moved = true;
      i++;
    } else if (t === "--git-dir" || t === "--namespace" || t === "--super-prefix") i++;
    else if (!t.startsWith("-")) break;
  }
  const sub = args[i]?.text;
  const rest = args.slice(i + 1);
  const operands: Word[] = [];
  let mergeToStdout = false;
  for (let j = 0; j < rest.length; j++) {
    const t = rest[j]!.text;
    const long = /^--([a-z-]+)(=?)/.exec(t);
    if (t === "--") {
      operands.push(...rest.slice(j + 1));
      break;
    }
    if (long !== null) {
      const name = long[1]!;
      const writes =
        "output".startsWith(name) ||
        "output-directory".startsWith(name) ||
        (sub === "checkout-index" && "prefix".startsWith(name)) ||
        ((sub === "init" || sub === "clone") && name.length >= 2 && "separate-git-dir".startsWith(name));
      if (writes) {
        const v = long[2] === "=" ? { ...rest[j]!, text: t.slice(t.indexOf("=") + 1) } : rest[j + 1];
        if (v !== undefined) out.push(v);
        // The value given as the next word is not an operand (`init --separate-git-dir g r` creates r).
        if (long[2] !== "=" && v !== undefined && !(sub === "clone" && cloneValued.has(name))) j++;
      }
      if (long[2] !== "=" && sub === "clone" && cloneValued.has(name)) j++;
      if (
        ((sub === "fast-export" || sub === "fast-import") && name.length >= 3 && "export-marks".startsWith(name)) ||
        (sub === "credential-store" && name.length >= 2 && "file".startsWith(name))
      ) {
        const v = long[2] === "=" ? { ...rest[j]!, text: t.slice(t.indexOf("=") + 1) } : rest[++j];
        if (v !== undefined) out.push(v);
      }
      if (sub === "merge-file" && (name === "stdout" || "stdout".startsWith(name))) mergeToStdout = true;
      continue;
    }
    if (/^-./.test(t)) {
      if ((sub === "archive" || sub === "format-patch" || sub === "bugreport" || sub === "diagnose") && t.startsWith("-o")) {
        const v = t.length > 2 ? { ...rest[j]!, text: t.slice(2) } : rest[j + 1];
        if (v !== undefined) out.push(v);
      }
      // A short option taking a value as the cluster's last letter takes the next word.
      if (sub === "clone" && /[obucj]$/.test(t)) j++;
      if (sub === "merge-file") {
        if (/^-[^-]*p/.test(t)) mergeToStdout = true;
        if (t === "-L") j++;
      }
      continue;
    }
    operands.push(rest[j]!);
  }
  if (sub === "clone") {
    const target = operands[1] ?? humanish(operands[0]);
    if (target !== undefined) out.push(target);
  } else if (sub === "worktree" && operands[0]?.text === "add" && operands[1] !== undefined) out.push(operands[1]);
  else if (sub === "submodule" && operands[0]?.text === "add") {
    const target = operands[2] ?? humanish(operands[1]);
    if (target !== undefined) out.push(target);
  } else if (sub === "bundle" && operands[0]?.text === "create" && operands[1] !== undefined) out.push(operands[1]);
  else if (sub === "init") out.push(operands[0] ?? { text: ".git", literal: true, quoted: false });
  // Patches name the files they write, so `git apply` writes anywhere under the directory it runs in
  // (`--unsafe-paths`, anywhere); `git am` anywhere in the work tree, whose top the text does not show.
  else if (sub === "apply" && appliesPatch(rest)) {
    const texts = rest.map((w) => w.text);
    const unsafe = texts.some((t) => t.length >= 4 && t.startsWith("--un") && "--unsafe-paths".startsWith(t));
    out.push({ text: "./**", literal: !unsafe, quoted: false });
  } else if (sub === "am" && !rest.some((w) => /^--(?:show-current-patch|abort|quit)/.test(w.text)))
    out.push({ text: "**", literal: false, quoted: false });
  // `git checkout-index` writes the paths it is given, or every path of the index (`-a`, `--stdin`).
  else if (sub === "checkout-index" && !rest.some((w) => w.text.startsWith("--prefix") || w.text === "--temp")) {
    if (rest.some((w) => /^-[^-]*a|^--all$|^--stdin$/.test(w.text))) out.push({ text: "./**", literal: true, quoted: false });
    out.push(...operands);
  }
  // `git merge-file current base other` writes the merge into current (unless -p): `--theirs .git/config /dev/null f` copies f there.
  else if (sub === "merge-file" && !mergeToStdout && operands[0] !== undefined) out.push(operands[0]);
  else if (sub === "config" && settingConfig(rest)) {
    // `git config -f f k v` writes f (`-f ~/.bashrc` with a key holding `$(…)` writes shell code there); `--system` writes /etc/gitconfig.
    for (let j = 0; j < rest.length; j++) {
      const t = rest[j]!.text;
      // git takes any unambiguous prefix of a long option (`--fil=f` is `--file=f`).
      const long = /^--([a-z-]+)(=?)/.exec(t);
      const file = long !== null && long[1]!.length >= 3 && "file".startsWith(long[1]!);
      if (t === "-f" || (file && long[2] === "")) {
        if (rest[j + 1] !== undefined) out.push(rest[j + 1]!);
      } else if (file) out.push({ ...rest[j]!, text: t.slice(t.indexOf("=") + 1) });
      else if (/^-f./.test(t)) out.push({ ...rest[j]!, text: t.slice(2) });
      else if (long !== null && long[1]!.length >= 2 && "system".startsWith(long[1]!))
        out.push({ text: "/etc/gitconfig", literal: true, quoted: false });
    }
  }
  return moved ? out.map((w) => (w.text.startsWith("/") ? w : { ...w, literal: false })) : out;
};

/** Whether `git apply`'s words change files: not when it only reports (`--check`, `--stat`, …) or applies to the index alone. */
const appliesPatch = (args: readonly Word[]): boolean => {
  const texts = args.map((w) => w.text);
  if (texts.includes("--cached")) return false;
  const reports = texts.some((t) => /^--(?:check|stat|numstat|summary)$/.test(t));
  return !reports || texts.includes("--apply");
};

/** Whether `git config`'s words set or change a value, rather than only read one. */
const settingConfig = (args: readonly Word[]): boolean => {
  const operands: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const t = args[i]!.text;
    if (gitConfigReads.test(t) && operands.length === 0) return false;
    if (t.startsWith("-")) {
      if (gitConfigValued.has(t)) i++;
      continue;
    }
    operands.push(args[i]!);
  }
  return operands.length >= 2 || /^(?:set|unset|rename-section|remove-section|edit)$/.test(operands[0]?.text ?? "");
};

/** clone's long options that take a value as the next word. */
const cloneValued = new Set([
  "origin",
  "branch",
  "upload-pack",
  "reference",
  "reference-if-able",
  "separate-git-dir",
  "depth",
  "shallow-since",
  "shallow-exclude",
  "config",
  "server-option",
  "jobs",
  "template",
  "filter",
  "bundle-uri",
  "ref-format",
]);

/** The directory `git clone <repo>` creates without one named: the repository's last path part, without `.git`. */
const humanish = (repo: Word | undefined): Word | undefined => {
  if (repo === undefined) return undefined;
  const name = repo.text
    .replace(/[/\\]+$/, "")
    .replace(/[/\\]\.git$/, "")
    .replace(/\.git$/, "")
    .split(/[/:\\]/)
    .pop();
  return name === undefined || name === "" || name === "." || name === ".." ? { ...repo, literal: false } : { ...repo, text: name };
};

/** Options of a program whose value is a command line it runs (`tar --to-command`, `zip -TT`, `rsync -e`). */
interface CommandOptions {
  /** Long options (without `--`); an abbreviation of one is read as it, as getopt_long does. */
  readonly long: readonly string[];
  /** Short options, as letters anywhere in a cluster (`-cIf`). */
  readonly short: string;
  /** Options of more than one letter after a single dash (`zip -TT`). */
  readonly words?: readonly string[];
  /** Long options that are options of their own though a prefix of one above (getopt takes an exact name first). */
  readonly exact?: readonly string[];
  /** Its first word may be a cluster of letters without a dash (`tar cIf …`). */
  readonly bareCluster?: boolean;
}

/**
 * Programs that run a command line given in one of their options, as data. A command given so is
 * run by a shell or split by the program, so it is opaque, like `git -c`.
 */
const COMMAND_OPTIONS: ReadonlyMap<string, CommandOptions> = new Map([
  [
    "tar",
    {
      long: ["to-command", "checkpoint-action", "use-compress-program", "rsh-command", "info-script", "new-volume-script", "rmt-command"],
      short: "IF",
      exact: ["checkpoint"],
      bareCluster: true,
    },
  ],
  ["zip", { long: ["unzip-command"], short: "", words: ["-TT"] }],
  ["rsync", { long: ["rsh", "rsync-path"], short: "e" }],
  ["scp", { long: [], short: "S" }],
  ["sftp", { long: [], short: "SD" }],
  ["start-stop-daemon", { long: ["exec", "startas"], short: "xa" }],
  // sort pipes its temporary files through the program (`--compress-program=sh` runs the data as a script).
  ["sort", { long: ["compress-program"], short: "" }],
  ["sdiff", { long: ["diff-program"], short: "" }],
  ["diff3", { long: ["diff-program"], short: "" }],
  ["rg", { long: ["pre"], short: "" }],
  ["man", { long: ["pager", "html"], short: "PH" }],
  ["wget", { long: ["use-askpass"], short: "" }],
]);

/** Whether `args` give one of these options. */
const runsGivenCommand = (options: CommandOptions, args: readonly Word[]): boolean =>
  args.some((a, i) => {
    const t = a.text;
    // A word computed at run time may expand to one of these options.
    if (!a.literal) return true;
    if (t.startsWith("--")) {
      const name = t.slice(2, t.includes("=") ? t.indexOf("=") : undefined);
      // getopt_long takes any unambiguous prefix, however short (`sort --co=sh`); an exact name wins.
      return name !== "" && !options.exact?.includes(name) && options.long.some((o) => o.startsWith(name));
    }
    if (options.words?.some((w) => t.startsWith(w)) === true) return true;
    const cluster = t.startsWith("-") ? t.slice(1) : i === 0 && options.bareCluster === true ? t : "";
    return [...options.short].some((letter) => cluster.includes(letter));
  });

/** git subcommands with an option or a mode that runs a command it is given. */
const gitRunningSubcommands = new Set([
  "fetch",
  "pull",
  "clone",
  "ls-remote",
  "push",
  "archive",
  "grep",
  "difftool",
  "mergetool",
  "rebase",
  "submodule",
  "bisect",
  "send-email",
  "daemon",
  "instaweb",
  "config",
  "send-pack",
  "fetch-pack",
  "filter-branch",
  "remote",
  "help",
  "init",
]);

/** Long options of git commands whose value is a command git runs (`fetch --upload-pack`, `archive --exec`, `grep --open-files-in-pager`). */
const gitCommandOptions = [
  "upload-pack",
  "receive-pack",
  "exec",
  "extcmd",
  "tool",
  "open-files-in-pager",
  "sendmail-cmd",
  "to-cmd",
  "cc-cmd",
  "header-cmd",
  "smtp-server",
  "access-hook",
  "httpd",
  "browser",
];

/**
 * Whether `word` is such an option, or an abbreviation git would read as one: git's option parser
 * takes any unambiguous prefix, however short (`--u=…` is `--upload-pack=…` for ls-remote), so for the
 * subcommands that have such options (`shortest` 1) every prefix counts, for others three letters or more;
 * `--template` too for `clone` and `init`, whose hooks it installs.
 */
const runsCommandOption = (
  word: string,
  sub: string | undefined,
  options: readonly string[] = gitCommandOptions,
  shortest = 1,
): boolean => {
  if (!word.startsWith("--") || word === "--") return false;
  const name = word.slice(2, word.includes("=") ? word.indexOf("=") : undefined);
  if (name.length < shortest) return false;
  if ((sub === "clone" || sub === "init") && "template".startsWith(name)) return true;
  return options.some((option) => option.startsWith(name));
};

/** Keys `git config` may set from a command: none of them names a command git runs (`alias.*`, `core.pager`, `*.command`, `credential.helper` do). */
const safeGitKey =
  /^(?:user\.(?:name|email)|core\.(?:autocrlf|filemode|ignorecase|quotepath|eol|safecrlf|longpaths|symlinks|precomposeunicode)|init\.defaultbranch|pull\.(?:rebase|ff)|push\.(?:default|autosetupremote)|fetch\.prune|rebase\.(?:autosquash|autostash)|merge\.(?:conflictstyle|ff)|color\.ui|advice\.[a-z]+|branch\..+\.(?:remote|merge|rebase)|remote\..+\.(?:url|pushurl|fetch)|diff\.(?:algorithm|colormoved|renames)|log\.date|status\.[a-z]+|column\.ui|commit\.verbose|safe\.directory)$/;
/** `git config` options that take a value, and those that only read or remove. */
const gitConfigValued = new Set(["-f", "--file", "--blob", "--type", "--default", "--comment", "--value"]);
const gitConfigReads =
  /^(?:-l|--list|--get|--get-all|--get-regexp|--get-urlmatch|--get-color|--get-colorbool|--unset|--unset-all|get|list|unset)$/;

/**
 * `git config`: reading is harmless, but setting a key that names a command (`alias.x '!…'`,
 * `core.pager`, `core.sshCommand`, a filter or diff driver, `include.path`) makes a later git
 * command run it, in this command or the next: only keys that name no command may be set.
 */
const gitConfig = (args: readonly Word[]): void => {
  const operands: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.literal) throw new Opaque("git config of a word computed at run time");
    if (gitConfigReads.test(a.text) && operands.length === 0) return;
    if (a.text === "set" && operands.length === 0 && i === 0) continue;
    if (a.text.startsWith("-")) {
      if (gitConfigValued.has(a.text)) i++;
      else if (/^--(?:rename-section|remove-section|edit)$|^-[^-]*e/.test(a.text)) throw new Opaque("git config rewrites configuration");
      continue;
    }
    operands.push(a);
  }
  if (operands.length >= 2 && !safeGitKey.test(operands[0]!.text.toLowerCase()))
    throw new Opaque(`git config sets ${operands[0]!.text}, which may name a command git runs`);
};

/** Code read from standard input: the here-string or here-document if the command has one, else unseen (a pipe, a file, the terminal). */
const hereText = (stdin: Stdin): Code => (stdin.kind === "unseen" ? "unseen" : { text: stdin.text, literal: stdin.literal });

/**
 * A script named by path. Standard input by any name (`/dev/stdin`, `/dev//stdin`, `/dev/fd/0`,
 * `/proc/self/fd/0`) runs the here-text; any other path under `/dev` or `/proc`, or a path computed
 * at run time, runs code the text does not hold; a file elsewhere runs the file (not analysed).
 */
const scriptFile = (file: Word, stdin: Stdin): Code => {
  if (!file.literal) return "unseen";
  const path = file.text
    .replace(/\/+/g, "/")
    .replace(/\/(?:\.\/)+/g, "/")
    .replace(/^(?:\.\/)+/, "");
  if (/^\/dev\/(?:stdin|fd\/0)$|^\/proc\/(?:self|thread-self|\d+)\/fd\/0$/.test(path)) return hereText(stdin);
  // A relative name is read from a working directory the text may not show (an earlier `cd /dev`,
  // or a tool's shell left there): one that is standard input from /dev or a descriptor directory
  // (`stdin`, `0`, `fd/0`, `self/fd/0`) runs the here-text; one under /dev or /proc, anything.
  if (!path.startsWith("/")) {
    if (/(?:^|\/)(?:stdin|0)$/.test(path)) return hereText(stdin);
    if (/(?:^|\/)(?:dev|proc|fd|self|thread-self|\d+)(?:\/|$)/.test(path)) return "unseen";
  }
  if (/(?:^|\/)(?:dev|proc)\//.test(path) || (/(?:^|\/)\.\.(?:\/|$)/.test(path) && /dev|proc|fd/.test(path))) return "unseen";
  return undefined;
};
