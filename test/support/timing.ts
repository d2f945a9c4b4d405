/** Time budgets for ReDoS-style checks: matching must stay fast whatever the pattern or text. */

/** What one compile or match may take, in ms. */
export const budgetMs = 50;

/**
 * The fastest of three runs of `run`, in ms: a ReDoS costs seconds every time, while a GC pause
 * or a busy core costs one run.
 *
 * @example
 * expect(timed(() => matcher.test("Bash", {}, () => command))).toBeLessThan(budgetMs)
 */
export const timed = (run: () => unknown): number => {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    run();
    best = Math.min(best, performance.now() - start);
  }
  return best;
};
