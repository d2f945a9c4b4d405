/**
 * `aiSdkRun` returns what its function returns, and its stop condition is one that ai 6's and
 * ai 7's `stopWhen` accept next to their own.
 */
import {
  generateText,
  stepCountIs,
  streamText,
  type GenerateTextResult,
  type StopCondition,
  type StreamTextResult,
  type ToolSet,
} from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { stepCountIs as stepCountIsV7, type StopCondition as StopConditionV7, type ToolSet as ToolSetV7 } from "ai-v7";
import { describe, expectTypeOf, it } from "vitest";
import { aiSdkRun, aiSdkStopWhen, type AiSdkRun, type AiSdkRunStack } from "../../src/adapters/ai-sdk-run.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { createStack, gate } from "../../src/core/index.ts";

const stack = createAgentStack();
const model = new MockLanguageModelV3();

describe("aiSdkRun types", () => {
  it("returns the generateText result, and hands back a streamText result as it is", () => {
    expectTypeOf(aiSdkRun(stack, {}, () => generateText({ model, prompt: "hi" }))).resolves.toExtend<GenerateTextResult<ToolSet, never>>();
    expectTypeOf(aiSdkRun(stack, {}, () => streamText({ model, prompt: "hi" }))).resolves.toExtend<StreamTextResult<ToolSet, never>>();
    expectTypeOf(aiSdkRun(stack, {}, () => 1)).resolves.toEqualTypeOf<number>();
  });

  it("gives a stop condition that ai 6 and ai 7 take next to their own", () => {
    expectTypeOf<AiSdkRun["stopWhen"]>().toExtend<StopCondition<ToolSet>>();
    expectTypeOf<AiSdkRun["stopWhen"]>().toExtend<StopConditionV7<ToolSetV7>>();
    expectTypeOf(aiSdkStopWhen).toExtend<StopCondition<ToolSet>>();
    expectTypeOf(aiSdkStopWhen).toExtend<StopConditionV7<ToolSetV7>>();
    void aiSdkRun(stack, {}, (run) =>
      generateText({ model, prompt: "hi", stopWhen: [stepCountIs(5), run.stopWhen], abortSignal: run.signal }),
    );
    void [stepCountIsV7(5)];
  });

  it("takes run options, not unknown ones nor onContext", () => {
    void aiSdkRun(stack, { sessionId: "s", runId: "r", metadata: { tenant: "t" }, path: ["a"], timeoutMs: 1000, prompt: "hi" }, () => 1);
    // @ts-expect-error: not an option
    void aiSdkRun(stack, { sesionId: "s" }, () => 1);
    // @ts-expect-error: the run's context goes to its calls, not to a collector of aiSdkRun's
    void aiSdkRun(stack, { onContext: () => undefined }, () => 1);
  });

  it("takes every agent stack, not a stack without the run and step points", () => {
    expectTypeOf(stack).toExtend<AiSdkRunStack>();
    const other = createStack({ ping: gate<string, string>({ name: "ping" }) });
    // @ts-expect-error: no run or step point
    void aiSdkRun(other, {}, () => 1);
  });
});
