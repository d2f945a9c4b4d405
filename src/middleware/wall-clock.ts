/**
 * Wall-clock times for readings of the engine's clock (`performance.now()`'s timeline).
 *
 * `performance.timeOrigin + t` is the wall clock as it was when the process started: the monotonic
 * clock drifts from the wall clock over a long process (and the wall clock steps under NTP), so
 * after hours such a time can be seconds away from `Date.now()`, and from the times other tools
 * (an OpenTelemetry SDK, a log shipper) stamp. Anchoring at the wall clock now keeps them together.
 */

/**
 * The wall-clock time, in milliseconds since the epoch, of `at`, a reading of the engine's clock.
 *
 * @example
 * const started = performance.now();
 * new Date(wallClockAt(started)).toISOString() // about now
 */
export const wallClockAt = (at: number): number => Date.now() - performance.now() + at;

/**
 * The wall-clock time, in milliseconds since the epoch, at which the engine's clock read zero, as
 * known now: `clockAnchor() + at` is `wallClockAt(at)`. Read once and kept, it stamps several times
 * consistently, which separate reads of the two clocks (a process can wait between them) do not.
 *
 * @example
 * const clock = clockAnchor();
 * const start = clock + performance.now(); // later: const end = clock + performance.now()
 */
export const clockAnchor = (): number => Date.now() - performance.now();
