/**
 * The engine's clock: `performance.now()`'s timeline (milliseconds since the process started),
 * read through `process.hrtime()`, which skips `performance.now()`'s receiver check and is a
 * quarter cheaper; observers' `startedAt` and decisions' `startedAt` compare with
 * `performance.now()` readings to within a microsecond.
 */
const hrtime = process.hrtime;

const hrMs = (): number => {
  const t = hrtime();
  return t[0] * 1e3 + t[1] / 1e6;
};

/** `performance.now()` minus `hrMs()`: halfway between the two readings around it, from the closest of a few tries. */
const measureOffset = (): number => {
  performance.now(); // the first call loads perf_hooks
  let best = Number.POSITIVE_INFINITY;
  let found = 0;
  for (let i = 0; i < 5; i++) {
    const a = hrMs();
    const p = performance.now();
    const b = hrMs();
    if (b - a < best) {
      best = b - a;
      found = p - (a + b) / 2;
    }
  }
  return found;
};
// Measured on the first reading, not at import: `performance` loads perf_hooks, which a process
// that never reads the clock (claude-hook allowing a call) should not pay for.
let offset: number | undefined;

/**
 * Milliseconds on the `performance.now()` timeline.
 *
 * @example
 * const started = now();
 * const elapsedMs = now() - started;
 */
export const now = (): number => hrMs() + (offset ??= measureOffset());
