/**
 * What the real Claude Code makes of PreToolUse answers whose text is unusual: a key named twice
 * (JSON.parse keeps the last, so the later decision is the one it follows), and bytes around the
 * JSON (a byte order mark is trimmed; a NUL or an ANSI code makes it plain text, so nothing decides).
 */
import { it } from "vitest";
import { answer, on, settings } from "../../support/claude-code/hooks.ts";
import { bashTurn, ranCommand, runClaudeCode } from "../../support/claude-code/run-claude-code.ts";
import { describeClaudeCode } from "../../support/claude-code/suite.ts";

const pre = (out: string) => settings(on("PreToolUse", "Bash", answer({ out })));
const once = (out: string) => runClaudeCode({ settings: pre(out), turns: [bashTurn(ranCommand("1")), "Done."] });
const deciding = (decision: string, reason: string) =>
  `"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"${decision}","permissionDecisionReason":"${reason}"}`;

describeClaudeCode("an answer with a duplicate key", () => {
  it.concurrent("a deny then an allow under the same key: the allow, the last, wins and the call runs", async ({ expect }) => {
    const run = await once(`{${deciding("deny", "FIRST-DENY")},${deciding("allow", "LAST-ALLOW")}}`);
    expect(run.executed).toEqual(["1"]);
  });

  it.concurrent("an allow then a deny under the same key: the deny, the last, wins", async ({ expect }) => {
    const run = await once(`{${deciding("allow", "FIRST-ALLOW")},${deciding("deny", "LAST-DENY")}}`);
    expect(run.executed).toEqual([]);
    expect(run.toolResults[0]!.text).toBe("PreToolUse:Bash hook error: LAST-DENY");
  });
});

describeClaudeCode("an answer with bytes around its JSON", () => {
  const deny = `{${deciding("deny", "MARKED-DENY")}}`;
  it.concurrent("a byte order mark before the JSON: trimmed, the deny holds", async ({ expect }) => {
    const run = await once(`\ufeff${deny}`);
    expect(run.executed).toEqual([]);
  });

  it.concurrent("a NUL after the JSON: not JSON, so plain text, and the call runs", async ({ expect }) => {
    const run = await once(`${deny}\u0000`);
    expect(run.executed).toEqual(["1"]);
  });

  it.concurrent("an ANSI colour code before the JSON: plain text, and the call runs", async ({ expect }) => {
    const run = await once(`\u001b[31m${deny}`);
    expect(run.executed).toEqual(["1"]);
  });
});
