/**
 * Budgets, rate limits and call limits shared by three OS processes hold exactly across a stalled,
 * a killed and a restarted redis-server: nothing is admitted while the server is down, admission
 * comes back once it returns, and afterwards the store's totals are exactly what the processes'
 * calls were admitted and spent (see redis-faults.ts for the scenario).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { describeRedisProcess } from "../support/redis.ts";
import { redisFaults, type FaultRunFigures, type Totals } from "./redis-faults.ts";
import { scaled } from "../support/scale.ts";

// Each check names the totals it read, so a failure on a loaded machine says what was off.
const exact = (totals: Totals): void => {
  const seen = JSON.stringify(totals);
  expect(totals.accountingErrors, seen).toEqual([]);
  expect(totals.budget.settled, seen).toBe(totals.budget.spent);
  expect(totals.budget.used, seen).toBe(totals.budget.spent);
  const { admitted } = totals.limits;
  expect(totals.limits, seen).toEqual({ sliding: admitted, fixed: admitted, calls: admitted, callsCounter: admitted, admitted });
};

describeRedisProcess("budgets and limits across processes while redis-server fails", () => {
  let figures: FaultRunFigures;
  beforeAll(async () => {
    figures = await redisFaults({ faults: ["stall", "kill", "restart"] });
  }, scaled(120_000));

  it("count exactly what three processes were admitted and spent before any fault", () => {
    expect(figures.before.budget.spent).toBeGreaterThan(0);
    expect(figures.before.limits.admitted).toBeGreaterThan(0);
    exact(figures.before);
  });

  describe.each(["stall", "kill", "restart"] as const)("after a %s of the server", (fault) => {
    const of = () => figures.faults.find((f) => f.fault === fault)!;

    it("admit nothing while it is down, and every call from shortly after it returns", () => {
      const { startedWhileDown, admittedWhileDown, refusedAfterRecovery, recoveryMs, refusals } = of();
      const seen = JSON.stringify({ admittedWhileDown, refusedAfterRecovery, recoveryMs, refusals });
      expect(startedWhileDown, seen).toBeGreaterThan(0);
      expect(admittedWhileDown, seen).toBe(0);
      expect(refusedAfterRecovery, seen).toBe(0);
      expect(of().recoveryMs.every((ms) => Number.isFinite(ms))).toBe(true);
    });

    it("count exactly what was admitted and spent, with no reservation left behind", () => {
      exact(of().after);
    });
  });

  it("gives up on reserves that a stall held past their timeout, and holds nothing for them afterwards", () => {
    const stall = figures.faults.find((f) => f.fault === "stall")!;
    // Which command gave up first (a timed-out command, or a wait for the connection) depends on
    // where each call was when the server stopped; every refusal must say the store was unavailable.
    const kinds = Object.keys(stall.refusals);
    expect(kinds.length, JSON.stringify(stall.refusals)).toBeGreaterThan(0);
    expect(
      kinds.filter((why) => !why.includes("Redis is unavailable")),
      JSON.stringify(stall.refusals),
    ).toEqual([]);
    exact(stall.after);
  });

  it("spend a shared budget and a call limit to exactly their limits, and refuse with what was spent", () => {
    const { drain } = figures;
    expect(drain.accountingErrors).toEqual([]);
    expect(drain.settled).toBe(drain.spent);
    expect(drain.used).toBe(drain.settled);
    expect(drain.settled).toBeLessThanOrEqual(drain.tokenLimit);
    expect(drain.tokenLimit - drain.settled).toBeLessThan(drain.need);
    expect(drain.refusal).toBe(
      `Budget exhausted (drain): ${drain.settled} of ${drain.tokenLimit} tokens spent, and this call may need up to ${drain.need}`,
    );
    expect([drain.callsAdmitted, drain.callsCounter]).toEqual([drain.callLimit, drain.callLimit]);
  });
});
