/**
 * How long real-process work (child processes, hook commands, the Claude Code binary) may take
 * before a test gives up on it. Each bound is sized for a busy two-core machine; a slower one
 * (an emulated CPU, valgrind, a crowded CI runner) multiplies them all with
 * `AGENT_ONION_TEST_TIMEOUT_SCALE`, instead of each test growing its own constant. No vitest
 * import: vitest.config.ts reads it too.
 */

const parse = (raw: string | undefined): number => {
  if (raw === undefined || raw === "") return 1;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 1)
    throw new Error(`AGENT_ONION_TEST_TIMEOUT_SCALE must be a number of at least 1, got ${JSON.stringify(raw)}`);
  return value;
};

/** The factor from `AGENT_ONION_TEST_TIMEOUT_SCALE` (default 1; at least 1). */
export const timeoutScale: number = parse(process.env.AGENT_ONION_TEST_TIMEOUT_SCALE);

/**
 * A bound on waiting for real-process work, in ms, scaled by `AGENT_ONION_TEST_TIMEOUT_SCALE`.
 *
 * @example
 * it("runs the hook's process", async () => { … }, scaled(30_000))
 */
export const scaled = (ms: number): number => Math.round(ms * timeoutScale);
