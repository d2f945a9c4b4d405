/**
 * Vitest glue for the real-client tests: `describeClaudeCode`, and the removal of each test file's
 * run directories after it.
 */
import { afterAll, describe } from "vitest";
import { claudeCodeAvailable, claudeCodeProblem, required } from "./availability.ts";
import { removeRunDirs, runDeadlineMs } from "./run-claude-code.ts";

afterAll(removeRunDirs);

const missing = (): never => {
  throw new Error(`Claude Code real-client tests cannot run: ${claudeCodeProblem}; AGENT_ONION_REQUIRE_CLAUDE_CODE=1 says they must.`);
};

/**
 * How long a test of such a suite may take: a run's own deadline and then some, so a binary that
 * hangs is killed and reported by the rig, with its output, before vitest gives up on the test.
 * Tests of a file run side by side (`it.concurrent`), each starting the binary, so on a loaded
 * machine one run takes many times what it takes alone.
 */
export const claudeCodeTestMs: number = runDeadlineMs + 30_000;

/**
 * `describe` for suites that run the real Claude Code binary, with `claudeCodeTestMs` for each
 * test: `describe.skip` when it cannot run here (the global setup says why, once), a failure when
 * `AGENT_ONION_REQUIRE_CLAUDE_CODE=1`.
 *
 * @example
 * describeClaudeCode("PreToolUse deny", () => { it("…", async () => { const run = await runClaudeCode({ … }) }) })
 */
export const describeClaudeCode: ((name: string, body: () => void) => void) & { skip: typeof describe.skip } = Object.assign(
  (name: string, body: () => void): void => {
    if (claudeCodeAvailable) describe(name, { timeout: claudeCodeTestMs }, body);
    else if (required) missing();
    else describe.skip(name, body);
  },
  { skip: describe.skip },
);
