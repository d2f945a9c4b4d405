import { describe, expect, it } from "vitest";
import { HookError, OutcomeRejectedError, Replace } from "../../src/index.ts";
import {
  createAgentStack,
  createScriptedModel,
  wrapModel,
  type LanguageModel,
  type ModelCallStack,
  type ModelRequest,
  type ModelResponse,
  type StreamPart,
} from "../../src/agent/index.ts";

const request: ModelRequest = { model: "scripted", messages: [{ role: "user", content: "hi" }] };

const errorPart = async (parts: AsyncIterable<StreamPart>): Promise<unknown> => {
  for await (const part of parts) if (part.type === "error") return part.error;
  return undefined;
};

describe("wrapModel", () => {
  it("throws from generate the error its stream ends with when a cache hook that fails closed answers an entry without usage", async () => {
    const cached = { text: "cached answer", toolCalls: [], finishReason: "stop" };
    const stack = createAgentStack().use("modelCall", { name: "cache", failMode: "closed", before: () => Replace(cached as never) });
    const model = wrapModel(stack, createScriptedModel({ turns: ["fresh", "fresh"] }));

    const generated = await model.generate(request).then(
      () => undefined,
      (error: unknown) => error,
    );
    const streamed = await errorPart(model.stream(request));

    expect(generated).toBeInstanceOf(OutcomeRejectedError);
    expect((generated as OutcomeRejectedError).cause).toBeInstanceOf(HookError);
    expect((generated as Error).message).toMatch(
      /Replace gave modelCall an output it does not take: the modelCall response is not a response \(.*usage/,
    );
    expect((generated as Error).message).toBe((streamed as Error).message);
  });

  it("answers from the model when a cache hook that fails open (the default) answers an entry without usage", async () => {
    const cached = { text: "cached answer", toolCalls: [], finishReason: "stop" };
    const stack = createAgentStack().use("modelCall", { name: "cache", before: () => Replace(cached as never) });
    const model = wrapModel(stack, createScriptedModel({ turns: ["fresh", "fresh"] }));

    expect((await model.generate(request)).text).toBe("fresh");
    expect(stack.stats.failOpen).toBe(1);
  });

  it("answers from generate with the usage a provider left out estimated, as its stream does", async () => {
    const provider = {
      id: "plain",
      generate: async () => ({ text: "four char", toolCalls: [], finishReason: "stop" }) as unknown as ModelResponse,
    };
    const model = wrapModel(createAgentStack(), provider);

    const generated = await model.generate(request);
    const streamed = await model.streamWithOutcome(request).outcome;

    expect(generated).toMatchObject({ text: "four char", usage: { inputTokens: 2, outputTokens: 3 }, usageEstimated: true });
    expect(streamed).toMatchObject({ _tag: "Completed", value: { usage: generated.usage, usageEstimated: true } });
  });
});

describe("wrapModel's generate, refused by a hook that failed closed", () => {
  it("throws an OutcomeRejectedError whose cause is the hook's HookError", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "pii-check",
      failMode: "closed",
      before: () => {
        throw new Error("detector service unreachable");
      },
    });

    const thrown = await wrapModel(stack, createScriptedModel({ turns: ["hi"] }))
      .generate(request)
      .then(
        () => undefined,
        (error: unknown) => error,
      );

    expect(thrown).toBeInstanceOf(OutcomeRejectedError);
    expect((thrown as { cause: unknown }).cause).toBeInstanceOf(HookError);
    expect(thrown).toMatchObject({ by: "pii-check", cause: { hook: "pii-check", point: "modelCall", kind: "threw" } });
  });

  it("ends its stream with the same OutcomeRejectedError, cause and all", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "pii-check",
      failMode: "closed",
      before: () => {
        throw new Error("detector service unreachable");
      },
    });

    const error = await errorPart(wrapModel(stack, createScriptedModel({ turns: ["hi"] })).stream(request));

    expect(error).toBeInstanceOf(OutcomeRejectedError);
    expect(error).toMatchObject({ by: "pii-check", cause: { hook: "pii-check", point: "modelCall", kind: "threw" } });
  });
});

describe("wrapModel at creation", () => {
  const generate = async () => ({ text: "ok", toolCalls: [], finishReason: "stop" as const, usage: { inputTokens: 1, outputTokens: 1 } });

  it("refuses a model that is not an object, instead of a raw property read", () => {
    expect(() => wrapModel(createAgentStack(), null as unknown as LanguageModel)).toThrow(
      new TypeError("wrapModel: model must be a LanguageModel object ({ id, generate, stream? }), got null"),
    );
  });

  it("refuses a model without generate, saying what was given", () => {
    expect(() => wrapModel(createAgentStack(), { id: "m", generate: "gpt" } as unknown as LanguageModel)).toThrow(
      new TypeError('wrapModel "m": generate must be a function, got "gpt"'),
    );
  });

  it("refuses a stream that is given but not a function", () => {
    expect(() => wrapModel(createAgentStack(), { id: "m", generate, stream: null } as unknown as LanguageModel)).toThrow(
      new TypeError('wrapModel "m": stream must be a function when given, got null'),
    );
  });

  it("refuses a model whose id is not a string", () => {
    expect(() => wrapModel(createAgentStack(), { generate } as unknown as LanguageModel)).toThrow(
      new TypeError("wrapModel: model.id must be a string, got undefined"),
    );
  });

  it("refuses a stack it cannot run the modelCall point on", () => {
    expect(() => wrapModel({} as ModelCallStack, { id: "m", generate })).toThrow(
      new TypeError("wrapModel: stack must be a stack with run (createAgentStack()), got {}"),
    );
  });

  it("still wraps a model without stream, streaming it from generate", async () => {
    const model = wrapModel(createAgentStack(), { id: "m", generate });

    expect(await model.generate(request)).toMatchObject({ text: "ok" });
    expect(await errorPart(model.stream(request))).toBeUndefined();
  });
});
