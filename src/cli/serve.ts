/**
 * `agent-onion serve <module>`: a resident hook server for Claude Code's `"type": "http"` hooks.
 * Each POST carries one event (the JSON a command hook reads on stdin) and gets the answer
 * `claude-hook` would give, translated to HTTP (hook-answer.ts, `httpAnswer`): the same code
 * decides, in a child process that keeps the module loaded (hook-process.ts).
 *
 * Guarantees: it listens on 127.0.0.1 unless told otherwise; it takes only `POST` with
 * `Content-Type: application/json` (which a web page cannot send to it without a CORS preflight
 * it never answers) and, on loopback, only a `Host` naming loopback (against DNS rebinding); a
 * body over 16 MiB is refused, and one that would take the bodies read at once past
 * `--max-buffered` is dropped as it comes and answered "could not decide"; it never redirects.
 * It listens from the start: an event that comes while the module loads waits for it (within
 * `--timeout`). When the module, or a file beside it that it imports, changes, a new child loads
 * the module afresh and takes over once loaded; requests in flight finish on the old one. A child
 * that misses `--timeout` is killed and replaced; one killed from outside has its command hooks
 * killed. SIGINT or SIGTERM stop it after the requests in flight are answered; a second one stops
 * it at once (exit 128 + the signal's number).
 */
import { fork, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, watch, type FSWatcher } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { constants as osConstants } from "node:os";
import { basename, dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { killHookRunsLeftBy, killHookRunsOf } from "../executors/process.ts";
import { httpAnswer, type HookAnswer, type HttpAnswer } from "./hook-answer.ts";
import type { FromHookProcess, ToHookProcess } from "./hook-process.ts";
import { MAX_EVENT_BYTES, timeoutSeconds, UsageError, type CliIo } from "./io.ts";

/** The port `serve` listens on unless `--port` says otherwise. */
export const DEFAULT_PORT = 7337;

/** How many times in a row `serve` starts a new hook process after one died without answering. */
export const DEFAULT_MAX_RESTARTS = 8;

/**
 * How many MiB of request bodies `serve` holds at once, over all connections, unless
 * `--max-buffered` says otherwise: four events of the largest size.
 */
export const DEFAULT_MAX_BUFFERED_MIB = 64;

/** How long a hook process may take to load the module: `--timeout`, and at least two minutes (a loaded machine is slow to start one). */
const loadDeadlineMs = (deadlineMs: number): number => Math.max(deadlineMs, 120_000);

/** A hook process that ran this long before it died starts the count of restarts in a row afresh. */
const STEADY_MS = 60_000;

/** The pause before the `n`th restart in a row: none for the first, then 0.1 s, doubling, at most 30 s. */
const backoffMs = (n: number): number => (n <= 1 ? 0 : Math.min(100 * 2 ** (n - 2), 30_000));

/** The command itself: bin/ is two levels above this file in the sources and in dist/. */
const binPath = (): string => {
  const path = fileURLToPath(new URL("../../bin/agent-onion.js", import.meta.url));
  return existsSync(path) ? path : (process.argv[1] as string);
};

/** Files whose change may reload the module: scripts and JSON beside it. */
const watched = /\.(?:[cm]?[jt]sx?|json)$/;

const scripts = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];
/** What a relative specifier may name: itself, its TypeScript source (`./x.js` for x.ts), or itself with an extension. */
const candidates = (spec: string): string[] => {
  const ext = extname(spec);
  if (ext === "") return [...scripts, ".json"].map((e) => spec + e);
  const ts = { ".js": ".ts", ".jsx": ".tsx", ".mjs": ".mts", ".cjs": ".cts" }[ext];
  return ts ? [spec, spec.slice(0, -ext.length) + ts] : [spec];
};

/**
 * The module and the files beside it that it imports, directly or through each other, by a
 * relative specifier written in the source (`from "./x.ts"`, `import("./x.js")`, `require("./x")`):
 * the files whose change is a change of the module. A file it writes beside itself (a log, its
 * state) is not one of them.
 */
const moduleFiles = (path: string): Set<string> => {
  const dir = dirname(path);
  const found = new Set<string>([basename(path)]);
  const queue = [basename(path)];
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (!scripts.includes(extname(name))) continue;
    let source: string;
    try {
      source = readFileSync(join(dir, name), "utf8");
    } catch {
      continue;
    }
    for (const match of source.matchAll(/(?:\bfrom|\bimport|\brequire)\s*\(?\s*["'](\.\.?\/[^"'\n]+)["']/g))
      for (const candidate of candidates(resolve(dir, match[1]!))) {
        if (dirname(candidate) !== dir || found.has(basename(candidate)) || !existsSync(candidate)) continue;
        found.add(basename(candidate));
        queue.push(basename(candidate));
      }
  }
  return found;
};

/** The content of the module's files, to tell a change from a write of the same bytes. */
const moduleVersion = (path: string): string => {
  const hash = createHash("sha256");
  for (const name of [...moduleFiles(path)].sort()) {
    hash.update(`${name}\0`);
    try {
      hash.update(readFileSync(join(dirname(path), name)));
    } catch {
      hash.update("\0missing");
    }
    hash.update("\0");
  }
  return hash.digest("hex");
};

/** A flag's value written as a whole number in decimal digits ("8", not "", " 8", "8.0", "1e3", "0x8"); undefined otherwise. */
const wholeNumber = (value: string): number | undefined => (/^\d{1,15}$/.test(value) ? Number(value) : undefined);

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
  private exitedWhy = "";
  private retiring = false;
  /** It exited (or never started); `why` says how. */
  exited = false;
  /** It sent its ready message (whether or not the module loaded). */
  started = false;
  /** Why it was killed while loading, if it was. */
  stuck: string | undefined;
  /** When it finished loading; a child that never did has no steady time to count. */
  private startedAt: number | undefined;
  private endedAt: number | undefined;
  /** Serve killed it for missing `--timeout`, not the module. */
  timedOut = false;
  /** Resolves with the load error, or undefined once the module loaded. */
  readonly ready: Promise<string | undefined>;
  readonly done: Promise<void>;

  constructor(
    args: readonly string[],
    cwd: string,
    private readonly failOpen: boolean,
    private readonly deadlineMs: number,
    onExit: (child: HookProcess) => void,
    /** Says on stderr what serve did to it (stopped for --timeout, killed what it left). */
    private readonly onTimeout: (why: string) => void = () => {},
  ) {
    this.child = fork(binPath(), ["_hook-process", ...args], {
      cwd,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      serialization: "advanced",
    });
    let ready!: (error: string | undefined) => void;
    this.ready = new Promise((r) => (ready = r));
    // Loading is timed too: a module that never finishes loading would otherwise hold serve (or a reload) for good.
    const loading = setTimeout(() => {
      this.stuck = `it did not load within ${loadDeadlineMs(this.deadlineMs) / 1000} s`;
      ready(this.stuck);
      this.kill();
    }, loadDeadlineMs(this.deadlineMs));
    this.child.on("message", (message: FromHookProcess) => {
      if ("ready" in message) {
        clearTimeout(loading);
        this.started = true;
        this.startedAt = Date.now();
        return ready(message.error);
      }
      const answered = this.pending.get(message.id);
      this.pending.delete(message.id);
      answered?.(message.answer);
    });
    this.done = new Promise((done) => {
      const ended = (why: string): void => {
        if (this.exited) return;
        clearTimeout(loading);
        this.exited = true;
        this.endedAt = Date.now();
        this.exitedWhy = why;
        ready(`the hook process exited (${this.exitedWhy}) before it loaded the module`);
        for (const answered of this.pending.values()) answered(this.lost());
        this.pending.clear();
        if (!this.retiring) onExit(this);
        done();
      };
      this.child.once("exit", (code, signal) => {
        // Killed by a signal (the OOM killer, kill -9) it could not end its command hooks: they
        // would run on, unwatched, until their own timeouts.
        const pid = this.child.pid;
        if (signal !== null && pid !== undefined) {
          const left = killHookRunsLeftBy(pid).length;
          if (left > 0)
            this.onTimeout(`the hook process exited (${signal}); killed the ${left} command hook${left === 1 ? "" : "s"} it was running`);
        }
        ended(signal ?? `code ${code}`);
      });
      // A process that could not be started (EMFILE, a missing working directory) emits "error"
      // and never "exit": it ended before it began.
      this.child.on("error", (error: NodeJS.ErrnoException) => {
        if (this.child.pid === undefined) ended(`it could not be started: ${error.code ?? error.message}`);
      });
    });
  }

  /** How long it ran after it loaded the module (so far); 0 for one that never loaded it. */
  uptimeMs(): number {
    return this.startedAt === undefined ? 0 : (this.endedAt ?? Date.now()) - this.startedAt;
  }

  /** How it ended: "code 1", "SIGKILL". */
  get why(): string {
    return this.exitedWhy;
  }

  /** "Could not decide", as claude-hook answers it: blocked (exit 2), or a non-blocking error (1) with `--fail-open`. */
  private undecided(why: string): HookAnswer {
    return couldNotDecide(this.failOpen, `agent-onion serve: ${why}`);
  }

  private lost(): HookAnswer {
    return this.undecided(`the hook process exited (${this.exitedWhy}) before it answered`);
  }

  /**
   * Stop it now, with the command hooks it is running: they are in their own process groups
   * (process.ts), so they would outlive it until their own timeouts. It is stopped first so that
   * it starts no hook between the search and its end.
   */
  kill(): void {
    const pid = this.child.pid;
    if (this.exited || pid === undefined) return;
    try {
      process.kill(pid, "SIGSTOP");
    } catch {
      // exited meanwhile; its "exit" is on the way
    }
    killHookRunsOf(pid);
    this.child.kill("SIGKILL");
  }

  /**
   * Answer one event within `--timeout`. While the module is still loading, the event waits for
   * the load (within the same deadline): the port is open from the start, and a refused
   * connection would let Claude Code's action through unguarded.
   */
  ask(id: number, text: string): Promise<HookAnswer> {
    if (this.exited) return Promise.resolve(this.undecided(`no hook process is running (the last one exited: ${this.exitedWhy})`));
    if (!this.started) return this.askOnceLoaded(id, text);
    return this.send(id, text, this.deadlineMs);
  }

  private async askOnceLoaded(id: number, text: string): Promise<HookAnswer> {
    const since = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<true>((r) => (timer = setTimeout(() => r(true), this.deadlineMs)));
    const error = await Promise.race([this.ready, late]);
    clearTimeout(timer);
    if (error === true) return this.undecided(`the module did not load within ${this.deadlineMs / 1000} s (--timeout)`);
    // It died or was stopped while loading; a module that threw is answered by the child, as claude-hook answers it.
    if (this.exited || !this.started)
      return this.undecided(error ?? `the hook process exited (${this.exitedWhy}) before it loaded the module`);
    return this.send(id, text, Math.max(1, this.deadlineMs - (Date.now() - since)));
  }

  private send(id: number, text: string, deadlineMs: number): Promise<HookAnswer> {
    if (this.exited) return Promise.resolve(this.lost());
    return new Promise((answered) => {
      // Timed here, not in the child: a stack that keeps its process busy cannot hold the answer.
      // The child is then stopped (a synchronous spin would keep it busy for good; its other calls
      // in flight fail closed as lost) and, as after a crash, a new one takes its place.
      const timer = setTimeout(() => {
        if (!this.pending.delete(id)) return;
        const why = `the stack did not decide within ${this.deadlineMs / 1000} s (--timeout)`;
        answered(this.undecided(why));
        if (this.exited) return;
        this.timedOut = true;
        this.onTimeout(`${why}; stopping its hook process`);
        this.kill();
      }, deadlineMs);
      this.pending.set(id, (answer) => {
        clearTimeout(timer);
        answered(answer);
      });
      // A channel already closed (the process is ending) loses the request: answer it as lost now.
      const lose = (): void => {
        const waiting = this.pending.get(id);
        this.pending.delete(id);
        waiting?.(this.lost());
      };
      try {
        if (!this.child.connected) lose();
        else this.child.send({ id, text } satisfies ToHookProcess, (error) => error && lose());
      } catch {
        lose();
      }
    });
  }

  /** Finish the requests in flight, let the stack's background work end, then stop (killed after `graceMs`). */
  async retire(graceMs = 10_000): Promise<void> {
    this.retiring = true;
    while (this.pending.size > 0 && !this.exited) await new Promise((r) => setTimeout(r, 5));
    if (!this.exited && this.child.connected) this.child.send({ shutdown: true } satisfies ToHookProcess);
    const timer = setTimeout(() => this.kill(), graceMs);
    await this.done;
    clearTimeout(timer);
  }
}

/** What `readBody` read: the text, or why it kept none. */
type Body =
  | { readonly text: string }
  | { readonly tooLarge: true }
  /** Taking it would have passed `--max-buffered`: dropped, with the event's name if its start gave it. */
  | { readonly overBound: true; readonly event: string | undefined };

/** Bytes of request bodies held by all requests of one server, against `--max-buffered`. */
interface Buffered {
  bytes: number;
  readonly limit: number;
}

/** The event's name, read from the start of its body (Claude Code sends it among the first fields). */
const eventNameAtStart = (chunks: readonly Buffer[]): string | undefined => {
  const first: Buffer[] = [];
  let size = 0;
  for (const chunk of chunks) {
    if (size >= 16 * 1024) break;
    first.push(chunk);
    size += chunk.length;
  }
  const head = Buffer.concat(first)
    .subarray(0, 16 * 1024)
    .toString("utf8");
  return /"hook_event_name"\s*:\s*"([A-Za-z]+)"/.exec(head)?.[1];
};

/**
 * Read a request body of at most `limit` bytes, holding its bytes against `pool` (released by
 * `release`, once the request is answered). A larger body, or one that would take `pool` past
 * its limit, is read on and dropped as it comes (so the client gets an answer rather than a reset
 * while still sending; past four times `limit` the connection is cut). Without `pool`, every byte
 * is dropped (a request refused before its body is read).
 */
const readBody = (req: IncomingMessage, limit: number, pool?: Buffered): { body: Promise<Body>; release(): void } => {
  let held = 0;
  const release = (): void => {
    if (pool) pool.bytes -= held;
    held = 0;
  };
  const body = new Promise<Body>((resolvePromise, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    let overBound: { event: string | undefined } | undefined;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > 4 * limit) req.destroy();
      if (pool === undefined || overBound !== undefined || size > limit) {
        chunks = [];
        release();
      } else if (pool.bytes + chunk.length > pool.limit) {
        overBound = { event: eventNameAtStart([...chunks, chunk]) };
        chunks = [];
        release();
      } else {
        chunks.push(chunk);
        held += chunk.length;
        pool.bytes += chunk.length;
      }
    });
    req.on("end", () => {
      if (size > limit) resolvePromise({ tooLarge: true });
      else if (overBound !== undefined) resolvePromise({ overBound: true, ...overBound });
      else resolvePromise({ text: Buffer.concat(chunks).toString("utf8") });
      chunks = [];
    });
    req.on("error", (error) => {
      release();
      reject(error);
    });
  });
  return { body, release };
};

/** "Could not decide", as claude-hook answers it: blocked (exit 2), or a non-blocking error (1) with `--fail-open`. */
const couldNotDecide = (failOpen: boolean, stderr: string): HookAnswer => ({ exitCode: failOpen ? 1 : 2, stderr });

/** Write an answer translated to HTTP. */
const reply = (res: ServerResponse, http: HttpAnswer): void => {
  res.writeHead(http.status, http.contentType ? { "content-type": http.contentType } : {});
  res.end(http.body);
};

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
      "max-restarts": { type: "string", default: String(DEFAULT_MAX_RESTARTS) },
      "max-buffered": { type: "string", default: String(DEFAULT_MAX_BUFFERED_MIB) },
    },
  });
  const deadlineMs = timeoutSeconds(values.timeout) * 1000;
  if (positionals.length !== 1) throw new UsageError("serve takes exactly one module path");
  const maxRestarts = wholeNumber(values["max-restarts"]!);
  if (maxRestarts === undefined)
    throw new UsageError(`--max-restarts must be a whole number of restarts, got ${JSON.stringify(values["max-restarts"])}`);
  const maxBufferedMiB = wholeNumber(values["max-buffered"]!);
  if (maxBufferedMiB === undefined || maxBufferedMiB < 1 || maxBufferedMiB > 1024 * 1024)
    throw new UsageError(`--max-buffered must be a whole number of MiB, at least 1, got ${JSON.stringify(values["max-buffered"])}`);
  const buffered: Buffered = { bytes: 0, limit: maxBufferedMiB * 1024 * 1024 };
  const port = wholeNumber(values.port!);
  if (port === undefined || port > 65_535)
    throw new UsageError(`--port must be a port number (0 to 65535), got ${JSON.stringify(values.port)}`);
  const file = positionals[0]!;
  const path = resolve(io.cwd, file);
  const host = values.host!;
  // An unset variable (`--host "$HOST"`) would bind every interface and drop the loopback Host check.
  if (host.trim() === "") throw new UsageError("--host must be an address, got an empty string");
  if (values.export!.trim() === "") throw new UsageError("--export must name an export of the module, got an empty string");
  const failOpen = values["fail-open"]!;
  const childArgs = [file, "--export", values.export!, ...(failOpen ? ["--fail-open"] : [])];
  const log = (text: string): void => io.err(`agent-onion serve: ${text}\n`);

  let generation = 0;
  let stopping = false;
  // Set before any child can exit: its exit handler uses it.
  let current: HookProcess;
  /** Hook processes that died in a row, each within STEADY_MS of its start; reset by a change to the module. */
  let crashes = 0;
  let restart: NodeJS.Timeout | undefined;
  /** Every hook process not yet ended: one still loading for a reload or restart is killed when serve stops. */
  const live = new Set<HookProcess>();
  const start = (): HookProcess => {
    const child = new HookProcess(childArgs, io.cwd, failOpen, deadlineMs, (ended) => exited(ended), log);
    live.add(child);
    void child.done.then(() => live.delete(child));
    return child;
  };

  /** The current child ended on its own or was killed: start another, after a pause if it keeps dying. */
  const exited = (child: HookProcess): void => {
    if (current !== child || stopping) return;
    // Killed for a request that missed --timeout: the module loads and runs, one request did not end.
    if (child.timedOut) {
      log(`the hook process exited (${child.why}); starting a new one`);
      void replace("restarted");
      return;
    }
    crashes = child.uptimeMs() >= STEADY_MS ? 1 : crashes + 1;
    const what = child.started
      ? `the hook process exited (${child.why})`
      : `${file} did not load: ${child.stuck ?? `the hook process exited (${child.why}) while loading it`}`;
    const answered = failOpen ? "gets a non-blocking error" : "is blocked";
    if (crashes > maxRestarts) {
      log(
        `${what}; it ended ${crashes} times in a row, so no new one is started: every event ${answered} until ${
          watcher !== undefined ? "the module (or a file beside it that it imports) changes or " : ""
        }serve is restarted`,
      );
      return;
    }
    const delayMs = backoffMs(crashes);
    log(`${what}; starting a new one${delayMs > 0 ? ` in ${delayMs / 1000} s (meanwhile every event ${answered})` : ""}`);
    clearTimeout(restart);
    restart = setTimeout(() => void replace("restarted"), delayMs);
  };

  /** Log whether `child` loaded the module (one that died or was stopped while loading is reported by `exited`). */
  const loaded = async (child: HookProcess, what: string): Promise<void> => {
    const error = await child.ready;
    if (!child.started) return;
    log(
      error === undefined
        ? `${what} ${file}`
        : `${file} did not load, so every event is answered as claude-hook would answer it (${failOpen ? "a non-blocking error" : "blocked"}): ${error}`,
    );
  };

  /** Load the module in a new child; it takes over once loaded (or failed to), unless a newer one started. */
  const replace = async (what: string): Promise<void> => {
    if (stopping) return;
    const mine = ++generation;
    clearTimeout(restart);
    const next = start();
    await next.ready;
    if (mine !== generation || stopping) {
      await next.retire();
      return;
    }
    const old = current;
    current = next;
    await loaded(next, what);
    // It died before it took over, so its own exit found it not current yet.
    if (next.exited) exited(next);
    await old.retire();
  };

  let watcher: FSWatcher | undefined;
  // Loaded while the port opens: requests that come meanwhile wait for it (ask).
  current = start();
  if (!values["no-watch"]) {
    let timer: NodeJS.Timeout | undefined;
    let version = moduleVersion(path);
    watcher = watch(dirname(path), (_type, name) => {
      if (name !== null && !watched.test(String(name))) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        // Only a change of the module's own files counts: a module that writes a file beside itself
        // (or saves the same bytes) would otherwise reload itself, and reset the count, for good.
        const now = moduleVersion(path);
        if (now === version) return;
        version = now;
        // A changed module gets a fresh start, however often the last one died.
        crashes = 0;
        void replace("reloaded");
      }, 100);
    });
  }

  let ids = 0;
  let inFlight = 0;
  // The port bound (for --port 0): `server.address()` is null once a stop has closed the listener,
  // while requests on open connections are still answered.
  let boundPort = port;
  const server = createServer((req, res) => {
    inFlight++;
    res.once("close", () => inFlight--);
    let text: string | undefined;
    void (async () => {
      // An answer before the body is read: drop the body, so the connection can serve the next request.
      if (req.method !== "POST")
        return refuse(res, 405, "agent-onion serve takes POST requests (Claude Code's http hooks)", { allow: "POST" });
      if (loopback.has(host) && !hostAllowed(req.headers.host, boundPort))
        return refuse(res, 403, "agent-onion serve answers requests addressed to loopback only");
      if (!/^application\/json(?:\s*;|$)/i.test(req.headers["content-type"] ?? ""))
        return refuse(res, 415, "the event must be sent as application/json");
      const reading = readBody(req, MAX_EVENT_BYTES, buffered);
      res.once("close", reading.release);
      const body = await reading.body;
      if ("tooLarge" in body) return plain(res, 413, `events are limited to ${MAX_EVENT_BYTES} bytes`, { connection: "close" });
      if ("overBound" in body) {
        // Refusing would let Claude Code's action through: answer "could not decide" instead, without the stack.
        const why = `agent-onion serve: more than ${maxBufferedMiB} MiB of events are being read at once (--max-buffered); this one was dropped unread`;
        log(why);
        return reply(res, httpAnswer({ ...couldNotDecide(failOpen, why), ...withEvent(body.event) }));
      }
      text = body.text;
      const answer = await current.ask(++ids, text);
      const http = httpAnswer(
        answer.event === undefined && answer.exitCode === 2 ? { ...answer, ...withEvent(eventNameIn(text)) } : answer,
      );
      if (http.status !== 200 && answer.stderr) log(answer.stderr);
      reply(res, http);
    })().catch((error: unknown) => {
      log(`request failed: ${String(error)}`);
      if (res.headersSent) return res.destroy();
      // A 500 would let Claude Code's action through: a failure of serve's own is "could not decide".
      const event = text === undefined ? undefined : eventNameIn(text);
      const why = `agent-onion serve failed to answer: ${String(error)}`;
      reply(res, httpAnswer({ ...couldNotDecide(failOpen, why), ...withEvent(event) }));
    });
  });
  const refuse = async (res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): Promise<void> => {
    // Answer once the body is read (and dropped): an answer sent before makes Node close the connection under the client.
    if ("tooLarge" in (await readBody(res.req, MAX_EVENT_BYTES).body)) headers = { ...headers, connection: "close" };
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
    stopping = true;
    for (const child of live) child.kill();
    await Promise.all([...live].map((child) => child.done));
    throw new Error(`cannot listen on ${host}:${port}: ${(error as Error).message}`);
  });
  const address = server.address() as AddressInfo;
  boundPort = address.port;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  io.out(`listening on http://${shown}:${address.port}/\n`);
  if (!loopback.has(host)) log(`listening on ${host}: anyone who can reach this address can run your hooks`);
  void loaded(current, "loaded");

  return new Promise<number>((stopped) => {
    let forced = false;
    /** A second signal while draining: stop now, as supervisors and users expect of a second Ctrl-C. */
    const stopNow = async (signal: NodeJS.Signals): Promise<void> => {
      forced = true;
      log(`${signal} again: stopping now; the requests in flight are blocked`);
      // Their command hooks go with them (kill); the requests they held are answered as lost: blocked.
      for (const child of live) child.kill();
      await Promise.all([...live].map((child) => child.done));
      const until = Date.now() + 1000;
      while (inFlight > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
      server.closeAllConnections();
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      stopped(128 + (osConstants.signals[signal] ?? 0));
    };
    const stop = (signal: NodeJS.Signals): void => {
      if (stopping) {
        if (!forced) void stopNow(signal);
        return;
      }
      stopping = true;
      clearTimeout(restart);
      log(`${signal}: finishing ${inFlight} request${inFlight === 1 ? "" : "s"} in flight, then stopping`);
      watcher?.close();
      server.close();
      server.closeIdleConnections();
      // One still loading (a reload, or the first load) is stopped: the requests waiting for it are
      // blocked. One a reload replaced is retiring already and finishes what it is answering.
      for (const child of live) if (!child.started) child.kill();
      void (async () => {
        while (inFlight > 0) await new Promise((r) => setTimeout(r, 5));
        await current.retire();
        await Promise.all([...live].map((child) => child.done));
        // A second signal came meanwhile: stopNow says how it ended.
        if (forced) return;
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
