import { describe, expect, it } from "vitest";
import { Attempts } from "../../../src/adapters/ai-sdk/attempts.ts";
import { noToolCalls } from "../../../src/adapters/ai-sdk/response.ts";
import type { SdkGenerateResult } from "../../../src/adapters/ai-sdk/spec.ts";
import type { ModelResponse } from "../../../src/agent/types.ts";

const result = (text: string): SdkGenerateResult => ({
  content: [{ type: "text", text } as never],
  finishReason: { unified: "stop", raw: "stop" },
  usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } },
});
const response = (text: string): ModelResponse => ({
  text,
  toolCalls: [],
  finishReason: "stop",
  usage: { inputTokens: 1, outputTokens: 1 },
});

describe("Attempts", () => {
  it("tells the attempt an answer came from: the response itself, or one that keeps its tool calls or usage", () => {
    const attempts = new Attempts();
    const [r, p] = [result("a"), response("a")];
    attempts.add(r, p);
    expect(attempts.of(p)?.result).toBe(r);
    expect(attempts.of({ ...p, text: "A" })?.result).toBe(r);
    expect(attempts.of({ ...response("a"), usage: p.usage })?.result).toBe(r);
    expect(attempts.of(response("a"))).toBeUndefined();
  });

  it("tells apart the attempts of a retried call, the latest first", () => {
    const attempts = new Attempts();
    const first = [result("1"), response("1")] as const;
    const second = [result("2"), response("2")] as const;
    attempts.add(...first);
    attempts.add(...second);
    expect(attempts.of(first[1])?.result).toBe(first[0]);
    expect(attempts.of({ ...second[1], text: "two" })?.result).toBe(second[0]);
    expect(attempts.of({ ...first[1], text: "one" })?.result).toBe(first[0]);
    expect(attempts.of(response("3"))).toBeUndefined();
  });

  it("knows no attempt before the provider answered (a cache's Replace)", () => {
    expect(new Attempts().of(response("cached"))).toBeUndefined();
  });

  it("does not take an answer for an attempt's because both have the list every response without tool calls shares", () => {
    const attempts = new Attempts();
    const [r, p] = [result("a"), { ...response("a"), toolCalls: noToolCalls }];
    attempts.add(r, p);
    expect(attempts.of({ ...response("backup"), toolCalls: noToolCalls })).toBeUndefined();
    expect(attempts.of({ ...p, text: "A" })?.result).toBe(r);
  });
});
