/**
 * What a CLI command touches of the outside world, passed in so commands can be tested in
 * process: stdin, stdout, stderr, the working directory.
 */
import { readSync } from "node:fs";
import { isatty } from "node:tty";
import { brandError } from "../core/errors.ts";

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
 * A writer that stops quietly when the reader has gone (EPIPE: `agent-onion try ... | head -1`,
 * or Claude Code giving up on a hook): the rest of the output has nowhere to go, and a crash
 * would only replace the command's exit code with a stack trace.
 */
const pipeWriter = (stream: NodeJS.WriteStream): ((text: string) => void) => {
  let closed = false;
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED") closed = true;
    else throw error;
  });
  return (text) => {
    if (!closed) stream.write(text);
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
    [process.stdout, process.stderr].map(
      (s) => new Promise<void>((resolve) => (s.writableLength === 0 || s.destroyed ? resolve() : s.write("", () => resolve()))),
    ),
  ).then(() => undefined);

/**
 * The process's own stdio.
 *
 * @example
 * process.exitCode = await main(process.argv.slice(2), processIo())
 */
export const processIo = (): CliIo => ({
  cwd: process.cwd(),
  out: pipeWriter(process.stdout),
  err: pipeWriter(process.stderr),
  readStdin: async () => {
    if (isatty(0)) return undefined;
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
});
