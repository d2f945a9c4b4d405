/**
 * Vitest glue for the real-client tests: `describeClaudeCode`, and the removal of each test file's
 * run directories after it.
 */
import { afterAll, describe } from "vitest";
import { claudeCodeAvailable, claudeCodeProblem, required } from "./availability.ts";
import { removeRunDirs } from "./run-claude-code.ts";

afterAll(removeRunDirs);

const missing = (): never => {
  throw new Error(`Claude Code real-client tests cannot run: ${claudeCodeProblem}; AGENT_ONION_REQUIRE_CLAUDE_CODE=1 says they must.`);
};

/**
 * `describe` for suites that run the real Claude Code binary: `describe.skip` when it cannot run
 * here (the global setup says why, once), a failure when `AGENT_ONION_REQUIRE_CLAUDE_CODE=1`.
 *
 * @example
 * describeClaudeCode("PreToolUse deny", () => { it("…", async () => { const run = await runClaudeCode({ … }) }) })
 */
export const describeClaudeCode = claudeCodeAvailable ? describe : required ? missing() : describe.skip;
