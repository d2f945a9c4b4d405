/**
 * `agent-onion serve <module>`: a resident hook server for Claude Code's `"type": "http"` hooks.
 * Each POST carries one event (the JSON a command hook reads on stdin) and gets the answer
 * `claude-hook` would give, translated to HTTP (hook-answer.ts, `httpAnswer`): the same code
 * decides, in a child process that keeps the module loaded (hook-process.ts).
 *
 * Guarantees: it listens on 127.0.0.1 unless told otherwise; it takes only `POST` with
 * `Content-Type: application/json` (which a web page cannot send to it without a CORS preflight
 * it never answers) and, on loopback, only a `Host` naming loopback (against DNS rebinding); a
 * body over 16 MiB is refused; it never redirects. When a file in the module's directory
 * changes, a new child loads the module afresh and takes over once loaded; requests in flight
 * finish on the old one. A child that misses `--timeout` is killed and replaced. SIGINT or SIGTERM
 * stop it after the requests in flight are answered.
 */
import { fork, type ChildProcess } from "node:child_process";
import { existsSync, watch, type FSWatcher } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { httpAnswer, type HookAnswer } from "./hook-answer.ts";
import type { FromHookProcess, ToHookProcess } from "./hook-process.ts";
import { MAX_EVENT_BYTES, timeoutSeconds, UsageError, type CliIo } from "./io.ts";

/** The port `serve` listens on unless `--port` says otherwise. */
export const DEFAULT_PORT = 7337;

/** The command itself: bin/ is two levels above this file in the sources and in dist/. */
const binPath = (): string => {
  const path = fileURLToPath(new URL("../../bin/agent-onion.js", import.meta.url));
  return existsSync(path) ? path : (process.argv[1] as string);
};

/** Files whose change reloads the module: scripts and JSON beside it. */
const watched = /\.(?:[cm]?[jt]sx?|json)$/;

const loopback = new Set(["127.0.0.1", "::1", "localhost"]);

/** The `Host` header names this server on loopback (a DNS-rebound name would not). */
const hostAllowed = (host: string | undefined, port: number): boolean => {
  if (host === undefined) return false;
  const match = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d+))?$/.exec(host);
  return match !== null && loopback.has((match[1] ?? match[2] ?? "").toLowerCase()) && Number(match[3] ?? 80) === port;
};

/** One child process answering events with one version of the module. */
class HookProcess {
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, (answer: HookAnswer) => void>();
  private exited = false;
  private exitedWhy = "";
  /** Resolves with the load error, or undefined once the module loaded. */
  readonly ready: Promise<string | undefined>;
  readonly done: Promise<void>;

  constructor(
    args: readonly string[],
    cwd: string,
    private readonly failOpen: boolean,
    private readonly deadlineMs: number,
    onCrash: (why: string) => void,
    private readonly onTimeout: (why: string) => void = () => {},
  ) {
    this.child = fork(binPath(), ["_hook-process", ...args], {
      cwd,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      serialization: "advanced",
    });
    let ready!: (error: string | undefined) => void;
    this.ready = new Promise((r) => (ready = r));
    this.child.on("message", (message: FromHookProcess) => {
      if ("ready" in message) return ready(message.error);
      const answered = this.pending.get(message.id);
      this.pending.delete(message.id);
      answered?.(message.answer);
    });
    this.done = new Promise((done) =>
      this.child.once("exit", (code, signal) => {
        this.exited = true;
        this.exitedWhy = signal ?? `code ${code}`;
        ready(`the hook process exited (${this.exitedWhy}) before it loaded the module`);
        for (const answered of this.pending.values()) answered(this.lost());
        this.pending.clear();
        if (!this.retiring) onCrash(this.exitedWhy);
        done();
      }),
    );
    // A failed spawn also emits "exit"; the error itself says why.
    this.child.on("error", () => {});
  }

  private retiring = false;

  private lost(): HookAnswer {
    return { exitCode: this.failOpen ? 1 : 2, stderr: `agent-onion serve: the hook process exited (${this.exitedWhy}) before it answered` };
  }

  ask(id: number, text: string): Promise<HookAnswer> {
    if (this.exited) return Promise.resolve(this.lost());
    return new Promise((answered) => {
      // Timed here, not in the child: a stack that keeps its process busy cannot hold the answer.
      // The child is then stopped (a synchronous spin would keep it busy for good; its other calls
      // in flight fail closed as lost) and, as after a crash, a new one takes its place.
      const timer = setTimeout(() => {
        if (!this.pending.delete(id)) return;
        const why = `the stack did not decide within ${this.deadlineMs / 1000} s (--timeout)`;
        answered({ exitCode: this.failOpen ? 1 : 2, stderr: `agent-onion serve: ${why}` });
        if (this.exited) return;
        this.onTimeout(`${why}; stopping its hook process`);
        this.child.kill("SIGKILL");
      }, this.deadlineMs);
      this.pending.set(id, (answer) => {
        clearTimeout(timer);
        answered(answer);
      });
      this.child.send({ id, text } satisfies ToHookProcess);
    });
  }

  /** Finish the requests in flight, let the stack's background work end, then stop (killed after `graceMs`). */
  async retire(graceMs = 10_000): Promise<void> {
    this.retiring = true;
    while (this.pending.size > 0 && !this.exited) await new Promise((r) => setTimeout(r, 5));
    if (!this.exited && this.child.connected) this.child.send({ shutdown: true } satisfies ToHookProcess);
    const timer = setTimeout(() => this.child.kill("SIGKILL"), graceMs);
    await this.done;
    clearTimeout(timer);
  }
}

/**
 * Read a request body of at most `limit` bytes; undefined when it is larger. The rest of a larger
 * body is read and dropped, so the client gets the 413 rather than a reset while still sending
 * (up to four times the limit; past that the connection is cut).
 */
const readBody = (req: IncomingMessage, limit: number): Promise<string | undefined> =>
  new Promise((resolvePromise, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > 4 * limit) req.destroy();
      else if (size <= limit) chunks.push(chunk);
      else chunks.length = 0;
    });
    req.on("end", () => resolvePromise(size > limit ? undefined : Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });

const plain = (res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", ...headers });
  res.end(`${text}\n`);
};

/** `hook_event_name` of a body, for an answer that failed before the event was read. */
const eventNameIn = (text: string): string | undefined => {
  try {
    const name = (JSON.parse(text) as { hook_event_name?: unknown }).hook_event_name;
    return typeof name === "string" ? name : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Run the `serve` command; resolves with the exit code once stopped by SIGINT or SIGTERM.
 *
 * @example
 * // settings.json: { "type": "http", "url": "http://127.0.0.1:7337/" }
 * await serveCommand(["hooks/guard.ts"], processIo())
 */
export const serveCommand = async (argv: readonly string[], io: CliIo): Promise<number> => {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      port: { type: "string", default: String(DEFAULT_PORT) },
      host: { type: "string", default: "127.0.0.1" },
      export: { type: "string", default: "default" },
      "fail-open": { type: "boolean", default: false },
      "no-watch": { type: "boolean", default: false },
      timeout: { type: "string" },
    },
  });
  const deadlineMs = timeoutSeconds(values.timeout) * 1000;
  if (positionals.length !== 1) throw new UsageError("serve takes exactly one module path");
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`--port ${values.port} is not a port number`);
  const file = positionals[0]!;
  const path = resolve(io.cwd, file);
  const host = values.host!;
  const failOpen = values["fail-open"]!;
  const childArgs = [file, "--export", values.export!, ...(failOpen ? ["--fail-open"] : [])];
  const log = (text: string): void => io.err(`agent-onion serve: ${text}\n`);

  let generation = 0;
  let stopping = false;
  const start = (): HookProcess => {
    const child: HookProcess = new HookProcess(
      childArgs,
      io.cwd,
      failOpen,
      deadlineMs,
      (why) => {
        if (current !== child || stopping) return;
        log(`the hook process exited (${why}); starting a new one`);
        void replace("restarted");
      },
      log,
    );
    return child;
  };
  let current = start();
  const loaded = async (child: HookProcess, what: string): Promise<void> => {
    const error = await child.ready;
    log(
      error === undefined
        ? `${what} ${file}`
        : `${file} did not load, so every event is answered as claude-hook would answer it (${failOpen ? "a non-blocking error" : "blocked"}): ${error}`,
    );
  };
  await loaded(current, "loaded");

  /** Load the module in a new child; it takes over once loaded (or failed to), unless a newer one started. */
  const replace = async (what: string): Promise<void> => {
    const mine = ++generation;
    const next = start();
    await next.ready;
    if (mine !== generation || stopping) {
      await next.retire();
      return;
    }
    const old = current;
    current = next;
    await loaded(next, what);
    await old.retire();
  };

  let watcher: FSWatcher | undefined;
  if (!values["no-watch"]) {
    let timer: NodeJS.Timeout | undefined;
    watcher = watch(dirname(path), (_type, name) => {
      if (name !== null && !watched.test(String(name))) return;
      clearTimeout(timer);
      timer = setTimeout(() => void replace("reloaded"), 100);
    });
  }

  let ids = 0;
  let inFlight = 0;
  const server = createServer((req, res) => {
    inFlight++;
    res.once("close", () => inFlight--);
    void (async () => {
      // An answer before the body is read: drop the body, so the connection can serve the next request.
      if (req.method !== "POST")
        return refuse(res, 405, "agent-onion serve takes POST requests (Claude Code's http hooks)", { allow: "POST" });
      if (loopback.has(host) && !hostAllowed(req.headers.host, port === 0 ? (server.address() as AddressInfo).port : port))
        return refuse(res, 403, "agent-onion serve answers requests addressed to loopback only");
      if (!/^application\/json(?:\s*;|$)/i.test(req.headers["content-type"] ?? ""))
        return refuse(res, 415, "the event must be sent as application/json");
      const text = await readBody(req, MAX_EVENT_BYTES);
      if (text === undefined) return plain(res, 413, `events are limited to ${MAX_EVENT_BYTES} bytes`, { connection: "close" });
      const answer = await current.ask(++ids, text);
      const http = httpAnswer(
        answer.event === undefined && answer.exitCode === 2 ? { ...answer, ...withEvent(eventNameIn(text)) } : answer,
      );
      if (http.status !== 200 && answer.stderr) log(answer.stderr);
      res.writeHead(http.status, http.contentType ? { "content-type": http.contentType } : {});
      res.end(http.body);
    })().catch((error: unknown) => {
      log(`request failed: ${String(error)}`);
      if (!res.headersSent) plain(res, 500, "agent-onion serve failed to answer");
      else res.destroy();
    });
  });
  const refuse = async (res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): Promise<void> => {
    // Answer once the body is read (and dropped): an answer sent before makes Node close the connection under the client.
    if ((await readBody(res.req, MAX_EVENT_BYTES)) === undefined) headers = { ...headers, connection: "close" };
    plain(res, status, text, headers);
  };
  const withEvent = (event: string | undefined): { event?: string } => (event !== undefined ? { event } : {});

  await new Promise<void>((listening, failed) => {
    server.once("error", failed);
    server.listen(port, host, () => {
      server.off("error", failed);
      listening();
    });
  }).catch(async (error: unknown) => {
    watcher?.close();
    await current.retire();
    throw new Error(`cannot listen on ${host}:${port}: ${(error as Error).message}`);
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  io.out(`listening on http://${shown}:${address.port}/\n`);
  if (!loopback.has(host)) log(`listening on ${host}: anyone who can reach this address can run your hooks`);

  return new Promise<number>((stopped) => {
    const stop = (signal: string): void => {
      if (stopping) return;
      stopping = true;
      log(`${signal}: finishing ${inFlight} request${inFlight === 1 ? "" : "s"} in flight, then stopping`);
      watcher?.close();
      server.close();
      server.closeIdleConnections();
      void (async () => {
        while (inFlight > 0) await new Promise((r) => setTimeout(r, 5));
        await current.retire();
        process.off("SIGINT", onInt);
        process.off("SIGTERM", onTerm);
        stopped(0);
      })();
    };
    const onInt = (): void => stop("SIGINT");
    const onTerm = (): void => stop("SIGTERM");
    process.on("SIGINT", onInt);
    process.on("SIGTERM", onTerm);
  });
};
