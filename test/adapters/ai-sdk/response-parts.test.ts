import { generateText, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { aiSdkMiddleware } from "../../../src/adapters/ai-sdk.ts";
import { fromResponse, toResponse } from "../../../src/adapters/ai-sdk/response.ts";
import type { SdkGenerateResult } from "../../../src/adapters/ai-sdk/spec.ts";
import { createAgentStack } from "../../../src/agent/stack.ts";
import type { ModelResponse } from "../../../src/agent/types.ts";
import { Transform } from "../../../src/core/index.ts";
import { stop, usage } from "../ai-sdk-fixtures.ts";

const request = { model: "m", messages: [] };
const result = (content: readonly object[]) =>
  ({ content, finishReason: stop, usage: usage(3, 4), warnings: [] }) as unknown as SdkGenerateResult;

const thinking = { type: "reasoning", text: "first", providerMetadata: { anthropic: { signature: "sig" } } };
const source = { type: "source", sourceType: "url", id: "s1", url: "https://example.com", title: "Example" };
const answer = { type: "text", text: "done" };

describe("the other parts of a generate result, as hooks see them", () => {
  it("lists every part that is neither text nor a tool call, in order, as the provider's own objects", () => {
    const response = toResponse(result([thinking, answer, source]), request);
    expect(response.parts).toHaveLength(2);
    expect(response.parts?.[0]).toBe(thinking);
    expect(response.parts?.[1]).toBe(source);
    expect(response.text).toBe("done");
  });

  it("gives a response without such parts no list at all", () => {
    expect("parts" in toResponse(result([answer]), request)).toBe(false);
    expect("parts" in toResponse(result([answer]), request, true)).toBe(false);
  });

  it("freezes the list and its parts with a response built frozen", () => {
    const parts = toResponse(result([{ ...thinking }, answer]), request, true).parts as readonly object[];
    expect(Object.isFrozen(parts)).toBe(true);
    expect(Object.isFrozen(parts[0])).toBe(true);
    expect(Object.isFrozen((parts[0] as typeof thinking).providerMetadata.anthropic)).toBe(true);
  });
});

describe("the other parts of a generate result, written back", () => {
  it("hands back the provider's result itself when no hook changed the response", () => {
    const provided = result([thinking, answer, source]);
    const response = toResponse(provided, request);
    expect(fromResponse(provided, response, response)).toBe(provided);
  });

  it("puts each rewritten part back where it was", () => {
    const provided = result([thinking, answer, source]);
    const response = toResponse(provided, request);
    const renamed = { ...source, title: "Renamed" };
    const out = fromResponse(provided, response, { ...response, parts: [thinking, renamed] });
    expect(out.content).toEqual([thinking, answer, renamed]);
    expect(out.content[0]).toBe(thinking);
  });

  it("puts a different number of parts where the first was, and none when a hook removed them", () => {
    const provided = result([thinking, answer, source]);
    const response = toResponse(provided, request);
    expect(fromResponse(provided, response, { ...response, parts: [source] }).content).toEqual([source, answer]);
    expect(fromResponse(provided, response, { ...response, parts: [] }).content).toEqual([answer]);
    const { parts: _, ...without } = response;
    expect(fromResponse(provided, response, without as ModelResponse).content).toEqual([answer]);
  });

  it("reaches generateText's result when an after hook rewrites the reasoning", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: async () => ({ content: [thinking, answer] as never[], finishReason: stop, usage: usage(3, 4), warnings: [] }),
    });
    const stack = createAgentStack().use("modelCall", {
      name: "summarise",
      after: (res) => Transform({ ...res, parts: (res.parts ?? []).map((p) => ({ ...(p as object), text: "summarised" })) }),
    });
    const out = await generateText({ model: wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }), prompt: "x" });
    expect(out.reasoningText).toBe("summarised");
    expect(out.reasoning[0]?.providerMetadata).toEqual(thinking.providerMetadata);
    expect(out.text).toBe("done");
  });
});
