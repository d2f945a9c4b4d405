/**
 * Whether this machine can run the Redis tests: a redis-server binary on the PATH, or a server
 * named by `REDIS_URL`. Kept apart from `redis.ts` so the global setup can read it without vitest.
 */
import { spawnSync } from "node:child_process";

/** How to make the skipped Redis tests run; the global setup prints it once. */
export const redisSkipNotice =
  "Redis tests skipped: no redis-server on the PATH and no REDIS_URL. Install redis-server (apt-get install -y redis-server) or set REDIS_URL=redis://127.0.0.1:6379 to run them.";

const foundBinary = (): string | undefined => {
  const found = spawnSync("which", ["redis-server"], { encoding: "utf8" });
  const path = found.stdout?.trim() ?? "";
  return found.status === 0 && path !== "" ? path : undefined;
};

/** The local redis-server binary, if any; tests that stop and restart the server need it. */
export const redisBinary: string | undefined = foundBinary();
/** A server to use when there is no binary to start one. */
export const redisUrl: string | undefined = process.env.REDIS_URL || undefined;
export const required = process.env.AGENT_ONION_REQUIRE_REDIS === "1";

/** Whether the Redis tests can run here: a local binary, or a `REDIS_URL`. */
export const redisAvailable: boolean = redisBinary !== undefined || redisUrl !== undefined;
