import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentStack, type ModelRequest } from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { budget } from "../../src/middleware/budget.ts";
import { LimitExceededError } from "../../src/middleware/errors.ts";
import { rateLimit } from "../../src/middleware/rate-limit.ts";
import { RedisStore } from "../../src/stores/redis.ts";
import { describeRedis, startRedis, type RedisServer } from "../support/redis.ts";
import { scaled } from "../support/scale.ts";
import { toolCall } from "./harness.ts";

let server: RedisServer;
let store: RedisStore;

describeRedis("budget on Redis", () => {
  beforeAll(async () => {
    server = await startRedis();
    store = new RedisStore({ connection: server.url, keyPrefix: `mw-${randomUUID()}:` });
  });

  afterAll(async () => {
    await store?.close();
    await server?.stop();
  });

  const request: ModelRequest = { model: "m", messages: [], maxOutputTokens: 100 };
  const answer = { text: "ok", toolCalls: [], finishReason: "stop" as const, usage: { inputTokens: 60, outputTokens: 40 } };

  describe("budget and rateLimit on a real Redis server", () => {
    it("refuses model calls past the limit, with concurrent calls never spending more than it", async () => {
      const stack = withMiddleware(createAgentStack({ store }), budget({ name: "fleet", limit: 1_000 }));
      const outcomes = await Promise.all(Array.from({ length: 25 }, () => stack.run("modelCall", request, () => answer)));
      expect(outcomes.filter((o) => o._tag === "Completed")).toHaveLength(10);
      const refused = outcomes.filter((o) => o._tag === "Failed");
      expect(refused).toHaveLength(15);
      expect(refused.every((o) => o._tag === "Failed" && o.error instanceof LimitExceededError)).toBe(true);
      expect(await store.used("fleet:global")).toBe(1_000);
    });

    it("refunds a failed call's reservation on the server", async () => {
      const stack = withMiddleware(createAgentStack({ store }), budget({ name: "refund", limit: 1_000 }));
      await stack.run("modelCall", request, () => {
        throw new Error("provider down");
      });
      expect(await store.used("refund:global")).toBe(0);
    });

    it("resets a windowed budget when its counter expires on the server", async () => {
      // The second call must come within the window: a loaded machine can take a while between them.
      const windowMs = scaled(1_000);
      const stack = withMiddleware(createAgentStack({ store }), budget({ name: "daily", limit: 100, windowMs }));
      expect((await stack.run("modelCall", request, () => answer))._tag).toBe("Completed");
      expect((await stack.run("modelCall", request, () => answer))._tag).toBe("Failed");
      await new Promise((r) => setTimeout(r, windowMs + 50));
      expect((await stack.run("modelCall", request, () => answer))._tag).toBe("Completed");
    });

    it("holds a sliding-window rate limit across two stacks sharing the server", async () => {
      const limit = rateLimit({ name: "rl", limit: 3, windowMs: 60_000 });
      const a = withMiddleware(createAgentStack({ store }), limit);
      const b = withMiddleware(createAgentStack({ store }), limit);
      const tags = [];
      for (const stack of [a, b, a, b]) tags.push((await stack.run("toolCall", toolCall("Fetch"), () => ({ content: "ok" })))._tag);
      expect(tags).toEqual(["Completed", "Completed", "Completed", "Rejected"]);
    });
  });
});
