/**
 * An abortable sleep: the timer is cleared and the listener removed whichever comes first,
 * so nothing outlives the caller's signal (R7).
 */
import { isAbortSignal, maxTimerMs, notASignal, stopListening } from "../core/signal.ts";

/**
 * Wait `ms` milliseconds, or reject with the signal's reason when it aborts first.
 *
 * @example
 * await sleep(10, AbortSignal.timeout(1000))
 */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> => {
  // Checked before any timer exists: a bad signal found later would throw from the timer (C5).
  if (typeof ms !== "number" || Number.isNaN(ms) || ms > maxTimerMs)
    return Promise.reject(new TypeError(`sleep: ms must be a number of milliseconds up to ${maxTimerMs}, got ${String(ms)}`));
  if (signal !== undefined && !isAbortSignal(signal))
    return Promise.reject(new TypeError(`sleep: signal must be an AbortSignal, got ${notASignal(signal)}`));
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0 && signal === undefined) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(
      () => {
        stopListening(signal, onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener("abort", onAbort, { once: true });
  });
};
