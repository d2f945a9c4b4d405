/**
 * The middleware type-checks against both specifications: ai 6's `LanguageModelV3Middleware`
 * and `wrapLanguageModel`, and ai 7's `LanguageModelV4Middleware` and `wrapLanguageModel`.
 */
import type { LanguageModelV3Middleware } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { wrapLanguageModel as wrapLanguageModelV7 } from "ai-v7";
import { MockLanguageModelV4 } from "ai-v7/test";
import type { LanguageModelV4Middleware } from "provider-v4";
import { describe, expectTypeOf, it } from "vitest";
import { aiSdkMiddleware } from "../../src/adapters/ai-sdk.ts";
import { createAgentStack } from "../../src/agent/stack.ts";

const stack = createAgentStack();

describe("aiSdkMiddleware types", () => {
  it("is a LanguageModelV3Middleware by default, accepted by ai 6's wrapLanguageModel", () => {
    expectTypeOf(aiSdkMiddleware(stack)).toExtend<LanguageModelV3Middleware>();
    wrapLanguageModel({ model: new MockLanguageModelV3(), middleware: aiSdkMiddleware(stack) });
  });

  it("is accepted by ai 7's wrapLanguageModel as is, and is a LanguageModelV4Middleware when it declares v4", () => {
    wrapLanguageModelV7({ model: new MockLanguageModelV4(), middleware: aiSdkMiddleware(stack) });
    expectTypeOf(aiSdkMiddleware(stack, { specificationVersion: "v4" })).toExtend<LanguageModelV4Middleware>();
    expectTypeOf(aiSdkMiddleware(stack, { specificationVersion: "v4" })).not.toExtend<LanguageModelV3Middleware>();
  });
});
