import { describe, expectTypeOf, it } from "vitest";
import { MemoryStore, type Admission, type StateStore } from "../../src/core/index.ts";
import { StateStoreError } from "../../src/core/state.ts";
import { createScriptedModel } from "../../src/agent/index.ts";
import { budget } from "../../src/middleware/budget.ts";
import type { RedisStore } from "../../src/stores/redis.ts";

describe("store types", () => {
  it("give an admission's settled spend and live reservations apart from its total", () => {
    expectTypeOf<Admission>().toEqualTypeOf<{
      readonly ok: boolean;
      readonly used: number;
      readonly settled: number;
      readonly reserved: number;
    }>();
    // @ts-expect-error an admission without settled and reserved is not one
    const partial: Admission = { ok: true, used: 1 };
    void partial;
  });

  it("ask every store for renew, and both stores have it", () => {
    expectTypeOf<StateStore["renew"]>().toEqualTypeOf<(key: string, id: string, ttlMs: number) => Promise<boolean>>();
    expectTypeOf<MemoryStore>().toMatchTypeOf<StateStore>();
    expectTypeOf<RedisStore>().toMatchTypeOf<StateStore>();
    const { renew: _renew, ...withoutRenew } = new MemoryStore();
    // @ts-expect-error a store without renew cannot hold a lease
    const store: StateStore = withoutRenew;
    void store;
  });

  it("say on a store error whether the operation may have run", () => {
    expectTypeOf<StateStoreError["mayHaveRun"]>().toEqualTypeOf<boolean>();
    new StateStoreError("timed out", { mayHaveRun: true });
    // @ts-expect-error mayHaveRun is a boolean
    new StateStoreError("timed out", { mayHaveRun: "yes" });
  });

  it("take a number of requests to keep for the scripted model, and a retry time for the budget", () => {
    expectTypeOf(createScriptedModel({ turns: [], keepRequests: 10 }).requestCount).toEqualTypeOf<number>();
    // @ts-expect-error keepRequests is a number
    createScriptedModel({ turns: [], keepRequests: "all" });
    budget({ limit: 10, holdTtlMs: 5_000, retryAccountingMs: 0 });
    // @ts-expect-error retryAccountingMs is a number of ms
    budget({ limit: 10, retryAccountingMs: true });
  });
});
