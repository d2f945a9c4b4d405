/**
 * The soak in a shortened form (H7), inside the normal suite: the same function as
 * `npm run soak` (test/soak/soak.ts), with 5 000 runs and every fault kind injected.
 * (vitest.config.ts excludes test/soak/**, so the shortened run lives here.)
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { faultKinds, soak } from "../soak/soak.ts";

describe("soak, shortened", () => {
  it("survives 5 000 runs with 2% random hook faults of every kind: exact outcomes, nothing lost, heap and handles flat", async () => {
    const runs = Number(process.env.SOAK_TEST_RUNS ?? 5000);
    const figures = await soak({ runs, faultRate: 0.02, samples: 6, overheadRuns: 100, overheadTolerance: 0 });
    if (process.env.RELIABILITY_OUT) {
      mkdirSync(process.env.RELIABILITY_OUT, { recursive: true });
      writeFileSync(join(process.env.RELIABILITY_OUT, "soak-short.json"), JSON.stringify({ ...figures, date: new Date().toISOString() }, null, 2));
    }
    expect(figures.examples).toEqual([]);
    expect(figures.failures).toEqual([]);
    expect(figures.lost).toBe(0);
    expect(figures.unhandledRejections).toBe(0);
    expect(figures.faultsSurvived).toBe(figures.faultsInjected);
    for (const kind of faultKinds) expect(figures.faults[kind].injected, kind).toBeGreaterThan(0);
    expect(figures.ok).toBe(true);
  }, 120_000);
});
