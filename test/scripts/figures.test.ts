import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { figuresStamp, staleFigures } from "../../scripts/figures.ts";

const repos: string[] = [];
const repo = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "figures-"));
  repos.push(dir);
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "a.ts"), "export const a = 1;\n");
  writeFileSync(join(dir, "other.ts"), "export const b = 1;\n");
  execFileSync("git", ["init", "-q"], { cwd: dir });
  execFileSync("git", ["add", "."], { cwd: dir });
  return dir;
};
afterEach(() => {
  for (const dir of repos.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("figure pages", () => {
  it("are current while the sources they measured are unchanged", () => {
    const dir = repo();
    expect(staleFigures(dir, `# Page\n${figuresStamp(dir, ["src"])}\n`)).toBeUndefined();
  });

  it("are stale once a measured source changes, and say which", () => {
    const dir = repo();
    const page = `# Page\n${figuresStamp(dir, ["src"])}\n`;
    writeFileSync(join(dir, "src", "a.ts"), "export const a = 2;\n");
    expect(staleFigures(dir, page)).toMatch(/measured src as it was .* and that code has changed since/);
  });

  it("stay current when code they did not measure changes", () => {
    const dir = repo();
    const page = figuresStamp(dir, ["src"]);
    writeFileSync(join(dir, "other.ts"), "export const b = 2;\n");
    expect(staleFigures(dir, page)).toBeUndefined();
  });

  it("have nothing to check without a stamp", () => {
    expect(staleFigures(process.cwd(), "# Hand-written figures\n")).toBeUndefined();
  });
});
