/**
 * One `abort` listener per caller signal, shared by every run under it. A listener per run made
 * Node warn "Possible EventTarget memory leak detected" past ten runs at once on one signal (a
 * turn's parallel tool calls, nested points), and the signal may serve a whole session.
 */
import { stopListening } from "./signal.ts";

/** What a run listening to its caller's signal is told. */
export interface CallerAbortListener {
  callerAborted(): void;
}

interface Listening {
  readonly runs: Set<CallerAbortListener>;
  readonly listener: () => void;
}

const bySignal = new WeakMap<AbortSignal, Listening>();
const once: AddEventListenerOptions = { once: true };

/**
 * Tell `run` when `signal` aborts, until `stopListeningForAbort`.
 *
 * @example
 * listenForAbort(callerSignal, guardedRun)
 */
export const listenForAbort = (signal: AbortSignal, run: CallerAbortListener): void => {
  const listening = bySignal.get(signal);
  if (listening !== undefined) {
    listening.runs.add(run);
    return;
  }
  const runs = new Set<CallerAbortListener>([run]);
  const listener = (): void => {
    // A copy: each run settles and stops listening, and the last one removes this listener
    // (from a lookalike signal too, which may not honour `once`).
    for (const each of [...runs]) each.callerAborted();
  };
  signal.addEventListener("abort", listener, once);
  bySignal.set(signal, { runs, listener });
};

/**
 * Stop telling `run`; the last run to go removes the listener from the signal.
 *
 * @example
 * stopListeningForAbort(callerSignal, guardedRun)
 */
export const stopListeningForAbort = (signal: AbortSignal, run: CallerAbortListener): void => {
  const listening = bySignal.get(signal);
  if (listening === undefined || !listening.runs.delete(run) || listening.runs.size > 0) return;
  bySignal.delete(signal);
  stopListening(signal, listening.listener); // a lookalike that throws keeps it; the run still settles (R7)
};
