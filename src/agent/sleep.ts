/**
 * An abortable sleep: the timer is cleared and the listener removed whichever comes first,
 * so nothing outlives the caller's signal (R7).
 */

/**
 * Wait `ms` milliseconds, or reject with the signal's reason when it aborts first.
 *
 * @example
 * await sleep(10, AbortSignal.timeout(1000))
 */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> => {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0 && signal === undefined) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
};
