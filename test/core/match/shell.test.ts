import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileMatcher } from "../../../src/core/match/matcher.ts";
import { compileAllowRules } from "../../../src/middleware/tool-rules.ts";
import { analyseShell, MAX_COMMAND_LENGTH, MAX_HERE_DOCUMENTS, splitShellCommand } from "../../../src/core/match/shell.ts";
import { MAX_NESTING } from "../../../src/core/match/shell/script.ts";
import { cpuMs } from "../../support/timing.ts";
import { scaled } from "../../support/scale.ts";

const rmGuard = compileMatcher("Bash(rm *)", "no-rm");
const catches = (command: string): boolean => rmGuard.test("Bash", {}, () => command);
/** The analysis cannot tell what the command runs: unreadable or opaque. */
const unknown = (command: string): boolean => {
  const analysis = analyseShell(command);
  return analysis === undefined || analysis.opaque;
};

describe("splitShellCommand", () => {
  it("splits on && || ; | & |& and newlines", () => {
    expect(splitShellCommand("a && b || c; d | e & f |& g\nh")).toEqual(["a", "b", "c", "d", "e", "f", "g", "h"]);
  });

  it("keeps quoted separators inside one command and removes the quotes", () => {
    expect(splitShellCommand(`echo "a && rm -rf /"`)).toEqual(["echo a && rm -rf /"]);
    expect(splitShellCommand(`echo 'x; y' \\; z`)).toEqual(["echo x; y ; z"]);
  });

  it("normalises whitespace", () => {
    expect(splitShellCommand("  git\t push   origin  ")).toEqual(["git push origin"]);
  });

  it("reads redirections as part of a command, not as separators", () => {
    expect(splitShellCommand("npm test 2>&1 | head -5")).toEqual(["npm test", "head -5"]);
    expect(splitShellCommand("cmd &>log; other >>out <in")).toEqual(["cmd", "other"]);
  });

  it("recurses into $(), backticks, subshells, process substitution and ${…}", () => {
    expect(splitShellCommand("echo $(rm a)")).toContain("rm a");
    expect(splitShellCommand("echo `rm b`")).toContain("rm b");
    expect(splitShellCommand("(cd x && rm c)")).toEqual(["cd x", "rm c"]);
    expect(splitShellCommand("diff <(ls) >(rm d)")).toContain("rm d");
    expect(splitShellCommand("echo ${x:-$(rm e)}")).toContain("rm e");
    expect(splitShellCommand(`echo "$(echo "$(rm f)")"`)).toContain("rm f");
  });

  it("looks through wrappers, env assignments and paths, listing each layer", () => {
    expect(splitShellCommand("FOO=1 sudo -u root timeout -s KILL 5 nice -n 10 /bin/rm -rf /")).toEqual([
      "FOO=1 sudo -u root timeout -s KILL 5 nice -n 10 /bin/rm -rf /",
      "sudo -u root timeout -s KILL 5 nice -n 10 /bin/rm -rf /",
      "timeout -s KILL 5 nice -n 10 /bin/rm -rf /",
      "nice -n 10 /bin/rm -rf /",
      "/bin/rm -rf /",
      "rm -rf /",
    ]);
  });

  it("reads the scripts of bash -c, sh -c, eval and env -S", () => {
    expect(splitShellCommand(`bash -c 'ls; rm -rf /'`)).toEqual(["bash -c ls; rm -rf /", "ls", "rm -rf /"]);
    expect(splitShellCommand(`sh -ec "rm x"`)).toContain("rm x");
    expect(splitShellCommand(`bash -o pipefail -c "rm y"`)).toContain("rm y");
    expect(splitShellCommand(`eval "rm z"`)).toContain("rm z");
    expect(analyseShell(`env -S 'rm w'`)?.opaque).toBe(true); // env -S splits its string with rules of its own
  });

  it("skips comments and reserved words", () => {
    expect(splitShellCommand("echo ok # && rm x")).toEqual(["echo ok"]);
    expect(splitShellCommand("if true; then rm x; else ls; fi")).toEqual(["true", "rm x", "ls"]);
    expect(splitShellCommand("while read f; do rm $f; done")).toEqual(["read f", "rm $f"]);
  });

  it("reads here-documents as data, expanding only unquoted ones", () => {
    const commit = `git commit -m "$(cat <<'EOF'\nFix: don't && rm -rf /\nEOF\n)"`;
    expect(splitShellCommand(commit)).toEqual(["cat", `git commit -m $(cat <<'EOF' Fix: don't && rm -rf / EOF )`]);
    expect(splitShellCommand("cat <<EOF\n$(rm q)\nEOF\nls")).toEqual(["rm q", "cat", "ls"]);
  });

  it("reads arithmetic on anything but literal numbers as opaque, since bash evaluates code held in the variables it names", () => {
    for (const cmd of [
      "echo $((rm -rf x))",
      "echo $(( $(rm y) + 1 ))",
      "((rm -rf x))",
      "echo $((x))",
      "echo $[x + 1]",
      "((i++))",
      "for ((i=0; i<3; i++)); do echo; done",
    ]) {
      expect(unknown(cmd), cmd).toBe(true);
      expect(catches(cmd), cmd).toBe(true);
    }
    expect(splitShellCommand("echo $( (rm -rf x))")).toContain("rm -rf x");
    expect(analyseShell("echo $((1 << 2)) $[3 * 4]")).toMatchObject({ opaque: false, commands: ["echo $((1 << 2)) $[3 * 4]"] });
  });

  it("does not mistake an arithmetic shift for a here-document", () => {
    expect(splitShellCommand("echo $((1<<2))\nrm -rf /")).toEqual(["echo $((1<<2))", "rm -rf /"]);
  });

  it("reads a case command's patterns and runs its branches", () => {
    expect(splitShellCommand("case a in a) rm x;; b|c) ls;; esac")).toEqual(["rm x", "ls"]);
  });

  it("returns undefined for text it cannot read", () => {
    for (const bad of [
      `echo 'unterminated`,
      `echo "open`,
      "echo `open",
      "echo $(open",
      "a )",
      "echo (x)",
      "trailing \\",
      "cat <<\nrm -rf /",
      "ls >; rm x",
    ]) {
      expect(splitShellCommand(bad), bad).toBeUndefined();
    }
    expect(splitShellCommand("( ".repeat(MAX_NESTING + 1) + "x" + " )".repeat(MAX_NESTING + 1))).toBeUndefined();
    expect(splitShellCommand("( ".repeat(MAX_NESTING - 1) + "x" + " )".repeat(MAX_NESTING - 1))).toEqual(["x"]);
    expect(splitShellCommand("echo $(".repeat(10_000) + ")".repeat(10_000))).toBeUndefined();
  });
});

describe("a Bash(rm *) condition", () => {
  it("catches rm hidden after && || ; | & and newlines", () => {
    for (const sep of ["&&", "||", ";", "|", "&", "\n", "|&"]) expect(catches(`ls ${sep} rm -rf /`), sep).toBe(true);
  });

  it("catches rm in subshells, $(), backticks and bash -c", () => {
    for (const cmd of ["(rm -rf /)", "echo $(rm -rf /)", "echo `rm -rf /`", "bash -c 'rm -rf /'", 'sh -c "ls && rm x"'])
      expect(catches(cmd), cmd).toBe(true);
  });

  it("catches rm behind env assignments and wrappers", () => {
    for (const cmd of [
      "FOO=1 rm x",
      "sudo rm x",
      "env A=1 B=2 rm x",
      "timeout 10 rm x",
      "nice -n 5 rm x",
      "nohup rm x &",
      "time rm x",
      "command rm x",
      "exec rm x",
      "find . | xargs -0 rm",
      "find . -exec rm {} \\;",
    ]) {
      expect(catches(cmd), cmd).toBe(true);
    }
  });

  it("catches rm spelled with quotes, escapes or a path", () => {
    for (const cmd of [`"rm" -rf /`, `r\\m -rf /`, `'r''m' x`, "/bin/rm -rf /", "$'rm' x"]) expect(catches(cmd), cmd).toBe(true);
  });

  it('does not fire on echo "a && rm -rf /": that is one command, echo', () => {
    expect(catches(`echo "a && rm -rf /"`)).toBe(false);
    expect(catches(`git commit -m 'rm -rf / was a bad idea'`)).toBe(false);
    expect(catches("rmdir x && lsof")).toBe(false);
  });

  it("matches when the command cannot be read (fails towards the guard)", () => {
    expect(catches(`echo 'unterminated && rm -rf /`)).toBe(true);
    expect(catches(`echo "hello`)).toBe(true);
  });

  it("matches when a command's name is only known at run time", () => {
    for (const cmd of ["$CMD -rf /", "$(which rm) -rf /", "/bin/r? -rf /", "{rm,-rf,/tmp}", 'bash -c "$SCRIPT"', "$'\\x72\\x6d' -rf /"]) {
      expect(catches(cmd), cmd).toBe(true);
    }
  });

  it("does not match a command without detail", () => {
    expect(rmGuard.test("Bash", {}, () => undefined)).toBe(false);
  });
});

describe("a Bash(rm *) condition on function definitions", () => {
  it("reads the body of bash's function keyword form, with or without () and with the body on later lines", () => {
    for (const cmd of [
      "function f { rm -rf /; }; f",
      "function f { rm -rf /; }",
      "function f\n{\n  rm -rf /\n}",
      "{ function f { rm -rf /; }; }",
    ]) {
      expect(catches(cmd), cmd).toBe(true);
    }
  });

  it("lists the body's commands and not the definition line", () => {
    expect(splitShellCommand("function f { rm -rf /; }; f")).toEqual(["rm -rf /", "f"]);
    expect(splitShellCommand("function f ( rm -rf / ); f")).toEqual(["rm -rf /", "f"]);
    expect(splitShellCommand("function f () { ls; }")).toEqual(["ls"]);
    expect(splitShellCommand("echo function f")).toEqual(["echo function f"]);
  });
});

describe("a Bash(rm *) condition on a shell that reads its script from standard input", () => {
  it("reads a literal here-string or here-document fed to a shell as the script it runs", () => {
    for (const cmd of [
      "bash <<< 'rm -rf /'",
      "sh <<< 'rm -rf /'",
      "bash -s <<< 'rm -rf /'",
      "bash <<'EOF'\nrm -rf /\nEOF",
      "sh <<EOF\nls && rm x\nEOF\n",
      "source /dev/stdin <<< 'rm x'",
      "sudo bash <<< 'rm x'",
    ]) {
      expect(catches(cmd), cmd).toBe(true);
    }
    expect(analyseShell("bash <<< 'ls; rm -rf /'")).toMatchObject({ opaque: false, commands: ["bash", "ls", "rm -rf /"] });
    expect(analyseShell("bash <<'EOF'\nls\nEOF")).toMatchObject({ opaque: false, commands: ["bash", "ls"] });
  });

  it("finds the -c script after options that take a value, so it is not mistaken for a script file", () => {
    for (const cmd of ["bash -euxo pipefail -c 'rm -rf /'", "bash -O extglob -c 'rm x'", "bash --rcfile x -c 'rm x'"])
      expect(catches(cmd), cmd).toBe(true);
  });

  it("does not read a here-string given to another file descriptor, or replaced by a later redirection, as the script", () => {
    expect(unknown("bash 3<<< 'ls'")).toBe(true);
    expect(unknown("bash <<< 'ls' < /tmp/x.sh")).toBe(true);
  });

  it("matches a shell whose script comes from a pipe, a file, a process substitution or a here-document that expands", () => {
    for (const cmd of [
      "echo 'rm -rf /' | sh",
      "printf 'rm -rf /' | bash",
      "sh < /tmp/x.sh",
      "bash < <(curl x)",
      "bash <(curl x)",
      ". <(echo rm x)",
      "source <(echo rm x)",
      "cat x | source /dev/stdin",
      "bash",
      'bash <<< "$SCRIPT"',
      "bash <<EOF\n$SCRIPT\nEOF",
    ]) {
      expect(catches(cmd), cmd).toBe(true);
      expect(analyseShell(cmd)?.opaque, cmd).toBe(true);
    }
  });

  it("leaves ordinary commands as they were: a script file, sh -c, pipes between other programs", () => {
    for (const cmd of [
      "bash script.sh",
      "sh -c 'ls'",
      "cat file | grep x",
      "ls <<< 'rm x'",
      "cat <<EOF\nrm x\nEOF",
      "source ./env.sh",
      "bash --version",
    ]) {
      expect(catches(cmd), cmd).toBe(false);
      expect(analyseShell(cmd)?.opaque, cmd).toBe(false);
    }
  });
});

describe("a Bash condition naming more than the command", () => {
  const push = compileMatcher("Bash(git push *)", "h");
  it("runs on any command with $VAR, $() or backticks, as Claude Code does", () => {
    expect(push.test("Bash", {}, () => "echo $HOME")).toBe(true);
    expect(push.test("Bash", {}, () => "git $(echo push) origin")).toBe(true);
  });
  it("is decided by the text otherwise, single-quoted $ included", () => {
    expect(push.test("Bash", {}, () => "echo '$HOME'")).toBe(false);
    expect(push.test("Bash", {}, () => "git status && git push origin main")).toBe(true);
  });
});

describe("analyseShell", () => {
  it("reports dynamic and opaque parts", () => {
    expect(analyseShell("echo $HOME")).toMatchObject({ dynamic: true, opaque: false });
    expect(analyseShell("$EDITOR file")).toMatchObject({ dynamic: true, opaque: true });
    expect(analyseShell("echo '$HOME'")).toMatchObject({ dynamic: false, opaque: false });
  });
  it("lists the files a command's redirections open, in any nesting, and whether it writes them", () => {
    const files = (command: string) => analyseShell(command)?.files.map((f) => `${f.writes ? "w" : "r"} ${f.path}${f.literal ? "" : " ?"}`);
    expect(files("echo x >> a; cat < b; { echo; } 2> c")).toEqual(["w a", "r b", "w c"]);
    expect(files("echo $(echo > a) `echo > b` <(echo > c); f() { :; } > d")).toEqual(["w a", "w b", "w c", "w d"]);
    expect(files("bash -c 'echo > a'; eval 'echo > b'; sudo sh -c 'echo >| c'")).toEqual(["w a", "w b", "w c"]);
    expect(files("echo > /dev/null 2>&1 >&2 >&- 3>/dev/fd/3")).toEqual([]);
  });

  it("marks a path computed at run time, or relative after a change of directory, as not known", () => {
    const files = (command: string) => analyseShell(command)?.files.map((f) => `${f.path}${f.literal ? "" : " ?"}`);
    expect(files('echo > "$F" > ~/.bashrc > a')).toEqual(["$F ?", "~/.bashrc ?", "a"]);
    expect(files("cd /tmp && echo > a > /b")).toEqual(["a ?", "/b"]);
    expect(files("eval 'cd /tmp'; echo > a")).toEqual(["a ?"]);
    expect(files("f() { cd /tmp; }; f; echo > a")).toEqual(["a ?"]);
    expect(files("env -C /tmp git log --output=a")).toEqual(["a ?"]);
  });

  it("lists the files and directories git is told to write", () => {
    const files = (command: string) => analyseShell(command)?.files.map((f) => `${f.path}${f.literal ? "" : " ?"}`);
    expect(files("git log --output=a; git diff --outp b; git format-patch -o c")).toEqual(["a", "b", "c"]);
    expect(files("git checkout-index --prefix=.git/ -f config")).toEqual([".git/"]);
    expect(files("git --work-tree=w checkout .")).toEqual(["w"]);
    expect(files("git clone --depth 1 https://h/o/r.git")).toEqual(["r"]);
    expect(files("git clone -b main r s")).toEqual(["s"]);
    expect(files("git -C x clone r t")).toEqual(["t ?"]);
    expect(files("git worktree add ../w")).toEqual(["../w"]);
    expect(files("git bundle create b.bundle --all; git status")).toEqual(["b.bundle"]);
    expect(files("git init /etc/x")).toEqual(["/etc/x"]);
    expect(files("git init -q")).toEqual([".git"]);
    expect(files("git init --separate-git-dir=/etc/g r")).toEqual(["/etc/g", "r"]);
    expect(files("git init --separate-git-dir /etc/g r")).toEqual(["/etc/g", "r"]);
    expect(files("git config -f /etc/x user.name y")).toEqual(["/etc/x"]);
    expect(files("git config --file=a user.name y; git config --system user.name y")).toEqual(["a", "/etc/gitconfig"]);
    expect(files("git config -f a --get user.name; git config user.name y")).toEqual([]);
    expect(files("git config --fil=/etc/x user.name y")).toEqual(["/etc/x"]);
    expect(files("git config --syst user.name y")).toEqual(["/etc/gitconfig"]);
    expect(files("git credential-store --file=/etc/x store")).toEqual(["/etc/x"]);
    expect(files("git credential-store --fi /etc/y store")).toEqual(["/etc/y"]);
    expect(files("git fast-export --exp m --all")).toEqual(["m"]);
    expect(files("git merge-file -q --theirs -L a -L b -L c .git/config /dev/null a.ts")).toEqual([".git/config"]);
    expect(files("git merge-file -p a b c; git merge-file --stdout a b c")).toEqual([]);
    expect(files("git fast-export --export-marks=m --all")).toEqual(["m"]);
    expect(files("git bugreport -o d")).toEqual(["d"]);
  });

  it("marks every path as not known when another command of the text may make a link it goes through", () => {
    const files = (command: string) => analyseShell(command)?.files.map((f) => `${f.path}${f.literal ? "" : " ?"}`);
    expect(files("ln -s /etc e && echo > e/f")).toEqual(["e/f ?"]);
    expect(files("git checkout-index -f e; echo > e/f")).toEqual(["e/f ?", "e"]);
    expect(files("git clone r; git clone r s")).toEqual(["r", "s ?"]);
    expect(files("for i in 1 2; do git checkout . > e/f; done")).toEqual(["e/f ?"]);
    expect(files("bash ./make-links.sh; echo > e/f")).toEqual(["e/f ?"]);
    // A single command opens its redirections before it runs; programs that make no link change nothing.
    expect(files("git checkout . > e/f")).toEqual(["e/f"]);
    expect(files("mkdir -p e && git status && sed -n p a > e/f && bash -c 'echo > e/g'")).toEqual(["e/f", "e/g"]);
  });

  it("keeps the paths the text's first command opens when it runs alone before any other", () => {
    const files = (command: string) => analyseShell(command)?.files.map((f) => `${f.path}${f.literal ? "" : " ?"}`);
    expect(files("source ./env.sh && npm test")).toEqual(["./env.sh"]);
    expect(files("source ./env.sh; npm test\nnpm run build")).toEqual(["./env.sh"]);
    expect(files("echo x > e/f; ln -s /etc e; echo y > e/g")).toEqual(["e/f", "e/g ?"]);
    // The grammar hangs a redirection after a list of && on the whole list: read so, it is not the first command's.
    expect(files("echo x > e/f && ln -s /etc e && echo y > e/g")).toEqual(["e/g ?", "e/f ?"]);
    // Not when something may run before or alongside it: a later command, a pipe, a background job,
    // a substitution (run before its redirections are opened), a here-document's line going on.
    expect(files("npm test; source ./env.sh")).toEqual(["./env.sh ?"]);
    expect(files("source ./env.sh & ln -s /etc e")).toEqual(["./env.sh ?"]);
    expect(files("source ./env.sh | ln -s /etc e")).toEqual(["./env.sh ?"]);
    expect(files("source ./env.sh && npm test &")).toEqual(["./env.sh ?"]);
    expect(files("echo $(ln -s /etc e) > e/f; echo")).toEqual(["e/f ?"]);
    expect(files("cat <(ln -s /etc e) > e/f; echo")).toEqual(["e/f ?"]);
    expect(files("source x <<EOF | ln -s /etc e\nbody\nEOF")).toEqual(["x ?"]);
    expect(files("{ source x; ln -s /etc e; }; cat < e/y")).toEqual(["e/y ?", "x ?"]);
    expect(files("f() { ln -s /etc e; }; f; echo > e/x")).toEqual(["e/x ?"]);
    // Nor what it opens by running a script that runs later or commands in turn.
    expect(files("trap 'sed -i s/a/b/ e/x' EXIT; ln -s /etc e")).toEqual(["e/x ?"]);
    expect(files("find . -exec ln -s /etc e \\; -exec sed -i s/a/b/ e/x \\; ; echo")).toEqual(["e/x ?"]);
    expect(files("sed -i s/a/b/ e/x && ln -s /etc e")).toEqual(["e/x"]);
  });

  it("cannot read a comment glued to a word or a plain word holding a blank, where bash reads words", () => {
    expect(analyseShell("git --version } }[[# `rm -rf /`")).toBeUndefined();
    expect(analyseShell("echo } }x")).toBeUndefined();
    expect(analyseShell("echo a#b # c; echo d")?.commands).toEqual(["echo a#b"]);
    expect(analyseShell("echo ${x:-a b};#c")?.commands).toEqual(["echo ${x:-a b}"]);
  });

  it("reads backticks and $ kept in a plain token of the grammar as opaque", () => {
    expect(analyseShell("echo ${x:-`rm -rf /`}")).toMatchObject({ opaque: true });
    expect(analyseShell("[[ x =~ `rm -rf /` ]]")).toBeUndefined();
    expect(analyseShell("[[ x =~ ^v[0-9]+$ ]] && echo ${x:-'`a`'}")).toMatchObject({ opaque: false });
  });

  it("treats [ and [[ as commands, not globs", () => {
    expect(analyseShell("[ -f x ] && [[ -d y ]]")).toMatchObject({ opaque: false, commands: ["[ -f x ]", "[[ -d y ]]"] });
  });
});

describe("other shell tools", () => {
  it("use shell semantics for every name in SHELL_TOOLS", () => {
    for (const tool of ["Bash", "bash", "shell", "sh", "exec", "run_command", "run_shell_command"]) {
      expect(
        compileMatcher(`${tool}(rm *)`, "h").test(tool, {}, () => "ls; rm x"),
        tool,
      ).toBe(true);
    }
  });
});

describe("findings of the reliability fuzzing", () => {
  const rm = compileMatcher("Bash(rm *)", "h");
  const matches = (command: string) => rm.test("Bash", {}, () => command);
  it.each([
    "ionice -c3 rm -rf /",
    "setsid rm -rf /",
    "chroot / rm -rf /",
    "flock /tmp/l rm -rf /",
    "su -c 'rm -rf /'",
    "taskset 0x1 rm -rf /",
    "unbuffer rm -rf /",
    "strace -f rm -rf /",
  ])("a Bash(rm *) condition sees rm behind the wrapper in %s", (command) => expect(matches(command)).toBe(true));

  it("treats a case command inside a double-quoted $(…) as unreadable, so rm after its pattern cannot hide", () => {
    expect(matches('echo "$(case x in x) rm -rf /;; esac)"')).toBe(true);
    expect(matches("echo case")).toBe(false);
  });
});

describe("reading long text", () => {
  it("reads no command longer than MAX_COMMAND_LENGTH: it is unreadable, so a deny condition matches it", () => {
    const command = `echo ${"a".repeat(MAX_COMMAND_LENGTH)}`;
    expect(analyseShell(command)).toBeUndefined();
    expect(catches(command)).toBe(true);
  });

  it("reads no command holding more than MAX_HERE_DOCUMENTS here-document operators, whose parse grows with their square", () => {
    const pending = (n: number) =>
      `${Array.from({ length: n }, (_, i) => `cat <<E${i}`).join(";")}\n${Array.from({ length: n }, (_, i) => `x\nE${i}`).join("\n")}`;
    expect(analyseShell(pending(MAX_HERE_DOCUMENTS))).toBeUndefined(); // the grammar cannot read so many at once either
    expect(analyseShell(pending(2000))).toBeUndefined();
    expect(catches(pending(2000))).toBe(true);
    expect(analyseShell("cat <<A\na\nA\ncat <<B\nb\nB")?.commands).toEqual(["cat"]);
  });

  it("counts a command stacking more than 16 wrappers as opaque, in a few seconds at most rather than by the square of its length", () => {
    for (const command of ["env ".repeat(10_000) + "ls", "sudo ".repeat(12_000) + "rm -rf /", "sudo ".repeat(17) + "ls"]) {
      expect(cpuMs(() => expect(unknown(command)).toBe(true))).toBeLessThan(5000);
    }
    expect(unknown("sudo ".repeat(15) + "ls")).toBe(false);
  });

  // Seconds of CPU: a busy machine gives it a fraction of a core.
  it("still reads a command behind a few wrappers and 50,000 reserved words", { timeout: scaled(60_000) }, () => {
    expect(analyseShell("sudo env FOO=1 nice -n 5 rm -rf /tmp/x")).toMatchObject({
      opaque: false,
      commands: expect.arrayContaining(["rm -rf /tmp/x"]),
    });
    // `! !` is read by the grammar as a command named `!`: opaque, so it matches.
    expect(cpuMs(() => expect(catches("! ".repeat(30_000) + "rm -rf /")).toBe(true))).toBeLessThan(5000);
    // su passes the words after its user to the shell as arguments: only the -c script runs.
    expect(analyseShell("su - u ".repeat(6_000) + "-c ls")).toMatchObject({ opaque: false, commands: expect.arrayContaining(["ls"]) });
  });

  it("reads 50 KB of `function x` words in a few seconds at most, as it reads any other words", () => {
    const command = "echo " + "function x ".repeat(4_500);
    expect(cpuMs(() => expect(splitShellCommand(command)).toHaveLength(1))).toBeLessThan(5000);
  });
});

describe("a Bash(rm *) condition on a shell's option clusters", () => {
  it("reads +c and +s as -c and -s, as bash and dash do", () => {
    for (const cmd of [
      "bash +c 'rm -rf /'",
      "sh +c 'rm -rf /'",
      "dash +c 'rm -rf /'",
      "bash +ec 'rm -rf /'",
      "bash -e +c 'rm -rf /'",
      "bash +s x <<< 'rm -rf /'",
    ]) {
      expect(catches(cmd), cmd).toBe(true);
    }
  });

  it("gives each o or O in a cluster the next word, in order, wherever it stands in the cluster", () => {
    for (const cmd of [
      "bash -oc posix 'rm -rf /'",
      "bash -Oc extglob 'rm -rf /'",
      "bash -cO extglob 'rm -rf /'",
      "bash -oOc posix extglob 'rm -rf /'",
      "bash -oeo posix pipefail +c 'rm -rf /'",
    ]) {
      expect(catches(cmd), cmd).toBe(true);
    }
    expect(splitShellCommand("bash -oc posix 'ls'")).toEqual(["bash -oc posix ls", "ls"]);
  });

  it("still reads a shell given a script file after such options as running no code the text holds", () => {
    for (const cmd of ["bash -o posix x.sh", "bash +o posix -e x.sh", "bash -eO extglob x.sh"]) {
      expect(catches(cmd), cmd).toBe(false);
      expect(analyseShell(cmd)?.opaque, cmd).toBe(false);
    }
  });
});

describe("a Bash(rm *) condition on a shell whose -c script is missing or filled in by xargs, parallel or find", () => {
  it("matches sh -c without a script, which takes the script from the arguments xargs or parallel append", () => {
    for (const cmd of [
      "echo 'rm -rf /' | xargs -0 sh -c",
      "echo 'rm -rf /' | xargs -d '\\n' bash -c",
      "echo 'rm -rf /' | parallel sh -c",
      "bash -c",
    ]) {
      expect(catches(cmd), cmd).toBe(true);
      expect(analyseShell(cmd)?.opaque, cmd).toBe(true);
    }
  });

  it("matches a script holding the replacement string, whose text is only known when the input arrives", () => {
    for (const cmd of [
      "echo 'rm -rf /' | xargs -I{} sh -c '{}'",
      "echo 'rm -rf /' | xargs -I{} bash -c {}",
      "echo 'rm -rf /' | xargs -I X sh -c 'X'",
      "echo 'rm -rf /' | xargs -i sh -c '{}'",
      "echo 'rm -rf /' | xargs --replace=@ sh -c '@'",
      "echo '$(rm -rf /)' | xargs -I{} sh -c 'echo {}'",
      "parallel sh -c {} ::: 'rm -rf /'",
      "parallel -I @@ sh -c @@ ::: 'rm -rf /'",
      "find . -name x -exec sh -c '{}' \\;",
    ]) {
      expect(catches(cmd), cmd).toBe(true);
      expect(analyseShell(cmd)?.opaque, cmd).toBe(true);
    }
  });

  it("still reads a script under xargs that holds no replacement string, and leaves a placeholder outside a script alone", () => {
    for (const cmd of ["ls | xargs sh -c 'ls'", "ls | xargs -I{} cp {} /tmp", "find . -exec cat {} \\;", "sh -c 'echo {}'"]) {
      expect(catches(cmd), cmd).toBe(false);
      expect(analyseShell(cmd)?.opaque, cmd).toBe(false);
    }
  });
});

describe("a Bash(rm *) condition on a wrapper that starts a shell without naming one", () => {
  it("reads the here-text fed to sudo -s, sudo -i, su or doas -s as the script that shell runs", () => {
    for (const cmd of [
      "sudo -s <<< 'rm -rf /'",
      "sudo -i <<< 'rm -rf /'",
      "su <<< 'rm -rf /'",
      "su - root <<< 'rm -rf /'",
      "doas -s <<< 'rm -rf /'",
      "sudo -iu root <<'EOF'\nrm -rf /\nEOF",
    ]) {
      expect(catches(cmd), cmd).toBe(true);
      expect(analyseShell(cmd)?.opaque, cmd).toBe(false);
    }
    expect(analyseShell("sudo -s <<< 'ls'")).toMatchObject({ opaque: false, commands: ["sudo -s", "ls"] });
  });

  it("matches such a shell reading its script from a pipe", () => {
    for (const cmd of [
      "echo 'rm -rf /' | sudo -s",
      "echo 'rm -rf /' | sudo -i",
      "echo 'rm -rf /' | su",
      "echo 'rm -rf /' | su -",
      "echo 'rm -rf /' | sudo su",
      "echo 'rm -rf /' | sudo -iu root",
      "echo 'rm -rf /' | sudo --login",
      "echo 'rm -rf /' | su -l root",
    ]) {
      expect(catches(cmd), cmd).toBe(true);
      expect(analyseShell(cmd)?.opaque, cmd).toBe(true);
    }
  });

  it("reads a command given to those wrappers as the command, through option clusters", () => {
    for (const cmd of ["sudo -s rm -rf /", "sudo -iu root rm -rf /", "sudo -Eu root rm -rf /", "su -lc 'rm -rf /' root", "env - rm -rf /"])
      expect(catches(cmd), cmd).toBe(true);
    for (const cmd of ["sudo -s ls", "sudo -u root ls", "su -c 'ls' root", "sudo ls"]) {
      expect(catches(cmd), cmd).toBe(false);
      expect(analyseShell(cmd)?.opaque, cmd).toBe(false);
    }
  });
});

describe("a Bash(rm *) condition on command -v", () => {
  it("reads command -v and -V as looking a name up, running nothing, so a shell named there is no shell run", () => {
    for (const cmd of [
      "command -v bash",
      "command -V sh",
      "command -pv bash",
      "if command -v zsh >/dev/null; then echo y; fi",
      "command -v rm",
    ]) {
      expect(catches(cmd), cmd).toBe(false);
      expect(analyseShell(cmd)?.opaque, cmd).toBe(false);
    }
    expect(splitShellCommand("command -v bash")).toEqual(["command -v bash"]);
  });

  it("still sees what command runs without -v", () => {
    for (const cmd of ["command rm -rf /", "command -p rm -rf /", "command bash <<< 'rm -rf /'"]) expect(catches(cmd), cmd).toBe(true);
  });
});

describe("a Bash(rm *) condition on xargs' option clusters", () => {
  it("sees a replacement string set inside a cluster, as getopt reads it, so a script holding it is unreadable", () => {
    for (const cmd of [
      "echo 'rm -rf /' | xargs -rI{} sh -c '{}'",
      "printf 'rm -rf /\\0' | xargs -0I{} sh -c '{}'",
      "echo 'rm -rf /' | xargs -ri sh -c '{}'",
      "echo 'rm -rf /' | xargs -0IX sh -c X",
      "echo 'rm -rf /' | xargs -0iX sh -c X",
      "echo 'rm -rf /' | xargs -r -I {} sh -c '{}'",
    ]) {
      expect(catches(cmd), cmd).toBe(true);
      expect(analyseShell(cmd)?.opaque, cmd).toBe(true);
    }
  });

  it("still reads a script under a cluster that sets no replacement string", () => {
    for (const cmd of ["ls | xargs -r0 sh -c 'ls'", "ls | xargs -rn1 sh -c 'ls'"]) {
      expect(catches(cmd), cmd).toBe(false);
      expect(analyseShell(cmd)?.opaque, cmd).toBe(false);
    }
  });
});

describe("a Bash(rm *) condition on a wrapper's script option", () => {
  it("reads -c or -S only among the wrapper's own options, not the arguments of the command it runs", () => {
    for (const cmd of [
      "flock /tmp/l grep -ic rm build.log",
      'flock /tmp/l grep -ic "cannot (x)" log.txt',
      'env LC_ALL=C ls -lS "my (dir)"',
      "env ls -S rm",
    ]) {
      expect(catches(cmd), cmd).toBe(false);
      expect(analyseShell(cmd)?.opaque, cmd).toBe(false);
    }
  });

  it("still reads the script a wrapper's own option gives, wherever that wrapper takes it", () => {
    for (const cmd of [
      "flock /tmp/l -c 'rm -rf /'",
      "flock -w 5 /tmp/l --command 'rm -rf /'",
      "env -S 'rm -rf /'",
      "env -iS'rm -rf /'",
      "script -qc 'rm -rf /' /dev/null",
      "script -q /dev/null -c 'rm -rf /'",
      "su -lc 'rm -rf /'",
    ]) {
      expect(catches(cmd), cmd).toBe(true);
    }
  });
});

describe("a Bash(rm *) condition on su's options after the user", () => {
  it("reads su's options wherever they stand before --, as GNU getopt permutes them", () => {
    for (const cmd of [
      "su root -s /bin/bash <<< 'rm -rf /'",
      "su root -c 'rm -rf /'",
      "su - root -c 'rm -rf /'",
      "su root -l -s /bin/sh <<< 'rm -rf /'",
    ]) {
      expect(catches(cmd), cmd).toBe(true);
      expect(analyseShell(cmd)?.opaque, cmd).toBe(false);
    }
    expect(splitShellCommand("su user -c 'ls'")).toEqual(["su user -c ls", "ls"]);
  });
});

describe("a Bash(rm *) condition on runuser", () => {
  it("reads runuser without -u as su: a user operand and a shell that reads its script from standard input", () => {
    for (const cmd of [
      "runuser -l root <<< 'rm -rf /'",
      "runuser - root <<< 'rm -rf /'",
      "runuser root <<< 'rm -rf /'",
      "runuser root -c 'rm -rf /'",
    ]) {
      expect(catches(cmd), cmd).toBe(true);
      expect(analyseShell(cmd)?.opaque, cmd).toBe(false);
    }
    expect(catches("echo 'rm -rf /' | runuser root")).toBe(true);
  });

  it("reads runuser -u as running the command after its options directly", () => {
    expect(catches("runuser -u root -- rm -rf /")).toBe(true);
    expect(catches("runuser -u root rm -rf /")).toBe(true);
    expect(analyseShell("runuser -u root ls -la")).toMatchObject({ opaque: false, commands: ["runuser -u root ls -la", "ls -la"] });
    expect(analyseShell("runuser -u root ls <<< 'rm -rf /'")?.commands).toEqual(["runuser -u root ls", "ls"]);
  });
});

describe("declarations", () => {
  it("read a string value that is or may be a parenthesised list as code: opaque", () => {
    for (const command of [
      "declare -a x='($(rm -rf /))'",
      "x=(); declare x='($(rm))'",
      'typeset -A x="$v"',
      "export -a x='($(rm))'",
      'f() { local x="$1"; }',
      "BASH_COMPAT=41 ls",
    ])
      expect(analyseShell(command)?.opaque, command).toBe(true);
  });
  it("read a list the grammar parsed, and export of a string, as before", () => {
    expect(analyseShell("declare -a x=(a b); export y='(a)'; declare z=1")?.opaque).toBe(false);
  });
});

describe("quotes inside a double-quoted ${…}", () => {
  it("are plain characters there, so what they hold expands: opaque", () => {
    for (const command of [
      "echo \"${x:-'$(rm -rf /)'}\"",
      "cat <<EOF\n${x:-'$(rm)'}\nEOF",
      "echo \"${x:-$'$(rm)'}\"",
      "echo \"${x:-${y:-'$(rm)'}}\"",
    ])
      expect(analyseShell(command)?.opaque, command).toBe(true);
  });
  it("are quotes outside double quotes", () => {
    expect(analyseShell("echo ${x:-'$(rm -rf /)'}")).toMatchObject({ opaque: false, commands: ["echo ${x:-'$(rm -rf /)'}"] });
  });
});

describe("programs that run or write things by their own options", () => {
  const opaque = (command: string) => analyseShell(command)?.opaque;
  const files = (command: string) => analyseShell(command)?.files.map((f) => `${f.writes ? "w" : "r"} ${f.path}${f.literal ? "" : " ?"}`);

  it("reads sed's e command and e flag as running a shell command, however the script is given", () => {
    for (const command of [
      "sed '1e rm -rf /' f",
      "sed -n 's/.*/rm -rf \\//e' f",
      "sed --expr='$e rm' f",
      "sed -n f -e 'e rm'",
      "sed -n ':a e rm' f",
      "sed -n '1{e rm\n}' f",
      "sed -f script.sed f",
      'sed -n "$X" f',
      "sed --unknown 'p' f",
      "echo f | xargs sed -n p",
    ])
      expect(opaque(command), command).toBe(true);
  });

  it("lists the files sed writes with w, W, the w flag and -i, and the files r and R read", () => {
    expect(files("sed -n '1w out' f")).toEqual(["w out"]);
    expect(files("sed 's/a/b/w out' f")).toEqual(["w out"]);
    expect(files("sed -i.bak 's/a/b/' f g")).toEqual(["w f", "w g"]);
    expect(files("sed --in-place -e 's/a/b/' f")).toEqual(["w f"]);
    expect(files("sed '1r .env' f")).toEqual(["r .env"]);
    expect(files("sed --sandbox -n '1,20p' f")).toEqual([]);
    expect(files("sed -n 's/a/b/w /dev/stdout' f; find . -fprint /dev/stderr")).toEqual([]);
    expect(files("find . -name '*.ts' -exec sed -i 's/a/b/' {} +")).toEqual(["w {} ?"]);
    expect(files("find . -exec git diff --output={}.patch \\;")).toEqual(["w {}.patch ?"]);
  });

  it("leaves everyday sed scripts readable", () => {
    for (const command of ["sed -n '1,20p' f", "sed 's#/a#/b#g' f", "sed '/^$/d;1d' f", "sed -E 's/(a)/\\1/' f", "sed '$a end' f"])
      expect(analyseShell(command)).toMatchObject({ opaque: false, files: [] });
  });

  it("lists the files find writes by -fprint, -fprintf and -fls, and -delete as a write of unknown paths", () => {
    expect(files("find . -fprint a -fprint0 b -fprintf c '%p' -fls d")).toEqual(["w a", "w b", "w c", "w d"]);
    expect(files("find . -name '*.o' -delete")).toEqual(["w -delete ?"]);
  });

  it("reads git's remote helpers, which run what their URL says, as opaque", () => {
    expect(opaque("git remote-ext o 'rm -rf /' <<< 'connect git-upload-pack'")).toBe(true);
    expect(opaque("git remote-fd o 1")).toBe(true);
    expect(opaque("git submodule--helper foreach 'rm -rf /'")).toBe(true);
    expect(opaque("git bisect--helper --bisect-run rm -rf /")).toBe(true);
  });

  it("reads variables that move git's repository, index or objects as changing what runs", () => {
    for (const name of ["GIT_DIR", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES"])
      expect(opaque(`${name}=/tmp/x git status`), name).toBe(true);
  });

  it("reads npm options that set what a script runs as opaque, before -- only", () => {
    for (const command of [
      "npm run build --script-shell=./x",
      "npm run build --script-sh=./x",
      "npm run --node-options=--import=data:text/javascript,0 build",
      "npm test --prefix /tmp/p",
      "npm_config_script_shell=./x npm test",
      "NPM_CONFIG_NODE_OPTIONS=--require=./x npm test",
      "env npm_config_node_options=x npm test",
      "npm run $SCRIPT",
    ])
      expect(opaque(command), command).toBe(true);
    for (const command of ["npm run build --silent -w packages/a", "npm ci --no-audit", "npm test", "npm test -- test/a.test.ts"])
      expect(analyseShell(command)?.calls, command).toEqual([{ text: command, literal: true, role: "command" }]);
  });

  it("counts an option after npm's -- as an option of what the script runs, which only a rule naming npm alone allows", () => {
    for (const command of ["npm run build -- --script-shell=./x", "npm run test -- --config ./evil.ts", "npm test -- -c x"])
      expect(analyseShell(command), command).toMatchObject({
        opaque: false,
        calls: [
          { text: command, literal: true, role: "command" },
          { text: command, literal: false, role: "command" },
        ],
      });
  });

  it("counts an npm setting it does not know as computed at run time, which only a rule naming npm alone allows", () => {
    expect(analyseShell("npm run build --watch")).toMatchObject({
      opaque: false,
      calls: [
        { text: "npm run build --watch", literal: true, role: "command" },
        { text: "npm run build --watch", literal: false, role: "command" },
      ],
    });
  });
});

describe("programs whose own options run code or write files", () => {
  it("reads cargo's --config and -Z, and the variables cargo and rustc read, as opaque", () => {
    for (const command of [
      "cargo test --config 'build.rustc-wrapper=\"./w\"'",
      "cargo test --config=target.x86_64-unknown-linux-gnu.runner=./w",
      "cargo test -Z unstable-options",
      "RUSTC_WRAPPER=./w cargo test",
      "RUSTC=./w cargo test",
      "CARGO_BUILD_RUSTC_WRAPPER=./w cargo test",
      "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER=./w cargo test",
      "RUSTFLAGS='-C linker=./w' cargo test",
      "env RUSTC_WRAPPER=./w cargo test",
      "cargo test $ARGS",
      "RUSTUP_HOME=/tmp/r cargo test",
      "GOROOT=/tmp/g go test ./...",
      "GOPROXY=https://example.com go test ./...",
    ])
      expect(unknown(command), command).toBe(true);
    for (const command of [
      "cargo test",
      "cargo test --workspace",
      "cargo test --release -- --nocapture",
      "CARGO_TERM_COLOR=always cargo test",
    ])
      expect(unknown(command), command).toBe(false);
  });

  it("reads make's --eval, a makefile from standard input, and variables holding code or naming make's own as opaque", () => {
    for (const command of [
      "make --eval='x:;rm -rf /' x",
      "make --ev='x:;rm -rf /' x",
      "make -E 'x:;rm -rf /' x",
      "make -f - x <<< 'x:'",
      "make -kf /dev/stdin x",
      "make 'X:=$(shell rm -rf /)'",
      "make Y='; rm -rf /'",
      "make 'X!=rm -rf /'",
      "make SHELL=/bin/sh",
      "make .SHELLFLAGS='-c rm'",
      "MAKEFLAGS=--eval=x: make",
      "Y='$(shell rm -rf /)' make",
      "echo --eval=x: | xargs make",
    ])
      expect(unknown(command), command).toBe(true);
    for (const command of [
      "make",
      "make test",
      "make -j4 build",
      "make test VERBOSE=1 CFLAGS=-O2",
      "make -f Makefile.ci test",
      "make -C docs html",
    ])
      expect(unknown(command), command).toBe(false);
  });

  it("reads go's -exec, -toolexec and GOFLAGS, and pytest's plugins, overrides and warning modules, as opaque", () => {
    for (const command of [
      "go test -exec ./w ./...",
      "go test --toolexec=./w ./...",
      "go test . -exec=./w",
      "GOFLAGS=-toolexec=./w go test ./...",
      "python3 -m pytest -p evil",
      "python3 -m pytest -pevil",
      "python3 -m pytest -W ignore::evil.X",
      "python3 -m pytest -o addopts='-p evil'",
      "python3 -m pytest -c /dev/stdin",
      "PYTEST_ADDOPTS='-p evil' python3 -m pytest",
      "PYTHONPATH=m python3 -m pytest",
      "python3 -mpytest -p evil",
      "pytest -p evil",
    ])
      expect(unknown(command), command).toBe(true);
    for (const command of [
      "go test ./...",
      "go test -run TestX -v -count=1 ./pkg/...",
      "python3 -m pytest -x tests/",
      "python3 -m pytest -p no:cacheprovider -W ignore::DeprecationWarning",
    ])
      expect(unknown(command), command).toBe(false);
  });

  it("lists the files tar, sort, tsc, go and pytest write, a directory's as every file under it", () => {
    const writes = (command: string): string[] => (analyseShell(command)?.files ?? []).filter((f) => f.writes).map((f) => f.path);
    expect(writes("sort -uo out.txt in.txt")).toEqual(["out.txt"]);
    expect(writes("tar -xzf a.tgz -C vendor")).toEqual(["vendor/**"]);
    expect(writes("tar xfC a.tar dir")).toEqual(["dir/**"]);
    expect(writes("tar -tf a.tar")).toEqual([]);
    expect(writes("tar -czf out.tgz src")).toEqual(["out.tgz"]);
    expect(writes("npx tsc --outDir dist")).toEqual(["dist/**"]);
    expect(writes("npx tsc@5 --outDir dist")).toEqual(["dist/**"]);
    expect(writes("tsc -OUTFILE out.js")).toEqual(["out.js"]);
    expect(writes("go test -coverprofile=c.out ./...")).toEqual(["c.out"]);
    expect(analyseShell("go test -C /tmp -o x ./...")?.files).toEqual([{ path: "x", literal: false, writes: true }]);
    expect(writes("python3 -m pytest --junitxml r.xml --basetemp=tmp")).toEqual(["r.xml", "tmp/**"]);
  });
});

describe("variables bash holds as integers", () => {
  it("reads an assignment of anything but a number to OPTIND, RANDOM, SRANDOM, HISTCMD or SECONDS as opaque", () => {
    for (const command of [
      "OPTIND='a[$(rm -rf /)]'; echo",
      "printf -v OPTIND x",
      "read RANDOM",
      "for SECONDS in x; do :; done",
      "declare HISTCMD=x",
      "export SRANDOM=x",
      "OPTIND+=1",
    ])
      expect(unknown(command), command).toBe(true);
    for (const command of ["OPTIND=1; echo", "RANDOM=42; echo $RANDOM", "local OPTIND", "f() { local OPTIND=1; }"])
      expect(unknown(command), command).toBe(false);
  });

  it("reads jobs -x as running its words", () => {
    expect(catches("jobs -x rm -rf /")).toBe(true);
    expect(catches("jobs -l")).toBe(false);
  });
});

describe("variables given to a command", () => {
  const allow = compileAllowRules(
    ["Bash(docker ps:*)", "Bash(npm run test:*)", "Bash(env *)", "Bash(export *)", "Bash(set *)", "Bash(read *)"],
    "test",
  );
  const allowed = (command: string): boolean => allow({ id: "1", name: "Bash", input: { command } }) !== undefined;

  it("lets an allow rule accept only the variables known to change nothing about what runs", () => {
    for (const command of [
      "NODE_ENV=test npm run test",
      "CI=1 LANG=C.UTF-8 TZ=UTC npm run test",
      "env NODE_ENV=test docker ps",
      "export NODE_ENV=test; npm run test",
    ])
      expect(allowed(command), command).toBe(true);
    for (const command of [
      "FOO=1 npm run test",
      "HTTPS_PROXY=http://h npm run test",
      "LANG=/tmp/x npm run test",
      "env FOO=1 docker ps",
      "export FOO=1; docker ps",
      "declare -x FOO=1; docker ps",
      "FOO=1; export FOO; docker ps",
      "set -a; FOO=1; docker ps",
      "set -o allexport; FOO=1; docker ps",
      "set -a; read -r FOO <<< 1; docker ps",
      "set -a; for FOO in 1; do docker ps; done",
    ])
      expect(allowed(command), command).toBe(false);
  });

  it("lets a rule name such a variable as written", () => {
    const named = compileAllowRules(["Bash(FOO=1 npm run test)", "Bash(npm run test:*)"], "test");
    expect(named({ id: "1", name: "Bash", input: { command: "FOO=1 npm run test" } })).toBeDefined();
  });

  it("reads the families of variables that name a program's configuration, code, server or output as opaque", () => {
    for (const command of [
      "DOCKER_HOST=ssh://h docker ps",
      "DOCKER_CONFIG=. docker ps",
      "GH_CONFIG_DIR=. gh pr view 1",
      "GH_BROWSER=x gh pr view 1 --web",
      "CURL_HOME=. curl -s https://x",
      "XDG_DATA_HOME=. ls",
      "LESS='+!cmd' git log",
      "LESSKEY=k git log",
      "LD_DEBUG_OUTPUT=/tmp/o ls",
      "LD_AUDIT=./a.so ls",
      "GIT_NAMESPACE=x git log",
      "GIT_CEILING_DIRECTORIES=/ git log",
      "NODE_V8_COVERAGE=/tmp/c npm test",
      "NODE_EXTRA_CA_CERTS=ca.pem npm test",
      "export DOCKER_HOST=ssh://h; docker ps",
      "env DOCKER_HOST=ssh://h docker ps",
      "sudo DOCKER_HOST=ssh://h docker ps",
    ])
      expect(analyseShell(command)?.opaque, command).toBe(true);
    for (const command of ["GIT_PAGER=cat git log", "GIT_AUTHOR_NAME=a GIT_COMMITTER_EMAIL=a@b git commit -m x", "NODE_ENV=test npm test"])
      expect(analyseShell(command)?.opaque, command).toBe(false);
  });
});

describe("files wrappers write and variables they set by their options", () => {
  const written = (command: string): string[] => (analyseShell(command)?.files ?? []).filter((f) => f.writes).map((f) => f.path);
  // Each checked against the real program where it is installed.
  const cases: [string, string, string][] = [
    ["script", "script -q -c true out", "out"],
    ["script", "script -qc true", "typescript"],
    ["script", "script -q -O log -c true", "log"],
    ["strace", "strace -o out true", "out"],
    ["strace", "strace -fo out true", "out"],
    ["ltrace", "ltrace -o out true", "out"],
    ["time", "command time -o out true", "out"],
    ["flock", "flock out true", "out"],
  ];
  it.each(cases)("reads %s's written file in %s", (program, command, file) => {
    if (spawnSync("bash", ["-c", `command -v ${program}`]).status === 0) {
      const dir = mkdtempSync(join(tmpdir(), "agent-onion-wrapper-writes-"));
      try {
        spawnSync("bash", ["-c", `${command} >/dev/null 2>&1`], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir } });
        expect(existsSync(join(dir, file)), `${program} wrote ${file}`).toBe(true);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    expect(written(command)).toContain(file);
  });

  it("reads a variable a wrapper sets as one set before the command", () => {
    expect(analyseShell("strace -o /dev/null -E BASH_ENV=./x bash -c :")?.opaque).toBe(true);
    expect(analyseShell("strace -E LD_PRELOAD=./x.so ls")?.opaque).toBe(true);
    const allow = compileAllowRules(["Bash(strace:*)", "Bash(ls:*)"], "test");
    expect(allow({ id: "1", name: "Bash", input: { command: "strace -o /dev/null -E FOO=1 ls" } })).toBeUndefined();
    expect(allow({ id: "1", name: "Bash", input: { command: "strace -o /dev/null -E NODE_ENV=1 ls" } })).toBeDefined();
  });

  it("reads options that name a program a wrapper runs as opaque", () => {
    expect(analyseShell("dbus-run-session --dbus-daemon=./x true")?.opaque).toBe(true);
    expect(analyseShell("systemd-run -p ExecStartPre=/x true")?.opaque).toBe(true);
  });
});
