/**
 * Run one child process the way a hook must be run (D2–D6): stdin written and always closed,
 * EPIPE from a child that never reads tolerated, both pipes drained with caps, its own process
 * group so that a timeout or abort kills the whole tree (SIGTERM, then SIGKILL after a grace),
 * and no waiting on pipes that a leftover grandchild keeps open. It never throws: every way a
 * process can end is described in the result, and the caller decides what it means.
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { isAbortSignal, maxTimerMs, notASignal, stopListening } from "../core/signal.ts";
import { limitProblem } from "./limits.ts";

// Loaded on the first process: `claude-hook` loads this file with the bridge, and most of its
// events run no command hook, so they must not pay for node:child_process (about 1 ms).
// A require made when a dependency is first loaded, not at import: createRequire costs a little
// in every process that imports this file, and most never load the dependency.
const require = (id: string): unknown => createRequire(import.meta.url)(id);
let childProcess: typeof import("node:child_process") | undefined;

/** What `runProcess` runs: the command, its input, environment, limits and deadline. */
export interface ProcessOptions {
  /** Shell form: a command line for `/bin/sh -c` (or `shell`). Exec form (with `args`): the executable. */
  readonly command: string;
  /** Exec form: the argument vector, passed without any shell. */
  readonly args?: readonly string[] | undefined;
  /** Shell form only: run the command with `bash -c` or `pwsh -NoProfile -Command` instead of `/bin/sh -c`. */
  readonly shell?: "bash" | "powershell" | undefined;
  /** Written to stdin, which is then closed. */
  readonly input: string;
  /** The complete environment of the child (build it with an allowlist). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly timeoutMs: number;
  /** Between SIGTERM and SIGKILL; default 1000 ms. */
  readonly killGraceMs?: number | undefined;
  /** More stdout than this kills the process: its answer could not be read anyway. Default 1 MiB. */
  readonly maxStdoutBytes?: number | undefined;
  /** stderr beyond this is drained and dropped. Default 64 KiB. */
  readonly maxStderrBytes?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** What a process did: its exit code or signal, and its output (within the limits). */
export interface ProcessResult {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  /** stdout passed `maxStdoutBytes`; the process was killed. */
  readonly stdoutOverflow: boolean;
  readonly stderrTruncated: boolean;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  /** The process could not start: its options were invalid, its cwd does not exist, or spawn failed. */
  readonly spawnError?: Error;
  readonly pid: number | undefined;
  readonly durationMs: number;
}

// Shell form's program and its flags, by the `shell` field (Claude Code's; `sh` is our default on every platform).
const shells = { sh: ["/bin/sh", "-c"], bash: ["bash", "-c"], powershell: ["pwsh", "-NoProfile", "-Command"] } as const;

// Hooks still running, with their marks; killed if our own process exits first (execa's `cleanup`).
const live = new Map<number, string>();
let exitHookInstalled = false;
const installExitHook = (): void => {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const [pid, mark] of live) killTree(pid, mark, "SIGKILL");
  });
};

/**
 * The variable every hook process is started with (and its descendants inherit): a process that
 * left the hook's process group (`setsid`, a double fork) is still found by it in /proc.
 */
export const HOOK_MARK_VARIABLE = "AGENT_ONION_HOOK_RUN";
// Random per module copy: a pid is reused by a later process, and two copies of this module in one
// process count from the same start, so a mark of pid and count alone could name another's hook.
const nonce = randomBytes(8).toString("hex");
let runs = 0;

/**
 * Every process of one hook run that /proc shows: those under `pid` by parent, and those whose
 * environment carries the run's mark (a process reparented after its parent exited). Linux only;
 * elsewhere, and for a process that dropped the variable or changed user, nothing.
 */
const hookProcesses = (pid: number, mark: string): Set<number> => {
  const found = new Set<number>();
  if (process.platform !== "linux") return found;
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return found;
  }
  const needle = Buffer.from(`${HOOK_MARK_VARIABLE}=${mark}\0`);
  const children = new Map<number, number[]>();
  for (const name of names) {
    const p = Number(name);
    if (!Number.isInteger(p) || p === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ", 2)[1]);
      const siblings = children.get(ppid);
      if (siblings === undefined) children.set(ppid, [p]);
      else siblings.push(p);
      const environ = readFileSync(`/proc/${name}/environ`);
      const at = environ.indexOf(needle);
      if (at === 0 || (at > 0 && environ[at - 1] === 0)) found.add(p);
    } catch {
      // gone meanwhile, or another user's
    }
  }
  const queue = [pid];
  while (queue.length > 0)
    for (const child of children.get(queue.pop()!) ?? [])
      if (!found.has(child)) {
        found.add(child);
        queue.push(child);
      }
  return found;
};

/** Signal a hook's process group and every process of its run found outside it (read before the group goes, while parents still link them). */
const killTree = (pid: number, mark: string, signal: NodeJS.Signals): void => {
  const others = hookProcesses(pid, mark);
  killGroup(pid, signal);
  for (const p of others) {
    try {
      process.kill(p, signal);
    } catch {
      // gone already
    }
  }
};

/**
 * The processes /proc shows whose stat fields (those after `(comm)`: state, ppid, pgrp, session, ...)
 * pass `keep` and whose environment carries a mark `owner` made, with that mark. Linux only.
 */
const markedBy = (
  owner: number,
  keep: (pid: number, fields: readonly string[]) => boolean,
): { pid: number; mark: string; fields: string[] }[] => {
  const found: { pid: number; mark: string; fields: string[] }[] = [];
  if (process.platform !== "linux") return found;
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return found;
  }
  const prefix = `${HOOK_MARK_VARIABLE}=${owner}.`;
  for (const name of names) {
    const p = Number(name);
    if (!Number.isInteger(p) || p === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      // "pid (comm) state ppid pgrp session ... starttime (the 22nd field)": comm may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ", 20);
      if (!keep(p, fields)) continue;
      const entry = readFileSync(`/proc/${name}/environ`, "latin1")
        .split("\0")
        .find((e) => e.startsWith(prefix));
      if (entry !== undefined) found.push({ pid: p, mark: entry.slice(HOOK_MARK_VARIABLE.length + 1), fields });
    } catch {
      // gone meanwhile, or another user's
    }
  }
  return found;
};

/**
 * Kill the hook runs still going in process `owner` (a child of this process that runs hooks, such
 * as a `serve` hook process, stopped first so it starts no more): each run's first process is a
 * child of `owner` carrying a mark `owner` made, and goes with its group and every process of
 * its run (killTree). A finished run's leftovers (a `nohup` server) are no longer under `owner`
 * and are left alone. Returns the first processes found. Linux only; elsewhere, nothing.
 */
export const killHookRunsOf = (owner: number, signal: NodeJS.Signals = "SIGKILL"): number[] => {
  const runs = markedBy(owner, (_p, fields) => Number(fields[1]) === owner);
  for (const { pid, mark } of runs) killTree(pid, mark, signal);
  return runs.map(({ pid }) => pid);
};

/**
 * Kill the hook runs still going of process `owner` after it died without ending them (killed by
 * the OOM killer, `kill -9`): its runs' first processes were moved to another parent then, so they
 * are found by their mark and by leading a session of their own (each run is started in one), and
 * go with their group and every process of their run (killTree). A finished run's leftovers stay
 * in its session and are left alone, unless one started a session of its own (`setsid server &`),
 * which cannot be told from a run still going. Returns each run's first process (the first started
 * of its session leaders). Linux only; elsewhere, nothing.
 */
export const killHookRunsLeftBy = (owner: number, signal: NodeJS.Signals = "SIGKILL"): number[] => {
  // By mark: the session leaders of each run (its first process, and any that started a session of
  // its own), the first started first.
  const runs = new Map<string, [start: number, pid: number][]>();
  for (const { pid, mark, fields } of markedBy(owner, (p, fields) => Number(fields[3]) === p)) {
    const leaders = runs.get(mark) ?? [];
    leaders.push([Number(fields[19]), pid]);
    runs.set(mark, leaders);
  }
  const first: number[] = [];
  for (const [mark, leaders] of runs) {
    leaders.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    first.push(leaders[0]![1]);
    for (const [, p] of leaders) killTree(p, mark, signal);
  }
  return first;
};

/** Signal a whole process group; a group already gone is not an error. */
const killGroup = (pid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left to kill. EPERM cannot happen for our own children.
  }
};

/**
 * Run a process and describe how it ended. Never rejects.
 *
 * @example
 * const r = await runProcess({ command: "cat", input: "hi", env: { PATH: process.env.PATH ?? "" }, cwd: ".", timeoutMs: 1000 })
 * r.stdout.toString() // "hi"
 */
export const runProcess = (options: ProcessOptions): Promise<ProcessResult> => {
  // Checked before anything starts: a bad signal or input found after spawn would leave the child
  // running and throw later from its handlers.
  if (typeof options !== "object" || options === null)
    return Promise.resolve(notStarted(new TypeError("runProcess: options must be an object")));
  let read: ProcessOptions;
  try {
    // Read once: what is checked is what is used, even behind a getter.
    const { command, args, shell, input, env, cwd, timeoutMs, killGraceMs, maxStdoutBytes, maxStderrBytes, signal } = options;
    read = { command, args, shell, input, env, cwd, timeoutMs, killGraceMs, maxStdoutBytes, maxStderrBytes, signal };
  } catch (error) {
    return Promise.resolve(
      notStarted(new TypeError(`runProcess: options could not be read: ${error instanceof Error ? error.message : String(error)}`)),
    );
  }
  const problem = optionsProblem(read);
  if (problem !== undefined) return Promise.resolve(notStarted(new TypeError(`runProcess: ${problem}`)));
  return spawnAndWait(read);
};

/** What is wrong with the caller's options (a plain copy), if anything. */
const optionsProblem = (options: ProcessOptions): string | undefined => {
  try {
    if (typeof options.command !== "string" || options.command === "") return "command must be a non-empty string";
    if (options.args !== undefined && (!Array.isArray(options.args) || !options.args.every((a) => typeof a === "string")))
      return "args must be an array of strings";
    if (options.shell !== undefined && options.shell !== "bash" && options.shell !== "powershell")
      return `shell must be "bash" or "powershell", got ${JSON.stringify(options.shell) ?? String(options.shell)}`;
    if (typeof options.input !== "string") return "input must be a string";
    if (typeof options.env !== "object" || options.env === null) return "env must be an object";
    if (typeof options.cwd !== "string") return "cwd must be a string";
    const limit =
      (options.timeoutMs === undefined ? "timeoutMs is required" : limitProblem("timeoutMs", options.timeoutMs, "ms")) ??
      limitProblem("killGraceMs", options.killGraceMs, "delay") ??
      limitProblem("maxStdoutBytes", options.maxStdoutBytes, "bytes") ??
      limitProblem("maxStderrBytes", options.maxStderrBytes, "bytes");
    if (limit !== undefined) return limit;
    if (options.signal !== undefined && !isAbortSignal(options.signal))
      return `signal must be an AbortSignal, got ${notASignal(options.signal)}`;
    return undefined;
  } catch (error) {
    return `options could not be read: ${error instanceof Error ? error.message : String(error)}`;
  }
};

/** The result of a process that was never started. */
const notStarted = (spawnError: Error): ProcessResult => ({
  exitCode: null,
  signal: null,
  stdout: Buffer.alloc(0),
  stderr: Buffer.alloc(0),
  stdoutOverflow: false,
  stderrTruncated: false,
  timedOut: false,
  aborted: false,
  pid: undefined,
  durationMs: 0,
  spawnError,
});

const spawnAndWait = (options: ProcessOptions): Promise<ProcessResult> =>
  new Promise((resolve) => {
    const started = performance.now();
    const grace = options.killGraceMs ?? 1000;
    const maxOut = options.maxStdoutBytes ?? 1024 * 1024;
    const maxErr = options.maxStderrBytes ?? 64 * 1024;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let stdoutOverflow = false;
    let stderrTruncated = false;
    let timedOut = false;
    let aborted = false;
    /** The hook was cut short (its timeout, an abort, too much output), not ended on its own. */
    const cutShort = (): boolean => timedOut || aborted || stdoutOverflow;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let settled = false;
    let exited = false;
    const timers: NodeJS.Timeout[] = [];
    let child: ChildProcess | undefined;
    const mark = `${process.pid}.${nonce}.${++runs}`;

    /** `released`: the hook exited in time and every pipe closed, so what it left running is its business. */
    const finish = (spawnError?: Error, released = false): void => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      stopListening(options.signal, onAbort);
      if (child?.pid !== undefined) {
        // Otherwise whatever the hook left behind in its group goes with it (D4): it holds the
        // pipes, or the hook was cut short.
        if (!released) killTree(child.pid, mark, "SIGKILL");
        live.delete(child.pid);
      }
      child?.stdout?.destroy();
      child?.stderr?.destroy();
      child?.stdin?.destroy();
      resolve({
        exitCode,
        signal: exitSignal,
        stdout: Buffer.concat(out),
        stderr: Buffer.concat(err),
        stdoutOverflow,
        stderrTruncated,
        timedOut,
        aborted,
        pid: child?.pid,
        durationMs: performance.now() - started,
        ...(spawnError ? { spawnError } : {}),
      });
    };

    const terminate = (): void => {
      const pid = child?.pid;
      if (pid === undefined) return finish();
      killTree(pid, mark, "SIGTERM");
      timers.push(setTimeout(() => killTree(pid, mark, "SIGKILL"), grace));
      // Backstop: if even SIGKILL does not produce an exit (uninterruptible sleep), stop waiting.
      timers.push(setTimeout(() => finish(), Math.min(grace + 1000, maxTimerMs)));
    };
    const onAbort = (): void => {
      if (settled || timedOut || exited) return;
      aborted = true;
      terminate();
    };

    try {
      const stat = statSync(options.cwd, { throwIfNoEntry: false });
      if (!stat?.isDirectory()) return finish(new Error(`working directory ${options.cwd} does not exist`));
    } catch (error) {
      return finish(error as Error);
    }
    if (options.signal?.aborted) {
      aborted = true;
      return finish();
    }

    const shellForm = options.args === undefined;
    const shell = shellForm ? shells[options.shell ?? "sh"] : undefined;
    // A missing bash or pwsh is the hook's configuration, not its script: say which field asked for it.
    const spawnFailed = (error: Error): Error =>
      shell && options.shell && (error as NodeJS.ErrnoException).code === "ENOENT"
        ? Object.assign(new Error(`shell: "${options.shell}" runs ${shell[0]}, which was not found on PATH (${error.message})`), {
            code: "ENOENT",
          })
        : error;
    try {
      childProcess ??= require("node:child_process") as typeof import("node:child_process");
      child = childProcess.spawn(shell ? shell[0] : options.command, shell ? [...shell.slice(1), options.command] : [...options.args!], {
        cwd: options.cwd,
        env: { ...options.env, [HOOK_MARK_VARIABLE]: mark },
        stdio: ["pipe", "pipe", "pipe"],
        // Its own process group (and session: no controlling terminal), so the tree can be killed at once.
        detached: true,
        windowsHide: true,
      });
    } catch (error) {
      return finish(spawnFailed(error as Error));
    }
    const proc = child;
    proc.once("error", (error) => {
      // Spawn failures (ENOENT, EACCES) arrive here; after a successful spawn only kill errors can.
      if (proc.pid === undefined) finish(spawnFailed(error));
    });
    if (proc.pid === undefined) return; // the 'error' event follows
    live.set(proc.pid, mark);
    installExitHook();

    proc.stdin!.on("error", () => {
      // EPIPE/ECONNRESET: the hook exited without reading its input. Its exit status decides (D2).
    });
    proc.stdin!.end(options.input);

    proc.stdout!.on("data", (chunk: Buffer) => {
      if (stdoutOverflow) return;
      if (outBytes + chunk.length > maxOut) {
        stdoutOverflow = true;
        killTree(proc.pid!, mark, "SIGKILL");
        return;
      }
      outBytes += chunk.length;
      out.push(chunk);
    });
    proc.stderr!.on("data", (chunk: Buffer) => {
      if (errBytes >= maxErr) {
        stderrTruncated = true;
        return;
      }
      const room = maxErr - errBytes;
      if (chunk.length > room) stderrTruncated = true;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      errBytes += part.length;
      err.push(part);
    });

    proc.once("exit", (code, signal) => {
      exited = true;
      exitCode = code;
      exitSignal = signal;
      // A hook cut short takes its group with it now. Otherwise the pipes get a moment to deliver
      // what is buffered and close; a leftover still holding them then is killed (finish), and
      // we stop waiting (D4). A process put in the background that let go of the pipes
      // (`nohup server >/dev/null 2>&1 &`) keeps running, as under Claude Code.
      if (cutShort()) killTree(proc.pid!, mark, "SIGKILL");
      timers.push(setTimeout(() => finish(), Math.min(grace, 200)));
    });
    proc.once("close", () => finish(undefined, exited && !cutShort()));

    timers.push(
      setTimeout(() => {
        if (settled || exited) return; // it exited in time; only its pipes are still draining
        timedOut = true;
        terminate();
      }, options.timeoutMs),
    );
    options.signal?.addEventListener("abort", onAbort, { once: true });
  });
