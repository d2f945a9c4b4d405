import { describe, expect, it } from "vitest";
import { createAgent, createAgentStack, wrapModel, type LanguageModel, type ModelResponse } from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { fallback } from "../../src/middleware/fallback.ts";

// A provider answer that reports no usage: the agent estimates it when the primary gives it.
const noUsage = { text: "hi there", toolCalls: [], finishReason: "stop" } as unknown as ModelResponse;
const answering = (id: string): LanguageModel => ({ id, generate: async () => noUsage });
const overloaded: LanguageModel = {
  id: "primary",
  generate: async () => {
    throw Object.assign(new Error("503 overloaded"), { status: 503 });
  },
};

describe("fallback's backup answering without usage", () => {
  for (const stream of [false, true]) {
    it(`completes the turn with the usage estimated, as the same answer from the primary does${stream ? ", streamed" : ""}`, async () => {
      const fromPrimary = await createAgent({ model: answering("primary"), stack: createAgentStack(), stream }).run("q");
      const stack = withMiddleware(createAgentStack(), fallback({ models: [answering("backup")] }));

      const fromBackup = await createAgent({ model: overloaded, stack, stream }).run("q");

      expect(fromPrimary).toMatchObject({ status: "completed", text: "hi there" });
      expect(fromBackup).toMatchObject({ status: "completed", text: "hi there", usage: fromPrimary.usage });
      expect(fromBackup.usage.inputTokens).toBeGreaterThan(0);
    });
  }

  it("is answered by wrapModel's generate, marked as estimated", async () => {
    const stack = withMiddleware(createAgentStack(), fallback({ models: [answering("backup")] }));

    const response = await wrapModel(stack, overloaded).generate({ model: "primary", messages: [{ role: "user", content: "q" }] }, {});

    expect(response).toMatchObject({ text: "hi there", model: "backup", usageEstimated: true });
    expect(response.usage.outputTokens).toBeGreaterThan(0);
  });
});
