import { describe, expect, it } from "vitest";
import { createAgentStack, streamThroughStack, type StreamPart } from "../../../src/agent/index.ts";
import { collect, request } from "../stream-helpers.ts";

describe("pump", () => {
  it("settles the call when the caller aborts while the provider's stream start ignores the signal, and closes the stream that arrives late", async () => {
    let open: (parts: AsyncIterable<StreamPart>) => void = () => {};
    let closed = false;
    const late: AsyncIterable<StreamPart> = {
      [Symbol.asyncIterator]: () => ({
        next: async () => ({ done: false, value: { type: "text-delta", text: "late" } }),
        return: async () => ((closed = true), { done: true, value: undefined }),
      }),
    };
    const controller = new AbortController();
    const call = streamThroughStack(createAgentStack(), request(), () => new Promise((resolve) => (open = resolve)), { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("stop")), 10);

    await collect(call.parts);
    const settled = await Promise.race([call.outcome.then(() => true), new Promise((r) => setTimeout(() => r(false), 200))]);
    open(late);
    await new Promise((r) => setTimeout(r, 0));

    expect(settled).toBe(true);
    expect(closed).toBe(true);
  });
});
