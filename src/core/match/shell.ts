/**
 * Splitting a shell command into the simple commands it runs, for `Bash(pattern)` conditions.
 * Besides each simple command as written, it lists what that command runs through wrappers
 * (`sudo`, `timeout 5`, `xargs`, `env FOO=1`, `bash -c '…'`, `eval`, `find -exec`) and what a
 * shell reads from a here-string or here-document (`bash <<< '…'`), so that a condition on `rm *`
 * sees `rm` in `sudo rm -rf /` and one on `sudo *` still sees the `sudo`. A shell whose code the
 * text does not hold (`… | sh`, `sh < x.sh`, `. <(…)`, `… | xargs sh -c`, `xargs -I{} sh -c '{}'`) is
 * opaque, like a command named at run time.
 */
import { UNREADABLE_DETAIL } from "./detail.ts";
import { type FilledIn, fillsIn, findFillsIn } from "./replacement.ts";
import { type GivenOption, readShell, type SimpleCommand, type Word } from "./shell-syntax.ts";

/** How a wrapper command takes its options: those that consume the next word, how many operands precede the command, and which option carries a whole command string. */
export interface WrapperSyntax {
  readonly valued: readonly string[];
  /** Options whose value, if any, is glued to them (`xargs -i{}`, `--replace=@`), never the next word. */
  readonly optional?: readonly string[];
  readonly operands: number;
  /**
   * Its options may follow its operands, as GNU getopt reads them unless told not to (`script log -c '…'`),
   * up to a `--`. A wrapper that runs a command given as words does not (`flock /tmp/l grep -ic x`).
   */
  readonly permutes?: boolean;
  /** Its own option that gives it a script to run; one right after its operands counts too (`flock /tmp/l -c '…'`). */
  readonly script?: readonly string[];
  /**
   * It starts a shell when given one of these flags (`sudo -s`), or always when empty (`su`); given
   * no command, that shell reads its script from standard input, as a bare `bash` does.
   */
  readonly shell?: readonly string[];
  /**
   * Given one of these options it runs the command after its options itself, with no operand and no
   * shell, and reads no options among that command's words (`runuser -u root ls -la`).
   */
  readonly direct?: readonly string[];
  /** With one of these flags it only looks the command up and runs nothing (`command -v bash`). */
  readonly lookup?: readonly string[];
}

/**
 * Commands that run another command given as their arguments; the inner command is matched too.
 *
 * @example
 * SHELL_WRAPPERS.get("timeout") // { valued: ["-s", "-k", "--signal", "--kill-after"], operands: 1 }
 */
export const SHELL_WRAPPERS: ReadonlyMap<string, WrapperSyntax> = new Map<string, WrapperSyntax>([
  ["sudo", {
    valued: ["-u", "-g", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-R", "-c", "--user", "--group", "--prompt", "--close-from", "--chdir", "--role", "--type", "--other-user", "--command-timeout", "--chroot", "--login-class"],
    operands: 0,
    shell: ["-s", "-i", "--shell", "--login"],
  }],
  ["doas", { valued: ["-u", "-C"], operands: 0, shell: ["-s"] }],
  ["env", { valued: ["-u", "-C", "--unset", "--chdir"], operands: 0, script: ["-S", "--split-string"] }],
  ["timeout", { valued: ["-s", "-k", "--signal", "--kill-after"], operands: 1 }],
  ["nice", { valued: ["-n", "--adjustment"], operands: 0 }],
  ["nohup", { valued: [], operands: 0 }],
  ["time", { valued: ["-f", "-o", "--format", "--output"], operands: 0 }],
  ["xargs", {
    valued: ["-I", "-n", "-P", "-L", "-s", "-d", "-E", "-a", "--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"],
    optional: ["-i", "-e", "-l", "--replace", "--eof", "--max-lines"],
    operands: 0,
  }],
  ["command", { valued: [], operands: 0, lookup: ["-v", "-V"] }],
  ["builtin", { valued: [], operands: 0 }],
  ["exec", { valued: ["-a"], operands: 0 }],
  ["stdbuf", { valued: ["-i", "-o", "-e"], operands: 0 }],
  ["ionice", { valued: ["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"], operands: 0 }],
  ["chrt", { valued: ["-T", "-P", "-D"], operands: 1 }],
  ["taskset", { valued: [], operands: 1 }],
  ["setsid", { valued: [], operands: 0 }],
  ["unshare", { valued: ["--propagation", "--setgroups", "--map-user", "--map-group"], operands: 0 }],
  ["nsenter", { valued: ["-t", "--target", "-S", "-G", "--setuid", "--setgid"], operands: 0 }],
  ["chroot", { valued: ["--userspec", "--groups"], operands: 1 }],
  ["flock", { valued: ["-w", "--timeout", "-E", "--conflict-exit-code"], operands: 1, script: ["-c", "--command"] }],
  // su's operand is the user, and its options may follow it (`su root -s /bin/bash`); a login shell is what it runs.
  ["su", { valued: ["-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment"], operands: 1, permutes: true, script: ["-c", "--command", "--session-command"], shell: [] }],
  // runuser without -u is su; with -u it runs its command as given.
  ["runuser", {
    valued: ["-u", "--user", "-g", "--group", "-G", "--supp-group", "-s", "--shell", "-w", "--whitelist-environment"],
    operands: 1,
    permutes: true,
    script: ["-c", "--command", "--session-command"],
    shell: [],
    direct: ["-u", "--user"],
  }],
  ["unbuffer", { valued: [], operands: 0 }],
  ["watch", { valued: ["-n", "--interval", "-d"], operands: 0 }],
  ["strace", { valued: ["-o", "-e", "-p", "-s", "-u"], operands: 0 }],
  ["ltrace", { valued: ["-o", "-e", "-p", "-s", "-u"], operands: 0 }],
  ["firejail", { valued: [], operands: 0 }],
  ["proxychains", { valued: ["-f"], operands: 0 }],
  ["torsocks", { valued: [], operands: 0 }],
  ["busybox", { valued: [], operands: 0 }],
  ["parallel", { valued: ["-I", "-j", "--jobs", "-S", "--sshlogin", "--delay", "--timeout", "-a", "--arg-file"], optional: ["-i", "--replace"], operands: 0 }],
  ["chronic", { valued: [], operands: 0 }],
  ["caffeinate", { valued: ["-t", "-w"], operands: 0 }],
  ["pkexec", { valued: ["--user"], operands: 0, shell: [] }],
  ["dbus-launch", { valued: ["--config-file"], operands: 0 }],
  ["coproc", { valued: [], operands: 0 }],
  ["systemd-run", { valued: ["-p", "--property", "-u", "--unit", "-M", "--machine", "--uid", "--gid", "-E", "--setenv", "--slice", "--description"], operands: 0 }],
  ["numactl", { valued: ["-N", "-m", "-C", "-i", "-p", "--cpunodebind", "--membind", "--physcpubind", "--interleave", "--preferred"], operands: 0 }],
  ["cgexec", { valued: ["-g"], operands: 0 }],
  // script's operand is the file it logs to; it runs only its -c command.
  ["script", { valued: ["-t", "--timing", "-E", "--echo", "-T", "--log-timing"], operands: 1, permutes: true, script: ["-c", "--command"] }],
  ["--", { valued: [], operands: 0 }],
]);

/** Shells whose `-c` runs a script given as a string, and that read their script from standard input without one. */
const shells = new Set(["bash", "sh", "zsh", "dash", "ksh", "ash", "mksh"]);
/** Reserved words that open or continue a compound command; the command after them is what runs. */
const keywords = new Set(["if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "fi", "done", "esac"]);
const assignment = /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/;

/**
 * True for a `NAME=value` prefix of a simple command (not the program it runs); a quoted
 * `"NAME=value"` is an argument, not an assignment.
 *
 * @example
 * isAssignment(readShell("FOO=1 ./hook.sh")!.commands[0]![0]!) // true
 */
export const isAssignment = (word: Word): boolean => {
  const assigned = assignment.exec(word.bare)?.[0];
  return assigned !== undefined && word.text.startsWith(assigned);
};
// An unquoted glob or brace expansion in a command name means the name is only known at run time.
const expandsAtRunTime = /[*?]|\[.*\]|\{[^{}]*(?:,|\.\.)[^{}]*\}/;

/** The simple commands of a shell text, and what is unknown about it until it runs. */
export interface ShellAnalysis {
  /** Each simple command, and each command it runs through a wrapper, whitespace-normalised, without duplicates. */
  readonly commands: readonly string[];
  /** Something expands at run time (`$VAR`, `$(…)`, backticks), so the texts are not exactly what will run. */
  readonly dynamic: boolean;
  /** Some command's name is only known at run time (`$CMD x`, `/bin/r? x`), so no pattern can rule it out. */
  readonly opaque: boolean;
}

/** How many wrappers and assignments one simple command may stack before it counts as opaque. */
const maxLevels = 64;

/**
 * Analyse a shell command; `undefined` when it cannot be read (an unbalanced quote, a stray `)`,
 * `UNREADABLE_DETAIL`).
 *
 * @example
 * analyseShell("FOO=1 sudo rm -rf /tmp/x")?.commands
 * // ["FOO=1 sudo rm -rf /tmp/x", "sudo rm -rf /tmp/x", "rm -rf /tmp/x"]
 */
export const analyseShell = (command: string, depth = 0): ShellAnalysis | undefined => {
  if (command === UNREADABLE_DETAIL) return undefined; // a command given as an array or a number
  const syntax = readShell(command, depth);
  if (syntax === undefined) return undefined;
  const commands = new Set<string>();
  let dynamic = syntax.dynamic;
  let opaque = false;
  const add = (words: readonly Word[]): void => {
    const text = words.map((w) => w.text).join(" ").replace(/\s+/g, " ").trim();
    if (text !== "") commands.add(text);
  };
  // `stdin` is the simple command's here-text, which a shell or `source /dev/stdin` in it runs as code;
  // `filled` tells whether a script holds a string an outer xargs, parallel or find -exec replaces.
  const visit = (start: readonly Word[], stdin: Word | undefined, outer?: FilledIn): boolean => {
    let filled = outer;
    let skip = 0;
    while (start[skip] !== undefined && keywords.has(start[skip]!.text) && !start[skip]!.quoted) skip++;
    let form: readonly Word[] = start.slice(skip);
    // Each level lists the rest of the command again: no real command nests this many wrappers and
    // assignments, and a hostile one would cost time and memory by the square of its length.
    for (let level = 0; form[0] !== undefined; level++) {
      if (level === maxLevels) {
        opaque = true;
        break;
      }
      add(form);
      const head: Word = form[0];
      if (isAssignment(head)) {
        form = form.slice(1);
        continue;
      }
      const unknown = head.dynamic || expandsAtRunTime.test(head.bare);
      opaque ||= unknown;
      // `/bin/rm` runs `rm`: list it by its bare name too, so a condition on `rm *` sees it.
      const name = unknown ? head.text : head.text.slice(head.text.lastIndexOf("/") + 1);
      if (name !== head.text && name !== "") add([{ ...head, text: name }, ...form.slice(1)]);
      const script = codeRun(name, form, stdin);
      if (script === "unseen" || (script !== undefined && filled?.(script.text) === true)) opaque = true;
      else if (script !== undefined) {
        if (script.dynamic) opaque = true;
        const inner = analyseShell(script.text, depth + 1);
        if (inner === undefined) return false;
        for (const c of inner.commands) commands.add(c);
        dynamic ||= inner.dynamic;
        opaque ||= inner.opaque;
      }
      if (name === "find") for (const sub of findExec(form)) if (!visit(sub, stdin, either(filled, findFillsIn))) return false;
      const syntax = SHELL_WRAPPERS.get(name);
      if (syntax === undefined) break;
      const call = readWrapper(syntax, form);
      filled = either(filled, fillsIn(name, call.options));
      form = call.flags.some((f) => syntax.lookup?.includes(f)) ? [] : call.command;
    }
    return true;
  };
  for (const words of syntax.commands) if (!visit(words, (words as SimpleCommand).stdin)) return undefined;
  return { commands: [...commands], dynamic, opaque };
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

const either = (a: FilledIn | undefined, b: FilledIn | undefined): FilledIn | undefined =>
  a === undefined ? b : b === undefined ? a : (script) => a(script) || b(script);

/**
 * A wrapper's own options (one per letter of a cluster, with the value getopt gives it), its flags
 * (those options without a value: `-E`, `-s`, `--login`), and the command after its options and
 * leading operands.
 */
interface WrapperCall {
  readonly options: readonly GivenOption[];
  readonly flags: readonly string[];
  readonly command: readonly Word[];
  /** It was given one of its `direct` options, so it runs `command` itself and starts no shell. */
  readonly direct: boolean;
}

/**
 * Read a wrapper's options as getopt does: in a cluster (`-iu root`, `-n10`, `-rI{}`) the first letter
 * that takes a value takes the rest of the word, or the next word when it ends the word (an optional
 * value only the rest of the word); `--opt=value` gives a long option its value. A lone `-`
 * (`su -`, `env -`) is a flag.
 */
const readWrapper = (syntax: WrapperSyntax, form: readonly Word[]): WrapperCall => {
  const required = (option: string): boolean => syntax.valued.includes(option) || syntax.script?.includes(option) === true;
  const optional = (option: string): boolean => syntax.optional?.includes(option) === true;
  const options: GivenOption[] = [];
  const operands: Word[] = [];
  const direct = (): boolean => options.some((o) => syntax.direct?.includes(o.option) === true);
  let i = 1;
  for (let w = form[i]; w !== undefined; w = form[i]) {
    const t = w.text;
    i++;
    if (!t.startsWith("-")) {
      if (syntax.permutes !== true || direct()) {
        i--;
        break;
      }
      operands.push(w);
      continue;
    }
    if (t === "--") break;
    if (t === "-" || t.startsWith("--")) {
      const equals = t.indexOf("=");
      const option = equals < 0 ? t : t.slice(0, equals);
      if (equals >= 0) options.push({ option, value: rest(w, equals + 1) });
      else options.push(required(option) ? next(option, form[i++]) : { option });
      continue;
    }
    for (let k = 1; k < t.length; k++) {
      const option = `-${t.charAt(k)}`;
      if (!required(option) && !optional(option)) {
        options.push({ option });
        continue;
      }
      if (k < t.length - 1) options.push({ option, value: rest(w, k + 1) });
      else options.push(required(option) ? next(option, form[i++]) : { option });
      break;
    }
  }
  let command = [...operands, ...form.slice(i)].slice(direct() ? 0 : syntax.operands);
  const after = command[0]?.text;
  if (after !== undefined && syntax.script?.includes(after) === true) {
    options.push(next(after, command[1]));
    command = [];
  }
  const flags = options.flatMap((o) => (o.value === undefined ? [o.option] : []));
  return { options, flags, command, direct: direct() };
};

/** An option that takes the next word as its value; a missing word gives it none. */
const next = (option: string, word: Word | undefined): GivenOption => (word === undefined ? { option } : { option, value: word });

/** The rest of a word from `start`, as a word of its own (the value glued to an option); its unquoted part is kept only when the word had no quotes. */
const rest = (word: Word, start: number): Word => {
  const text = word.text.slice(start);
  return { ...word, text, bare: word.bare === word.text ? text : "" };
};

/**
 * The code a command runs, as far as its text tells: a script (`bash -c '…'`, `eval …`, `env -S '…'`,
 * `bash <<< '…'`), `"unseen"` when it reads code the text does not hold (`… | sh`, `sh < x.sh`,
 * `. <(…)`, `sh -c` without its string), or `undefined` when it runs no code of its own, or a script file (`bash x.sh`).
 */
type Code = { text: string; dynamic: boolean } | "unseen" | undefined;

const pick = (words: readonly Word[]): Code => ({ text: words.map((w) => w.text).join(" "), dynamic: words.some((w) => w.dynamic) });

const codeRun = (name: string, form: readonly Word[], stdin: Word | undefined): Code => {
  if (name === "eval") return form.length > 1 ? pick(form.slice(1)) : undefined;
  if (shells.has(name)) return shellCode(form, stdin);
  if (name === "source" || name === ".") {
    const file = form[1]?.text === "--" ? form[2] : form[1];
    return file === undefined ? undefined : scriptFile(file, stdin);
  }
  const syntax = SHELL_WRAPPERS.get(name);
  if (syntax === undefined) return undefined;
  const call = readWrapper(syntax, form);
  const script = call.options.find((o) => syntax.script?.includes(o.option) === true)?.value;
  if (script !== undefined) return { text: script.text, dynamic: script.dynamic };
  if (syntax.shell === undefined || call.direct) return undefined;
  // `sudo -s`, `su`, `… | sudo su`: a shell started with no command reads its script from standard input.
  const startsShell = syntax.shell.length === 0 || call.flags.some((f) => syntax.shell!.includes(f));
  return startsShell && call.command.length === 0 ? hereText(stdin) : undefined;
};

/** Long options of a shell that take the next word as their value (`--rcfile f`). */
const valuedLongOptions = new Set(["--rcfile", "--init-file"]);
/** Letters of a shell's option cluster that each take the next word as their value, in order (`-oc posix '…'`, `-euxo pipefail`). */
const valuedLetters = /[oO]/g;

/** A shell runs its `-c` string, else its first operand as a script file, else (or with `-s`) what it reads on standard input. */
const shellCode = (form: readonly Word[], stdin: Word | undefined): Code => {
  let runsString = false;
  let readsStdin = false;
  let operand: Word | undefined;
  for (let i = 1; i < form.length; i++) {
    const t = form[i]!.text;
    if (t === "--version" || t === "--help") return undefined;
    if (t === "--" || !/^[-+]/.test(t)) {
      operand = t === "--" ? form[i + 1] : form[i];
      break;
    }
    if (t.startsWith("--")) {
      if (valuedLongOptions.has(t)) i++;
      continue;
    }
    // A cluster is `-` or `+` and letters; `+c` and `+s` still run a string or read standard input.
    const letters = t.slice(1);
    runsString ||= letters.includes("c");
    readsStdin ||= letters.includes("s");
    i += letters.match(valuedLetters)?.length ?? 0;
  }
  // Without its string, `sh -c` errors, unless something appends one: `… | xargs sh -c`.
  if (runsString) return operand === undefined ? "unseen" : pick([operand]);
  if (readsStdin || operand === undefined) return hereText(stdin);
  return scriptFile(operand, stdin);
};

/** A script named by path: standard input's device runs the here-text, a process substitution or other descriptor runs unseen code. */
const scriptFile = (file: Word, stdin: Word | undefined): Code => {
  if (file.dynamic && /^[<>]\(/.test(file.text)) return "unseen";
  const fd = /^(?:\/dev\/fd\/|\/proc\/(?:self|\d+)\/fd\/)(\d+)$/.exec(file.text)?.[1];
  if (file.text === "/dev/stdin" || fd === "0") return hereText(stdin);
  return fd === undefined ? undefined : "unseen";
};

/** Code read from standard input: the here-string or here-document if the command has one, else unseen (a pipe, a file, the terminal). */
const hereText = (stdin: Word | undefined): Code => (stdin === undefined ? "unseen" : { text: stdin.text, dynamic: stdin.dynamic });

/** `find … -exec cmd {} ;` runs `cmd` for each file. */
const findExec = (form: readonly Word[]): Word[][] => {
  const found: Word[][] = [];
  for (let i = 1; i < form.length; i++) {
    if (!/^-(?:exec|execdir|ok|okdir)$/.test(form[i]!.text)) continue;
    let j = i + 1;
    while (j < form.length && form[j]!.text !== ";" && form[j]!.text !== "+") j++;
    found.push(form.slice(i + 1, j));
    i = j;
  }
  return found;
};
