/**
 * How the real Claude Code reads a `Bash(prefix:*)` permission rule and the variables set before a
 * command, observed with the pinned version in `-p` mode (a call no rule allows is refused), and
 * agent-onion's allow side read against it: each command runs under Claude Code exactly when
 * `toolPolicy` with the same rules allows it.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { it } from "vitest";
import { compileAllowRules } from "../../../src/middleware/tool-rules.ts";
import { bashTurn, runClaudeCode } from "../../support/claude-code/run-claude-code.ts";
import { describeClaudeCode } from "../../support/claude-code/suite.ts";

const rules = ["Bash(touch ran-p:*)"];
/** Each command, and the id of the file only it makes (`ran-<id>`). */
const commands: [string, string][] = [
  ["touch ran-p ran-q", "q"],
  ["touch ran-pz", "pz"],
  ["touch ran-p:z ran-r", "r"],
  ["FOO=1 touch ran-p ran-s", "s"],
  ["NODE_ENV=test touch ran-p ran-t", "t"],
  ["LANG=C touch ran-p ran-u", "u"],
  ["touch ran-p ran-v; touch ran-w", "v"],
  ["touch  ran-p   ran-x", "x"],
];

describeClaudeCode("Claude Code's Bash(prefix:*) rules", () => {
  it.concurrent("run a command when agent-onion's allow side allows it, and only then", async ({ expect }) => {
    const run = await runClaudeCode({
      settings: { permissions: { allow: rules } },
      allowedTools: [],
      turns: [...commands.map(([command]) => bashTurn(command)), "Done."],
      // Claude Code ignores a project's permission rules until its workspace is trusted.
      prepare: ({ project, home }) =>
        writeFileSync(join(home, ".claude.json"), JSON.stringify({ projects: { [project]: { hasTrustDialogAccepted: true } } })),
    });
    const allow = compileAllowRules(rules, "observed");
    const allowed = commands.filter(([command]) => allow({ id: "1", name: "Bash", input: { command } }) !== undefined).map(([, id]) => id);
    const ran = commands.map(([, id]) => id).filter((id) => run.executed.includes(id));
    expect(ran).toEqual(allowed);
    // The prefix is a word: `ran-pz` is not `ran-p`, and a variable Claude Code does not know as harmless is not stripped.
    expect(ran).toEqual(["q", "t", "u", "x"]);
  });
});
