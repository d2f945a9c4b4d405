/**
 * What the real Claude Code makes of one PreToolUse answer, and the exact text the model reads
 * back, observed with the pinned version. Which forms block and which fail open is pinned by the
 * parity scenarios; this file pins the texts and the forms around them.
 */
import { it } from "vitest";
import { answer, decision, on, script, settings } from "../../support/claude-code/hooks.ts";
import { bashTurn, ranCommand, runClaudeCode, type ClaudeCodeRunOptions } from "../../support/claude-code/run-claude-code.ts";
import { describeClaudeCode } from "../../support/claude-code/suite.ts";

const pre = (...hooks: Parameters<typeof on>[2][]) => settings(on("PreToolUse", "Bash", ...hooks));
const once = (hooks: object, extra: Partial<ClaudeCodeRunOptions> = {}) =>
  runClaudeCode({ settings: hooks, turns: [bashTurn(ranCommand("1")), "Done."], ...extra });

describeClaudeCode("the text the model reads for a blocked call", () => {
  it.concurrent("a deny: `PreToolUse:Bash hook error: <reason>`, as an error result", async ({ expect }) => {
    const run = await once(pre(answer({ out: decision("deny", "not today") })));
    expect(run.toolResults).toMatchObject([{ text: "PreToolUse:Bash hook error: not today", isError: true }]);
  });

  it.concurrent("exit 2: `PreToolUse:Bash hook error: [<command>]: <stderr>`", async ({ expect }) => {
    const hook = answer({ err: "blocked by exit 2", exit: 2 });
    const run = await once(pre(hook));
    expect(run.toolResults).toMatchObject([
      { text: `PreToolUse:Bash hook error: [${String(hook.command)}]: blocked by exit 2`, isError: true },
    ]);
  });

  it.concurrent("an ask in -p mode: the ask's reason alone", async ({ expect }) => {
    const run = await once(pre(answer({ out: decision("ask", "a person must confirm") })));
    expect(run.toolResults).toMatchObject([{ text: "a person must confirm", isError: true }]);
  });

  it.concurrent("a deny without a reason (hookify's answer): a generic text, and the systemMessage never reaches the model", async ({
    expect,
  }) => {
    const run = await once(pre(script("hookify_rules.py")), {
      files: {
        ".claude/hookify-rules.json": JSON.stringify([
          {
            name: "no-touch",
            event: "PreToolUse",
            tool: "Bash",
            field: "command",
            pattern: "touch",
            action: "block",
            message: "HOOKIFY-MESSAGE",
          },
        ]),
      },
    });
    expect(run.executed).toEqual([]);
    expect(run.toolResults).toMatchObject([{ text: "PreToolUse:Bash hook error: Blocked by hook", isError: true }]);
    expect(run.modelSaw("HOOKIFY-MESSAGE")).toBe(false);
  });
});

describeClaudeCode("the answer forms Claude Code reads on PreToolUse", () => {
  it.concurrent("JSON after leading whitespace and newlines is still JSON: the deny holds", async ({ expect }) => {
    const run = await once(pre(answer({ out: `\n   ${JSON.stringify(decision("deny", "after whitespace"))}` })));
    expect(run.executed).toEqual([]);
    expect(run.toolResults[0]!.text).toBe("PreToolUse:Bash hook error: after whitespace");
  });

  it.concurrent('`decision: "allow"` is not an allow: without a permission rule the call still needs approval, which -p denies', async ({
    expect,
  }) => {
    const run = await once(pre(script("legacy_allow.sh")), { allowedTools: [] });
    expect(run.executed).toEqual([]);
    expect(run.toolResults[0]!.text).toContain("needs approval");
  });

  it.concurrent('`decision: "deny"` is not a deny: the call runs', async ({ expect }) => {
    const run = await once(pre(answer({ out: { decision: "deny", reason: "LEGACY-DENY-MARKER" } })));
    expect(run.executed).toEqual(["1"]);
    expect(run.modelSaw("LEGACY-DENY-MARKER")).toBe(false);
  });

  it.concurrent("a hook killed by its timeout is reported in the debug log, with the timeout it was given; the call runs", async ({
    expect,
  }) => {
    const run = await once(pre(answer({ sleep: 5 }, { timeout: 1 })));
    expect(run.executed).toEqual(["1"]);
    // The log names the timeout that killed the hook: the hook's own second, not a default. How
    // long the kill took on top of it depends on the machine's load.
    expect(run.hookRuns).toMatchObject([{ event: "PreToolUse", status: "timeout", timeoutMs: 1000 }]);
    expect(run.hookRuns[0]!.ms).toBeGreaterThanOrEqual(1000);
  });
});
