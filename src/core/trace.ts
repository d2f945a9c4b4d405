/**
 * The decision trace (R11): which hooks ran, in which order, what each returned, why, and how
 * long it took. Nothing is recorded unless a `Trace` is passed to the run or the point has
 * observers, so a run that nobody inspects pays nothing for it.
 */
import type { Phase } from "./errors.ts";

/** What a hook did in one phase. `Failed` covers R6 failures; `Skipped` an outcome it could not change. */
export type TraceAction = "Continue" | "Transform" | "Reject" | "Replace" | "Failed" | "Ignored" | "Outcome";

/** One decision of one hook in one phase of a run. */
export interface TraceEntry {
  readonly point: string;
  readonly runId: string;
  readonly hook: string;
  readonly phase: Phase;
  readonly action: TraceAction;
  readonly reason?: string | undefined;
  /** Milliseconds since the run started at which the hook was entered. */
  readonly at: number;
  /** When the hook was entered on the `performance.now()` clock (absolute, unlike `at`). */
  readonly startedAt: number;
  /** The id of the `stack.run` call this decision belongs to (unique per call; `runId` may span a turn). */
  readonly callId: string;
  /** How long the hook took, in ms. */
  readonly ms: number;
  /** True when the hook ran in shadow mode: recorded, not enforced (R12). */
  readonly shadow?: boolean | undefined;
  /** Where the hook came from (a settings file, a module), when known. */
  readonly source?: string | undefined;
  /** The fail mode applied, for failures. */
  readonly failMode?: "open" | "closed" | undefined;
  /** For a hook that failed by answering `Reject` on an observation point (R2): the reason it gave. */
  readonly rejected?: string | undefined;
}

/**
 * A collector for decision traces; pass one as `trace` to any number of runs.
 *
 * @example
 * const trace = new Trace()
 * await stack.run("toolCall", call, exec, { trace })
 * console.table(trace.entries)
 */
export class Trace {
  readonly entries: TraceEntry[] = [];
  /** When this trace was created, on the `performance.now()` clock that `startedAt` uses. */
  readonly origin: number = performance.now();
  /** Adds one entry. */
  record(entry: TraceEntry): void {
    this.entries.push(entry);
  }
  /** A text table, one line per decision, for terminals and test failures. */
  format(): string {
    return this.entries
      .map(
        (e) =>
          `${e.point.padEnd(13)} ${e.hook.padEnd(24)} ${e.phase.padEnd(8)} ${(e.shadow ? `(${e.action})` : e.action).padEnd(10)} ${e.ms.toFixed(3).padStart(8)} ms${e.reason ? `  ${e.reason}` : ""}`,
      )
      .join("\n");
  }
}
