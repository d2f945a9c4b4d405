import { randomUUID } from "node:crypto";
import { generateText, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aiSdkMiddleware } from "../../src/adapters/ai-sdk.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import type { StateStore } from "../../src/core/state.ts";
import { MemoryStore } from "../../src/core/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { cache, withBase64Bytes } from "../../src/middleware/cache.ts";
import { RedisStore } from "../../src/stores/redis.ts";
import { stop, usage } from "../adapters/ai-sdk-fixtures.ts";
import { describeRedis, startRedis, type RedisServer } from "../support/redis.ts";

const bytes = new TextEncoder().encode('{"plan":"cached"}');
const content = [
  { type: "reasoning", text: "The user wants the plan.", providerMetadata: { anthropic: { signature: "sig-1" } } },
  { type: "source", sourceType: "url", id: "s1", url: "https://example.com/plan", title: "Plan" },
  { type: "file", mediaType: "application/json", data: bytes },
  { type: "text", text: "Here it is." },
];

/** A model that answers `content` once, generated or streamed, and counts its calls. */
const once = () => {
  let calls = 0;
  const model = new MockLanguageModelV3({
    doGenerate: async () => (calls++, { content: content as never[], finishReason: stop, usage: usage(5, 3), warnings: [] }),
    doStream: async () => {
      calls++;
      throw new Error("the cached answer should have been served");
    },
  });
  return { model, calls: () => calls };
};

const cached = (store: StateStore) => {
  const { model, calls } = once();
  const stack = withMiddleware(createAgentStack({ store }), cache({ ttlMs: 60_000, scope: "global" }));
  return { model: wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }), calls };
};

describe("cache and the other parts of an answer", () => {
  it("replays a generated answer's reasoning, source and file on a streamed call", async () => {
    const { model, calls } = cached(new MemoryStore());
    await generateText({ model, prompt: "plan?" });
    const result = streamText({ model, prompt: "plan?", onError: () => {} });
    const seen: { type: string; [key: string]: unknown }[] = [];
    for await (const part of result.fullStream) seen.push(part as never);
    expect(calls()).toBe(1);
    expect(await result.text).toBe("Here it is.");
    expect(await result.reasoningText).toBe("The user wants the plan.");
    expect((await result.sources)[0]).toMatchObject({ url: "https://example.com/plan", title: "Plan" });
    expect((await result.files)[0]?.uint8Array).toEqual(bytes);
    // Reasoning first, as the model gave it.
    expect(seen.findIndex((p) => p.type === "reasoning-delta")).toBeLessThan(seen.findIndex((p) => p.type === "text-delta"));
  });

  it("keeps a file's bytes through a store that keeps JSON, as base64", async () => {
    const { model } = cached(new MemoryStore());
    await generateText({ model, prompt: "file?" });
    const again = await generateText({ model, prompt: "file?" });
    expect(again.files[0]?.uint8Array).toEqual(bytes);
    expect(again.reasoningText).toBe("The user wants the plan.");
  });

  it("writes bytes anywhere in a value as base64, and leaves a value without bytes as it is", () => {
    const clean = [{ type: "reasoning", text: "x" }];
    expect(withBase64Bytes(clean)).toBe(clean);
    expect(withBase64Bytes([{ type: "file", data: { type: "data", data: new Uint8Array([104, 105]) } }])).toEqual([
      { type: "file", data: { type: "data", data: "aGk=" } },
    ]);
  });
});

let server: RedisServer | undefined;
let store: RedisStore | undefined;

describeRedis("cache on Redis and the other parts of an answer", () => {
  beforeAll(async () => {
    server = await startRedis();
    store = new RedisStore({ connection: server.url, keyPrefix: `cache-parts-${randomUUID()}:` });
  });
  afterAll(async () => {
    await store?.close();
    await server?.stop();
  });

  it("gives back a file's bytes from a real Redis, generated and streamed", async () => {
    const { model, calls } = cached(store as RedisStore);
    await generateText({ model, prompt: "file?" });
    const again = await generateText({ model, prompt: "file?" });
    expect(again.files[0]?.uint8Array).toEqual(bytes);
    const streamed = streamText({ model, prompt: "file?", onError: () => {} });
    await streamed.consumeStream();
    expect((await streamed.files)[0]?.uint8Array).toEqual(bytes);
    expect(calls()).toBe(1);
  });
});
