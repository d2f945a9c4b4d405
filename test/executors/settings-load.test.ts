import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fromClaudeSettings } from "../../src/executors/settings.ts";
import { tempDir } from "./helpers.ts";

/**
 * The same PreToolUse command handler in a user and a project layer, under the two matchers given;
 * each run of the handler appends a line to a log, so the log counts runs.
 */
const twoLayers = (userMatcher: string | undefined, projectMatcher: string | undefined) => {
  const dir = tempDir();
  const log = join(dir, "runs.log");
  const handler = { type: "command", command: `echo run >> '${log}'` };
  const group = (matcher: string | undefined) => ({
    hooks: { PreToolUse: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [handler] }] },
  });
  const loaded = fromClaudeSettings(
    [
      { file: "user.json", settings: group(userMatcher) },
      { file: "project.json", settings: group(projectMatcher) },
    ],
    { cwd: dir },
  );
  const runs = (): number =>
    existsSync(log)
      ? readFileSync(log, "utf8")
          .split("\n")
          .filter((l) => l === "run").length
      : 0;
  const runsFor = async (tool: string): Promise<number> => {
    const before = runs();
    await loaded.stack.run("toolCall", { id: "t", name: tool, input: { command: "ls" } }, () => ({ content: "ok" }));
    return runs() - before;
  };
  return { loaded, runsFor };
};

describe("the same handler in two settings files", () => {
  it("runs once when their matchers differ, on what either matcher matches, and the second copy is reported", async () => {
    const { loaded, runsFor } = twoLayers("Bash", "Bash|Edit");
    expect(loaded.hooks.map((h) => h.match)).toEqual(["Bash|Edit"]);
    expect(loaded.duplicates).toEqual([
      { source: "project.json#/hooks/PreToolUse/0/hooks/0", sameAs: "user.json#/hooks/PreToolUse/0/hooks/0" },
    ]);
    expect([await runsFor("Bash"), await runsFor("Edit"), await runsFor("Read")]).toEqual([1, 1, 0]);
  });

  it("reads a name list and a RegExp each in its own grammar when it joins them", async () => {
    const { loaded, runsFor } = twoLayers("Edit, Write", "^mcp__memory__");
    expect(loaded.hooks).toHaveLength(1);
    expect([await runsFor("Write"), await runsFor("mcp__memory__save"), await runsFor("NotebookEdit"), await runsFor("Read")]).toEqual([
      1, 1, 0, 0,
    ]);
  });

  it("refuses a copy whose matcher uses a back-reference (matchers run in linear time), naming that copy's file and pointer", () => {
    expect(() => twoLayers("Bash", "(y)\\1")).toThrow(/^project\.json: \/hooks\/PreToolUse\/0\/matcher: .*back-reference/);
  });

  it("loads two copies whose matchers use the same group name", async () => {
    const { loaded, runsFor } = twoLayers("(?<tool>Bash)", "(?<tool>Edit)");
    expect(loaded.hooks).toHaveLength(1);
    expect([await runsFor("Bash"), await runsFor("Edit"), await runsFor("Read")]).toEqual([1, 1, 0]);
  });

  it("loads two copies each under the 1024-character limit, though together they are over it", async () => {
    const tools = (server: string) => `^mcp__${server}__(${Array.from({ length: 40 }, (_, i) => `tool_number_${i}`).join("|")})$`;
    const { loaded, runsFor } = twoLayers(tools("github"), tools("jira"));
    expect(loaded.hooks).toHaveLength(1);
    expect([
      await runsFor("mcp__github__tool_number_3"),
      await runsFor("mcp__jira__tool_number_39"),
      await runsFor("mcp__slack__tool_number_1"),
    ]).toEqual([1, 1, 0]);
  });

  it("refuses an invalid matcher in either copy, naming that copy's file and pointer", () => {
    for (const invalid of ["a)|(b", "["]) {
      expect(() => twoLayers("Bash", invalid)).toThrow(/^project\.json: \/hooks\/PreToolUse\/0\/matcher: .*not a valid regular expression/);
      expect(() => twoLayers(invalid, "Bash")).toThrow(/^user\.json: \/hooks\/PreToolUse\/0\/matcher: .*not a valid regular expression/);
    }
  });

  it("runs on every tool when one of the copies has no matcher", async () => {
    const { loaded, runsFor } = twoLayers("Bash", undefined);
    expect(loaded.hooks.map((h) => h.match)).toEqual([undefined]);
    expect([await runsFor("Bash"), await runsFor("Read")]).toEqual([1, 1]);
  });
});
