import { describe, expect, it } from "vitest";
import { Replace } from "../../../src/core/index.ts";
import { createAgentStack, streamThroughStack, type ModelResponse, type StreamPart } from "../../../src/agent/index.ts";
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
    const call = streamThroughStack(createAgentStack(), request(), () => new Promise((resolve) => (open = resolve)), {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("stop")), 10);

    await collect(call.parts);
    const settled = await Promise.race([call.outcome.then(() => true), new Promise((r) => setTimeout(() => r(false), 200))]);
    open(late);
    await new Promise((r) => setTimeout(r, 0));

    expect(settled).toBe(true);
    expect(closed).toBe(true);
  });

  const withResult: StreamPart[] = [
    { type: "tool-call", call: { id: "ws-1", name: "web_search", input: { query: "x" } } },
    { type: "raw", value: { type: "tool-result", toolCallId: "ws-1", result: { hits: 1 } } },
    { type: "text-delta", text: "Found it." },
    { type: "finish", finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } },
  ];
  const kinds = (parts: readonly StreamPart[]) => parts.map((p) => (p.type === "raw" ? (p.value as { type: string }).type : p.type));
  const starting = (parts: readonly StreamPart[]) =>
    async function* () {
      yield* parts;
    };

  it("holds a raw part that names a tool call (a provider-executed tool's result) with that call, and releases it right after it", async () => {
    const parts = await collect(streamThroughStack(createAgentStack(), request(), starting(withResult)).parts);

    expect(kinds(parts)).toEqual(["text-delta", "tool-call", "tool-result", "finish"]);
  });

  it("drops a raw part that names a tool call when a hook drops the call", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "no-tools",
      after: (res) => Replace({ ...res, toolCalls: [] } as ModelResponse),
    });

    const parts = await collect(streamThroughStack(stack, request(), starting(withResult)).parts);

    expect(kinds(parts)).toEqual(["text-delta", "finish"]);
  });
});
