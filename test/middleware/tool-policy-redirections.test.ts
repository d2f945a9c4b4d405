/**
 * A shell command's redirections as file accesses of `toolPolicy`, on a real directory tree with real
 * symbolic links: the files a command writes (`> f`, `>> f`, `&> f`, git's `--output`) are checked
 * against `Edit(…)`/`Write(…)` rules, the files it reads (`< f`) against `Read(…)` deny rules.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bashDecision } from "./bash-decision.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-onion-redirections-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const P = join(root, "proj");
for (const dir of [`${P}/src/lib`, `${P}/config`, `${P}/.git`]) mkdirSync(dir, { recursive: true });
for (const file of [`${P}/src/a.ts`, `${P}/.env`, `${P}/config/.env`, `${P}/.git/config`]) writeFileSync(file, "x");
symlinkSync("/etc", `${P}/src/etc`); // a directory link out of the project
const up = "../".repeat(P.split("/").length + 1);

const ALLOW = [
  "Bash(echo *)",
  "Bash(cat *)",
  "Bash(printf *)",
  "Bash(git *)",
  "Bash(ls *)",
  "Bash(grep *)",
  "Bash(sed *)",
  "Bash(find *)",
  "Bash(mkdir *)",
  "Write(src/**/*.ts)",
];
const DENY = ["Bash(rm *)", "Read(**/.env)", "Write(/etc/**)"];

const decide = (command: string, rules: { allow?: string[]; deny?: string[] }) => bashDecision(command, rules, P);

describe("an allow list and the files a shell command writes", () => {
  const allowed = [
    "echo x > src/a.ts",
    "echo x >> src/lib/new.ts",
    `printf '%s\\n' x > ${P}/src/lib/b.ts`,
    "echo x > /dev/null 2>&1",
    "echo x >&2",
    "ls -la 2>/dev/null | grep x",
    "cat < README.md",
    "git status > /dev/null",
    "git log --output=src/a.ts",
    "git diff --outp=src/lib/b.ts",
    `git diff --output=${P}/src/lib/b.ts`,
    // earlier commands that make no link: the path is as known as it was
    "mkdir -p src/lib && echo x > src/lib/c.ts",
    "git status && git diff > src/lib/d.ts",
    "sed -i 's/a/b/' src/a.ts",
    "sed -n '1w src/lib/e.ts' src/a.ts",
    "find src -name '*.ts' -fprint src/lib/list.ts",
  ];
  it.each(allowed)("allows %s", async (command) => {
    expect(await decide(command, { allow: ALLOW })).toBe("ran");
  });

  const refused = [
    // a write no rule allows: the repository's configuration, a shell's start-up file, a file out of src
    "echo '[alias] x = !rm -rf /' >> .git/config && git x",
    "cat > .git/config <<'EOF'\n[alias]\n x = !rm -rf /\nEOF",
    "{ echo '[alias]'; echo 'x = !rm -rf /'; } >> .git/config",
    "f() { echo x; } > README.md; f",
    "echo x > >(cat > README.md)",
    "echo 'rm -rf /' > ~/.bashrc",
    "echo x > src/a.js",
    // a path that leaves src through a symbolic link, or climbs out of it
    "echo x > src/etc/x.ts",
    "echo x > src/../../x.ts",
    // a path computed at run time, or relative to a directory the command changes to
    'echo x > "$F"',
    "echo x > src/$(echo a).ts",
    "cd /tmp && echo x > src/a.ts",
    // git told to write a file
    "git log -1 --format=%B --output=.git/config",
    "git diff --outp=.git/config",
    "git checkout-index --prefix=.git/ -f config",
    "git --work-tree=.git checkout HEAD -- config",
    "git clone -q r /root/.config/git",
    "git -C src log --output=a.ts",
    "env -C src git log --output=a.ts",
    "GIT_WORK_TREE=.git git checkout HEAD -- config",
    // a script run by a shell, with a redirection of its own
    "bash -c 'echo x > README.md'",
    // a link made by an earlier command of the same call, which the path then goes through
    "git update-index --add --cacheinfo 120000,$(printf /etc | git hash-object -w --stdin),src/e && git checkout-index -f src/e && echo x > src/e/f.ts",
    "git checkout HEAD -- src/e; echo x >> src/e/f.ts",
    "for i in 1 2; do echo x > src/e/f.ts; git checkout-index -f src/e; done",
    "f() { echo x > src/e/f.ts; }; git checkout-index -f src/e; f",
    "echo x > src/e/f.ts & git stash pop",
    // what sed and find write by their own options
    "sed -i 's/a/b/' .git/config",
    "printf '[alias]\\n x = !rm -rf /\\n' | sed -n 'w .git/config'",
    "sed 's/^//w .git/config' src/a.ts",
    "find . -maxdepth 0 -fprintf .git/config '[alias]\\n x = !rm -rf /\\n'",
    "find src -fprint .git/hooks/pre-commit",
    "find src -name '*.ts' -delete",
    // git writing a file of the tree from another the allow list lets the agent write
    "git merge-file -q --theirs .git/config /dev/null src/a.ts",
  ];
  it.each(refused)("refuses %s", async (command) => {
    expect(await decide(command, { allow: ALLOW })).toBe("refused");
  });

  it("allows a write to any file to a bare Write or Edit allow rule", async () => {
    expect(await decide("tar -xf a.tar", { allow: ["Bash(tar *)", "Write"] })).toBe("ran");
    expect(await decide('echo x > "$F"', { allow: ["Bash(echo *)", "Edit"] })).toBe("ran");
  });
});

describe("an allow list and the files programs write by their own options", () => {
  const allow = [
    ...ALLOW,
    "Bash(sort *)",
    "Bash(tar *)",
    "Bash(npx tsc *)",
    "Bash(tsc *)",
    "Bash(python3 -m pytest *)",
    "Bash(go test *)",
    "Bash(cargo test *)",
    "Bash(make *)",
  ];
  const allowed = [
    "sort -o src/lib/sorted.ts src/a.ts",
    "sort -uo src/lib/sorted.ts src/a.ts",
    "sort -o /dev/stdout src/a.ts",
    "tar -tzf a.tgz",
    "tar -xOf a.tar",
    "tar -cf - src | cat",
    "npx tsc --noEmit",
    "npx tsc -b",
    "python3 -m pytest -x tests/",
    "python3 -m pytest -p no:cacheprovider",
    "go test ./...",
    "cargo test --workspace",
    "make test VERBOSE=1",
    "git apply --check x.patch",
  ];
  it.each(allowed)("allows %s", async (command) => {
    expect(await decide(command, { allow })).toBe("ran");
  });
  // Write(src/**/*.ts) covers none of these: each writes a file out of it, or every file of a directory.
  const refused = [
    "sort -o .git/config src/a.ts",
    "sort --out=conftest.py src/a.ts",
    "sort -mo/etc/x src/a.ts",
    "tar -xf a.tar",
    "tar xzf a.tgz",
    "tar -xf a.tar -C src",
    "tar -C /etc -xf a.tar",
    "tar xfC a.tar /etc",
    "tar --ext --file=a.tar",
    "tar -xPf a.tar",
    "tar -xf a.tar --one-top-level=/etc",
    "tar -cf - src --transform=s,.*,conftest.py, | tar -xf -",
    "tar -cf .git/config src",
    "tar czf conftest.py src",
    "tar -g .git/config -cf /dev/null src",
    "tar -cf /dev/null --remove-files src",
    "npx tsc --outDir /etc",
    "npx tsc -OUTDIR /etc",
    "npx tsc --outFile conftest.py src/a.ts",
    "npx tsc --init",
    "tsc --declarationDir src",
    "python3 -m pytest --basetemp=src",
    "python3 -m pytest --junitxml=.git/config",
    "python3 -m pytest --debug",
    "go test -o .git/hooks/pre-commit -c .",
    "go test -coverprofile .git/config ./...",
    "go test . -args -test.cpuprofile=.git/config",
    "cargo test --target-dir=src",
    "cargo test -- --logfile .git/config",
    "git apply <<< x",
    "git diff | git apply -R",
    "git am < x.mbox",
    "git checkout-index -f conftest.py",
    "git checkout-index -a -f",
  ];
  it.each(refused)("refuses %s", async (command) => {
    expect(await decide(command, { allow })).toBe("refused");
  });

  it("allows a directory's files when a rule covers every file under it", async () => {
    expect(await decide("tar -xf a.tar -C src", { allow: [...allow, "Write(src/**)"] })).toBe("ran");
    expect(await decide("npx tsc --outDir build", { allow: [...allow, "Edit(build/**)"] })).toBe("ran");
  });
});

describe("a deny list and the files a shell command opens", () => {
  const denied = [
    "echo x > /etc/passwd",
    `echo x > ${up}etc/passwd`,
    "echo x > /proc/self/root/etc/passwd",
    "echo x > src/etc/hosts",
    "echo x >> /etc//passwd",
    "echo x &> /etc/passwd",
    "echo x 2> /etc/x.log",
    "echo x >| /etc/passwd",
    "{ echo x; } > /etc/passwd",
    "sh -c 'echo x > /etc/passwd'",
    "echo x > $(echo /etc/passwd)",
    "git diff --output=/etc/passwd",
    "cat < .env",
    "grep x < config/.env",
    "cat < src/../.env",
    "source .env",
    ". ./config/.env && echo $X",
    "sed -n '1r .env' src/a.ts",
    "sed -i 's/a/b/' /etc/hosts",
    "sed -n 'w /etc/x' src/a.ts",
    "find src -fprint /etc/x",
    "git init /etc/x",
    "git config -f /etc/x user.name y",
    "git config --system user.name y",
    // a path opened after a command that may make a link is not known: every deny rule of its kind matches
    "ln -s x y; source ./config/env.sh",
    "source ./config/env.sh | ln -s x y",
    "sort -o /etc/x src/a.ts",
    "tar -xf a.tar -C /etc",
    "npx tsc --outDir /etc",
    "go test -o /etc/x -c .",
  ];
  it.each(denied)("refuses %s", async (command) => {
    expect(await decide(command, { deny: DENY })).toBe("refused");
  });

  const passed = [
    "echo x > src/a.ts",
    "echo x > /dev/null",
    "cat < README.md",
    // a program's own file arguments are its own: the shell analysis sees redirections, not what cat opens
    "cat .env",
    "echo x | tee /etc/passwd",
    // a file the first command opens before anything else of the text runs keeps its path
    "source ./config/env.sh && echo $X",
  ];
  it.each(passed)("lets %s through", async (command) => {
    expect(await decide(command, { deny: DENY })).toBe("ran");
  });
});
