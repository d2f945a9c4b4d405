/**
 * Reading Claude Code's debug log (`--debug-file`): which hook commands ran, with what exit
 * status and wall time. One line per finished command hook:
 * `Hooks: PreToolUse:Bash [<command>] finished with status 0 (15ms)`, or, for one it killed,
 * `Hooks: PreToolUse:Bash [<command>] timed out after 1000ms (1030ms)`.
 */

/** A command hook run, as the debug log records it. */
export interface HookRun {
  /** `PreToolUse:Bash`, `Stop`, `SessionStart:startup`: the event and what it matched. */
  readonly label: string;
  readonly event: string;
  readonly command: string;
  /** The exit status, or `"timeout"` when Claude Code killed it. */
  readonly status: number | "timeout";
  /** The timeout Claude Code applied, in ms, as its line names it when it killed the hook. */
  readonly timeoutMs?: number;
  readonly ms: number;
  /** The log's timestamp of the line, in ms since the epoch. */
  readonly at: number;
}

const line = /^(\S+) \[DEBUG\] Hooks: (\S+) \[(.*)\] (?:finished with status (-?\d+)|timed out after (\d+)ms) \((\d+)ms\)$/;

/**
 * The finished command hooks in a debug log, in log order.
 *
 * @example
 * hookRuns("2026-01-01T00:00:00.000Z [DEBUG] Hooks: Stop [./stop.sh] finished with status 2 (9ms)")
 * // [{ label: "Stop", event: "Stop", command: "./stop.sh", status: 2, ms: 9, at: 1767225600000 }]
 */
export const hookRuns = (log: string): HookRun[] => {
  const runs: HookRun[] = [];
  for (const text of log.split("\n")) {
    const m = line.exec(text);
    if (!m) continue;
    const label = m[2]!;
    runs.push({
      label,
      event: label.split(":")[0]!,
      command: m[3]!,
      status: m[4] === undefined ? "timeout" : Number(m[4]),
      ...(m[5] === undefined ? {} : { timeoutMs: Number(m[5]) }),
      ms: Number(m[6]),
      at: Date.parse(m[1]!),
    });
  }
  return runs;
};
