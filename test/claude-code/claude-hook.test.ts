/**
 * agent-onion as a hook of the real Claude Code: `npx agent-onion claude-hook <module>` in the
 * settings of a project that installed agent-onion from its package (compiled, runtime
 * dependencies only), with a guard module written in JavaScript. From what the model receives:
 * blocked calls never run and their reasons reach the model, rewrites are what runs, prompt context
 * and Stop blocks arrive.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, it } from "vitest";
import { scaled } from "../support/scale.ts";
import { buildPackage, installPackage } from "../support/claude-code/agent-onion-package.ts";
import { on, settings, shell } from "../support/claude-code/hooks.ts";
import { bashTurn, ranCommand, runClaudeCode } from "../support/claude-code/run-claude-code.ts";
import { describeClaudeCode } from "../support/claude-code/suite.ts";

const guard = `import { createAgentStack, Continue, Reject, Transform } from "agent-onion";

export default createAgentStack()
  .use("userPrompt", { name: "context", before: (_prompt, ctx) => { ctx.addContext("PROMPT-GUARD-MARKER: this project uses pnpm"); return Continue; } })
  .use("toolCall", { name: "no-blocked", match: "Bash(touch *blocked*)", before: () => Reject("GUARD-DENY-MARKER: blocked files stay untouched") })
  .use("toolCall", { name: "rewrite", match: "Bash(touch *rewrite-me*)", before: (call) => Transform({ ...call, input: { ...call.input, command: "touch ran-rewritten" } }) })
  .use("stop", { name: "tests-first", before: (stop) => (stop.blockedCount === 0 ? Reject("STOP-GUARD-MARKER: run the tests first") : Continue) });
`;
const hook = shell("npx agent-onion claude-hook .claude/hooks/guard.js");
const hooked = settings(on("UserPromptSubmit", undefined, hook), on("PreToolUse", "Bash", hook), on("Stop", undefined, hook));
const turns = [
  bashTurn("touch ran-blocked"),
  bashTurn("touch ran-rewrite-me"),
  bashTurn(ranCommand("allowed")),
  "Done.",
  "Done, tests pass.",
];

/** Six events each start node, npx and the CLI: seconds on a busy machine. */
const slow = scaled(90_000);
let dir = "";
let pkg = "";
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "agent-onion-package-"));
  pkg = buildPackage(join(dir, "agent-onion"));
}, scaled(180_000));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const project = (packageJson: object, tsx: boolean) =>
  runClaudeCode({
    settings: hooked,
    turns,
    files: { "package.json": JSON.stringify(packageJson), ".claude/hooks/guard.js": guard },
    prepare: ({ project: p }) => installPackage(pkg, p, { tsx }),
  });

/** What Claude Code did with a guard that works. */
const guarded = (run: Awaited<ReturnType<typeof runClaudeCode>>, expect: typeof import("vitest").expect) => {
  expect(run.executed).toEqual(["allowed", "rewritten"]);
  expect(run.toolResults.map((t) => [t.text, t.isError])).toEqual([
    ["PreToolUse:Bash hook error: GUARD-DENY-MARKER: blocked files stay untouched", true],
    ["(Bash completed with no output)", false],
    ["(Bash completed with no output)", false],
  ]);
  expect(run.modelSaw("PROMPT-GUARD-MARKER: this project uses pnpm")).toBe(true);
  expect(run.modelSaw("STOP-GUARD-MARKER: run the tests first")).toBe(true);
  expect(run.modelCalls).toHaveLength(5);
  expect(run.finalText).toBe("Done, tests pass.");
};

describeClaudeCode("agent-onion claude-hook as a hook of Claude Code, with a JavaScript guard module", () => {
  it.concurrent(
    'in a project with "type": "module" and tsx installed: denies, rewrites, adds context and blocks the stop',
    async ({ expect }) => {
      guarded(await project({ name: "my-app", version: "1.0.0", type: "module" }, true), expect);
    },
    slow,
  );

  it.concurrent(
    'in a default npm project (no "type") without tsx: the same',
    async ({ expect }) => {
      guarded(await project({ name: "my-app", version: "1.0.0" }, false), expect);
    },
    slow,
  );

  // tsx is installed but the module is .js: claude-hook must not register tsx's loader for it, which
  // fails on such a module with "Cannot require() ES Module … in a cycle".
  it.concurrent(
    'in a default npm project (no "type") with tsx installed: the same',
    async ({ expect }) => {
      guarded(await project({ name: "my-app", version: "1.0.0" }, true), expect);
    },
    slow,
  );
});
