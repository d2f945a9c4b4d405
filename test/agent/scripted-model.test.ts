import { describe, expect, it } from "vitest";
import { createScriptedModel, type StreamPart } from "../../src/agent/index.ts";
import { collect, request } from "./stream-helpers.ts";

describe("the scripted model", () => {
  it("answers its turns in order and records every request", async () => {
    const model = createScriptedModel({ turns: ["one", { toolCalls: [{ name: "Read", input: { path: "a" } }] }] });

    const first = await model.generate(request("a"), {});
    const second = await model.generate(request("b"), {});

    expect(first).toMatchObject({ text: "one", finishReason: "stop", toolCalls: [] });
    expect(second).toMatchObject({ text: "", finishReason: "tool-calls", toolCalls: [{ name: "Read", input: { path: "a" } }] });
    expect(second.toolCalls[0]!.id).toMatch(/^call_\d+$/);
    expect(model.requests.map((r) => r.messages[0]!.content)).toEqual(["a", "b"]);
    expect(model.remaining).toBe(0);
    await expect(model.generate(request(), {})).rejects.toThrow(/no turn left for request #3/);
  });

  it("streams text in chunks of the configured size, then tool calls, then finish with usage", async () => {
    const model = createScriptedModel({
      turns: [{ text: "abcdefg", toolCalls: [{ name: "T", id: "t1" }], usage: { inputTokens: 3, outputTokens: 4 } }],
      chunkSize: 3,
    });

    const parts: StreamPart[] = await collect(model.stream(request(), {}));

    expect(parts).toEqual([
      { type: "text-delta", text: "abc" },
      { type: "text-delta", text: "def" },
      { type: "text-delta", text: "g" },
      { type: "tool-call", call: { id: "t1", name: "T", input: {} } },
      { type: "finish", finishReason: "tool-calls", usage: { inputTokens: 3, outputTokens: 4 } },
    ]);
  });

  it("uses explicit chunks, delays, and answers by function", async () => {
    const model = createScriptedModel({ turns: [{ chunks: ["x", "yz"] }, (req) => `echo ${req.messages.at(-1)!.content}`], delayMs: 5 });
    const started = performance.now();

    const parts = await collect(model.stream(request(), {}));
    const echoed = await model.generate(request("ping"), {});

    expect(parts.slice(0, 2)).toEqual([
      { type: "text-delta", text: "x" },
      { type: "text-delta", text: "yz" },
    ]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(9);
    expect(echoed.text).toBe("echo ping");
  });

  it("stops streaming when its signal aborts", async () => {
    const model = createScriptedModel({ turns: ["abcdefghijkl"], chunkSize: 2, delayMs: 20 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("stop")), 30);

    const parts = await collect(model.stream(request(), { signal: controller.signal }));

    expect(parts.at(-1)).toMatchObject({ type: "error" });
    expect(parts.length).toBeLessThan(4);
  });

  it("estimates usage when the script gives none", async () => {
    const response = await createScriptedModel({ turns: ["12345678"] }).generate(request("1234"), {});
    expect(response.usage).toEqual({ inputTokens: 2, outputTokens: 2 });
  });
});

describe("the scripted model's record of requests", () => {
  it("keeps the latest 100 requests by default and counts every one", async () => {
    const model = createScriptedModel({ turns: [], whenDone: "ok" });
    for (let i = 0; i < 250; i++) await model.generate(request(`r${i}`), {});
    expect(model.requestCount).toBe(250);
    expect(model.requests).toHaveLength(100);
    expect(model.modes).toHaveLength(100);
    expect(model.requests[0]!.messages[0]!.content).toBe("r150");
    expect(model.requests.at(-1)!.messages[0]!.content).toBe("r249");
  });

  it("keeps as many as keepRequests says, none with 0 and all with Infinity", async () => {
    for (const [keepRequests, kept] of [
      [0, 0],
      [3, 3],
      [Number.POSITIVE_INFINITY, 10],
    ] as const) {
      const model = createScriptedModel({ turns: [], whenDone: "ok", keepRequests });
      for (let i = 0; i < 10; i++) await collect(model.stream(request(`r${i}`), {}));
      expect([model.requests.length, model.modes.length, model.requestCount]).toEqual([kept, kept, 10]);
      if (kept > 0) expect(model.requests.at(-1)!.messages[0]!.content).toBe("r9");
    }
  });

  it("numbers requests by all it received in the error when its script runs out", async () => {
    const model = createScriptedModel({ turns: ["one"], keepRequests: 0 });
    await model.generate(request(), {});
    await expect(model.generate(request(), {})).rejects.toThrow(/no turn left for request #2/);
  });

  it("refuses a keepRequests that is not a whole number of at least 0, naming the option", () => {
    for (const keepRequests of [-1, 1.5, Number.NaN, "5" as never]) {
      expect(() => createScriptedModel({ turns: [], keepRequests })).toThrow(
        /createScriptedModel: keepRequests must be an integer of at least 0 or Infinity/,
      );
    }
  });
});
