/**
 * Work budgets for ReDoS-style checks: matching must stay cheap whatever the pattern or text.
 *
 * Measured in CPU time of this process, not wall time: a busy machine makes a test wait for a
 * core, which stretches wall time many times over but leaves the work done the same, while a
 * ReDoS costs seconds of CPU on any machine. How fast the code is belongs in benchmarks/.
 */

/** What one compile or match may cost, in ms of CPU. */
export const budgetMs = 50;

/**
 * The CPU time `run` takes, in ms (user and system, every thread of this process).
 *
 * @example
 * expect(cpuMs(() => scan(text, detectors))).toBeLessThan(5_000)
 */
export const cpuMs = (run: () => unknown): number => {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/**
 * The cheapest of three runs of `run`, in ms of CPU: a ReDoS costs seconds every time, while a
 * GC pause costs one run.
 *
 * @example
 * expect(timed(() => matcher.test("Bash", {}, () => command))).toBeLessThan(budgetMs)
 */
export const timed = (run: () => unknown): number => {
  let best = Infinity;
  for (let i = 0; i < 3; i++) best = Math.min(best, cpuMs(run));
  return best;
};

/**
 * The CPU time this process spends until `work` settles, in ms: what handling it costs here,
 * however long a busy machine makes it wait for a child process (whose own CPU is not counted).
 *
 * @example
 * expect(await cpuMsUntil(() => stack.run("userPrompt", prompt, (p) => p))).toBeLessThan(3_000)
 */
export const cpuMsUntil = async (work: () => Promise<unknown>): Promise<number> => {
  const start = process.cpuUsage();
  await work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};
