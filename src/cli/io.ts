/**
 * What a CLI command touches of the outside world, passed in so commands can be tested in
 * process: stdin, stdout, stderr, the working directory.
 */
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
 * The largest event accepted on stdin.
 *
 * @example
 * if (size > MAX_STDIN_BYTES) throw new Error("stdin too large")
 */
export const MAX_STDIN_BYTES = 16 * 1024 * 1024;

/**
 * The process's own stdio.
 *
 * @example
 * process.exitCode = await main(process.argv.slice(2), processIo())
 */
export const processIo = (): CliIo => ({
  cwd: process.cwd(),
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  readStdin: async () => {
    if (process.stdin.isTTY) return undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of process.stdin) {
      size += (chunk as Buffer).length;
      if (size > MAX_STDIN_BYTES) throw new Error(`stdin is larger than ${MAX_STDIN_BYTES} bytes`);
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString("utf8");
  },
});
