/**
 * Commands that run another command given as their words (`sudo rm x`, `timeout 5 rm x`), as data:
 * each wrapper's options as its own getopt reads them (short options with `:` for a required value and
 * `::` for an optional one glued to the letter; long options by name, abbreviations included), how many
 * operands stand before the command, and which options make it run a shell script or run nothing.
 * The tables follow the tools' own option tables (coreutils, util-linux, sudo, findutils, procps,
 * strace). An option a table does not list makes the call unreadable: the wrapper's getopt would read
 * it in a way the table does not say, so the command it runs is not known.
 */

/** How a long option takes a value: none, a required one (`--opt=v` or `--opt v`), or an optional one (`--opt=v` only). */
export type LongValue = "none" | "required" | "optional";

/** How a wrapper command reads its words. */
export interface WrapperSyntax {
  /** getopt's short option string: a letter, `:` after it for a required value, `::` for an optional value. */
  readonly short: string;
  /** Long options without their `--`, and how each takes a value. */
  readonly long: Readonly<Record<string, LongValue>>;
  /** Operands before the command (`timeout DURATION`, `chroot NEWROOT`, `flock FILE`, `su USER`). */
  readonly operands: number;
  /** Its operands may be optional and its options may follow them, as GNU getopt permutes them (`su root -c …`). */
  readonly permutes?: boolean;
  /** Options whose value is a shell script it runs (`su -c`, `flock -c`, `script -c`); also read right after its operands. */
  readonly script?: readonly string[];
  /** It starts a shell when given one of these options (`sudo -s`), or always when empty (`su`); without a command that shell reads standard input. */
  readonly shell?: readonly string[];
  /** Given one of these options it runs the command after its options itself, with no operand (`runuser -u root ls`). */
  readonly direct?: readonly string[];
  /** It runs its words as a command only given one of these options (`jobs -x`); otherwise they are operands. */
  readonly only?: readonly string[];
  /** Given one of these options it runs nothing (`command -v`, `sudo -l`, `taskset -p`). */
  readonly lookup?: readonly string[];
  /** It also takes `-N` as a number option (`nice -10 make`). */
  readonly numeric?: boolean;
  /** It hands its words to a shell as one script (`watch`, `parallel`, `ssh`): what runs is only known by that shell. */
  readonly viaShell?: boolean;
  /** With one of these options it runs its words directly after all (`watch -x`). */
  readonly exec?: readonly string[];
  /** It runs its command with extra words read at run time (`xargs`). */
  readonly appends?: boolean;
  /** The option a lone `-` stands for (`env -` is `env -i`, `su -` is `su -l`). */
  readonly dash?: string;
  /** It takes `NAME=value` words before the command as variables to set (`env`, `sudo`). */
  readonly assigns?: boolean;
  /** Given one of these options (always when empty) it runs its command in another directory (`env -C`, `sudo -D`). */
  readonly chdir?: readonly string[];
  /** Options whose value is a file it writes (`strace -o`, `time -o`, `script -O`). */
  readonly writes?: readonly string[];
  /** Its operand is a file it creates (`flock FILE cmd`). */
  readonly createsOperand?: boolean;
  /** The first word after its options is a file it writes, this one when there is none (`script [file]`, `typescript`). */
  readonly writesFirstWord?: string;
  /** Options whose value is a variable it sets for the command, `NAME=value` (`strace -E`, `systemd-run -E`). */
  readonly setsEnv?: readonly string[];
  /** Options whose value is a program it runs, or settings that can name one (`dbus-run-session --dbus-daemon`, `systemd-run -p`). */
  readonly runs?: readonly string[];
}

const long = (spec: string): Record<string, LongValue> => {
  const table: Record<string, LongValue> = {};
  for (const item of spec.split(/\s+/).filter((s) => s !== "")) {
    if (item.endsWith("==")) table[item.slice(0, -2)] = "optional";
    else if (item.endsWith("=")) table[item.slice(0, -1)] = "required";
    else table[item] = "none";
  }
  return table;
};

/**
 * A read-only map whose entries are made when it is first read: the wrapper table is parsed only by
 * a process that analyses a shell command, not by every process that imports the engine.
 */
const builtOnFirstUse = <K, V>(build: () => ReadonlyMap<K, V>): ReadonlyMap<K, V> => {
  let map: ReadonlyMap<K, V> | undefined;
  const built = (): ReadonlyMap<K, V> => (map ??= build());
  return {
    get: (key) => built().get(key),
    has: (key) => built().has(key),
    get size() {
      return built().size;
    },
    forEach: (each, thisArg) => built().forEach(each, thisArg),
    entries: () => built().entries(),
    keys: () => built().keys(),
    values: () => built().values(),
    [Symbol.iterator]: () => built()[Symbol.iterator](),
  };
};

/**
 * Wrapper commands and how they read their words. The command they run is analysed too, so a
 * condition on `rm *` sees `rm` in `sudo -u root nice -n 5 rm -rf /`.
 *
 * @example
 * SHELL_WRAPPERS.get("timeout")?.operands // 1
 */
export const SHELL_WRAPPERS: ReadonlyMap<string, WrapperSyntax> = builtOnFirstUse(
  () =>
    new Map<string, WrapperSyntax>([
      [
        "sudo",
        {
          short: "+Aa:BbC:c:D:Eeg:Hh::iKklNnp:PR:r:SsT:t:U:u:Vv",
          long: long(
            "askpass background bell close-from= chdir= preserve-env== edit group= set-home help host= login remove-timestamp reset-timestamp list non-interactive preserve-groups prompt= chroot= role= stdin shell type= command-timeout= other-user= user= version validate",
          ),
          operands: 0,
          shell: ["-s", "-i", "--shell", "--login"],
          assigns: true,
          chdir: ["-D", "--chdir", "-i", "--login"],
          lookup: [
            "-l",
            "--list",
            "-e",
            "--edit",
            "-v",
            "--validate",
            // `-k` with a command runs it (ignoring cached credentials); alone it runs nothing.
            "-K",
            "--remove-timestamp",
            "-V",
            "--version",
            "-h",
            "--help",
          ],
        },
      ],
      ["doas", { short: "+a:C:Lnsu:", long: {}, operands: 0, shell: ["-s"], lookup: ["-L", "-C"] }],
      [
        "env",
        {
          short: "+0iC:S:u:v",
          long: long(
            "null ignore-environment chdir= split-string= unset= debug block-signal== default-signal== ignore-signal== list-signal-handling help version",
          ),
          operands: 0,
          script: ["-S", "--split-string"],
          dash: "-i",
          assigns: true,
          chdir: ["-C", "--chdir"],
          lookup: ["--help", "--version"],
        },
      ],
      [
        "timeout",
        {
          short: "+k:s:v",
          long: long("kill-after= signal= verbose foreground preserve-status help version"),
          operands: 1,
          lookup: ["--help", "--version"],
        },
      ],
      ["nice", { short: "+n:", long: long("adjustment= help version"), operands: 0, numeric: true, lookup: ["--help", "--version"] }],
      ["nohup", { short: "+", long: long("help version"), operands: 0, lookup: ["--help", "--version"] }],
      // Bash's `time` keyword takes `-p`; the program (`\time`, `/usr/bin/time`) also takes GNU time's options.
      [
        "time",
        {
          short: "+af:o:pqvV",
          long: long("append format= output= portability quiet verbose help version"),
          operands: 0,
          lookup: ["-V", "--help", "--version"],
          writes: ["-o", "--output"],
        },
      ],
      [
        "xargs",
        {
          short: "+0a:d:E:e::I:i::L:l::n:oP:prs:tx",
          long: long(
            "null arg-file= delimiter= eof== replace== max-lines== max-args= open-tty max-procs= interactive process-slot-var= no-run-if-empty max-chars= show-limits verbose exit help version",
          ),
          operands: 0,
          appends: true,
          lookup: ["--help", "--version", "--show-limits"],
        },
      ],
      ["command", { short: "+pvV", long: {}, operands: 0, lookup: ["-v", "-V"] }],
      ["builtin", { short: "+", long: {}, operands: 0 }],
      ["exec", { short: "+cla:", long: {}, operands: 0 }],
      ["coproc", { short: "+", long: {}, operands: 0 }],
      // `jobs -x cmd args` runs cmd with job specs replaced by process group ids.
      ["jobs", { short: "+lnprsx", long: {}, operands: 0, only: ["-x"] }],
      ["stdbuf", { short: "+i:o:e:", long: long("input= output= error= help version"), operands: 0, lookup: ["--help", "--version"] }],
      [
        "ionice",
        {
          short: "+c:n:p:P:tu:hV",
          long: long("class= classdata= pid= pgid= ignore uid= help version"),
          operands: 0,
          lookup: ["-p", "--pid", "-P", "--pgid", "-u", "--uid", "-h", "--help", "-V", "--version"],
        },
      ],
      [
        "chrt",
        {
          short: "+bdfiorRT:P:D:ampvhV",
          long: long(
            "batch deadline fifo idle other rr reset-on-fork sched-runtime= sched-period= sched-deadline= all-tasks max pid verbose help version",
          ),
          operands: 1,
          lookup: ["-p", "--pid", "-m", "--max", "-h", "--help", "-V", "--version"],
        },
      ],
      [
        "taskset",
        {
          short: "+apchV",
          long: long("all-tasks pid cpu-list help version"),
          operands: 1,
          lookup: ["-p", "--pid", "-h", "--help", "-V", "--version"],
        },
      ],
      ["setsid", { short: "+cfwhV", long: long("ctty fork wait help version"), operands: 0, lookup: ["-h", "--help", "-V", "--version"] }],
      [
        "unshare",
        {
          short: "+fhVmuinpCTUrcR:w:S:G:l",
          long: long(
            "mount== uts== ipc== net== pid== user== cgroup== time== fork map-user= map-group= map-root-user map-current-user map-auto map-users= map-groups= kill-child== mount-proc== propagation= setgroups= keep-caps root= wd= setuid= setgid= monotonic= boottime= load-interp= help version",
          ),
          operands: 0,
          shell: [],
          chdir: ["-w", "--wd", "-R", "--root"],
          lookup: ["-h", "--help", "-V", "--version"],
        },
      ],
      [
        "nsenter",
        {
          short: "+at:m::u::i::n::p::C::U::T::S:G:r::w::W:FZhV",
          long: long(
            "all target= mount== uts== ipc== net== pid== cgroup== user== time== setuid= setgid= preserve-credentials root== wd== wdns= no-fork follow-context env help version",
          ),
          operands: 0,
          shell: [],
          chdir: ["-w", "--wd", "-W", "--wdns", "-r", "--root"],
          lookup: ["-h", "--help", "-V", "--version"],
        },
      ],
      [
        "chroot",
        {
          short: "+",
          long: long("groups= userspec= skip-chdir help version"),
          operands: 1,
          shell: [],
          chdir: [],
          lookup: ["--help", "--version"],
        },
      ],
      [
        "flock",
        {
          short: "+sexnoc:w:E:FuhV",
          long: long("shared exclusive nonblock nb close command= timeout= wait= conflict-exit-code= no-fork unlock verbose help version"),
          operands: 1,
          script: ["-c", "--command"],
          lookup: ["-u", "--unlock", "-h", "--help", "-V", "--version"],
          createsOperand: true,
        },
      ],
      [
        "su",
        {
          short: "lmpc:fg:G:s:w:PhV",
          long: long(
            "login preserve-environment command= session-command= fast group= supp-group= shell= whitelist-environment= pty help version",
          ),
          operands: 1,
          permutes: true,
          dash: "-l",
          script: ["-c", "--command", "--session-command"],
          shell: [],
          lookup: ["-h", "--help", "-V", "--version"],
        },
      ],
      [
        "runuser",
        {
          short: "lmpc:fg:G:s:u:w:PhV",
          long: long(
            "login preserve-environment command= session-command= fast group= supp-group= shell= user= whitelist-environment= pty help version",
          ),
          operands: 1,
          permutes: true,
          dash: "-l",
          script: ["-c", "--command", "--session-command"],
          shell: [],
          direct: ["-u", "--user"],
          lookup: ["-h", "--help", "-V", "--version"],
        },
      ],
      [
        "setpriv",
        {
          short: "+dhV",
          long: long(
            "dump nnp no-new-privs ambient-caps= inh-caps= bounding-set= ruid= euid= rgid= egid= reuid= regid= clear-groups keep-groups init-groups groups= securebits= pdeathsig= selinux-label= apparmor-profile= landlock-access= landlock-rule= reset-env help version",
          ),
          operands: 0,
          lookup: ["-d", "--dump", "-h", "--help", "-V", "--version"],
        },
      ],
      [
        "prlimit",
        {
          short: "+c::d::e::f::i::l::m::n::q::r::s::t::u::v::x::y::p:o:hV",
          long: long(
            "core== data== nice== fsize== sigpending== memlock== rss== nofile== msgqueue== rtprio== stack== cpu== nproc== as== locks== rttime== pid= output= noheadings raw verbose help version",
          ),
          operands: 0,
          lookup: ["-p", "--pid", "-h", "--help", "-V", "--version"],
        },
      ],
      [
        "strace",
        {
          short: "+a:Ab:cCdDe:E:fFhiI:kno:O:p:P:qrs:S:tTu:U:vVwxX:yYzZ",
          long: long(
            "columns= output-append-mode detach-on= summary-only summary debug daemonize== env= follow-forks output-separately help instruction-pointer interruptible= stack-traces syscall-number output= summary-syscall-overhead= attach= trace-path= quiet== relative-timestamps== string-limit= summary-sort-by= absolute-timestamps== syscall-times== user= summary-columns= no-abbrev version summary-wall-clock strings-in-hex== const-print-style= decode-fds== decode-pids= successful-only failed-only trace= signal= status= abbrev= verbose= raw= read= write= fault= inject= kvm= seccomp-bpf tips==",
          ),
          operands: 0,
          lookup: ["-p", "--attach", "-h", "--help", "-V", "--version"],
          writes: ["-o", "--output"],
          setsEnv: ["-E", "--env"],
        },
      ],
      [
        "ltrace",
        {
          short: "+a:A:bcCDe:E:fF:hiL:l:n:o:p:rs:StTu:Vwx:",
          long: long("align= demangle debug= help indent= library= output= version no-signals"),
          operands: 0,
          lookup: ["-p", "-h", "--help", "-V", "--version"],
          writes: ["-o", "--output"],
        },
      ],
      // busybox runs the applet named by its first word (`busybox sh -c …`).
      [
        "busybox",
        { short: "+", long: long("list list-full install help"), operands: 0, lookup: ["--list", "--list-full", "--install", "--help"] },
      ],
      ["unbuffer", { short: "+p", long: {}, operands: 0 }],
      // moreutils: ifne runs its command when standard input is not empty; pee hands each word to a shell.
      ["ifne", { short: "+n", long: {}, operands: 0 }],
      [
        "pee",
        {
          short: "+",
          long: long("ignore-sigpipe no-ignore-sigpipe ignore-write-errors no-ignore-write-errors"),
          operands: 0,
          viaShell: true,
        },
      ],
      // busybox's cttyhack runs its program on the console's terminal.
      ["cttyhack", { short: "+", long: {}, operands: 0 }],
      // newgrp starts the user's shell with another group: it reads standard input.
      ["newgrp", { short: "l", long: {}, operands: 1, permutes: true, dash: "-l", shell: [] }],
      ["chronic", { short: "+evh", long: {}, operands: 0 }],
      [
        "numactl",
        {
          short: "+abc:di:lm:p:stuw:C:DHI:L:M:N:o:P:S:f:TV",
          long: long(
            "all interleave= cpunodebind= cpubind= physcpubind= membind= preferred= preferred-many= localalloc show hardware version huge touch strict shmmode= shmid= shm= file= offset= length= weighted-interleave= balancing",
          ),
          operands: 0,
          lookup: ["-s", "--show", "-H", "--hardware", "-V", "--version"],
        },
      ],
      ["firejail", { short: "+", long: {}, operands: 0 }],
      // setarch ARCH, and its other names (linux64, x86_64, …), which take no ARCH; without a program they start a shell.
      ...["setarch", "linux32", "linux64", "i386", "x86_64", "uname26"].map((name): [string, WrapperSyntax] => [
        name,
        {
          short: "+BFILRSTXZ3vhV",
          long: long(
            "32bit fdpic-funcptrs short-inode addr-compat-layout addr-no-randomize whole-seconds sticky-timeouts read-implies-exec mmap-page-zero 3gb 4gb uname-2.6 verbose list help version",
          ),
          operands: name === "setarch" ? 1 : 0,
          ...(name === "setarch" ? { permutes: true } : {}),
          shell: [],
          lookup: ["--list", "-h", "--help", "-V", "--version"],
        },
      ]),
      [
        "dbus-run-session",
        {
          short: "+",
          long: long("dbus-daemon= config-file= version help"),
          operands: 0,
          lookup: ["--version", "--help"],
          runs: ["--dbus-daemon", "--config-file"],
        },
      ],
      ["ssh-agent", { short: "+a:cDdE:kO:P:st:", long: {}, operands: 0, lookup: ["-k"] }],
      // valgrind's own options are all `--name=value`: any of them is unknown here, so the call is opaque.
      ["valgrind", { short: "+qvh", long: {}, operands: 0, lookup: ["-h"] }],
      ["proxychains", { short: "+qf:", long: {}, operands: 0 }],
      ["proxychains4", { short: "+qf:", long: {}, operands: 0 }],
      ["torsocks", { short: "+qiu:p:a:P:d", long: long("isolate user= pass= address= port= help version"), operands: 0 }],
      ["caffeinate", { short: "+dimsut:w:", long: {}, operands: 0 }],
      [
        "dbus-launch",
        {
          short: "+",
          long: long(
            "version help sh-syntax csh-syntax auto-syntax binary-syntax close-stderr exit-with-session exit-with-x11 autolaunch= config-file=",
          ),
          operands: 0,
          lookup: ["--version", "--help"],
        },
      ],
      // pkexec without a program runs the target user's shell, which reads standard input.
      [
        "pkexec",
        {
          short: "+",
          long: long("version disable-internal-agent help user= keep-cwd"),
          operands: 0,
          shell: [],
          lookup: ["--version", "--help"],
        },
      ],
      [
        "fakeroot",
        {
          short: "+l:s:i:uhvb:",
          long: long("lib= faked= unknown-is-real help version"),
          operands: 0,
          lookup: ["-h", "--help", "-v", "--version"],
        },
      ],
      ["systemd-run", { short: "+hrH:M:p:E:tPqGdu", long: {}, operands: 0, setsEnv: ["-E"], runs: ["-p"] }],
      ["cgexec", { short: "+g:", long: long("sticky"), operands: 0 }],
      // These hand their words to a shell as one script; what runs is only known by that shell.
      [
        "watch",
        {
          short: "+bcd::egq:n:ptwxhv",
          long: long("beep color differences== errexit chgexit equexit= interval= precise no-title no-wrap exec help version no-linewrap"),
          operands: 0,
          viaShell: true,
          exec: ["-x", "--exec"],
          lookup: ["-h", "--help", "-v", "--version"],
        },
      ],
      ["parallel", { short: "+", long: {}, operands: 0, viaShell: true }],
      ["sem", { short: "+", long: {}, operands: 0, viaShell: true }],
      ["ssh", { short: "+", long: {}, operands: 0, viaShell: true }],
      ["sg", { short: "+", long: {}, operands: 0, viaShell: true }],
      [
        "script",
        {
          short: "I:O:B:T:t::m:ac:efE:o:qhV",
          long: long(
            "log-in= log-out= log-io= log-timing= timing== logging-format= append command= return flush force echo= output-limit= quiet help version",
          ),
          operands: 0,
          permutes: true,
          script: ["-c", "--command"],
          shell: [],
          lookup: ["-h", "--help", "-V", "--version"],
          writes: ["-I", "--log-in", "-O", "--log-out", "-B", "--log-io", "-T", "--log-timing", "-t", "--timing"],
          writesFirstWord: "typescript",
        },
      ],
    ]),
);

/** A wrapper's option as given: its name as written in the table (`-I`, `--replace`), and the value getopt gave it. */
export interface GivenOption<W> {
  readonly option: string;
  readonly value?: W | string;
}

/** The words of a wrapper call as its getopt reads them. */
export interface WrapperCall<W> {
  readonly options: readonly GivenOption<W>[];
  /** The command after its options and operands (empty when there is none). */
  readonly command: readonly W[];
  /** Operands before the command. */
  readonly operands: readonly W[];
}

/** Why a wrapper call could not be read: an option the table does not list, or an ambiguous abbreviation. */
export class UnknownOption extends Error {}

/**
 * Read a wrapper's words (the first is its name) as its getopt does: in a cluster (`-iu root`, `-n10`,
 * `-rI{}`) the first letter that takes a value takes the rest of the word, or the next word when it ends
 * the word (an optional value only the rest of the word); `--opt=value` and `--opt value` for a long
 * option that requires one; a unique prefix of a long option names it. Throws `UnknownOption`.
 *
 * @example
 * readWrapper(SHELL_WRAPPERS.get("stdbuf")!, ["stdbuf", "--out", "L", "rm", "x"], (w) => w).command // ["rm", "x"]
 */
export const readWrapper = <W>(syntax: WrapperSyntax, words: readonly W[], text: (word: W) => string): WrapperCall<W> => {
  const options: GivenOption<W>[] = [];
  const operands: W[] = [];
  const letters = syntax.short.replace(/^\+/, "");
  const shortValue = (letter: string): LongValue | undefined => {
    const at = letters.indexOf(letter);
    if (at < 0 || letter === ":") return undefined;
    if (letters.charAt(at + 1) !== ":") return "none";
    return letters.charAt(at + 2) === ":" ? "optional" : "required";
  };
  const takesScript = (option: string): boolean => syntax.script?.includes(option) === true;
  const direct = (): boolean => options.some((o) => syntax.direct?.includes(o.option) === true);
  let i = 1;
  while (i < words.length) {
    const word = words[i]!;
    const t = text(word);
    if (t === "--") {
      i++;
      break;
    }
    if (t.startsWith("--")) {
      const equals = t.indexOf("=");
      const given = t.slice(2, equals < 0 ? undefined : equals);
      const name = longName(syntax.long, given);
      const kind = syntax.long[name]!;
      i++;
      if (equals >= 0) {
        if (kind === "none") throw new UnknownOption(`--${name} takes no value`);
        options.push({ option: `--${name}`, value: t.slice(equals + 1) });
      } else if (kind === "required") {
        if (i >= words.length) throw new UnknownOption(`--${name} needs a value`);
        options.push({ option: `--${name}`, value: words[i++]! });
      } else options.push({ option: `--${name}` });
      continue;
    }
    if (t === "-" && syntax.dash !== undefined) {
      options.push({ option: syntax.dash });
      i++;
      continue;
    }
    if (t.startsWith("-") && t.length > 1) {
      if (syntax.numeric === true && /^-[+-]?\d+$/.test(t)) {
        options.push({ option: "-n", value: t.slice(1) });
        i++;
        continue;
      }
      i++;
      for (let k = 1; k < t.length; k++) {
        const letter = t.charAt(k);
        const kind = shortValue(letter);
        if (kind === undefined) throw new UnknownOption(`-${letter}`);
        if (kind === "none") {
          options.push({ option: `-${letter}` });
          continue;
        }
        if (k < t.length - 1) options.push({ option: `-${letter}`, value: t.slice(k + 1) });
        else if (kind === "required") {
          if (i >= words.length) throw new UnknownOption(`-${letter} needs a value`);
          options.push({ option: `-${letter}`, value: words[i++]! });
        } else options.push({ option: `-${letter}` });
        break;
      }
      continue;
    }
    // A word that is not an option: an operand, or the command.
    if (syntax.permutes === true && !direct()) {
      operands.push(word);
      i++;
      continue;
    }
    break;
  }
  let rest = [...operands, ...words.slice(i)];
  const lead = direct() ? 0 : syntax.operands;
  const before = rest.slice(0, lead);
  rest = rest.slice(lead);
  // `flock FILE -c '…'` and `su root -c '…'`: a script option right after the operands.
  const after = rest[0] === undefined ? undefined : text(rest[0]);
  if (after !== undefined && takesScript(after)) {
    if (rest[1] === undefined) throw new UnknownOption(`${after} needs a value`);
    options.push({ option: after, value: rest[1] });
    rest = rest.slice(2);
  }
  return { options, operands: before, command: rest };
};

/** The long option a name (or a unique prefix of one) stands for, as getopt_long matches it. */
const longName = (table: Readonly<Record<string, LongValue>>, given: string): string => {
  if (Object.hasOwn(table, given)) return given;
  const matches = Object.keys(table).filter((name) => name.startsWith(given));
  if (matches.length !== 1 || given === "") throw new UnknownOption(`--${given}`);
  return matches[0]!;
};
