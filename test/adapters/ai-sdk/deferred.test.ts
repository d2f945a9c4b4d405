/**
 * The request a generate call's hooks see is mapped from the SDK's call options only when a hook
 * reads it (`ctx.input`); a stack of `around` hooks that only call `next()` never does. These
 * check that a hook that reads, edits or replaces the request or the response still sees and
 * changes what it did, and that what it sees is frozen when the stack freezes.
 */
import { generateText, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { aiSdkMiddleware } from "../../../src/adapters/ai-sdk.ts";
import { createAgentStack } from "../../../src/agent/stack.ts";
import type { ModelRequest, ModelResponse } from "../../../src/agent/types.ts";
import { Replace } from "../../../src/core/action.ts";
import { Outcome } from "../../../src/core/outcome.ts";
import { generated } from "../ai-sdk-fixtures.ts";

/** Every object reachable from `value` that is not frozen, by path. */
const unfrozen = (value: unknown, path = "$", seen = new Set<object>()): string[] => {
  if (typeof value !== "object" || value === null || seen.has(value)) return [];
  seen.add(value);
  const own = Object.isFrozen(value) ? [] : [path];
  return [...own, ...Object.entries(value).flatMap(([k, v]) => unfrozen(v, `${path}.${k}`, seen))];
};

const mock = () => new MockLanguageModelV3({ doGenerate: async () => generated("Hi there") as never });

describe("aiSdkMiddleware with around hooks only", () => {
  it("sends the SDK's own options when the hook only calls next()", async () => {
    const model = mock();
    const stack = createAgentStack().use("modelCall", { name: "pass", around: (_ctx, next) => next() });
    const { text } = await generateText({
      model: wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }),
      system: "Be brief.",
      prompt: "Hello",
      temperature: 0.2,
    });
    expect(text).toBe("Hi there");
    const direct = mock();
    await generateText({ model: direct, system: "Be brief.", prompt: "Hello", temperature: 0.2 });
    expect(model.doGenerateCalls[0]).toEqual(direct.doGenerateCalls[0]);
  });

  it("shows a hook reading ctx.input the mapped request, frozen all the way down, before and after next()", async () => {
    const seen: ModelRequest[] = [];
    const stack = createAgentStack().use("modelCall", {
      name: "reader",
      around: async (ctx, next) => {
        seen.push(ctx.input as ModelRequest);
        const outcome = await next();
        seen.push(ctx.input as ModelRequest);
        return outcome;
      },
    });
    await generateText({
      model: wrapLanguageModel({ model: mock(), middleware: aiSdkMiddleware(stack) }),
      system: "Be brief.",
      prompt: "Hello",
    });
    expect(seen[0]).toMatchObject({
      model: "mock-model-id",
      provider: "mock-provider",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hello" },
      ],
    });
    expect(seen[1]).toBe(seen[0]);
    expect(unfrozen(seen[0])).toEqual([]);
  });

  it("sends what a hook passed to next(): its messages and temperature", async () => {
    const model = mock();
    const stack = createAgentStack().use("modelCall", {
      name: "editor",
      around: (ctx, next) => {
        const request = ctx.input as ModelRequest;
        return next({ ...request, temperature: 0, messages: [...request.messages, { role: "user", content: "And goodbye" }] });
      },
    });
    await generateText({ model: wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }), prompt: "Hello", temperature: 0.7 });
    const sent = model.doGenerateCalls[0];
    expect(sent?.temperature).toBe(0);
    expect(sent?.prompt).toEqual([
      { role: "user", content: [{ type: "text", text: "Hello" }] },
      { role: "user", content: [{ type: "text", text: "And goodbye" }] },
    ]);
  });

  it("sends a request a hook of a stack that does not freeze changed in place", async () => {
    const model = mock();
    const stack = createAgentStack({ freeze: false }).use("modelCall", {
      name: "in-place",
      around: (ctx, next) => {
        const request = ctx.input as unknown as { temperature?: number; messages: { content: string }[] };
        request.temperature = 0.1;
        request.messages = request.messages.map((m) => ({ ...m, content: `${m.content} [edited]` }));
        return next();
      },
    });
    await generateText({ model: wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }), prompt: "Hello" });
    expect(model.doGenerateCalls[0]?.temperature).toBe(0.1);
    expect(model.doGenerateCalls[0]?.prompt).toEqual([{ role: "user", content: [{ type: "text", text: "Hello [edited]" }] }]);
  });

  it("shows the hook the response frozen, and gives the SDK what the hook answered instead", async () => {
    let response: ModelResponse | undefined;
    const stack = createAgentStack().use("modelCall", {
      name: "rewriter",
      around: async (_ctx, next) => {
        const outcome = await next();
        if (outcome._tag !== "Completed") return outcome;
        response = outcome.value as ModelResponse;
        return Outcome.completed({ ...response, text: `${response.text}!` });
      },
    });
    const { text } = await generateText({
      model: wrapLanguageModel({ model: mock(), middleware: aiSdkMiddleware(stack) }),
      prompt: "Hello",
    });
    expect(response?.text).toBe("Hi there");
    expect(unfrozen(response)).toEqual([]);
    expect(text).toBe("Hi there!");
  });

  it("answers in place of the provider when a hook replaces without next(), and never calls it", async () => {
    const model = mock();
    const stack = createAgentStack().use("modelCall", {
      name: "cache",
      around: () => Replace({ text: "cached", toolCalls: [], finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } }),
    });
    const { text } = await generateText({ model: wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }), prompt: "Hello" });
    expect(text).toBe("cached");
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it("adds a hook's ctx.addContext to the call when no hook read the request", async () => {
    const model = mock();
    const stack = createAgentStack().use("modelCall", {
      name: "context",
      around: (ctx, next) => {
        ctx.addContext("The user is on the free plan.");
        return next();
      },
    });
    await generateText({ model: wrapLanguageModel({ model, middleware: aiSdkMiddleware(stack) }), prompt: "Hello" });
    expect(model.doGenerateCalls[0]?.prompt).toEqual([
      { role: "system", content: "The user is on the free plan." },
      { role: "user", content: [{ type: "text", text: "Hello" }] },
    ]);
  });
});
