/**
 * Ground truth for the parity scenarios: the real Claude Code, run on each scenario, does what
 * scenarios.ts says it does. agent-onion is held to the same observations in agent-onion.test.ts.
 */
import { it } from "vitest";
import { observeClaudeCode } from "../../support/claude-code/parity.ts";
import { runClaudeCode } from "../../support/claude-code/run-claude-code.ts";
import { describeClaudeCode } from "../../support/claude-code/suite.ts";
import { aggregation, answers, guards, lifecycle, permissions, postToolUse, type ParityCase } from "./scenarios.ts";

const groups: Record<string, Record<string, ParityCase>> = {
  "how hooks of one event combine": aggregation,
  "what one answer means": answers,
  "PostToolUse answers": postToolUse,
  "context, prompts, sessions and stops": lifecycle,
  "guard scripts on their own": guards,
  "permission requests": permissions,
};

for (const [title, cases] of Object.entries(groups)) {
  describeClaudeCode(`Claude Code: ${title}`, () => {
    for (const [name, { scenario, claude }] of Object.entries(cases)) {
      it.concurrent(name, async ({ expect }) => {
        const run = await runClaudeCode({
          settings: scenario.settings,
          turns: scenario.turns,
          ...(scenario.files ? { files: scenario.files } : {}),
          ...(scenario.whenDone !== undefined ? { whenDone: scenario.whenDone } : {}),
          ...(scenario.env ? { env: scenario.env } : {}),
          ...(scenario.allowedTools ? { allowedTools: scenario.allowedTools } : {}),
        });
        expect(run.exitCode).toBe(0);
        expect(observeClaudeCode(run, scenario)).toEqual(claude);
      });
    }
  });
}
