import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * scripts/check-commits.mjs run as CI runs it, on a real repository: one commit per labelled
 * message.
 */
const script = fileURLToPath(new URL("../../scripts/check-commits.mjs", import.meta.url));
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
};
let dir = "";
const git = (...args: string[]): string => execFileSync("git", args, { cwd: dir, env, encoding: "utf8" }).trim();
const commit = (message: string): string => {
  git("commit", "-q", "--allow-empty", "--cleanup=verbatim", "-m", message);
  return git("rev-parse", "HEAD");
};
const check = (range: string) => spawnSync(process.execPath, [script, range], { cwd: dir, env, encoding: "utf8" });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "check-commits-"));
  git("init", "-q");
  commit("Start the repository");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const good = [
  "Parse shell commands with sh-syntax\n\nThe hand-written reader missed cases.",
  "Add a limit",
  "Embed the trace in the report",
  "Bring the docs in line with the code",
  "Process stdin once",
  "Focus the matcher on the subject",
  "Say what a rejected call returns",
  "Property-test composites and type-test match objects",
  "Re-export the matcher types",
  `Keep ${"x".repeat(67)}`,
];
const bad: [string, RegExp][] = [
  [`Keep ${"x".repeat(68)}`, /73 characters \(at most 72\)/],
  ["Added a limit", /"Added": use the imperative/],
  ["Adding a limit", /"Adding": use the imperative/],
  ["Adds a limit", /"Adds": use the imperative/],
  ["core: add a limit", /"core:", not a capitalised verb/],
  ["add a limit", /"add", not a capitalised verb/],
  ["Revert 3fa85f64a and keep the rest", /cites a commit hash \(3fa85f64a\)/],
  ["Add a limit.", /ends with a period/],
  ["Add a limit\nwith no blank line", /no blank line between subject and body/],
  ["fixup! Add a limit", /squash it before pushing/],
];

describe("the commit message check", () => {
  // One run over all the labelled commits: each case then reads its own commit's lines.
  let goodRun: ReturnType<typeof check>;
  let badRun: ReturnType<typeof check>;
  const badHashes = new Map<string, string>();
  beforeAll(() => {
    const start = git("rev-parse", "HEAD");
    for (const message of good) commit(message);
    goodRun = check(`${start}..HEAD`);
    const middle = git("rev-parse", "HEAD");
    for (const [message] of bad) badHashes.set(message, commit(message));
    badRun = check(`${middle}..HEAD`);
  });

  it("accepts subjects in the imperative, whatever their first verb ends with", () => {
    expect(goodRun.stderr).toBe("");
    expect(goodRun.status).toBe(0);
    expect(goodRun.stdout).toContain(`${good.length} commit message(s) follow the convention`);
  });

  it.each(bad)("refuses %j, saying why", (message, why) => {
    expect(badRun.status).toBe(1);
    const lines = badRun.stderr.split("\n").filter((line) => line.startsWith(badHashes.get(message)!.slice(0, 10)));
    expect(lines.join("\n")).toMatch(why);
  });

  it("skips merge commits, whose subjects git writes", () => {
    const base = git("rev-parse", "HEAD");
    git("checkout", "-q", "-b", "side");
    commit("Add a side change");
    git("checkout", "-q", "-");
    commit("Add a main change");
    git("merge", "-q", "--no-ff", "--no-edit", "side");
    const result = check(`${base}..HEAD`);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("2 commit message(s) follow the convention");
  });

  it("says so when its base is not in the clone, instead of passing", () => {
    const result = spawnSync(process.execPath, [script], {
      cwd: dir,
      env: { ...env, CHECK_COMMITS_BASE: "0123456789abcdef0123456789abcdef01234567" },
      encoding: "utf8",
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/is not in this clone/);
  });
});
