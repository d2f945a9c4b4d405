/**
 * The soak in a shortened form (H7), inside the normal suite: the same function as
 * `npm run soak` (test/soak/soak.ts), with 5 000 runs and every fault kind injected; and the soak's
 * own mutation tests: a run that never settles, and a small leak per run, must each make it fail.
 * (vitest.config.ts excludes test/soak/**, so the shortened run lives here.)
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { faultKinds, soak, type SoakFigures } from "../soak/soak.ts";
import { settlesWithin } from "../support/timers.ts";
import { scaled } from "../support/scale.ts";

/**
 * Settings of the short soaks. Their heap tolerance is 10 times the full soak's per run, as they
 * run 20 times fewer: the noise of a sample is spread over fewer runs.
 */
const short = { runs: 5000, faultRate: 0.02, samples: 10, overheadRuns: 100, overheadTolerance: 0, heapSlopeTolerance: 200 } as const;

describe("soak, shortened", () => {
  it(
    "survives 5 000 runs with 2% random hook faults of every kind: exact outcomes, nothing lost, heap, handles and fds flat",
    async () => {
      const runs = Number(process.env.SOAK_TEST_RUNS ?? short.runs);
      const figures = await soak({ ...short, runs });
      if (process.env.RELIABILITY_OUT) {
        mkdirSync(process.env.RELIABILITY_OUT, { recursive: true });
        writeFileSync(join(process.env.RELIABILITY_OUT, "soak-short.json"), JSON.stringify(figures, null, 2));
      }
      expect(figures.examples).toEqual([]);
      expect(figures.failures).toEqual([]);
      expect(figures.lost).toBe(0);
      expect([figures.started, figures.settled]).toEqual([runs, runs]);
      expect(figures.watchdog.stuck).toBeUndefined();
      expect(figures.unhandledRejections).toBe(0);
      expect(figures.faultsSurvived).toBe(figures.faultsInjected);
      for (const kind of faultKinds) expect(figures.faults[kind].injected, kind).toBeGreaterThan(0);
      expect(figures.heap.flat).toBe(true);
      expect(figures.fds.flat).not.toBe(false);
      expect(figures.ok).toBe(true);
    },
    scaled(120_000),
  );
});

describe("the soak fails", () => {
  it(
    "when a run never settles: its watchdog names the run, stops the soak and counts it started but not settled",
    async () => {
      const settleBoundMs = 1_000;
      // Once the watchdog trips, the soak waits only for timers it sets then (the runs in flight get
      // the bound to settle), so it must settle before a timer set at the trip for twice the bound:
      // exact however busy the machine, where the runs before the trip take what they take.
      let stoppedInTime: Promise<boolean> | undefined;
      const soaking: Promise<SoakFigures> = soak({
        ...short,
        runs: 2000,
        samples: 4,
        settleBoundMs,
        inject: { hangAtRun: 700 },
        log: (line) => {
          if (line.startsWith("watchdog: ")) stoppedInTime = settlesWithin(2 * settleBoundMs, soaking);
        },
      });
      const figures = await soaking;
      expect(await stoppedInTime).toBe(true);
      expect(figures.ok).toBe(false);
      expect(figures.watchdog.stuck).toMatchObject({ id: 700 });
      expect(figures.failures[0]).toMatch(/^run 700 \(.*\) had not settled within 1000 ms/);
      expect(figures.started - figures.settled).toBe(1);
      expect(figures.failures).toContain("1 of " + figures.started + " started runs never settled");
    },
    scaled(60_000),
  );

  it(
    "when every run leaks a little: the heap's slope over runs passes its tolerance",
    async () => {
      // 800 bytes a run over 5 000 runs: the same 4 MB that 40 bytes a run leaks over the full soak's 100 000.
      const figures = await soak({ ...short, inject: { leakBytesPerRun: 800 } });
      expect(figures.ok).toBe(false);
      expect(figures.heap.flat).toBe(false);
      expect(figures.heap.slopeBytesPerRun).toBeGreaterThan(600);
      expect(figures.failures.some((f) => /^heap grew [\d.]+ bytes per run after GC \(tolerance 200;/.test(f))).toBe(true);
      // Nothing else failed: the leak is what the soak caught.
      expect(figures.failures).toHaveLength(1);
    },
    scaled(120_000),
  );
});
