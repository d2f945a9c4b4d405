/**
 * Load (A15, H7's concurrency half): 10 000 concurrent runs through 20 asynchronous hooks,
 * each outcome checked against the model of the onion. Figures go to `$RELIABILITY_OUT/load.json`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectedOutcome, runLoad } from "./load.ts";
import { scaled } from "../support/scale.ts";

describe("load", () => {
  it("the model itself gives every kind of outcome", () => {
    const tags = new Set(
      Array.from({ length: 2000 }, (_, id) => {
        const o = expectedOutcome(id, 20);
        return o._tag === "Completed" && o.value.content.startsWith("cached") ? "Replaced" : o._tag;
      }),
    );
    expect([...tags].sort()).toEqual(["Completed", "Rejected", "Replaced"]);
  });

  it(
    "holds 10 000 concurrent runs through 20 async hooks: each outcome exact, no cross-talk, nothing lost",
    async () => {
      const figures = await runLoad({ runs: 10_000, hooks: 20 });
      if (process.env.RELIABILITY_OUT) {
        mkdirSync(process.env.RELIABILITY_OUT, { recursive: true });
        writeFileSync(
          join(process.env.RELIABILITY_OUT, "load.json"),
          JSON.stringify({ ...figures, date: new Date().toISOString() }, null, 2),
        );
      }
      expect(figures.examples).toEqual([]);
      expect(figures.mismatches).toBe(0);
      expect(figures.lost).toBe(0);
      expect(figures.crossTalk).toBe(0);
      expect(figures.outcomes.completed + figures.outcomes.rejected + figures.outcomes.replaced).toBe(10_000);
      expect(figures.outcomes.rejected).toBeGreaterThan(0);
      expect(figures.outcomes.replaced).toBeGreaterThan(0);
    },
    scaled(60_000),
  );
});
