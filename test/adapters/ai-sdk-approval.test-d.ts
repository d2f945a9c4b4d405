import { jsonSchema, tool } from "ai";
import { describe, expectTypeOf, it } from "vitest";
import { wrapAiSdkTools } from "../../src/adapters/ai-sdk-tools.ts";
import { createAgentStack } from "../../src/agent/stack.ts";

const tools = { bash: tool({ inputSchema: jsonSchema<{ command: string }>({ type: "object" }), execute: async ({ command }) => command }) };

describe("wrapAiSdkTools approval option", () => {
  it('takes approval: "ai-sdk" and keeps the tool set\'s type', () => {
    expectTypeOf(wrapAiSdkTools(createAgentStack(), tools, { approval: "ai-sdk" })).toEqualTypeOf<typeof tools>();
    // @ts-expect-error only the SDK's flow is named
    wrapAiSdkTools(createAgentStack(), tools, { approval: "langchain" });
    // @ts-expect-error not a boolean
    wrapAiSdkTools(createAgentStack(), tools, { approval: true });
  });
});
