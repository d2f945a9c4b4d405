import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fromClaudeSettings } from "../../src/executors/settings.ts";

const project = realpathSync(mkdtempSync(join(tmpdir(), "agent-onion-if-")));
mkdirSync(join(project, "src"));
afterAll(() => rmSync(project, { recursive: true, force: true }));

// A PreToolUse command hook that blocks (exit 2) whenever it runs, filtered by `matcher` and `if`.
const settings = (matcher: string, condition: string) => ({
  hooks: { PreToolUse: [{ matcher, hooks: [{ type: "command", command: "echo blocked >&2; exit 2", if: condition }] }] },
});
const runs = async (matcher: string, condition: string, tool: string, path: string): Promise<boolean> => {
  const { stack, unused } = fromClaudeSettings([{ file: "user.json", settings: settings(matcher, condition) }], {
    projectDir: project,
    cwd: project,
  });
  expect(unused).toEqual([]);
  const outcome = await stack.run("toolCall", { id: "t", name: tool, input: { file_path: path } }, () => ({ content: "ran" }));
  return outcome._tag === "Rejected";
};

describe("a settings `if` path rule", () => {
  it("covers its tool family, as Claude Code's permission rules do: Edit(…) runs for Write", async () => {
    expect(await runs("Write", "Edit(src/**)", "Write", `${project}/src/a.ts`)).toBe(true);
    expect(await runs("Edit|Write|MultiEdit", "Edit(src/**)", "MultiEdit", "src/a.ts")).toBe(true);
    expect(await runs("Write", "Edit(src/**)", "Write", `${project}/lib/a.ts`)).toBe(false);
  });

  it("reads relative rules from the project directory given to fromClaudeSettings", async () => {
    expect(await runs("Read", "Read(./src/**)", "Read", `${project}/src/../src/a.ts`)).toBe(true);
    expect(await runs("Read", "Read(/src/**)", "Read", `${project}/src/a.ts`)).toBe(true);
  });

  it("still says when the matcher excludes every tool the rule covers", () => {
    const { unused } = fromClaudeSettings([{ file: "user.json", settings: settings("Bash", "Edit(src/**)") }], {
      projectDir: project,
      cwd: project,
    });
    expect(unused.map((u) => u.reason)).toEqual(['"if" names Edit, which the matcher "Bash" excludes']);
  });
});
