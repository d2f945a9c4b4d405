/**
 * What a CLI command touches of the outside world, passed in so commands can be tested in
 * process: stdin, stdout, stderr, the working directory.
 */
import { fstatSync, readSync, writeSync } from "node:fs";
import { isatty } from "node:tty";
import { brandError } from "../core/errors.ts";
import { maxTimerMs } from "../core/signal.ts";

export interface CliIo {
  /** All of stdin, or `undefined` when stdin is a terminal (nothing was piped). */
  readStdin(): Promise<string | undefined>;
  out(text: string): void;
  err(text: string): void;
  readonly cwd: string;
}

/**
 * A usage mistake: printed with the usage text, exit code 64 (EX_USAGE).
 *
 * @example
 * if (!values.event) throw new UsageError("--event is required")
 */
export class UsageError extends Error {
  override name = "UsageError";
}
brandError(UsageError);

/**
 * The largest event accepted on stdin (and by `serve` in a request body).
 *
 * @example
 * if (size > MAX_EVENT_BYTES) throw new Error("event too large")
 */
export const MAX_EVENT_BYTES = 16 * 1024 * 1024;

/**
 * How long `claude-hook` and `serve` wait for the stack by default, in seconds: under Claude
 * Code's own default of 600 for command and http hooks, after which it lets the action go on.
 *
 * @example
 * // settings.json, for a hook with "timeout": 30: "args": ["agent-onion", "claude-hook", "--timeout", "25", "hooks/guard.ts"]
 */
export const DEFAULT_TIMEOUT_SECONDS = 590;

/**
 * The `--timeout` option's value in seconds (the default when absent); a UsageError otherwise.
 *
 * @example
 * timeoutSeconds("2.5") // 2.5
 */
export const timeoutSeconds = (value: string | undefined): number => {
  if (value === undefined) return DEFAULT_TIMEOUT_SECONDS;
  const seconds = Number(value);
  // Decimal only: `Number` would also take "0x3c" or "1e-3", which nobody means as a timeout.
  if (!/^\d+(?:\.\d+)?$/.test(value) || !(seconds > 0 && seconds * 1000 <= maxTimerMs))
    throw new UsageError(`--timeout must be a positive number of seconds, got ${JSON.stringify(value)}`);
  return seconds;
};

/** The standard streams some code has asked for (`process.stdout` is created on first use). */
const opened = new Set<NodeJS.WriteStream>();
let watching = false;
/** The real stdout stream, for the command's own answer when `process.stdout` is reserved. */
let ownStdout: (() => NodeJS.WriteStream) | undefined;
const watchStdio = (reserveStdout: boolean): void => {
  if (watching) return;
  watching = true;
  const getters: Partial<Record<"stdout" | "stderr", () => NodeJS.WriteStream>> = {};
  for (const name of ["stdout", "stderr"] as const) {
    const descriptor = Object.getOwnPropertyDescriptor(process, name);
    const get = descriptor?.get;
    if (get === undefined || !descriptor!.configurable) {
      opened.add(process[name]);
      continue;
    }
    getters[name] = () => {
      const stream = get.call(process) as NodeJS.WriteStream;
      opened.add(stream);
      return stream;
    };
  }
  if (getters.stdout) ownStdout = getters.stdout;
  for (const name of ["stdout", "stderr"] as const) {
    const get = name === "stdout" && reserveStdout && getters.stderr ? getters.stderr : getters[name];
    if (get === undefined) continue;
    Object.defineProperty(process, name, { ...Object.getOwnPropertyDescriptor(process, name), get });
  }
};

/**
 * A writer that stops quietly when the reader has gone (EPIPE: `agent-onion try ... | head -1`,
 * or Claude Code giving up on a hook): the rest of the output has nowhere to go, and a crash
 * would only replace the command's exit code with a stack trace.
 *
 * It writes to the descriptor directly: creating `process.stdout` for a pipe loads Node's
 * networking and stream modules, a few ms that `claude-hook` pays on every event, mostly to
 * write nothing. A descriptor that would block (EAGAIN) is written through the stream instead.
 */
const pipeWriter = (fd: 1 | 2, stream: () => NodeJS.WriteStream): ((text: string) => void) => {
  let closed = false;
  let streamed: NodeJS.WriteStream | undefined;
  const viaStream = (data: Buffer): void => {
    if (streamed === undefined) {
      streamed = stream();
      streamed.on("error", (error: NodeJS.ErrnoException) => {
        if (error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED") closed = true;
        else throw error;
      });
    }
    streamed.write(data);
  };
  return (text) => {
    if (closed) return;
    const data = Buffer.from(text, "utf8");
    if (streamed !== undefined) return viaStream(data);
    let at = 0;
    try {
      while (at < data.length) at += writeSync(fd, data, at);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EPIPE") closed = true;
      else if (code === "EAGAIN") viaStream(data.subarray(at));
      else throw error;
    }
  };
};

/**
 * Wait until what was written to stdout and stderr has been handed to the operating system, so
 * that exiting right after loses nothing.
 *
 * @example
 * await flushStdio(); process.exit(code)
 */
export const flushStdio = (): Promise<void> =>
  Promise.all(
    [...(watching ? opened : [process.stdout, process.stderr])].map(
      (s) => new Promise<void>((resolve) => (s.writableLength === 0 || s.destroyed ? resolve() : s.write("", () => resolve()))),
    ),
  ).then(() => undefined);

/** Whether descriptor `fd` is a character device (or cannot be inspected): a pipe or a file never is a terminal. */
const mayBeTerminal = (fd: number): boolean => {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return true;
  }
};

/** Options of `processIo`. */
export interface ProcessIoOptions {
  /**
   * Keep stdout for the command's own output: `process.stdout` (and so `console.log`) writes to
   * stderr instead. Writes straight to descriptor 1 (`fs.writeSync(1, ...)`) still reach stdout.
   */
  readonly reserveStdout?: boolean;
}

/**
 * The process's own stdio.
 *
 * @example
 * process.exitCode = await main(process.argv.slice(2), processIo())
 */
export const processIo = (options: ProcessIoOptions = {}): CliIo => {
  watchStdio(options.reserveStdout === true);
  return {
    cwd: process.cwd(),
    out: pipeWriter(1, () => ownStdout?.() ?? process.stdout),
    err: pipeWriter(2, () => process.stderr),
    readStdin: async () => {
      // A pipe or a file (what Claude Code gives) is not a terminal; only a character device
      // may be, and only then is tty (which loads Node's networking) asked.
      if (mayBeTerminal(0) && isatty(0)) return undefined;
      const chunks: Buffer[] = [];
      let size = 0;
      const take = (chunk: Buffer): void => {
        size += chunk.length;
        if (size > MAX_EVENT_BYTES) throw new Error(`stdin is larger than ${MAX_EVENT_BYTES} bytes`);
        chunks.push(chunk);
      };
      // Blocking reads of the pipe Claude Code gives a hook: a few ms cheaper than setting up
      // process.stdin. A non-blocking descriptor (EAGAIN) is read on as a stream.
      try {
        const buffer = Buffer.allocUnsafe(64 * 1024);
        for (let n = readSync(0, buffer); n > 0; n = readSync(0, buffer)) take(Buffer.from(buffer.subarray(0, n)));
        return Buffer.concat(chunks).toString("utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      }
      for await (const chunk of process.stdin) take(chunk as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
  };
};
