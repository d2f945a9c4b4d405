import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentStack } from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { callLimit, rateLimit } from "../../src/middleware/rate-limit.ts";
import { retry } from "../../src/middleware/retry.ts";
import { Priority } from "../../src/core/index.ts";
import { RedisStore } from "../../src/stores/redis.ts";
import { describeRedis, startRedis, type RedisServer } from "../support/redis.ts";
import { toolCall } from "./harness.ts";

let server: RedisServer;
const stores: RedisStore[] = [];

describeRedis("rate limits on Redis", () => {
  beforeAll(async () => {
    server = await startRedis();
    const keyPrefix = `rl-${randomUUID()}:`;
    for (let i = 0; i < 3; i++) stores.push(new RedisStore({ connection: server.url, keyPrefix }));
  });

  afterAll(async () => {
    for (const store of stores) await store.close();
    await server?.stop();
  });

  describe("limits stacked on one point, on a real Redis server shared by three stacks", () => {
    it("count in the outer limits only the calls that got past the inner one to the tool", async () => {
      const stacks = stores.map((store) =>
        withMiddleware(
          createAgentStack({ store }),
          callLimit({ name: "perRun", max: 40, scope: "global" }),
          rateLimit({ name: "perMinute", limit: 40, windowMs: 60_000 }),
          rateLimit({ name: "fixed", limit: 40, windowMs: 60_000, algorithm: "fixed" }),
          rateLimit({ name: "burst", limit: 5, windowMs: 60_000 }),
        ),
      );
      let reached = 0;
      const tool = () => {
        reached++;
        return { content: "ok" };
      };
      const outcomes = await Promise.all(
        Array.from({ length: 30 }, (_, i) => stacks[i % 3]!.run("toolCall", toolCall("Search", {}, `c${i}`), tool)),
      );
      expect(outcomes.filter((o) => o._tag === "Completed")).toHaveLength(5);
      expect(reached).toBe(5);
      const used = await Promise.all(
        ["perRun:global:Search", "perMinute:global:Search", "fixed:global:Search", "burst:global:Search"].map((k) => stores[0]!.used(k)),
      );
      expect(used).toEqual([5, 5, 5, 5]);
    });

    it("count once in every limit a call whose first attempt the innermost refused and whose retry reached the model", async () => {
      const store = stores[0]!;
      const stack = withMiddleware(
        createAgentStack({ store }),
        rateLimit({ name: "O", point: "modelCall", limit: 10, windowMs: 60_000, per: "all", priority: Priority.guard + 15 }),
        retry({ attempts: 3, baseMs: 150, jitter: "none", retryOn: () => true }),
        callLimit({ name: "M", point: "modelCall", max: 10, scope: "global", per: "all", priority: Priority.guard + 25 }),
        rateLimit({ name: "I", point: "modelCall", limit: 1, windowMs: 100, per: "all", priority: Priority.guard + 26 }),
      );
      await store.reserve("I:global:*", "another-process", 1, 1, 100); // I is full for 100 ms
      let calls = 0;
      const response = { text: "hi", toolCalls: [], finishReason: "stop" as const, usage: { inputTokens: 1, outputTokens: 1 } };
      const outcome = await stack.run("modelCall", { model: "m", messages: [] }, () => {
        calls++;
        return response;
      });
      expect(outcome._tag).toBe("Completed");
      expect(calls).toBe(1);
      expect(await Promise.all(["O:global:*", "M:global:*"].map((k) => store.used(k)))).toEqual([1, 1]);
    });
  });
});
