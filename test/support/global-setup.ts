/**
 * Vitest global setup: says once, at the start, which suites this machine cannot run.
 */
import { claudeCodeAvailable, claudeCodeSkipNotice, required as claudeCodeRequired } from "./claude-code/availability.ts";
import { redisAvailable, redisSkipNotice } from "./redis-availability.ts";

export const setup = (): void => {
  if (!redisAvailable && process.env.AGENT_ONION_REQUIRE_REDIS !== "1") console.log(redisSkipNotice);
  if (!claudeCodeAvailable && !claudeCodeRequired) console.log(claudeCodeSkipNotice);
};
