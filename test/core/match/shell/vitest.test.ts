/**
 * vitest's options as the analysis reads them, with the real vitest of this project for the options that
 * load code or write files: a known harmless option leaves the call as written; any other option makes it
 * count as computed at run time, which only a rule naming vitest alone allows.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { analyseShell } from "../../../../src/core/match/shell.ts";
import { compileAllowRules } from "../../../../src/middleware/tool-rules.ts";

const vitest = resolve("node_modules/.bin/vitest");
const scratch = mkdtempSync(join(tmpdir(), "agent-onion-vitest-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const allow = compileAllowRules(["Bash(npx vitest run:*)", "Bash(vitest run:*)", "Edit(src/**)"], "test", {
  cwd: scratch,
  projectDir: scratch,
});
const allowed = (command: string): boolean => allow({ id: "1", name: "Bash", input: { command } }) !== undefined;

/** Run the real vitest in a fresh directory holding one test and `files`; whether it made `planted`. */
const plants = (args: string, files: Record<string, string>, planted: string): boolean => {
  const dir = mkdtempSync(join(scratch, "run-"));
  writeFileSync(join(dir, "a.test.mjs"), 'test("x", () => {});\n');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  spawnSync("bash", ["-c", `${vitest} run --globals ${args}`], { cwd: dir, timeout: 60_000 });
  return existsSync(join(dir, planted));
};
const planting = (name: string) => `import { writeFileSync } from "node:fs";\nwriteFileSync(new URL("./${name}", import.meta.url), "x");\n`;

describe("vitest's options", () => {
  it("counts --config as loading code: the real vitest runs the file it names", () => {
    const config = `${planting("planted")}export default { test: { globals: true } };\n`;
    expect(plants("--config evil.config.mjs", { "evil.config.mjs": config }, "planted")).toBe(true);
    for (const command of ["npx vitest run --config evil.config.mjs", "npx vitest run -c evil.config.mjs", "vitest run --config=x.mjs"])
      expect(allowed(command), command).toBe(false);
  });

  it("counts a reporter given as a module as loading code: the real vitest imports it", () => {
    expect(plants("--reporter=./rep.mjs", { "rep.mjs": `${planting("planted")}export default class {}\n` }, "planted")).toBe(true);
    expect(allowed("npx vitest run --reporter=./rep.mjs")).toBe(false);
    expect(allowed("npx vitest run --reporter ./rep.mjs")).toBe(false);
    expect(allowed("npx vitest run --reporter=verbose")).toBe(true);
    expect(allowed("npx vitest run --reporter dot --reporter json")).toBe(true);
  });

  it("reads --outputFile as a write the allow list must allow: the real vitest writes it", () => {
    expect(plants("--reporter json --outputFile out.json", {}, "out.json")).toBe(true);
    expect(analyseShell("npx vitest run --reporter json --outputFile out.json")?.files).toEqual([
      { path: "out.json", literal: true, writes: true },
    ]);
    expect(allowed("npx vitest run --reporter json --outputFile src/out.json")).toBe(true);
    expect(allowed("npx vitest run --reporter json --outputFile /etc/out.json")).toBe(false);
    expect(allowed("npx vitest run --coverage --coverage.reportsDirectory=/etc")).toBe(false);
  });

  it("counts every option not known to be harmless as computed at run time", () => {
    for (const command of [
      "npx vitest run --root /tmp",
      "npx vitest run -r /tmp",
      "npx vitest run --dir /tmp",
      "npx vitest run --inspect",
      "npx vitest run --inspect-brk",
      "npx vitest run --api",
      "npx vitest run --ui",
      "npx vitest run --browser",
      "npx vitest run --environment ./env.mjs",
      "npx vitest run --pool ./pool.mjs",
      "npx vitest run --execArgv=--require=./x.cjs",
      "npx vitest run --typecheck.checker ./x",
      "npx vitest run --coverage.provider custom",
      'npx vitest run "$OPTS"',
    ])
      expect(allowed(command), command).toBe(false);
  });

  it("reads vitest the same behind every package runner", () => {
    const runners = compileAllowRules(
      ["Bash(pnpm vitest run:*)", "Bash(pnpm exec vitest run:*)", "Bash(yarn vitest run:*)", "Bash(bunx vitest run:*)", "Bash(npm exec:*)"],
      "test",
    );
    const through = (command: string): boolean => runners({ id: "1", name: "Bash", input: { command } }) !== undefined;
    for (const runner of ["pnpm", "pnpm exec", "yarn", "bunx"]) {
      expect(through(`${runner} vitest run -t parser`), runner).toBe(true);
      expect(through(`${runner} vitest run --config evil.config.mjs`), runner).toBe(false);
    }
    expect(through("npm exec -- vitest run --config evil.config.mjs")).toBe(false);
  });

  it("allows the options of everyday runs", () => {
    for (const command of [
      "npx vitest run",
      "npx vitest run test/core",
      "npx vitest run -t 'reads a path'",
      "npx vitest run --testNamePattern=parser",
      "npx vitest run --reporter=verbose",
      "npx vitest run --coverage",
      "npx vitest run -u",
      "npx vitest run --silent --bail 1",
      "npx vitest run --no-file-parallelism --maxWorkers=1",
      "npx vitest run --project unit --shard 1/3",
      "npx vitest run --environment jsdom --pool forks",
      "npx vitest run --changed --passWithNoTests",
      "vitest run --retry 2 --testTimeout=20000",
    ])
      expect(allowed(command), command).toBe(true);
  });
});
