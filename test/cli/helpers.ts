/**
 * Test helpers for the CLI: an in-memory `CliIo`, and the real bin run as a child process.
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CliIo } from "../../src/cli/io.ts";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const bin = join(root, "bin", "agent-onion.js");
export const fixture = (...parts: string[]): string => join(root, "test", "fixtures", ...parts);

/** An io whose stdin is `stdin` (undefined: a terminal) and whose output is kept. */
export const memoryIo = (stdin?: string, cwd = root): CliIo & { stdout: string; stderr: string } => {
  const io = {
    stdout: "",
    stderr: "",
    cwd,
    readStdin: async () => stdin,
    out: (t: string) => void (io.stdout += t),
    err: (t: string) => void (io.stderr += t),
  };
  return io;
};

export interface ChildResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run a command with `input` on stdin, the way Claude Code runs a command hook. */
export const runChild = (command: string, args: readonly string[], input: string, cwd = root): Promise<ChildResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { cwd, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
