import { describe, expect, it } from "vitest";
import { HookError, OutcomeRejectedError, Replace } from "../../src/index.ts";
import { createAgentStack, createScriptedModel, wrapModel, type ModelRequest, type ModelResponse, type StreamPart } from "../../src/agent/index.ts";

const request: ModelRequest = { model: "scripted", messages: [{ role: "user", content: "hi" }] };

const errorPart = async (parts: AsyncIterable<StreamPart>): Promise<unknown> => {
  for await (const part of parts) if (part.type === "error") return part.error;
  return undefined;
};

describe("wrapModel", () => {
  it("throws from generate the TypeError its stream ends with when a cache hook answers an entry without usage", async () => {
    const cached = { text: "cached answer", toolCalls: [], finishReason: "stop" };
    const stack = createAgentStack().use("modelCall", { name: "cache", before: () => Replace(cached as never) });
    const model = wrapModel(stack, createScriptedModel({ turns: ["fresh", "fresh"] }));

    const generated = await model.generate(request).then(() => undefined, (error: unknown) => error);
    const streamed = await errorPart(model.stream(request));

    expect(generated).toBeInstanceOf(TypeError);
    expect((generated as Error).message).toMatch(/^the modelCall response is not a response \(.*usage/);
    expect((generated as Error).message).toBe((streamed as Error).message);
  });

  it("answers from generate with the usage a provider left out estimated, as its stream does", async () => {
    const provider = { id: "plain", generate: async () => ({ text: "four char", toolCalls: [], finishReason: "stop" }) as unknown as ModelResponse };
    const model = wrapModel(createAgentStack(), provider);

    const generated = await model.generate(request);
    const streamed = await model.streamWithOutcome(request).outcome;

    expect(generated).toMatchObject({ text: "four char", usage: { inputTokens: 2, outputTokens: 3 }, usageEstimated: true });
    expect(streamed).toMatchObject({ _tag: "Completed", value: { usage: generated.usage, usageEstimated: true } });
  });
});

describe("wrapModel's generate, refused by a hook that failed closed", () => {
  it("throws an OutcomeRejectedError whose cause is the hook's HookError", async () => {
    const stack = createAgentStack().use("modelCall", { name: "pii-check", failMode: "closed", before: () => { throw new Error("detector service unreachable"); } });

    const thrown = await wrapModel(stack, createScriptedModel({ turns: ["hi"] })).generate(request).then(() => undefined, (error: unknown) => error);

    expect(thrown).toBeInstanceOf(OutcomeRejectedError);
    expect((thrown as { cause: unknown }).cause).toBeInstanceOf(HookError);
    expect(thrown).toMatchObject({ by: "pii-check", cause: { hook: "pii-check", point: "modelCall", kind: "threw" } });
  });

  it("ends its stream with the same OutcomeRejectedError, cause and all", async () => {
    const stack = createAgentStack().use("modelCall", { name: "pii-check", failMode: "closed", before: () => { throw new Error("detector service unreachable"); } });

    const error = await errorPart(wrapModel(stack, createScriptedModel({ turns: ["hi"] })).stream(request));

    expect(error).toBeInstanceOf(OutcomeRejectedError);
    expect(error).toMatchObject({ by: "pii-check", cause: { hook: "pii-check", point: "modelCall", kind: "threw" } });
  });
});
