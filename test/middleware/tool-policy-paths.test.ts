/**
 * Path rules on a real directory tree with real symbolic links, as a corpus of labelled cases. Each
 * deny case runs through a hook `match` and through `toolPolicy`'s deny list; each allow case
 * through `toolPolicy`'s allow list. `P` is the project directory, the calls' working directory.
 */
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgentStack, type ToolCall } from "../../src/agent/index.ts";
import { Reject } from "../../src/core/action.ts";
import { compileMatcher } from "../../src/core/match/matcher.ts";
import type { PathOptions } from "../../src/core/match/types.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { approval } from "../../src/middleware/approval.ts";
import { toolPolicy } from "../../src/middleware/tool-policy.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-onion-paths-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const P = join(root, "proj");
const home = join(root, "home");
const outside = join(root, "outside");
for (const dir of [`${P}/src/lib`, `${P}/config`, `${P}/secrets`, `${P}/Docs`, outside, `${home}/.ssh`])
  mkdirSync(dir, { recursive: true });
for (const file of [
  `${P}/src/a.ts`,
  `${P}/src/lib/b.ts`,
  `${P}/.env`,
  `${P}/config/.env`,
  `${P}/secrets/key.pem`,
  `${P}/Docs/README.md`,
  `${outside}/x.ts`,
  `${home}/.ssh/id_rsa`,
])
  writeFileSync(file, "x");
symlinkSync("/etc", `${P}/src/etc`); // a directory link out of the project, absolute
symlinkSync("../../outside", `${P}/src/out`); // a directory link out of the project, relative
symlinkSync("lib", `${P}/src/inner`); // a directory link within the project
symlinkSync("/etc/passwd", `${P}/src/passwd-link`); // a file link out of the project
symlinkSync(P, join(root, "projlink")); // another name for the project
symlinkSync(`${outside}/new.txt`, `${P}/src/dangling`); // a link to a file that does not exist yet, out of the project
symlinkSync(`${outside}/nodir`, `${P}/src/dangdir`); // a link to a directory that does not exist yet
symlinkSync("loop-b", `${P}/src/loop-a`); // links in a circle
symlinkSync("loop-a", `${P}/src/loop-b`);
symlinkSync(outside, `${P}/src/cafe\u0301`); // a link whose name is in NFD: another name than "café" (NFC) on Linux
symlinkSync(outside, `${P}/src/win\\out`); // a link whose name holds a backslash, one name on POSIX
linkSync(`${outside}/x.ts`, `${P}/src/hard.ts`); // a second name, in src, for a file outside
mkdirSync(`${P}/src/deep/er`, { recursive: true });
writeFileSync(`${P}/src/deep/er/key.pem`, "x");

const depth = P.split("/").length - 1;
const up = "../".repeat(depth + 2); // more than enough to climb to the root from P

interface Case {
  readonly label: string;
  readonly side: "deny" | "allow";
  readonly rule: string;
  readonly tool: string;
  readonly input: Record<string, unknown>;
  /** deny: the call is refused; allow: the call is allowed. */
  readonly expected: boolean;
  readonly paths?: PathOptions;
  readonly cwd?: string;
}

const deny = (
  label: string,
  rule: string,
  tool: string,
  input: Record<string, unknown>,
  expected: boolean,
  extra: Partial<Case> = {},
): Case => ({ label, side: "deny", rule, tool, input, expected, ...extra });
const allow = (
  label: string,
  rule: string,
  tool: string,
  input: Record<string, unknown>,
  expected: boolean,
  extra: Partial<Case> = {},
): Case => ({ label, side: "allow", rule, tool, input, expected, ...extra });
const file = (path: string) => ({ file_path: path });

const corpus: Case[] = [
  // dot segments and repeated separators, resolved against the working directory
  deny("a relative path climbing to /etc", "Write(/etc/**)", "Write", file(`${up}etc/passwd`), true),
  deny("three .. from the project to /etc", "Write(/etc/**)", "Write", file(`${"../".repeat(depth)}etc/passwd`), true),
  deny("a path that climbs out and back in to .env", "Read(**/.env)", "Read", file(`${up}${P.slice(1)}/.env`), true),
  deny("the absolute path of .env", "Read(**/.env)", "Read", file(`${P}/.env`), true),
  deny("a .env anywhere, outside the project too", "Read(**/.env)", "Read", file("/nowhere/else/.env"), true),
  deny("src/.. back to .env", "Read(**/.env)", "Read", file(`${P}/src/../.env`), true),
  deny("repeated separators", "Read(**/.env)", "Read", file(`${P}//config///.env`), true),
  deny("a bare name matches at any depth", "Read(.env)", "Read", file("config/.env"), true),
  deny("a file that is not .env", "Read(**/.env)", "Read", file("src/a.ts"), false),
  allow("dot and repeated separators inside src", "Write(src/**)", "Write", file("src/./lib//b.ts"), true),
  allow("src/.. leaves src", "Write(src/**)", "Write", file("src/../.env"), false),
  allow("climbing out of src and the project", "Write(src/**)", "Write", file("src/lib/../../../outside/x.ts"), false),
  allow("a dotted path that climbs out and back into src", "Write(src/**)", "Write", file(`${up}${P.slice(1)}/src/a.ts`), true),

  // relative rules and the absolute paths tools send
  allow("a relative rule and the absolute path a tool sends", "Write(src/**/*.ts)", "Write", file(`${P}/src/a.ts`), true),
  allow("a relative rule and a relative path", "Write(src/**/*.ts)", "Write", file("src/lib/b.ts"), true),
  allow("a relative rule does not match another project's src", "Write(src/**)", "Write", file(`${outside}/src/a.ts`), false),
  allow("src/** is anchored at the project", "Write(src/**)", "Write", file("lib/src/a.ts"), false),
  allow("./src/** is the project's src", "Write(./src/**)", "Write", file(`${P}/src/a.ts`), true),
  allow("/src/** read from the project", "Write(/src/**)", "Write", file(`${P}/src/a.ts`), true),
  deny("/etc/** read from the root", "Write(/etc/**)", "Write", file("/etc/passwd"), true),
  allow("//abs/path is absolute", `Write(/${P}/src/**)`, "Write", file("src/a.ts"), true),
  allow("a bare-name allow stays inside the project", "Read(*.ts)", "Read", file(`${outside}/x.ts`), false),
  allow("a bare-name allow at any depth in the project", "Read(*.ts)", "Read", file("src/lib/b.ts"), true),
  deny("~/ is the home directory, given as ~", "Read(~/.ssh/**)", "Read", file("~/.ssh/id_rsa"), true, { paths: { home } }),
  deny("~/ is the home directory, given absolute", "Read(~/.ssh/**)", "Read", file(`${home}/.ssh/id_rsa`), true, { paths: { home } }),
  deny("a directory rule covers its contents, as in .gitignore", "Read(secrets)", "Read", file("secrets/key.pem"), true),
  deny("the run's metadata.cwd resolves relative paths", `Read(/${P}/config/.env)`, "Read", file(".env"), true, { cwd: `${P}/config` }),
  allow("the run's metadata.cwd resolves relative paths (allow)", "Write(src/**)", "Write", file("b.ts"), true, { cwd: `${P}/src/lib` }),

  // aliases of the root
  deny("/proc/self/root", "Write(/etc/**)", "Write", file("/proc/self/root/etc/passwd"), true),
  deny("/proc/self/root without resolving links", "Write(/etc/**)", "Write", file("/proc/self/root/etc/passwd"), true, {
    paths: { symlinks: false },
  }),
  deny("/proc/thread-self/root", "Write(/etc/**)", "Write", file("/proc/thread-self/root/etc/hosts"), true, { paths: { symlinks: false } }),
  deny("/proc/<own pid>/root", "Write(/etc/**)", "Write", file(`/proc/${process.pid}/root/etc/passwd`), true, {
    paths: { symlinks: false },
  }),
  deny("/proc/self/task/<tid>/root", "Write(/etc/**)", "Write", file(`/proc/self/task/${process.pid}/root/etc/passwd`), true, {
    paths: { symlinks: false },
  }),
  deny("/proc/self/root/.. stays at the root", "Write(/etc/**)", "Write", file("/proc/self/root/../../etc/passwd"), true, {
    paths: { symlinks: false },
  }),
  deny("another process's root is opaque", "Write(//nothing/here)", "Write", file("/proc/1/root/etc/passwd"), true),
  allow("another process's root allows nothing", "Write(**)", "Write", file("/proc/1/root/tmp/x"), false),
  deny("a process's cwd is opaque", "Read(//nothing/here)", "Read", file("/proc/self/cwd/.env"), true),
  deny("a path through /dev/fd/N is opaque", "Read(//nothing/here)", "Read", file("/dev/fd/3/etc/passwd"), true),
  allow("a path through /proc/self/fd/N allows nothing", "Read(**)", "Read", file("/proc/self/fd/3/src/a.ts"), false),

  // symbolic links, resolved by default
  allow("a link out of src does not pass an allow on src", "Write(src/**)", "Write", file("src/etc/passwd"), false),
  deny("a deny on the link's target catches the link", "Write(/etc/**)", "Write", file("src/etc/passwd"), true),
  deny("without resolving links, the deny sees only the given path", "Write(/etc/**)", "Write", file("src/etc/passwd"), false, {
    paths: { symlinks: false },
  }),
  allow("without resolving links, the allow sees only the given path", "Write(src/**)", "Write", file("src/etc/passwd"), true, {
    paths: { symlinks: false },
  }),
  allow("a new .ts file through a link out of src", "Write(src/**/*.ts)", "Write", file("src/etc/new.ts"), false),
  allow("a new file in a new directory through a relative link out", "Edit(src/**)", "Edit", file("src/out/new/x.ts"), false),
  deny("a deny on the relative link's target", `Edit(/${outside}/**)`, "Edit", file("src/out/x.ts"), true),
  allow("a link within src", "Edit(src/**)", "Edit", file("src/inner/b.ts"), true),
  deny("a file link to /etc/passwd", "Read(//etc/passwd)", "Read", file("src/passwd-link"), true),
  allow("a file link out of src", "Read(src/**)", "Read", file("src/passwd-link"), false),
  deny("link/.. is the link target's parent, as the kernel reads it", "Read(//hosts)", "Read", file("src/etc/../hosts"), true),
  allow("link/.. leaves src", "Read(src/**)", "Read", file("src/etc/../hosts"), false),
  allow("a dangling link out of src: writing it creates its target", "Write(src/**)", "Write", file("src/dangling"), false),
  deny("a dangling link's target is caught by a deny on it", `Write(/${outside}/**)`, "Write", file("src/dangling"), true),
  allow("a new file under a dangling directory link", "Write(src/**)", "Write", file("src/dangdir/x.ts"), false),
  allow("links in a circle allow nothing", "Write(src/**)", "Write", file("src/loop-a/x"), false),
  allow("a project reached through a link to it", "Write(src/**)", "Write", file("src/a.ts"), true, { cwd: join(root, "projlink") }),

  // case
  deny("case-insensitive when asked", "Read(**/readme.md)", "Read", file("Docs/README.MD"), true, { paths: { caseInsensitive: true } }),
  deny("case-sensitive when asked", "Read(**/readme.md)", "Read", file("Docs/README.MD"), false, { paths: { caseInsensitive: false } }),
  allow("case-insensitive allow", "Read(docs/**)", "Read", file("DOCS/README.md"), true, { paths: { caseInsensitive: true } }),
  allow("case-sensitive allow", "Read(docs/**)", "Read", file("Docs/README.md"), false, { paths: { caseInsensitive: false } }),

  // tool families
  deny("Read covers NotebookRead", "Read(**/.env)", "NotebookRead", { notebook_path: ".env" }, true),
  deny("Read covers Grep on a file", "Read(**/.env)", "Grep", { pattern: "KEY", path: ".env" }, true),
  deny("Read covers Grep with a file pattern naming it", "Read(**/.env)", "Grep", { pattern: "KEY", glob: ".env" }, true),
  deny("Read covers Grep with a wider file pattern naming it", "Read(**/.env)", "Grep", { pattern: "KEY", glob: "*.env" }, true),
  deny("Read covers Glob listing it", "Read(**/.env)", "Glob", { pattern: "**/.env" }, true),
  deny("Read covers Grep in a denied directory", "Read(/etc/**)", "Grep", { pattern: "root", path: "/etc" }, true),
  deny("Read covers Glob under a denied directory", "Read(/etc/**)", "Glob", { pattern: "*", path: "/etc/ssh" }, true),
  deny("Read covers Glob whose absolute pattern goes there", "Read(/etc/**)", "Glob", { pattern: "/etc/*" }, true),
  deny("Read covers Glob whose relative pattern climbs there", "Read(/etc/**)", "Glob", { pattern: `${up}etc/*` }, true),
  deny("Read covers a brace alternative that is absolute", "Read(/etc/**)", "Glob", { pattern: "{/etc,x}/passwd", path: "src" }, true),
  deny("Read covers LS of a denied directory", "Read(~/.ssh/**)", "LS", { path: `${home}/.ssh` }, true, { paths: { home } }),
  deny("Read covers a search through a link into a denied directory", "Read(/etc/**)", "Grep", { pattern: "root", path: "src/etc" }, true),
  deny("a `..` inside unexpanded braces is opaque", "Read(//nothing/here)", "Glob", { pattern: "{..,x}/secrets/*", path: "src" }, true),
  deny("a Glob of other files is not refused by a file rule", "Read(**/.env)", "Glob", { pattern: "**/*.{ts,tsx}" }, false),
  deny("Read covers a Glob that escapes a letter of the file", "Read(**/.env)", "Glob", { pattern: ".en\\v" }, true),
  deny("Read covers a Grep glob that escapes a letter of the file", "Read(**/.env)", "Grep", { pattern: "x", glob: "\\.env" }, true),
  deny("an extended glob is opaque", "Read(**/.env)", "Glob", { pattern: "@(.env)" }, true),
  deny("an extended glob deeper down is opaque", "Read(**/.env)", "Glob", { pattern: "src/+(x|.env)" }, true),
  deny("a search without a file pattern is checked by its directory", "Read(**/.env)", "Grep", { pattern: "KEY" }, false),
  deny("a search without a file pattern reads its contents when asked", "Read(**/.env)", "Grep", { pattern: "KEY" }, true, {
    paths: { searchContents: true },
  }),
  deny("a recursive Glob reads a directory rule's contents when asked", "Read(**/secrets/**)", "Glob", { pattern: "**/*.pem" }, true, {
    paths: { searchContents: true },
  }),
  deny("Read does not cover Write", "Read(**/.env)", "Write", file(".env"), false),
  deny("Edit covers Write", "Edit(secrets/**)", "Write", file("secrets/key.pem"), true),
  deny("Edit covers MultiEdit", "Edit(secrets/**)", "MultiEdit", file("secrets/key.pem"), true),
  deny("Edit covers NotebookEdit", "Edit(secrets/**)", "NotebookEdit", { notebook_path: "secrets/n.ipynb" }, true),
  deny("Write covers Edit", "Write(secrets/**)", "Edit", file("secrets/key.pem"), true),
  deny("Edit does not cover Read", "Edit(secrets/**)", "Read", file("secrets/key.pem"), false),
  deny("a Grep rule covers Grep only", "Grep(secrets/**)", "Read", file("secrets/key.pem"), false),
  allow("Read allows Grep in an allowed directory", "Read(src/**)", "Grep", { pattern: "TODO", path: "src", glob: "*.ts" }, true),
  allow("Read allows Glob under an allowed directory", "Read(src/**)", "Glob", { pattern: "src/**/*.ts" }, true),
  allow("Read allows LS of an allowed directory", "Read(src/**)", "LS", { path: "src" }, true),
  allow("Read does not allow a Glob from the project root", "Read(src/**)", "Glob", { pattern: "**/*.ts" }, false),
  allow("Read does not allow a Grep without a path (the working directory)", "Read(src/**)", "Grep", { pattern: "TODO" }, false),
  allow("Read does not allow a Glob through a link out of src", "Read(src/**)", "Glob", { pattern: "src/etc/*" }, false),
  allow("Edit allows MultiEdit in src", "Edit(src/**)", "MultiEdit", file("src/a.ts"), true),
  allow("Edit does not allow Read", "Edit(src/**)", "Read", file("src/a.ts"), false),

  // names as the kernel reads them: bytes, not normalised text; a backslash is part of a name on POSIX
  allow("an NFD-named link out of src", "Write(src/**)", "Write", file("src/cafe\u0301/x.ts"), false),
  deny("an NFD-named link to a denied directory", `Write(/${outside}/**)`, "Write", file("src/cafe\u0301/x.ts"), true),
  allow("an NFC name of a new file in src", "Write(src/**)", "Write", file("src/caf\u00e9.ts"), true),
  allow("an NFD directory is not the NFC one a rule names", "Write(src/na\u00efve/**)", "Write", file("src/nai\u0308ve/a.ts"), false),
  allow("an NFD directory a rule names in NFD", "Write(src/nai\u0308ve/**)", "Write", file("src/nai\u0308ve/a.ts"), true),
  allow("an NFC directory a rule names in NFC", "Write(src/na\u00efve/**)", "Write", file("src/na\u00efve/a.ts"), true),
  deny("an NFD path to an NFC directory deny rule", "Write(src/na\u00efve/**)", "Write", file("src/nai\u0308ve/a.ts"), true),
  deny("an NFD path to an NFC deny rule", "Read(**/caf\u00e9.env)", "Read", file("cafe\u0301.env"), true),
  allow("a backslash-named link out of src", "Write(src/**)", "Write", file("src/win\\out/x.ts"), false),
  deny("a backslash-named link to a denied directory", `Write(/${outside}/**)`, "Write", file("src/win\\out/x.ts"), true),
  deny("backslashes read as separators by a deny", "Read(**/.env)", "Read", file("config\\.env"), true),
  allow("a backslash in a new file's name in src", "Write(src/**)", "Write", file("src/a\\b.ts"), true),

  // a tool that normalises the path first (path.resolve) drops `missing/..`, then follows links
  allow("missing/.. before a link out of src", "Write(src/**)", "Write", file("src/missing/../out/x.ts"), false),
  deny("missing/.. before a link to a denied directory", `Write(/${outside}/**)`, "Write", file("src/missing/../out/x.ts"), true),
  allow("missing/.. that stays in src", "Write(src/**)", "Write", file("src/missing/../lib/b.ts"), true),
  deny("a path with spaces around it, read trimmed", "Read(**/.env)", "Read", file(` ${P}/.env `), true),

  // hard links: a file with another name elsewhere
  allow("writing a file hard-linked from outside src", "Write(src/**)", "Write", file("src/hard.ts"), false),
  allow("editing a file hard-linked from outside src", "Edit(src/**)", "Edit", file("src/hard.ts"), false),
  allow("reading a hard-linked file in src", "Read(src/**)", "Read", file("src/hard.ts"), true),
  allow("writing a hard-linked file when links are not resolved", "Write(src/**)", "Write", file("src/hard.ts"), true, {
    paths: { symlinks: false },
  }),

  // very long paths and trailing separators
  deny("a very long path through a link", `Write(/${outside}/**)`, "Write", file(`src/out/${"a/".repeat(3000)}x`), true),
  allow("a very long path through a link allows nothing", "Write(src/**)", "Write", file(`src/out/${"a/".repeat(3000)}x`), false),
  deny(
    "a name longer than any file system allows, after a link",
    `Write(/${outside}/**)`,
    "Write",
    file(`src/out/${"b".repeat(300)}/x`),
    true,
  ),
  deny("a link with a trailing /.", `Read(/${outside}/**)`, "Read", file("src/out/."), true),
  deny("a link with a trailing /", `Read(/${outside}/**)`, "Read", file("src/out/"), true),

  // paths that are no file's name, or that name a descriptor of the tool's own process
  deny("a NUL in the path", "Read(//nothing/here)", "Read", file(`${P}/.env\u0000.txt`), true),
  allow("a NUL in the path allows nothing", "Read(**)", "Read", file(`${P}/src/a.ts\u0000`), false),
  deny("/dev/stdin is the tool's descriptor", "Read(//nothing/here)", "Read", file("/dev/stdin"), true),
  deny("/proc/self/fd/N is the tool's descriptor", "Read(//nothing/here)", "Read", file("/proc/self/fd/7"), true),
  deny("/dev/fd/N is the tool's descriptor", "Write(//nothing/here)", "Write", file("/dev/fd/1"), true),
  allow("/dev/fd/N allows nothing", "Write(**)", "Write", file("/dev/fd/1"), false),

  // home directories as tools and shells expand them
  deny("$HOME is the home directory", "Read(~/.ssh/**)", "Read", file("$HOME/.ssh/id_rsa"), true, { paths: { home } }),
  deny("${HOME} is the home directory", "Read(~/.ssh/**)", "Read", file("${HOME}/.ssh/id_rsa"), true, { paths: { home } }),
  deny("~root is root's home", "Read(//root/**)", "Read", file("~root/.ssh/id_rsa"), true),
  allow("$HOME allows only what the home directory does", "Read(src/**)", "Read", file("$HOME/.ssh/id_rsa"), false, { paths: { home } }),

  // searches as ripgrep reads their globs
  deny("Grep's glob is several globs split on commas", "Read(**/.env)", "Grep", { pattern: "x", glob: "*.ts,.env" }, true),
  deny("Grep's glob is several globs split on spaces", "Read(**/.env)", "Grep", { pattern: "x", glob: "*.ts .env" }, true),
  deny("a Grep of other files is not refused", "Read(**/.env)", "Grep", { pattern: "x", glob: "*.ts,*.md" }, false),
  deny("a glob without / names files at any depth", "Read(src/deep/er/*.pem)", "Glob", { pattern: "*.pem" }, true),
  deny("an absolute Glob reads its file pattern at any depth", "Read(//etc/ssl/private/*.key)", "Glob", { pattern: "/etc/*.key" }, true),
  deny("only exclusions: an unfiltered search, read when asked", "Read(**/.env)", "Grep", { pattern: "x", glob: "!*.ts" }, true, {
    paths: { searchContents: true },
  }),
  deny("an exclusion names no file", "Read(**/.env)", "Grep", { pattern: "x", glob: "!.env" }, false),
  allow("Read allows a Grep of src with several globs", "Read(src/**)", "Grep", { pattern: "x", path: "src", glob: "*.ts *.tsx" }, true),
  allow("Read allows an absolute Glob inside src", "Read(src/**)", "Glob", { pattern: `${P}/src/**/*.ts` }, true),
];

const call = (tool: string, input: Record<string, unknown>): ToolCall => ({ id: "t1", name: tool, input });
const pathsOf = (c: Case): PathOptions => ({ projectDir: P, cwd: P, ...c.paths });
const metadataOf = (c: Case) => (c.cwd === undefined ? {} : { cwd: c.cwd });

const throughPolicy = async (c: Case): Promise<boolean> => {
  const policy = toolPolicy({ [c.side]: [c.rule], paths: pathsOf(c), onUnknownTool: () => {} });
  const outcome = await withMiddleware(createAgentStack(), policy).run("toolCall", call(c.tool, c.input), () => ({ content: "ran" }), {
    metadata: metadataOf(c),
  });
  return c.side === "deny" ? outcome._tag === "Rejected" : outcome._tag === "Completed";
};

const throughHook = async (c: Case): Promise<boolean> => {
  const stack = createAgentStack().use("toolCall", {
    name: "guard",
    match: compileMatcher(c.rule, "guard", { paths: pathsOf(c) }),
    before: () => Reject("refused"),
  });
  const outcome = await stack.run("toolCall", call(c.tool, c.input), () => ({ content: "ran" }), { metadata: metadataOf(c) });
  return outcome._tag === "Rejected";
};

describe("path rules on a real tree with symbolic links", () => {
  it.each(corpus.map((c) => [c.label, c] as const))("%s", async (_label, c) => {
    expect(await throughPolicy(c), `toolPolicy ${c.side} ${c.rule} on ${c.tool} ${JSON.stringify(c.input)}`).toBe(c.expected);
    if (c.side === "deny") expect(await throughHook(c), `hook match ${c.rule} on ${c.tool} ${JSON.stringify(c.input)}`).toBe(c.expected);
  });

  it("covers every form the task names, on both sides", () => {
    const sides = new Set(corpus.map((c) => c.side));
    expect([...sides].sort()).toEqual(["allow", "deny"]);
    expect(corpus.filter((c) => c.expected).length).toBeGreaterThan(20);
    expect(corpus.filter((c) => !c.expected).length).toBeGreaterThan(20);
  });
});

describe("path rules and an approver's edit", () => {
  const edited = (to: Record<string, unknown>) =>
    withMiddleware(
      createAgentStack({ approval: (r) => ({ decision: "edit", input: { ...(r.input as ToolCall), input: to } }) }),
      toolPolicy({ deny: [`Write(/${outside}/**)`], allow: ["Write(src/**)"], paths: { projectDir: P, cwd: P } }),
      approval({ match: "Write", timeoutMs: 2_000 }),
    );
  const run = async (to: Record<string, unknown>) => {
    const ran: unknown[] = [];
    const outcome = await edited(to).run(
      "toolCall",
      call("Write", { file_path: "src/a.ts", content: "x" }),
      (c) => (ran.push(c), { content: "ran" }),
    );
    return { outcome, ran };
  };

  it.each([
    ["a path through a link out of the project", { file_path: "src/out/x.ts", content: "x" }],
    ["a path through an NFD-named link", { file_path: "src/cafe\u0301/x.ts", content: "x" }],
    ["a second path field the tool may read", { file_path: "src/a.ts", path: `${outside}/x.ts`, content: "x" }],
    ["a path with missing/.. before a link", { file_path: "src/missing/../out/x.ts", content: "x" }],
  ])("reads the edited path again: %s is refused", async (_label, to) => {
    const { outcome, ran } = await run(to);
    expect(outcome._tag).toBe("Rejected");
    expect(ran).toEqual([]);
  });

  it("runs an edit to another allowed path", async () => {
    const { outcome, ran } = await run({ file_path: "src/lib/b.ts", content: "x" });
    expect(outcome._tag).toBe("Completed");
    expect(ran).toMatchObject([{ input: { file_path: "src/lib/b.ts" } }]);
  });
});

describe("path rules with the default options", () => {
  it("read a hook's string match from the process's working directory, and /proc/self/root as the root", async () => {
    const stack = createAgentStack().use("toolCall", { name: "etc", match: "Write(/etc/**)", before: () => Reject("refused") });
    for (const path of ["/proc/self/root/etc/passwd", `${up}etc/passwd`, "/etc//passwd"])
      expect(await stack.run("toolCall", call("Write", file(path)), () => ({ content: "ran" })), path).toMatchObject({ _tag: "Rejected" });
    expect(await stack.run("toolCall", call("Write", file(`${P}/src/a.ts`)), () => ({ content: "ran" }))).toMatchObject({
      _tag: "Completed",
    });
  });

  it("normalise a path once per call, whatever the number of rules and hooks that read it", async () => {
    const realpaths = async (count: number): Promise<number> => {
      const stack = Array.from({ length: count }, (_, i) => i).reduce(
        (s, i) =>
          s.use("toolCall", {
            name: `guard${i}`,
            match: compileMatcher(`Write(/etc/dir${i}/**)`, `guard${i}`, { paths: { projectDir: P, cwd: P } }),
            before: () => Reject("refused"),
          }),
        withMiddleware(
          createAgentStack(),
          toolPolicy({ deny: Array.from({ length: count }, (_, i) => `Write(/etc/dir${i}/**)`), paths: { projectDir: P, cwd: P } }),
        ),
      );
      const native = realpathSync.native;
      let calls = 0;
      realpathSync.native = ((path: string) => (calls++, native(path))) as typeof native;
      try {
        expect(await stack.run("toolCall", call("Write", file("src/lib/new/x.ts")), () => ({ content: "ran" }))).toMatchObject({
          _tag: "Completed",
        });
      } finally {
        realpathSync.native = native;
      }
      return calls;
    };
    const one = await realpaths(1);
    expect(one).toBeGreaterThan(0);
    expect(await realpaths(50)).toBe(one);
  });

  it("refuse invalid path options at configuration, naming the option", () => {
    expect(() => toolPolicy({ deny: ["Read(x)"], paths: { symlinks: "yes" as never } })).toThrow(
      /toolPolicy: paths.symlinks must be a boolean/,
    );
    expect(() => compileMatcher("Read(x)", "h", { paths: { projectDir: 5 as never } })).toThrow(
      /hook "h": match options: paths.projectDir must be a non-empty string/,
    );
  });

  it("name the rule's list and place when one is refused at registration", () => {
    expect(() => toolPolicy({ deny: ["Bash", "(.*a){1000}"] })).toThrow(/^hook "toolPolicy": deny\[1\] "\(\.\*a\)\{1000\}" compiles to/);
    expect(() => toolPolicy({ allow: ["Read(src/*/../x)"] })).toThrow(/^hook "toolPolicy": allow\[0\] .*has "\.\." after a wildcard/);
  });

  it("refuse a rule that starts with a home variable, at registration, saying to write ~/", () => {
    expect(() => toolPolicy({ deny: ["Read($HOME/.ssh/**)"] })).toThrow(
      /rules do not expand; write ~\/ for the home directory \("~\/.ssh\/\*\*"\)/,
    );
    expect(() => compileMatcher("Read(${HOME}/.aws/**)", "guard")).toThrow(/^hook "guard": match .*write ~\//);
  });

  it("refuse a rule with .. after a wildcard, at registration", () => {
    expect(() => compileMatcher("Read(src/*/../../etc/**)", "h")).toThrow(
      /hook "h": match "Read\(src\/\*\/\.\.\/\.\.\/etc\/\*\*\)" has "\.\." after a wildcard/,
    );
  });
});
