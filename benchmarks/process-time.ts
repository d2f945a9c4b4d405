/**
 * Timing a command as a fresh process: wall time from spawn to exit, and the CPU time (user and
 * system) its processes used, which a busy machine disturbs much less than wall time.
 */
import { spawnSync } from "node:child_process";

export interface ProcessTime {
  /** Milliseconds from spawn to exit. */
  readonly wall: number;
  /** Milliseconds of CPU, user and system, of the command and its children (bash's `times`). */
  readonly cpu: number;
}

const seconds = (text: string): number => {
  const m = /^(\d+)m([\d.]+)s$/.exec(text);
  if (!m) throw new Error(`cannot read a time of bash's times: ${text}`);
  return Number(m[1]) * 60 + Number(m[2]);
};

/**
 * Run `command` twice, with `input` on stdin: once directly for the wall time, once under bash for
 * the CPU time (bash's own start-up is not counted there: `times` reports its children).
 *
 * @example
 * const { wall, cpu } = timeProcess(process.execPath, ["-e", "0"], { cwd: process.cwd() })
 */
export const timeProcess = (
  command: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly input?: string },
): ProcessTime => {
  const started = process.hrtime.bigint();
  const direct = spawnSync(command, [...args], { cwd: options.cwd, input: options.input ?? "", stdio: ["pipe", "ignore", "pipe"] });
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  if (direct.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${direct.status}: ${direct.stderr.toString()}`);
  // --norc: a bash whose stdin is a socket (Node's pipes are) and whose SHLVL is below 2 (as under
  // npm or npx) takes itself for an ssh session and runs ~/.bashrc, whose processes `times` counts.
  const timed = spawnSync("bash", ["--norc", "-c", '"$0" "$@" >/dev/null; times >&3', command, ...args], {
    cwd: options.cwd,
    input: options.input ?? "",
    stdio: ["pipe", "ignore", "pipe", "pipe"],
  });
  const lines = (timed.output[3]?.toString() ?? "").trim().split("\n");
  const [user, system] = (lines[1] ?? "").trim().split(/\s+/);
  return { wall, cpu: (seconds(user ?? "") + seconds(system ?? "")) * 1000 };
};
