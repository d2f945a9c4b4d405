/**
 * Reading a parsed shell script into the simple commands bash would run, with an explicit list of the
 * node kinds and word parts this analysis understands. Anything else makes the script opaque: a
 * deny condition matches it and no allow condition is satisfied by it. Besides unknown syntax, these
 * are opaque because bash evaluates code the text does not show: arithmetic on anything but literal
 * numbers (`$((x))`, `((…))`, `$[…]`, `for ((…))`, `[[ a -eq b ]]`, array subscripts), `${x@P}`,
 * `${!x}`, and assignments to variables a shell or the loader reads as code or as where to find
 * commands (`PS4`, `PROMPT_COMMAND`, `BASH_ENV`, `PATH`, `BASH_CMDS`, `LD_PRELOAD`, …).
 */
import { parseShell, type SyntaxNode } from "./parser.ts";

/** One word after quote removal. */
export interface Word {
  /** The word as bash passes it where every part is known; where a part is computed at run time, that part's source text. */
  readonly text: string;
  /** Every part is known before the command runs: no expansion, substitution, glob, brace or tilde. */
  readonly literal: boolean;
  /** Some part was quoted or escaped: a quoted reserved word is a plain word. */
  readonly quoted: boolean;
  /** An expansion outside quotes: the word may split into several words at run time. */
  readonly splits?: boolean;
  /** For an assignment (`NAME=value` before a command, or an argument of `declare`/`export`…), the variable's name. */
  readonly assigns?: string;
  /** For an assignment, its value is a parenthesised list the grammar read (`a=(x y)`), not a string. */
  readonly list?: boolean;
}

/** What a command reads on standard input, as far as the text tells. */
export type Stdin =
  /** Whatever the tool's shell was given, a pipe or a file: its contents are not in the text. */
  | { readonly kind: "unseen" }
  /** A here-string or here-document: `text` is what it feeds, `literal` when nothing in it expands. */
  | { readonly kind: "text"; readonly text: string; readonly literal: boolean };

/** One simple command: its words (assignments first, as written) and its standard input. */
export interface SimpleCommand {
  readonly words: readonly Word[];
  readonly stdin: Stdin;
  /** A keyword form whose words are syntax, not a program (`[[ … ]]`, `((…))` with literal numbers). */
  readonly syntax?: boolean;
}

/** A file a redirection opens: `> f`, `>> f`, `&> f`, `>| f` and `<> f` write it, `< f` reads it. */
export interface FileRedirect {
  readonly target: Word;
  readonly writes: boolean;
}

/** The simple commands of a script, and whether something in it is opaque or computed at run time. */
export interface Script {
  readonly commands: readonly SimpleCommand[];
  /** Files the script's redirections open, in the order written (descriptors and `/dev/null` left out). */
  readonly files: readonly FileRedirect[];
  /** Why the script is opaque, when it is (the first reason found). */
  readonly opaque?: string;
  /** Some word is computed at run time. */
  readonly dynamic: boolean;
  /** Some command may run more than once or later than written: a loop's body or a function's. */
  readonly repeats?: boolean;
  /**
   * The script's first command runs before anything else in it, alone: a plain command at its start,
   * followed by `;`, `&&`, `||` or a newline (not `|` or `&`), running no substitution. Its redirections
   * are `files[0..leadingFiles)`; a file it opens is opened before any other command of the text runs.
   */
  readonly leadingFiles?: number;
}

/** Deeper nesting than this (substitutions, subshells, groups, scripts in scripts) is unreadable: it bounds recursion on hostile input. */
export const MAX_NESTING = 64;

/** Variables whose value a shell, the dynamic loader or a wrapper reads as code or as where commands are found. */
export const CODE_VARIABLES: ReadonlySet<string> = new Set([
  "PS0",
  "PS1",
  "PS2",
  "PS3",
  "PS4",
  "PROMPT_COMMAND",
  "BASH_ENV",
  "ENV",
  "BASH_CMDS",
  "BASH_ALIASES",
  "BASH_LOADABLES_PATH",
  "PATH",
  "SHELL",
  "SHELLOPTS",
  "BASHOPTS",
  "POSIXLY_CORRECT",
  "BASH_COMPAT",
  "EXECIGNORE",
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
  "LD_AUDIT",
  "FUNCNEST",
  "BASH_XTRACEFD",
  "histchars",
  "HISTFILE",
  "INPUTRC",
  "GLOBIGNORE",
  "TMOUT",
]);

/**
 * Variables whose value a program runs as a command line or reads as options that run code: git's
 * (`GIT_SSH_COMMAND`, `GIT_EXTERNAL_DIFF`, `GIT_CONFIG_*`, which can define an alias that runs a
 * shell), pagers and editors, askpass helpers, remote shells, interpreters' option variables, and
 * `HOME`/`XDG_CONFIG_HOME` (which move the configuration git and shells read: `HOME=. git x`);
 * `GIT_TRACE*` set to a file is treated alike, as it makes git write there.
 */
export const COMMAND_VARIABLES: ReadonlySet<string> = new Set([
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_ASKPASS",
  "GIT_EXTERNAL_DIFF",
  "GIT_PROXY_COMMAND",
  "GIT_EXEC_PATH",
  "GIT_TEMPLATE_DIR",
  "GIT_ALLOW_PROTOCOL",
  "GIT_PROTOCOL_FROM_USER",
  "GIT_CONFIG",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM",
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
  "GIT_PAGER",
  "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR",
  "GIT_MAN_VIEWER",
  "PAGER",
  "MANPAGER",
  "EDITOR",
  "VISUAL",
  "SSH_ASKPASS",
  "SUDO_ASKPASS",
  "LESSOPEN",
  "LESSCLOSE",
  "BROWSER",
  "RSYNC_RSH",
  "CVS_RSH",
  "NODE_OPTIONS",
  "PERL5OPT",
  "RUBYOPT",
  "JAVA_TOOL_OPTIONS",
  "_JAVA_OPTIONS",
  "JDK_JAVA_OPTIONS",
  // Where git, shells and most programs find the configuration that names commands they run.
  "HOME",
  "XDG_CONFIG_HOME",
  // Where git writes the work tree (checkout, restore): into `.git` it rewrites git's configuration.
  "GIT_WORK_TREE",
  // Where git finds its repository (and so its configuration and hooks), and where it writes the index and objects.
  "GIT_DIR",
  "GIT_COMMON_DIR",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  // make reads options and makefiles from these (`MAKEFLAGS=--eval=…`).
  "MAKEFLAGS",
  "MFLAGS",
  "GNUMAKEFLAGS",
  "MAKEFILES",
  // go reads its flags (`-toolexec`) and its configuration file from these, and fetches the toolchain GOTOOLCHAIN names.
  "GOFLAGS",
  "GOENV",
  "GOTOOLCHAIN",
  // Where go finds its tools, its build cache and the modules it compiles into a test (a proxy, a workspace).
  "GOROOT",
  "GOCACHE",
  "GOPROXY",
  "GOSUMDB",
  "GONOSUMDB",
  "GONOSUMCHECK",
  "GOINSECURE",
  "GOWORK",
  // Where tar writes its archive when no -f names one.
  "TAPE",
  // cargo and rustc: the compiler, a wrapper around it, and flags that pick a linker or load a plugin.
  "RUSTC",
  "RUSTC_WRAPPER",
  "RUSTC_WORKSPACE_WRAPPER",
  "RUSTDOC",
  "RUSTFLAGS",
  "RUSTDOCFLAGS",
  "RUSTUP_TOOLCHAIN",
  // pytest reads options (`-p plugin`) and plugins to load from these.
  "PYTEST_ADDOPTS",
  "PYTEST_PLUGINS",
  // Default options of programs with options that run a command (`TAR_OPTIONS=--to-command=…`, `ZIPOPT=-TT …`, `MANOPT=-P …`).
  "TAR_OPTIONS",
  "ZIPOPT",
  "MANOPT",
  "RSYNC_CONNECT_PROG",
  // Where interpreters and the C library find code they load.
  "PERL5LIB",
  "PERLLIB",
  "RUBYLIB",
  "NODE_PATH",
  "GCONV_PATH",
]);
/**
 * Families of variables a program reads as where to find its configuration, code or server, or as
 * options: the dynamic loader's `LD_*` (`LD_DEBUG_OUTPUT` writes a file), git's `GIT_*` (but the few
 * below), docker's `DOCKER_*` (`DOCKER_HOST=ssh://…` runs ssh, `DOCKER_CONFIG` names credential
 * helpers it runs), gh's `GH_*` (`GH_CONFIG_DIR` holds aliases and a pager, `GH_BROWSER` runs),
 * less's `LESS*` (`LESS='+!cmd'`, `LESSKEY`), the `XDG_*` directories, and curl's `CURL_HOME`.
 */
const PLACE_VARIABLE_FAMILIES = /^(?:LD_|GIT_|DOCKER_|GH_|LESS|XDG_|CURL_HOME$|COMPOSE_|KUBECONFIG$|YARN_|VITEST|NODE_)/;
/** Git variables that name no command, file or place: an author, a prompt, a date. */
const HARMLESS_GIT =
  /^GIT_(?:AUTHOR_(?:NAME|EMAIL|DATE)|COMMITTER_(?:NAME|EMAIL|DATE)|TERMINAL_PROMPT|OPTIONAL_LOCKS|FLUSH|MERGE_AUTOEDIT|ADVICE|PAGER_IN_USE|LITERAL_PATHSPECS|NO_REPLACE_OBJECTS|REDACT_COOKIES)$/;

/**
 * Variables no program reads as code, as a place to find configuration or code, or as a file to
 * write: setting one for a command leaves what it runs as the text says. These are Claude Code's
 * (which strips them before matching a rule) and a few of the same kind.
 */
const HARMLESS_ENVIRONMENT: ReadonlySet<string> = new Set([
  "GOEXPERIMENT",
  "GOOS",
  "GOARCH",
  "CGO_ENABLED",
  "GO111MODULE",
  "RUST_BACKTRACE",
  "RUST_LOG",
  "NODE_ENV",
  "PYTHONUNBUFFERED",
  "PYTHONDONTWRITEBYTECODE",
  "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
  "PYTEST_DEBUG",
  "LANG",
  "LANGUAGE",
  "CHARSET",
  "TERM",
  "COLORTERM",
  "NO_COLOR",
  "FORCE_COLOR",
  "TZ",
  "LS_COLORS",
  "LSCOLORS",
  "GREP_COLOR",
  "GREP_COLORS",
  "GCC_COLORS",
  "TIME_STYLE",
  "BLOCK_SIZE",
  "BLOCKSIZE",
  "COLUMNS",
  "LINES",
  "CLICOLOR",
  "CLICOLOR_FORCE",
  "CI",
  "DEBIAN_FRONTEND",
  "GIT_TERMINAL_PROMPT",
  "DEBUG",
  "VERBOSE",
  "TERM_PROGRAM",
  "SOURCE_DATE_EPOCH",
  "NODE_NO_WARNINGS",
  "NODE_DEBUG",
  "DOCKER_BUILDKIT",
  "DOCKER_DEFAULT_PLATFORM",
  "BUILDKIT_PROGRESS",
  "GH_PROMPT_DISABLED",
  "GH_NO_UPDATE_NOTIFIER",
]);

/**
 * Whether a variable given to a program's environment leaves what the program does as the text says:
 * a name on a short list (`NODE_ENV`, `CI`, `LANG`, `TZ`, …, a locale named by letters alone), git's
 * author and committer, the harmless settings of the families above, or a pager set to `cat`. Any
 * other variable may name a configuration, code or a server the program uses (`DOCKER_HOST`,
 * `CURL_HOME`, `GH_CONFIG_DIR`), so an allow rule must name it as written.
 *
 * @example
 * harmlessInEnvironment("NODE_ENV", "test") // true
 * harmlessInEnvironment("DOCKER_HOST", "ssh://h") // false
 */
export const harmlessInEnvironment = (name: string, value?: string): boolean => {
  // A locale named by a path is loaded from there.
  if (name === "LANG" || name === "LANGUAGE" || /^LC_[A-Z]+$/.test(name)) return value !== undefined && /^[A-Za-z0-9_.@:-]*$/.test(value);
  if (PAGERS.has(name)) return value !== undefined && harmlessPager.test(value);
  return HARMLESS_ENVIRONMENT.has(name) || HARMLESS_GIT.test(name) || HARMLESS_IN_FAMILIES.has(name);
};

/**
 * Families of variables a program reads as settings, some of which name what it runs: cargo's
 * `CARGO_*` (every configuration key: `CARGO_BUILD_RUSTC_WRAPPER`, `CARGO_TARGET_<triple>_RUNNER`), rustup's
 * `RUSTUP_*` (where toolchains are found or fetched from), and
 * Python's `PYTHON*` (`PYTHONPATH`, `PYTHONSTARTUP`, `PYTHONWARNINGS` import modules), but the few below.
 */
const COMMAND_VARIABLE_FAMILIES = /^(?:CARGO_|PYTHON|RUSTUP_)/;
const HARMLESS_IN_FAMILIES = new Set([
  "CARGO_TERM_COLOR",
  "CARGO_TERM_VERBOSE",
  "CARGO_TERM_QUIET",
  "CARGO_TERM_PROGRESS_WHEN",
  "CARGO_INCREMENTAL",
  "CARGO_NET_OFFLINE",
  "CARGO_BUILD_JOBS",
  "PYTHONDONTWRITEBYTECODE",
  "PYTHONUNBUFFERED",
  "PYTHONHASHSEED",
  "PYTHONIOENCODING",
  "PYTHONUTF8",
  "PYTHONFAULTHANDLER",
  "PYTHONDEVMODE",
  "PYTHONSAFEPATH",
  "PYTHONNOUSERSITE",
]);
/**
 * Variables bash itself holds with the integer attribute: assigning one evaluates the value as arithmetic,
 * and arithmetic evaluates the subscripts it names (`OPTIND='a[$(cmd)]'` runs cmd), by any assignment
 * (`read`, `printf -v`, `for`, `declare`, a prefix `X=…`).
 */
export const INTEGER_VARIABLES: ReadonlySet<string> = new Set([
  "OPTIND",
  "RANDOM",
  "SRANDOM",
  "HISTCMD",
  "SECONDS",
  "LINENO",
  "BASHPID",
  "MAILCHECK",
  "PPID",
  "UID",
  "EUID",
]);

/**
 * Pager and editor variables, and the values of them that run nothing of the text's choosing (`GIT_PAGER=cat git log`):
 * less with letter options, but for the letters of options that name a file (`-o`/`-O` write what it shows
 * there, `-k` loads key bindings; `-K` goes with them to keep the class simple).
 */
const PAGERS = new Set(["GIT_PAGER", "PAGER", "MANPAGER", "GIT_EDITOR", "EDITOR", "VISUAL", "GIT_SEQUENCE_EDITOR"]);
const harmlessPager = /^(?:|cat|true|:|less(?: -[A-JL-NP-Za-jl-np-z]+)*|more)$/;

/**
 * Whether assigning to `name` changes what runs: a variable a shell reads as code or as where
 * commands are found (`CODE_VARIABLES`), or one a program runs as a command (`COMMAND_VARIABLES`).
 * `value`, when known, clears a pager or editor set to `cat`, `less` or nothing.
 *
 * @example
 * changesWhatRuns("GIT_SSH_COMMAND") // true
 */
export const changesWhatRuns = (name: string, value?: string): boolean => {
  if (CODE_VARIABLES.has(name)) return true;
  if (INTEGER_VARIABLES.has(name)) return value === undefined || !plainNumber.test(value);
  // git's trace variables name a file git appends to (`GIT_TRACE=~/.bashrc`); 0, 1, 2 and true write to stderr or nothing.
  if (/^GIT_TRACE/.test(name)) return !(value !== undefined && /^(?:|0|1|2|true|false)$/i.test(value));
  // npm reads every `npm_config_*` variable (in any case) as a setting: `script_shell`, `node_options`.
  if (COMMAND_VARIABLE_FAMILIES.test(name) && !HARMLESS_IN_FAMILIES.has(name)) return true;
  if (PLACE_VARIABLE_FAMILIES.test(name) && !HARMLESS_GIT.test(name) && !PAGERS.has(name) && !harmlessInEnvironment(name, value))
    return true;
  if (!COMMAND_VARIABLES.has(name) && !/^GIT_CONFIG_(?:KEY|VALUE)_\d+$/.test(name) && !/^npm_config_/i.test(name)) return false;
  return !(value !== undefined && PAGERS.has(name) && harmlessPager.test(value));
};

/** Thrown inside the reader when the text is not a script this analysis can read. */
export class Unreadable extends Error {}
/** Thrown inside the reader for a script it reads but whose effect is not known from the text. */
class Opaque extends Error {}

/** `$'…'` escapes decoded; others (hex, octal, unicode, control) can spell anything, so they leave the word not literal. */
const ansiEscapes: Readonly<Record<string, string>> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** Tokens of statement syntax the reader accepts between statements. */
const separators = new Set([
  ";",
  "&",
  "&&",
  "||",
  "|",
  "|&",
  "\n",
  ";;",
  ";&",
  ";;&",
  "(",
  ")",
  "{",
  "}",
  "if",
  "then",
  "elif",
  "else",
  "fi",
  "while",
  "until",
  "do",
  "done",
  "for",
  "select",
  "in",
  "case",
  "esac",
  "function",
  "!",
  "=",
  "+=",
]);
const redirectOperators = new Set([">", ">>", "<", "&>", "&>>", ">&", "<&", ">|", "<>", ">&-", "<&-"]);
const arithmeticTokens = new Set([
  "$((",
  "))",
  "((",
  "$[",
  "]",
  "(",
  ")",
  "+",
  "-",
  "*",
  "/",
  "%",
  "**",
  "<<",
  ">>",
  "<",
  ">",
  "<=",
  ">=",
  "==",
  "!=",
  "&",
  "|",
  "^",
  "~",
  "!",
  "&&",
  "||",
  "?",
  ":",
  ",",
]);
/** `[[ … ]]` operators whose operands bash reads as arithmetic or as variable names (subscripts evaluated). */
const arithmeticTests = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
const nameTests = new Set(["-v", "-R"]);
const plainNumber = /^[0-9]+$/;
/** Devices a redirection may open without touching a file: the null device, the terminal, the process's own descriptors. */
const harmlessDevice = /^\/dev\/(?:null|zero|tty|stdout|stderr|stdin|fd\/\d+)$/;

/**
 * Whether a path is a device a command may open without touching a file: the null device, the
 * terminal, the process's own descriptors.
 *
 * @example
 * isHarmlessDevice("/dev/stdout") // true
 */
export const isHarmlessDevice = (path: string): boolean => harmlessDevice.test(path);
const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Whether text the grammar gave as one plain token holds an unescaped backtick or a `$` that bash
 * expands (`${x:-\`cmd\`}` and `[[ x =~ \`cmd\` ]]` are read so): bash runs what the grammar did not read.
 */
const hiddenSubstitution = (raw: string): boolean =>
  /^(?:[^\\`$]|\\[^]|\$(?![A-Za-z0-9_({[@*#?$!'"-]))*(?:`|\$[A-Za-z0-9_({[@*#?$!'"-])/.test(raw);

/** Whether a `${…}` holds a single-quoted or `$'…'` string at any depth. */
const holdsQuotes = (n: SyntaxNode): boolean =>
  n.children.some((c) => c.type === "raw_string" || c.type === "ansi_c_string" || c.type === "translated_string" || holdsQuotes(c));

/**
 * Read `text` into simple commands; `undefined` when it cannot be read with certainty.
 *
 * @example
 * readScript("ls && rm x")?.commands.map((c) => c.words.map((w) => w.text).join(" ")) // ["ls", "rm x"]
 */
export const readScript = (text: string, depth = 0): Script | undefined => {
  if (depth > MAX_NESTING) return undefined;
  const root = parseShell(text);
  if (root === undefined) return undefined;
  const reader = new Reader(text, depth);
  try {
    reader.statements(root.children, { kind: "unseen" }, 0);
  } catch (error) {
    if (error instanceof Unreadable) return undefined;
    if (error instanceof Opaque) return { commands: reader.commands, files: reader.files, opaque: error.message, dynamic: true };
    throw error;
  }
  const leading = leadsAlone(root) ? reader.firstFiles : undefined;
  return {
    commands: reader.commands,
    files: reader.files,
    dynamic: reader.dynamic,
    ...(leading === undefined ? {} : { leadingFiles: leading }),
    ...(reader.repeats ? { repeats: true } : {}),
    ...(reader.opaque === undefined ? {} : { opaque: reader.opaque }),
  };
};

/** Node kinds that run a command while the one holding them is still being set up. */
const runsInside = new Set(["command_substitution", "process_substitution"]);
const holdsCommands = (n: SyntaxNode): boolean => runsInside.has(n.type) || n.children.some(holdsCommands);

/**
 * Whether the script's first command runs alone before the rest: the leftmost statement is a plain
 * command (with redirections), every operator after it on the way up is `;`, `&&`, `||` or a newline,
 * and nothing in it runs a command of its own (a substitution runs before its redirections are opened).
 */
const leadsAlone = (root: SyntaxNode): boolean => {
  const statements = root.children;
  let node = statements[0];
  if (node === undefined) return false;
  const after = statements[1];
  if (after !== undefined && after.type !== ";" && after.type !== "\n" && after.named !== true) return false;
  while (node.type === "list") {
    const op = node.children[1];
    if (op === undefined || (op.type !== "&&" && op.type !== "||" && op.type !== ";")) return false;
    node = node.children[0]!;
  }
  if (node.type === "redirected_statement") {
    const body = node.children.find((c) => c.field === "body");
    if (body !== undefined && body.type !== "command") return false;
  } else if (node.type !== "command") return false;
  // A here-document's operator line may go on (`cat <<EOF | ln …`): the grammar hangs the rest on it.
  const goesOn = (n: SyntaxNode): boolean =>
    n.children.some(
      (c) =>
        (n.type === "heredoc_redirect" &&
          !["<<", "<<-", "heredoc_start", "heredoc_body", "heredoc_end", "file_descriptor"].includes(c.type)) ||
        goesOn(c),
    );
  return !holdsCommands(node) && !goesOn(node);
};

/** A word being built from its parts. */
interface Building {
  text: string;
  literal: boolean;
  quoted: boolean;
  /** Unquoted characters only: where globs, braces and a tilde would expand. */
  bare: string;
  splits?: boolean;
}

class Reader {
  readonly commands: SimpleCommand[] = [];
  readonly files: FileRedirect[] = [];
  /** How many files the first simple command read opened. */
  firstFiles: number | undefined;
  dynamic = false;
  repeats = false;
  opaque: string | undefined;

  constructor(
    private readonly src: string,
    private readonly depth: number,
  ) {}

  private slice(n: SyntaxNode): string {
    return this.src.slice(n.start, n.end);
  }

  private fail(why: string): never {
    throw new Opaque(why);
  }

  private enter(level: number): number {
    if (this.depth + level + 1 > MAX_NESTING) throw new Unreadable();
    return level + 1;
  }

  /** A list of statements and the tokens between them. */
  statements(nodes: readonly SyntaxNode[], stdin: Stdin, level: number): void {
    for (const n of nodes) this.statement(n, stdin, level);
  }

  statement(n: SyntaxNode, stdin: Stdin, level: number): void {
    if (!n.named) {
      if (!separators.has(n.type)) throw new Unreadable();
      return;
    }
    const inner = this.enter(level);
    if (n.type === "while_statement" || n.type === "for_statement" || n.type === "function_definition") this.repeats = true;
    switch (n.type) {
      case "comment":
        return;
      case "program":
      case "do_group":
      case "else_clause":
      case "elif_clause":
      case "if_statement":
      case "while_statement":
      case "subshell":
      case "negated_command":
        return this.statements(n.children, stdin, inner);
      case "list":
        return this.list(n, stdin, level);
      case "pipeline":
        return n.children.forEach((c, i) => this.statement(c, i === 0 ? stdin : { kind: "unseen" }, inner));
      case "compound_statement":
        if (n.children[0]?.type === "((") return this.arithmeticCommand(n);
        return this.statements(n.children, stdin, inner);
      case "redirected_statement":
        return this.redirected(n, stdin, inner);
      case "command":
        return this.command(n, [], stdin, inner);
      case "variable_assignment":
        return this.record([this.assignment(n, inner)], stdin);
      case "variable_assignments":
        return this.record(
          n.children.map((c) => this.assignment(c, inner)),
          stdin,
        );
      case "declaration_command":
      case "unset_command":
        return this.declaration(n, stdin, inner);
      case "test_command":
        return this.test(n, stdin, inner);
      case "for_statement":
        return this.forLoop(n, stdin, inner);
      case "case_statement":
        return this.caseStatement(n, stdin, inner);
      case "function_definition":
        return this.functionDefinition(n, stdin, inner);
      case "c_style_for_statement":
        return this.fail("an arithmetic for loop evaluates its expressions");
      default:
        throw new Unreadable();
    }
  }

  /** `a && b || c`: the grammar nests lists to the left, so they are read in a loop, not by recursion. */
  private list(n: SyntaxNode, stdin: Stdin, level: number): void {
    const rights: SyntaxNode[][] = [];
    let node = n;
    while (node.type === "list" && node.children[0] !== undefined) {
      rights.push(node.children.slice(1));
      node = node.children[0];
    }
    this.statement(node, stdin, level);
    for (let i = rights.length - 1; i >= 0; i--) this.statements(rights[i]!, stdin, level);
  }

  private record(words: Word[], stdin: Stdin, syntax = false): void {
    for (const w of words) if (!w.literal) this.dynamic = true;
    this.commands.push(syntax ? { words, stdin, syntax } : { words, stdin });
  }

  /** A statement with redirections: a here-string or here-document on descriptor 0 is the body's standard input. */
  private redirected(n: SyntaxNode, stdin: Stdin, level: number): void {
    let body: SyntaxNode | undefined;
    const redirects: SyntaxNode[] = [];
    for (const c of n.children) {
      if (c.field === "body") body = c;
      else if (c.field === "redirect" || c.type === "herestring_redirect" || c.type === "heredoc_redirect" || c.type === "file_redirect")
        redirects.push(c);
      else throw new Unreadable();
    }
    // A simple command reads its own redirections first, then these, left to right as bash applies them.
    if (body?.type === "command") return this.command(body, redirects, stdin, level);
    const read = this.redirects(redirects, stdin, level);
    if (read.extra.length > 0 || (body === undefined && read.after.length > 0)) throw new Unreadable();
    if (body !== undefined) this.statement(body, read.stdin, level);
    for (const run of read.after) run();
  }

  /**
   * Read redirections: their words run substitutions; the last one of descriptor 0 sets standard input.
   * A here-document's operator line may continue the command (`cat <<EOF file | grep x && ls`):
   * `extra` are its further words, `after` what runs after it.
   */
  private redirects(nodes: readonly SyntaxNode[], stdin: Stdin, level: number): { stdin: Stdin; extra: Word[]; after: (() => void)[] } {
    let current = stdin;
    const extra: Word[] = [];
    const after: (() => void)[] = [];
    for (const r of nodes) {
      const fd = r.children.find((c) => c.field === "descriptor");
      const descriptor = fd === undefined ? undefined : this.slice(fd);
      if (fd !== undefined && (fd.type !== "file_descriptor" || !plainNumber.test(descriptor!))) throw new Unreadable();
      if (r.type === "file_redirect") {
        const op = r.children.find((c) => !c.named);
        if (op === undefined || !redirectOperators.has(op.type)) throw new Unreadable();
        const targets = this.words(
          r.children.filter((c) => c.field === "destination"),
          level,
        );
        for (const word of targets) if (!word.literal) this.dynamic = true;
        const target = targets[0];
        if (target !== undefined) {
          const dup = op.type === ">&" || op.type === "<&";
          // `>&word` and `<&word` duplicate a descriptor when the word is a number or `-`; `>& file` writes the file.
          if (!(dup && target.literal && /^(?:\d+|-)$/.test(target.text)) && !(target.literal && harmlessDevice.test(target.text)))
            this.files.push({ target, writes: op.type !== "<" && op.type !== "<&" });
        }
        // The grammar hangs the words after a redirection's target on the redirection
        // (`sudo 2>/dev/null rm -rf /`); bash reads them as the command's arguments.
        extra.push(...targets.slice(1));
        if ((descriptor ?? (op.type.startsWith("<") ? "0" : "1")) === "0" && op.type.startsWith("<")) current = { kind: "unseen" };
      } else if (r.type === "herestring_redirect") {
        const parts = r.children.filter((c) => c.named && c.type !== "file_descriptor");
        const word = this.word(parts, level);
        if ((descriptor ?? "0") === "0") current = { kind: "text", text: `${word.text}\n`, literal: word.literal };
        if (!word.literal) this.dynamic = true;
      } else if (r.type === "heredoc_redirect") {
        const doc = this.hereDocument(r, level);
        if ((descriptor ?? "0") === "0") current = doc;
        for (const c of r.children) {
          if (c.field === "argument") extra.push(this.word([c], level));
          else if (c.field === "redirect") {
            const more = this.redirects([c], current, level);
            current = more.stdin;
          } else if (c.type === "pipeline") {
            const piped = c.children;
            after.push(() => this.statements(piped, { kind: "unseen" }, level));
          } else if (c.field === "right") {
            const right = c;
            after.push(() => this.statement(right, stdin, level));
          } else if (c.field === "operator") {
            if (c.type !== "&&" && c.type !== "||" && c.type !== ";" && c.type !== "&") throw new Unreadable();
          }
        }
      } else throw new Unreadable();
    }
    return { stdin: current, extra, after };
  }

  /**
   * A here-document, checked against bash's own reading: the delimiter is the word after quote removal,
   * the body ends at the first line equal to it (leading tabs stripped for `<<-`), and an unquoted
   * body joins lines ending in a backslash before comparing, which this analysis does not follow (opaque).
   */
  private hereDocument(r: SyntaxNode, level: number): Stdin {
    const op = r.children.find((c) => c.type === "<<" || c.type === "<<-");
    const start = r.children.find((c) => c.type === "heredoc_start");
    const body = r.children.find((c) => c.type === "heredoc_body");
    const end = r.children.find((c) => c.type === "heredoc_end");
    if (op === undefined || start === undefined || end === undefined) throw new Unreadable();
    const tabs = op.type === "<<-";
    const raw = this.slice(start);
    if (/[$`\n]/.test(raw)) throw new Unreadable();
    const quoted = /["'\\]/.test(raw);
    const delimiter = raw.replace(
      /'([^']*)'|"((?:\\.|[^"\\])*)"|\\(.)/g,
      (_m, single?: string, double?: string, escaped?: string) => single ?? escaped ?? double!.replace(/\\([$`"\\])/g, "$1"),
    );
    const from = body?.start ?? this.src.lastIndexOf("\n", end.start - 1) + 1;
    const content = this.src.slice(from, end.start);
    const lines = content.split("\n");
    const lastLine = lines.pop()!;
    const strip = (line: string): string => (tabs ? line.replace(/^\t+/, "") : line);
    if (strip(lastLine) !== "" || this.slice(end) !== delimiter) throw new Unreadable();
    const next = this.src.charAt(end.end);
    if (next !== "" && next !== "\n") throw new Unreadable();
    if (lines.some((line) => strip(line) === delimiter)) throw new Unreadable();
    // The body starts on the line after the operator's, as bash reads it.
    if (this.src.indexOf("\n", start.end) + 1 !== from) throw new Unreadable();
    const textLines = lines.map(strip);
    const bodyText = textLines.length === 0 ? "" : `${textLines.join("\n")}\n`;
    if (quoted) return { kind: "text", text: bodyText, literal: true };
    if (/\\\n/.test(content)) this.fail("an unquoted here-document joins a line ending in a backslash with the next");
    let literal = true;
    const expansions: SyntaxNode[] = [];
    for (const c of body?.children ?? []) {
      if (c.type === "heredoc_content") continue;
      literal = false;
      expansions.push(c);
      this.expansion(c, level, true);
    }
    // Every unescaped `$(`, `${`, `$[` and backtick must be one the grammar read: it reads no backticks here.
    const substitution = /\\[^]|(\$[({[]|`)/g;
    for (let m = substitution.exec(content); m !== null; m = substitution.exec(content)) {
      const at = from + m.index;
      if (m[1] !== undefined && !expansions.some((e) => e.start <= at && at < e.end))
        this.fail("a substitution in a here-document the grammar did not read");
    }
    if (!literal) this.dynamic = true;
    // Backslashes before $, ` and \ are removed in an unquoted body.
    return {
      kind: "text",
      text: bodyText.replace(/\\([$`\\])/g, "$1"),
      literal: literal && !/[$`]/.test(bodyText.replace(/\\[$`\\]/g, "")),
    };
  }

  /** A simple command: assignments, then its name and arguments (words glued with no blank between are one word). */
  private command(n: SyntaxNode, outer: readonly SyntaxNode[], stdin: Stdin, level: number): void {
    const assignments: Word[] = [];
    const parts: SyntaxNode[] = [];
    const redirects: SyntaxNode[] = [];
    for (const c of n.children) {
      if (c.type === "variable_assignment") assignments.push(this.assignment(c, level));
      else if (c.field === "name") {
        if (c.type !== "command_name") throw new Unreadable();
        parts.push(...c.children);
      } else if (c.field === "argument") parts.push(c);
      else if (c.field === "redirect") redirects.push(c);
      else throw new Unreadable();
    }
    const words = [...assignments, ...this.words(parts, level)];
    const read = this.redirects([...redirects, ...outer], stdin, level);
    this.record([...words, ...read.extra], read.stdin);
    this.firstFiles ??= this.files.length;
    for (const run of read.after) run();
  }

  /** Words from parts: parts that touch (no blank between them) are one word, as bash reads them. */
  words(parts: readonly SyntaxNode[], level: number): Word[] {
    const words: Word[] = [];
    let group: SyntaxNode[] = [];
    for (const p of parts) {
      const previous = group[group.length - 1];
      if (previous !== undefined && !this.touching(previous, p)) {
        words.push(this.word(group, level));
        group = [];
      }
      group.push(p);
    }
    if (group.length > 0) words.push(this.word(group, level));
    return words;
  }

  private touching(a: SyntaxNode, b: SyntaxNode): boolean {
    return a.end === b.start;
  }

  /** One word from touching parts. */
  word(parts: readonly SyntaxNode[], level: number): Word {
    const w: Building = { text: "", literal: true, quoted: false, bare: "" };
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      // `$"…"`: the grammar gives the `$` and the string apart; bash translates the string at run time.
      if (p.type === "$" && parts[i + 1]?.type === "string" && p.end === parts[i + 1]!.start) {
        this.part(parts[i + 1]!, w, level);
        w.literal = false;
        w.text = this.src.slice(p.start, parts[i + 1]!.end);
        i++;
        continue;
      }
      this.part(p, w, level);
    }
    // Unquoted globs, braces and a leading tilde expand at run time.
    if (/[*?]|\[.*\]|\{[^{}]*(?:,|\.\.)[^{}]*\}|^~|[=:]~/.test(w.bare)) w.literal = false;
    if (!w.literal) this.dynamic = true;
    return w.splits === true
      ? { text: w.text, literal: w.literal, quoted: w.quoted, splits: true }
      : { text: w.text, literal: w.literal, quoted: w.quoted };
  }

  private part(p: SyntaxNode, w: Building, level: number): void {
    const raw = this.slice(p);
    switch (p.type) {
      case "word":
      case "variable_name":
      case "regex":
      case "extglob_pattern": {
        if (hiddenSubstitution(raw)) this.fail("a substitution or expansion the grammar read as plain text");
        // Unquoted text: a backslash quotes the next character; backslash-newline is removed.
        let text = "";
        let bare = "";
        for (let i = 0; i < raw.length; i++) {
          const c = raw.charAt(i);
          if (c === "\\" && i + 1 < raw.length) {
            const next = raw.charAt(++i);
            if (next !== "\n") {
              text += next;
              bare += "\u0001";
              w.quoted = true;
            }
          } else {
            text += c;
            bare += c;
          }
        }
        if (p.type === "extglob_pattern") w.literal = false;
        w.text += text;
        w.bare += bare;
        return;
      }
      case "$":
        w.text += "$";
        w.bare += "$";
        return;
      case "number":
        if (p.children.length > 0) {
          for (const c of p.children) this.expansion(c, level);
          w.literal = false;
        }
        w.text += raw;
        w.bare += raw;
        return;
      case "raw_string":
        w.text += raw.slice(1, -1);
        w.quoted = true;
        return;
      case "ansi_c_string":
        w.text += this.ansi(raw.slice(2, -1), w);
        w.quoted = true;
        return;
      case "string":
        w.quoted = true;
        for (const c of p.children) {
          if (c.type === '"') continue;
          if (c.type === "$") {
            w.text += "$";
            continue;
          }
          if (c.type === "string_content" && hiddenSubstitution(this.slice(c)))
            this.fail("a substitution or expansion the grammar read as plain text");
          if (c.type === "string_content") w.text += this.slice(c).replace(/\\([$`"\\\n])/g, (_m, x: string) => (x === "\n" ? "" : x));
          else {
            this.expansion(c, level, true);
            w.text += this.slice(c);
            w.literal = false;
          }
        }
        return;
      case "translated_string":
        for (const c of p.children) if (c.type === "string") this.part(c, w, level);
        w.literal = false;
        w.text += "";
        return;
      case "concatenation":
        for (const c of p.children) this.part(c, w, level);
        return;
      case "simple_expansion":
      case "expansion":
      case "command_substitution":
      case "process_substitution":
      case "arithmetic_expansion":
        this.expansion(p, level);
        w.text += raw;
        w.bare += "\u0001";
        w.literal = false;
        w.splits = true;
        return;
      case "brace_expression":
        w.text += raw;
        w.bare += raw;
        w.literal = false;
        return;
      case "array":
        for (const c of p.children) if (c.named) this.word([c], level);
        w.text += raw;
        w.literal = false;
        return;
      default:
        throw new Unreadable();
    }
  }

  /** Decode the body of `$'…'`. */
  private ansi(body: string, w: Building): string {
    return body.replace(/\\(.)/gs, (_m, c: string) => {
      const decoded = ansiEscapes[c];
      if (decoded === undefined) w.literal = false;
      return decoded ?? `\\${c}`;
    });
  }

  /** An expansion or substitution: commands inside run; some forms evaluate code the text does not show. */
  expansion(n: SyntaxNode, level: number, inDoubleQuotes = false): void {
    const inner = this.enter(level);
    this.dynamic = true;
    switch (n.type) {
      case "simple_expansion":
        return;
      case "command_substitution": {
        if (n.children[0]?.type === "`") return this.backticks(n, inner, inDoubleQuotes);
        const body = n.children.filter((c) => c.field !== "redirect" && c.type !== "$(" && c.type !== ")");
        for (const c of n.children) if (c.field === "redirect") this.redirects([c], { kind: "unseen" }, inner);
        return this.statements(body, { kind: "unseen" }, inner);
      }
      case "process_substitution":
        return this.statements(
          n.children.filter((c) => c.type !== "<(" && c.type !== ">(" && c.type !== ")"),
          { kind: "unseen" },
          inner,
        );
      case "arithmetic_expansion":
        return this.arithmetic(n);
      case "expansion":
        // Inside double quotes (and a here-document), quotes in `${x:-'…'}` are plain characters: bash expands
        // what they hold (`"${x:-'$(cmd)'}"` runs cmd), where the grammar reads a quoted string.
        if (inDoubleQuotes && holdsQuotes(n)) this.fail("quotes inside a double-quoted ${…} are plain characters there");
        return this.parameter(n, inner);
      default:
        throw new Unreadable();
    }
  }

  /**
   * Backticks: bash removes the backslashes before `` ` ``, `$` and `\` (and `"` inside double quotes)
   * and reads the result as a script of its own, which the grammar does not do; so does this reader.
   */
  private backticks(n: SyntaxNode, level: number, inDoubleQuotes: boolean): void {
    const raw = this.slice(n).slice(1, -1);
    const body = raw.replace(inDoubleQuotes ? /\\([`$\\"])/g : /\\([`$\\])/g, "$1");
    const nested = readScript(body, this.depth + level + 1);
    if (nested === undefined) throw new Unreadable();
    for (const c of nested.commands) this.commands.push({ ...c, stdin: { kind: "unseen" } });
    this.files.push(...nested.files);
    if (nested.repeats === true) this.repeats = true;
    if (nested.opaque !== undefined) this.fail(nested.opaque);
  }

  /** `${…}`: its words may hold substitutions; `@P`, indirection, and subscripts or offsets that are not literal numbers evaluate code. */
  private parameter(n: SyntaxNode, level: number): void {
    const children = n.children;
    let sawName = false;
    let name = "";
    for (let i = 0; i < children.length; i++) {
      const c = children[i]!;
      if (c.type === "${" || c.type === "}") continue;
      if (c.field === "operator") {
        const op = c.type;
        if (op === "@") {
          const transform = children[i + 1];
          if (transform === undefined || !/^[QEAKaku UL]$/.test(this.slice(transform)) || this.slice(transform) === "P")
            this.fail("a ${x@P} expansion runs the substitutions in a variable");
          i++;
          continue;
        }
        if (op === "!" && !sawName) {
          const rest = children
            .slice(i + 1)
            .map((x) => this.slice(x))
            .join("");
          if (!/^[A-Za-z_][A-Za-z0-9_]*(?:[*@]|\[[*@]\])\}$/.test(rest))
            this.fail("an indirect expansion evaluates the name a variable holds");
          return;
        }
        if (op === ":" || op === "=" || op === ":=") {
          // `${PS4:=…}` assigns: to a variable a shell reads as code, it changes what runs.
          if (op !== ":" && changesWhatRuns(name)) this.fail(`\${${name}${op}…} assigns to ${name}, which changes what runs`);
          if (op === ":") {
            const offsets = children.slice(i + 1, -1).filter((x) => x.type !== ":");
            if (!offsets.every((x) => x.type === "number" && x.children.length === 0 && plainNumber.test(this.slice(x))))
              this.fail("a substring expansion evaluates its offsets as arithmetic");
          }
          continue;
        }
        continue;
      }
      if (c.type === "variable_name" || c.type === "special_variable_name") {
        sawName = true;
        name = this.slice(c);
        continue;
      }
      if (c.type === "subscript") {
        sawName = true;
        this.subscript(c);
        continue;
      }
      // An operand: a word, pattern or replacement, which may hold substitutions.
      this.word([c], level);
    }
  }

  /** An array subscript: bash evaluates it as arithmetic unless it is a literal number, `@` or `*`. */
  private subscript(n: SyntaxNode): void {
    const index = n.children.find((c) => c.field === "index");
    const text = index === undefined ? "" : this.slice(index);
    if (!plainNumber.test(text) && text !== "@" && text !== "*") this.fail("an array subscript is evaluated as arithmetic");
  }

  /** `$((…))`, `$[…]`: literal numbers only; a name or substitution may evaluate code held in a variable. */
  private arithmetic(n: SyntaxNode): void {
    const check = (x: SyntaxNode): void => {
      if (x.type === "number") {
        if (x.children.length > 0 || !plainNumber.test(this.slice(x)))
          this.fail("arithmetic on anything but literal numbers evaluates code held in variables");
        return;
      }
      if (!x.named) {
        if (!arithmeticTokens.has(x.type)) this.fail("arithmetic operator");
        return;
      }
      if (!["binary_expression", "unary_expression", "parenthesized_expression", "ternary_expression"].includes(x.type)) {
        this.fail("arithmetic on anything but literal numbers evaluates code held in variables");
      }
      x.children.forEach(check);
    };
    n.children.forEach(check);
  }

  /** `((…))` with literal numbers is harmless; recorded as syntax so it needs no allow rule. */
  private arithmeticCommand(n: SyntaxNode): void {
    this.arithmetic(n);
  }

  /** `NAME=value`, `NAME+=value`, `NAME[i]=value`, `NAME=(…)`. */
  private assignment(n: SyntaxNode, level: number): Word {
    if (n.type !== "variable_assignment") throw new Unreadable();
    const nameNode = n.children.find((c) => c.field === "name");
    const value = n.children.filter((c) => c.field === "value");
    if (nameNode === undefined) throw new Unreadable();
    let name: string;
    if (nameNode.type === "subscript") {
      this.subscript(nameNode);
      name = this.slice(nameNode.children.find((c) => c.field === "name")!);
    } else if (nameNode.type === "variable_name") name = this.slice(nameNode);
    else throw new Unreadable();
    if (CODE_VARIABLES.has(name)) this.fail(`an assignment to ${name} changes what runs`);
    if (value.some((v) => v.type === "array")) for (const v of value) this.arrayElements(v, level);
    const op = n.children.find((c) => c.type === "=" || c.type === "+=");
    if (op === undefined) throw new Unreadable();
    const word = value.length === 0 ? { text: "", literal: true, quoted: false } : this.word(value, level);
    if (changesWhatRuns(name, word.literal && op.type === "=" ? word.text : undefined))
      this.fail(`an assignment to ${name} changes what runs`);
    const list = value.some((v) => v.type === "array");
    return {
      text: `${this.src.slice(n.start, op.end)}${word.text}`,
      literal: word.literal,
      quoted: false,
      assigns: name,
      ...(list ? { list } : {}),
    };
  }

  /** Elements of `(a b [k]=v)`: a `[k]=` key is evaluated as arithmetic in an indexed array. */
  private arrayElements(n: SyntaxNode, level: number): void {
    for (const c of n.children) {
      if (!c.named) continue;
      if (/^\[/.test(this.slice(c))) this.fail("an array element's subscript is evaluated as arithmetic");
      this.word([c], level);
    }
  }

  /**
   * `declare`/`typeset`/`local`/`export`/`readonly` and `unset`: names given as plain identifiers and
   * assignments are read; `-i` (arithmetic on every assignment), `-n` (a name evaluated on use) and any
   * other argument (a quoted assignment, a subscript) are opaque.
   */
  private declaration(n: SyntaxNode, stdin: Stdin, level: number): void {
    const keyword = n.children[0];
    if (keyword === undefined || keyword.named) throw new Unreadable();
    const words: Word[] = [{ text: keyword.type, literal: true, quoted: false }];
    let group: SyntaxNode[] = [];
    const flush = (): void => {
      words.push(...this.words(group, level));
      group = [];
    };
    for (const c of n.children.slice(1)) {
      if (c.type === "variable_assignment") {
        flush();
        words.push(this.assignment(c, level));
      } else group.push(c);
    }
    flush();
    const why = declarationProblem(keyword.type, words.slice(1));
    if (why !== undefined) this.fail(why);
    this.record(words, stdin);
  }

  /**
   * `[[ … ]]` and `[ … ]`: substitutions in its words run; comparisons read as arithmetic and `-v`
   * on anything but literal numbers and plain names evaluate code, so they are opaque.
   */
  private test(n: SyntaxNode, stdin: Stdin, level: number): void {
    const visit = (x: SyntaxNode): void => {
      switch (x.type) {
        case "binary_expression":
        case "unary_expression": {
          const op = x.children.find((c) => c.field === "operator");
          const opText = op === undefined ? "" : this.slice(op);
          const operands = x.children.filter((c) => c.field !== "operator" && c.named);
          if (arithmeticTests.has(opText) && !operands.every((o) => plainNumber.test(this.slice(o))))
            this.fail(`[[ ${opText} ]] evaluates its operands as arithmetic`);
          if (nameTests.has(opText) && !operands.every((o) => identifier.test(this.slice(o))))
            this.fail(`${opText} evaluates the subscript of the name it tests`);
          for (const o of x.children) if (o.field !== "operator") visit(o);
          return;
        }
        case "parenthesized_expression":
          return x.children.forEach(visit);
        case "test_operator":
          return;
        default:
          if (!x.named) return;
          this.word([x], level);
      }
    };
    n.children.forEach(visit);
    const text = this.slice(n).replace(/\s+/g, " ");
    this.record([{ text, literal: !this.hasExpansion(n), quoted: false }], stdin, true);
  }

  private hasExpansion(n: SyntaxNode): boolean {
    if (["simple_expansion", "expansion", "command_substitution", "process_substitution", "arithmetic_expansion"].includes(n.type))
      return true;
    return n.children.some((c) => this.hasExpansion(c));
  }

  /** `for x in words; do …; done` and `select`: the words expand, the body runs. */
  private forLoop(n: SyntaxNode, stdin: Stdin, level: number): void {
    for (const c of n.children) {
      if (c.field === "variable") {
        const name = this.slice(c);
        if (changesWhatRuns(name)) this.fail("a loop over a variable that changes what runs");
        // Read as the assignment it is (exported to the programs run after `set -a`).
        this.commands.push({ words: [{ text: `${name}=`, literal: true, quoted: false, assigns: name }], stdin });
      } else if (c.field === "value") this.word([c], level);
      else if (c.field === "body") this.statement(c, stdin, level);
      else if (c.named && c.type !== "comment") throw new Unreadable();
    }
  }

  private caseStatement(n: SyntaxNode, stdin: Stdin, level: number): void {
    for (const c of n.children) {
      if (c.field === "value") this.word([c], level);
      else if (c.type === "case_item") {
        for (const i of c.children) {
          if (i.field === "value") this.word([i], level);
          else if (i.field === "termination" || i.field === "fallthrough") continue;
          else this.statement(i, stdin, level);
        }
      } else this.statement(c, stdin, level);
    }
  }

  /** A function's body is analysed as if it ran: defining a function is how a name could be made to run anything. */
  private functionDefinition(n: SyntaxNode, stdin: Stdin, level: number): void {
    const redirects: SyntaxNode[] = [];
    let body: SyntaxNode | undefined;
    for (const c of n.children) {
      if (c.field === "body") body = c;
      else if (c.field === "redirect") redirects.push(c);
      else if (c.field === "name") this.word([c], level);
      else if (c.named) throw new Unreadable();
    }
    const read = this.redirects(redirects, stdin, level);
    if (body === undefined) throw new Unreadable();
    this.statement(body, read.stdin, level);
  }
}

/**
 * Why the arguments of `declare`/`typeset`/`local`/`export`/`readonly`/`unset` make a command opaque,
 * or `undefined`: `-i` makes every later assignment arithmetic, `-n` makes a name evaluated on use, and a
 * name that is not a plain identifier (`'a[$(…)]'`) has its subscript evaluated.
 *
 * @example
 * declarationProblem("declare", [{ text: "-i", literal: true, quoted: false }]) // "declare -i evaluates values or names later"
 */
export const declarationProblem = (keyword: string, args: readonly Word[]): string | undefined => {
  // A string value that starts with `(` (or may: computed) is read as a list, its words expanded:
  // `declare -a x='($(cmd))'` runs cmd. So it does when the variable is already an array, which the
  // text may not show, for every keyword but `export` without -a/-A.
  const listFlag = args.some((a) => a.assigns === undefined && /^[-+][^-]*[aA]/.test(a.text));
  const readsLists = keyword !== "export" || listFlag;
  for (const a of args) {
    if (a.assigns !== undefined && readsLists && a.list !== true) {
      const value = a.text.slice(a.text.indexOf("=") + 1);
      if (!a.literal || value.startsWith("(")) return `${keyword} reads a string value as a list whose words expand`;
    }
    if (a.assigns !== undefined) {
      if (changesWhatRuns(a.assigns, a.literal ? a.text.slice(a.text.indexOf("=") + 1) : undefined))
        return `${keyword} ${a.assigns} changes what runs`;
      continue;
    }
    if (!a.literal) return `${keyword} with an argument computed at run time`;
    if (/^[-+]/.test(a.text)) {
      if (keyword === "unset") {
        if (!/^-[fvn]+$/.test(a.text)) return "unset option";
      } else if (/[in]/.test(a.text.slice(1))) return `${keyword} ${a.text} evaluates values or names later`;
    } else if (!identifier.test(a.text)) {
      return `${keyword} of a name that is not a plain identifier evaluates it`;
    } else if (changesWhatRuns(a.text) && !INTEGER_VARIABLES.has(a.text) && keyword !== "unset")
      return `${keyword} ${a.text} changes what runs`;
  }
  return undefined;
};
