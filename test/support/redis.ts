/**
 * A real, throwaway redis-server for tests: on a free port of 127.0.0.1, with no persistence, in a
 * temporary directory, or the server `REDIS_URL` names. Without either, the Redis suites are
 * skipped (`describeRedis`), unless `AGENT_ONION_REQUIRE_REDIS=1` (set by `.ci/run`) makes a
 * missing server a failure.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe } from "vitest";
import { redisAvailable, redisBinary, redisUrl, required } from "./redis-availability.ts";
import { scaled } from "./scale.ts";

/**
 * A running redis-server.
 *
 * @example
 * const store = new RedisStore({ connection: server.url });
 */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stop the server (SIGTERM, then SIGKILL) and remove its directory. */
  stop(): Promise<void>;
  /** Stop the server process only, as an outage would; `resume()` brings it back on the same port. */
  pause(): Promise<void>;
  /** Start the server again on the same port after `pause()` or `crash()`. */
  resume(): Promise<void>;
  /** SIGSTOP the server: it keeps its connections and answers nothing until `thaw()`. */
  freeze(): void;
  /** SIGCONT a frozen server: it runs what its clients sent meanwhile, in order. */
  thaw(): void;
  /** SIGKILL the server and wait for it to exit: no shutdown, no save; `resume()` restarts it. */
  crash(): Promise<void>;
}

/** How to run a test server. */
export interface RedisServerOptions {
  /**
   * Keep an append-only file fsynced on every write (`appendfsync always`), so that what the
   * server acknowledged survives a SIGKILL and a restart. Default: no persistence at all.
   */
  readonly appendOnly?: boolean;
}

const missing = (what: string): never => {
  throw new Error(`${what}, and AGENT_ONION_REQUIRE_REDIS=1 says the Redis tests must run (apt-get install -y redis-server)`);
};

/**
 * `describe` for suites that need a Redis server (a local binary or `REDIS_URL`); `describe.skip`
 * without one, or a failure when `AGENT_ONION_REQUIRE_REDIS=1`.
 *
 * @example
 * describeRedis("RedisStore on a real server", () => { it("…", async () => { … }) })
 */
export const describeRedis: typeof describe.skip = redisAvailable
  ? describe
  : required
    ? missing("no redis-server on the PATH and no REDIS_URL")
    : describe.skip;

/**
 * `describe` for suites that stop, pause or restart the server: they need a local binary.
 *
 * @example
 * describeRedisProcess("RedisStore fails closed", () => { … })
 */
export const describeRedisProcess: typeof describe.skip =
  redisBinary !== undefined ? describe : required ? missing("no redis-server on the PATH") : describe.skip;

/**
 * The redis-server binary, or a failure that says how to get it.
 *
 * @example
 * redisServerBinary() // "/usr/bin/redis-server"
 */
export const redisServerBinary = (): string => {
  if (redisBinary === undefined) {
    throw new Error(
      "redis-server is not installed: this test needs a local server it can stop and start (apt-get install -y redis-server, or run bash .ci/run)",
    );
  }
  return redisBinary;
};

/** A port that was free a moment ago on 127.0.0.1 (redis-server's `--port 0` means "no TCP"). */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });

/** True when a PING on `port` answers +PONG. */
const pong = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    let reply = "";
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      reply += chunk.toString();
      if (reply.includes("\r\n")) done(reply.startsWith("+PONG"));
    });
  });

const launch = async (binary: string, port: number, dir: string, options: RedisServerOptions = {}): Promise<ChildProcess> => {
  const child = spawn(
    binary,
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--dir",
      dir,
      "--save",
      "",
      "--daemonize",
      "no",
      ...(options.appendOnly === true ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"]),
      // DEBUG SLEEP lets tests make the server slow on purpose.
      "--enable-debug-command",
      "local",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk) => (stderr += chunk.toString()));
  // Only against a server that never answers: a loaded machine can take seconds to start one.
  const waitMs = scaled(5_000);
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}: ${stderr}`);
    if (await pong(port)) return child;
    await new Promise((r) => setTimeout(r, 25));
  }
  child.kill("SIGKILL");
  throw new Error(`redis-server did not answer PING on port ${port} within ${waitMs} ms: ${stderr}`);
};

const halt = async (child: ChildProcess): Promise<void> => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 2_000);
  await exited;
  clearTimeout(timer);
};

/**
 * Start a redis-server for a suite; stop it in `afterAll`.
 *
 * @example
 * let redis: RedisServer;
 * beforeAll(async () => { redis = await startRedis(); });
 * afterAll(() => redis.stop());
 */
export const startRedis = async (options: RedisServerOptions = {}): Promise<RedisServer> => {
  if (redisBinary === undefined && redisUrl !== undefined) return external(redisUrl);
  const binary = redisServerBinary();
  const dir = mkdtempSync(join(tmpdir(), "agent-onion-redis-"));
  let port = 0;
  let child: ChildProcess | undefined;
  // The port may be taken between probing and binding; try a few.
  for (let attempt = 0; child === undefined; attempt++) {
    port = await freePort();
    try {
      child = await launch(binary, port, dir, options);
    } catch (error) {
      if (attempt >= 2) throw error;
    }
  }
  let current: ChildProcess = child;
  // Never leave a server behind if the test process exits without afterAll.
  const onExit = (): void => {
    current.kill("SIGKILL");
  };
  process.once("exit", onExit);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      await halt(current);
      process.off("exit", onExit);
      rmSync(dir, { recursive: true, force: true });
    },
    pause: () => halt(current),
    resume: async () => {
      current = await launch(binary, port, dir, options);
    },
    freeze: () => void current.kill("SIGSTOP"),
    thaw: () => void current.kill("SIGCONT"),
    crash: async () => {
      if (current.exitCode !== null || current.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => current.once("exit", () => resolve()));
      current.kill("SIGKILL");
      await exited;
    },
  };
};

/** The server `REDIS_URL` names: used as is, never stopped; pausing it needs a local binary. */
const external = async (url: string): Promise<RedisServer> => {
  const port = Number(new URL(url).port || 6379);
  const cannot = (): Promise<void> => Promise.reject(new Error("pausing the server needs a local redis-server binary, not REDIS_URL"));
  const never = (): never => {
    throw new Error("signalling the server needs a local redis-server binary, not REDIS_URL");
  };
  return { port, url, stop: () => Promise.resolve(), pause: cannot, resume: cannot, freeze: never, thaw: never, crash: cannot };
};
