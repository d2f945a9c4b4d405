/**
 * Parity: each scenario loaded with `fromClaudeSettings` and run by the reference agent must lead
 * to what the real Claude Code does with it (scenarios.ts, checked against the binary by
 * claude-code.test.ts): the same commands run, the same number of model calls, the same errors,
 * the same texts reaching the model. A scenario where agent-onion differs today is `it.fails`,
 * with what differs; it starts failing, to be turned into `it`, the day the two agree.
 */
import { describe, expect, it } from "vitest";
import { observeAgentOnion } from "../../support/claude-code/parity.ts";
import { runAgentOnion } from "../../support/claude-code/run-agent-onion.ts";
import "../../support/claude-code/suite.ts";
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
  describe(`agent-onion matches Claude Code: ${title}`, () => {
    for (const [name, { scenario, claude, differs }] of Object.entries(cases)) {
      // A disagreement today: `differs` says what agent-onion does instead.
      (differs === undefined ? it : it.fails)(name, async () => {
        const run = await runAgentOnion({
          settings: scenario.settings,
          turns: scenario.turns,
          ...(scenario.files ? { files: scenario.files } : {}),
          ...(scenario.whenDone !== undefined ? { whenDone: scenario.whenDone } : {}),
          ...(scenario.env ? { env: scenario.env } : {}),
          ...(scenario.allowedTools ? { allowedTools: scenario.allowedTools } : {}),
        });
        expect(observeAgentOnion(run, scenario)).toEqual(claude);
      });
    }
  });
}
