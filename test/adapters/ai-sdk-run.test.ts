import { generateText, jsonSchema, simulateReadableStream, stepCountIs, streamText, ToolLoopAgent, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import {
  generateText as generateTextV7,
  jsonSchema as jsonSchemaV7,
  stepCountIs as stepCountIsV7,
  tool as toolV7,
  wrapLanguageModel as wrapLanguageModelV7,
} from "ai-v7";
import { MockLanguageModelV4 } from "ai-v7/test";
import { describe, expect, it, vi } from "vitest";
import { aiSdkMiddleware } from "../../src/adapters/ai-sdk.ts";
import { aiSdkRun, aiSdkStopWhen } from "../../src/adapters/ai-sdk-run.ts";
import { wrapAiSdkTools } from "../../src/adapters/ai-sdk-tools.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import type { AgentStack } from "../../src/agent/stack.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { GuardStopError } from "../../src/middleware/errors.ts";
import { OutcomeRejectedError, Reject } from "../../src/core/index.ts";
import { guards } from "../../src/middleware/guards.ts";
import { callLimit } from "../../src/middleware/rate-limit.ts";
import { takeWarnings } from "../support/warnings.ts";
import { generated, stop, usage } from "./ai-sdk-fixtures.ts";

/** A model that asks for `bash` on every call (a loop that never ends by itself), unless told to answer. */
const loopingModel = (answerAfter = Number.POSITIVE_INFINITY) => {
  let calls = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      const n = calls++;
      if (n >= answerAfter) return generated("done") as never;
      return {
        content: [{ type: "tool-call", toolCallId: `call-${n}`, toolName: "bash", input: JSON.stringify({ command: `echo ${n}` }) }],
        finishReason: { unified: "tool-calls", raw: "tool_use" },
        usage: usage(10, 5),
        warnings: [],
      };
    },
  });
};

const bash = (ran: string[] = []) => ({
  bash: tool({
    inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } } }),
    execute: async ({ command }) => {
      ran.push(command);
      return `ran ${command}`;
    },
  }),
});

/** Run ids and outcomes each point saw, by point. */
const watched = (stack: AgentStack) => {
  const seen = { modelCall: [] as string[], toolCall: [] as string[], step: [] as number[], runs: [] as string[], paths: [] as string[] };
  const watchedStack = stack
    .use("modelCall", { name: "watch-model", before: (_r, ctx) => void seen.modelCall.push(ctx.runId) })
    .use("toolCall", {
      name: "watch-tool",
      before: (_c, ctx) => {
        seen.toolCall.push(ctx.runId);
        seen.paths.push(ctx.path.join("/"));
      },
    })
    .use("step", { name: "watch-step", before: (s) => void seen.step.push(s.index) })
    .use("run", { name: "watch-run", onSettled: (o, _i, ctx) => void seen.runs.push(`${ctx.runId}:${o._tag}`) });
  return { stack: watchedStack, seen };
};

const toolErrors = (steps: readonly { readonly content: readonly { readonly type: string; readonly error?: unknown }[] }[]) =>
  steps.flatMap((s) => s.content.filter((p) => p.type === "tool-error").map((p) => String((p.error as Error).message)));

const unscopedWarnings = () => takeWarnings().filter((w) => w.type === "AgentOnionWarning" && w.message.includes("outside aiSdkRun"));

describe("aiSdkRun around generateText", () => {
  it("makes callLimit({ max: 2 }) refuse the third tool call of one generateText", async () => {
    const stack = withMiddleware(createAgentStack(), callLimit({ match: "bash", max: 2 }));
    const ran: string[] = [];
    const model = wrapLanguageModel({ model: loopingModel(3), middleware: aiSdkMiddleware(stack) });
    const tools = wrapAiSdkTools(stack, bash(ran));
    const result = await aiSdkRun(stack, { sessionId: "s1" }, (run) =>
      generateText({ model, tools, prompt: "go", stopWhen: [stepCountIs(10), run.stopWhen], abortSignal: run.signal }),
    );
    expect(ran).toEqual(["echo 0", "echo 1"]);
    expect(toolErrors(result.steps)).toEqual([expect.stringContaining("callLimit")]);
    expect(result.text).toBe("done");
    expect(unscopedWarnings()).toEqual([]);
  });

  it("gives every provider and tool call of one run the run's id and path", async () => {
    const { stack, seen } = watched(createAgentStack());
    const model = wrapLanguageModel({ model: loopingModel(2), middleware: aiSdkMiddleware(stack) });
    const tools = wrapAiSdkTools(stack, bash());
    await aiSdkRun(stack, { runId: "r-1", path: ["support"] }, () =>
      generateText({ model, tools, prompt: "go", stopWhen: stepCountIs(5) }),
    );
    expect(seen.modelCall).toEqual(["r-1", "r-1", "r-1"]);
    expect(seen.toolCall).toEqual(["r-1", "r-1"]);
    expect(seen.paths).toEqual(["support", "support"]);
    expect(seen.step).toEqual([0, 1, 2]);
    expect(seen.runs).toEqual(["r-1:Completed"]);
  });

  it("stops a looping model cleanly at guards({ maxSteps }) through run.stopWhen", async () => {
    const ended: unknown[] = [];
    const stack = withMiddleware(createAgentStack(), guards({ maxSteps: 3 })).use("run", {
      name: "watch-end",
      after: (r) => void ended.push({ steps: r.steps, finishReason: r.finishReason, usage: r.usage, kind: r.stoppedBy?.kind }),
    });
    const provider = loopingModel();
    const model = wrapLanguageModel({ model: provider, middleware: aiSdkMiddleware(stack) });
    let stoppedBy: unknown;
    const result = await aiSdkRun(stack, {}, async (run) => {
      const r = await generateText({
        model,
        tools: wrapAiSdkTools(stack, bash()),
        prompt: "go",
        stopWhen: [stepCountIs(50), run.stopWhen],
      });
      stoppedBy = run.stoppedBy;
      return r;
    });
    expect(result.steps).toHaveLength(3);
    expect(provider.doGenerateCalls).toHaveLength(3);
    expect(stoppedBy).toMatchObject({ kind: "steps", by: "stepLimit" });
    // run hooks see the run's end as the reference loop reports it.
    expect(ended).toEqual([{ steps: 3, finishReason: "stopped-by-guard", usage: { inputTokens: 30, outputTokens: 15 }, kind: "steps" }]);
  });

  it("fails the provider call past guards({ maxSteps }) with the guard's stop when run.stopWhen is not given", async () => {
    const stack = withMiddleware(createAgentStack(), guards({ maxSteps: 2 }));
    const provider = loopingModel();
    const model = wrapLanguageModel({ model: provider, middleware: aiSdkMiddleware(stack) });
    const call = aiSdkRun(stack, {}, () =>
      generateText({ model, tools: wrapAiSdkTools(stack, bash()), prompt: "go", stopWhen: stepCountIs(50) }),
    );
    await expect(call).rejects.toBeInstanceOf(GuardStopError);
    expect(provider.doGenerateCalls).toHaveLength(2);
  });

  it("stops at guards({ maxTokens }) once the run's answers spent the tokens", async () => {
    // Each answer costs 15 tokens: the third step finds 30 spent.
    const stack = withMiddleware(createAgentStack(), guards({ maxTokens: 30 }));
    const model = wrapLanguageModel({ model: loopingModel(), middleware: aiSdkMiddleware(stack) });
    const result = await aiSdkRun(stack, {}, (run) =>
      generateText({ model, tools: wrapAiSdkTools(stack, bash()), prompt: "go", stopWhen: [stepCountIs(50), run.stopWhen] }),
    );
    expect(result.steps).toHaveLength(2);
  });

  it("keeps concurrent runs apart: each has its own id and its own per-run count", async () => {
    const { stack, seen } = watched(withMiddleware(createAgentStack(), callLimit({ match: "bash", max: 2 })));
    const once = async (runId: string) => {
      const ran: string[] = [];
      const model = wrapLanguageModel({ model: loopingModel(2), middleware: aiSdkMiddleware(stack) });
      await aiSdkRun(stack, { runId }, () =>
        generateText({ model, tools: wrapAiSdkTools(stack, bash(ran)), prompt: "go", stopWhen: stepCountIs(5) }),
      );
      return ran;
    };
    const [a, b] = await Promise.all([once("a"), once("b")]);
    expect([a, b]).toEqual([
      ["echo 0", "echo 1"],
      ["echo 0", "echo 1"],
    ]);
    expect(seen.toolCall.filter((id) => id === "a")).toHaveLength(2);
    expect(seen.toolCall.filter((id) => id === "b")).toHaveLength(2);
    expect(seen.runs.sort()).toEqual(["a:Completed", "b:Completed"]);
  });

  it("ends a run whose call throws once, Failed, and throws the call's error", async () => {
    const { stack, seen } = watched(createAgentStack());
    const failing = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new Error("provider down");
      },
    });
    const model = wrapLanguageModel({ model: failing, middleware: aiSdkMiddleware(stack) });
    await expect(aiSdkRun(stack, { runId: "r-x" }, () => generateText({ model, prompt: "go", maxRetries: 0 }))).rejects.toThrow(
      "provider down",
    );
    expect(seen.runs).toEqual(["r-x:Failed"]);
  });

  it("ends an aborted run once, and aborts the calls inside with the run's signal", async () => {
    const { stack, seen } = watched(createAgentStack());
    const hanging = new MockLanguageModelV3({
      doGenerate: ({ abortSignal }) =>
        new Promise((_resolve, reject) => abortSignal?.addEventListener("abort", () => reject(abortSignal.reason), { once: true })),
    });
    const model = wrapLanguageModel({ model: hanging, middleware: aiSdkMiddleware(stack) });
    const controller = new AbortController();
    // The SDK's own abortSignal is not given: the run's signal reaches the provider call anyway.
    const call = aiSdkRun(stack, { runId: "r-abort", signal: controller.signal }, () =>
      generateText({ model, prompt: "go", maxRetries: 0 }),
    );
    await vi.waitFor(() => expect(hanging.doGenerateCalls).toHaveLength(1));
    controller.abort(new Error("user left"));
    await expect(call).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 20));
    expect(seen.runs).toEqual(["r-abort:Failed"]);
    expect(hanging.doGenerateCalls[0]?.abortSignal?.aborted).toBe(true);
  });

  it("aborts the calls inside when the run's timeoutMs passes, and throws the run's timeout", async () => {
    const { stack, seen } = watched(createAgentStack());
    const hanging = new MockLanguageModelV3({
      doGenerate: ({ abortSignal }) =>
        new Promise((_resolve, reject) => abortSignal?.addEventListener("abort", () => reject(abortSignal.reason), { once: true })),
    });
    const model = wrapLanguageModel({ model: hanging, middleware: aiSdkMiddleware(stack) });
    const call = aiSdkRun(stack, { runId: "r-late", timeoutMs: 30 }, () => generateText({ model, prompt: "go", maxRetries: 0 }));
    await expect(call).rejects.toMatchObject({ name: "RunAbortedError", timedOut: true });
    await vi.waitFor(() => expect(hanging.doGenerateCalls[0]?.abortSignal?.aborted).toBe(true));
    expect(seen.runs).toEqual(["r-late:Failed"]);
  });

  it.each([
    ["without approvals", {}],
    ["with approval through the SDK", { approval: "ai-sdk" as const }],
  ])("gives a tool call's hooks the run's signal, %s: the run's timeoutMs aborts them", async (_how, options) => {
    let hookSignal: AbortSignal | undefined;
    const stack = createAgentStack().use("toolCall", {
      name: "slow",
      before: (_c, ctx) =>
        new Promise<void>((resolve) => {
          hookSignal = ctx.signal;
          const timer = setTimeout(resolve, 5_000);
          ctx.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
        }),
    });
    const model = wrapLanguageModel({ model: loopingModel(1), middleware: aiSdkMiddleware(stack) });
    const tools = wrapAiSdkTools(stack, bash(), options);
    const call = aiSdkRun(stack, { timeoutMs: 100 }, (run) => generateText({ model, tools, prompt: "go", abortSignal: run.signal }));
    await expect(call).rejects.toMatchObject({ name: "RunAbortedError", timedOut: true });
    await vi.waitFor(() => expect(hookSignal?.aborted).toBe(true), { timeout: 1_000 });
  });

  it("never calls the SDK when a run hook refuses the run, and throws the refusal", async () => {
    const stack = createAgentStack().use("run", { name: "closed", before: () => Reject("out of hours") });
    let called = false;
    const call = aiSdkRun(stack, {}, () => {
      called = true;
      return 1;
    });
    await expect(call).rejects.toBeInstanceOf(OutcomeRejectedError);
    await expect(call).rejects.toThrow("out of hours");
    expect(called).toBe(false);
  });

  it("fails a step run.stopWhen let through once another stopWhen condition stopped the SDK", async () => {
    const steps: string[] = [];
    const stack = withMiddleware(createAgentStack(), guards({ maxSteps: 10 }))
      .use("step", {
        name: "watch-steps",
        onSettled: (o, s) => void steps.push(`${s.index}:${o._tag}:${o._tag === "Failed" ? (o.error as Error).name : ""}`),
      })
      .use("run", { name: "watch-run", onSettled: (o) => void steps.push(`run:${o._tag}`) });
    const model = wrapLanguageModel({ model: loopingModel(), middleware: aiSdkMiddleware(stack) });
    const result = await aiSdkRun(stack, {}, (run) =>
      generateText({ model, tools: wrapAiSdkTools(stack, bash()), prompt: "go", stopWhen: [stepCountIs(2), run.stopWhen] }),
    );
    expect(result.steps).toHaveLength(2);
    expect(steps).toEqual(["0:Completed:", "1:Completed:", "2:Failed:StepNotTakenError", "run:Completed"]);
  });

  it("refuses a bad stack, option or function where given", async () => {
    await expect(aiSdkRun(undefined as never, {}, () => 1)).rejects.toThrow(/aiSdkRun: stack must be/);
    await expect(aiSdkRun(createAgentStack(), { sesionId: "s" } as never, () => 1)).rejects.toThrow(/did you mean "sessionId"/);
    await expect(aiSdkRun(createAgentStack(), {}, undefined as never)).rejects.toThrow(/aiSdkRun: fn must be a function/);
  });
});

describe("aiSdkRun around an agent made once", () => {
  it("stops the agent's loop at guards({ maxSteps }) through aiSdkStopWhen, and counts each run on its own", async () => {
    const stack = withMiddleware(createAgentStack(), guards({ maxSteps: 2 }));
    const provider = loopingModel();
    const agent = new ToolLoopAgent({
      model: wrapLanguageModel({ model: provider, middleware: aiSdkMiddleware(stack) }),
      tools: wrapAiSdkTools(stack, bash()),
      stopWhen: [stepCountIs(50), aiSdkStopWhen],
    });
    const first = await aiSdkRun(stack, {}, (run) => agent.generate({ prompt: "go", abortSignal: run.signal }));
    const second = await aiSdkRun(stack, {}, (run) => agent.generate({ prompt: "again", abortSignal: run.signal }));
    expect([first.steps.length, second.steps.length]).toEqual([2, 2]);
    expect(provider.doGenerateCalls).toHaveLength(4);
  });

  it("ends the run of an agent's stream when the stream ends", async () => {
    const { stack, seen } = watched(createAgentStack());
    const agent = new ToolLoopAgent({
      model: wrapLanguageModel({
        model: new MockLanguageModelV3({
          doStream: async () => ({
            stream: simulateReadableStream({
              chunks: [
                { type: "text-start" as const, id: "t1" },
                { type: "text-delta" as const, id: "t1", delta: "Hi" },
                { type: "text-end" as const, id: "t1" },
                { type: "finish" as const, finishReason: stop, usage: usage(10, 5) },
              ],
              chunkDelayInMs: 5,
            }),
          }),
        }),
        middleware: aiSdkMiddleware(stack),
      }),
    });
    const result = await aiSdkRun(stack, { runId: "r-agent" }, (run) => agent.stream({ prompt: "go", abortSignal: run.signal }));
    expect(seen.runs).toEqual([]);
    expect(await result.text).toBe("Hi");
    await vi.waitFor(() => expect(seen.runs).toEqual(["r-agent:Completed"]));
  });

  it("never stops an agent called outside any run", async () => {
    expect(await aiSdkStopWhen({ steps: [] })).toBe(false);
  });
});

describe("aiSdkRun inside another run", () => {
  it("is a run of its own, with the outer run's session, and its steps and calls do not count in the outer run", async () => {
    const { stack, seen } = watched(withMiddleware(createAgentStack(), callLimit({ match: "bash", max: 2 })));
    const sessions: (string | undefined)[] = [];
    const watchedStack = stack.use("modelCall", { name: "sessions", before: (_r, ctx) => void sessions.push(ctx.sessionId) });
    const inner = wrapLanguageModel({ model: loopingModel(2), middleware: aiSdkMiddleware(watchedStack) });
    const innerTools = wrapAiSdkTools(watchedStack, bash());
    // The outer agent's one tool runs a sub-agent that makes two bash calls of its own.
    const delegate = tool({
      inputSchema: jsonSchema<{ task: string }>({ type: "object", properties: { task: { type: "string" } } }),
      execute: async ({ task }) =>
        (
          await aiSdkRun(watchedStack, { runId: "inner", path: ["main", "helper"] }, () =>
            generateText({ model: inner, tools: innerTools, prompt: task, stopWhen: stepCountIs(5) }),
          )
        ).text,
    });
    let calls = 0;
    const outerModel = new MockLanguageModelV3({
      doGenerate: async () =>
        calls++ === 0
          ? {
              content: [{ type: "tool-call", toolCallId: "d1", toolName: "delegate", input: JSON.stringify({ task: "look" }) }],
              finishReason: { unified: "tool-calls", raw: "tool_use" },
              usage: usage(10, 5),
              warnings: [],
            }
          : (generated("all done") as never),
    });
    const outer = wrapLanguageModel({ model: outerModel, middleware: aiSdkMiddleware(watchedStack) });
    const result = await aiSdkRun(watchedStack, { runId: "outer", sessionId: "s-1", path: ["main"] }, () =>
      generateText({ model: outer, tools: wrapAiSdkTools(watchedStack, { delegate }), prompt: "go", stopWhen: stepCountIs(5) }),
    );
    expect(result.text).toBe("all done");
    expect(seen.modelCall).toEqual(["outer", "inner", "inner", "inner", "outer"]);
    expect(seen.toolCall).toEqual(["outer", "inner", "inner"]);
    expect(seen.paths).toEqual(["main", "main/helper", "main/helper"]);
    expect(sessions).toEqual(["s-1", "s-1", "s-1", "s-1", "s-1"]);
    expect(seen.runs).toEqual(["inner:Completed", "outer:Completed"]);
    // Each run's steps are numbered on their own.
    expect(seen.step).toEqual([0, 0, 1, 2, 1]);
  });
});

describe("aiSdkRun with ai 7 (spec V4)", () => {
  it("makes callLimit({ max: 2 }) refuse the third tool call and guards({ maxSteps }) stop the loop cleanly", async () => {
    const stack = withMiddleware(createAgentStack(), callLimit({ match: "bash", max: 2 }), guards({ maxSteps: 4 }));
    let n = 0;
    const provider = new MockLanguageModelV4({
      doGenerate: async () => ({
        content: [{ type: "tool-call", toolCallId: `c${n}`, toolName: "bash", input: JSON.stringify({ command: `echo ${n++}` }) }],
        finishReason: { unified: "tool-calls", raw: "tool_use" },
        usage: usage(10, 5),
        warnings: [],
      }),
    });
    const ran: string[] = [];
    const tools = wrapAiSdkTools(stack, {
      bash: toolV7({
        inputSchema: jsonSchemaV7<{ command: string }>({ type: "object", properties: { command: { type: "string" } } }),
        execute: async ({ command }) => {
          ran.push(command);
          return `ran ${command}`;
        },
      }),
    });
    const model = wrapLanguageModelV7({ model: provider, middleware: aiSdkMiddleware(stack) });
    const result = await aiSdkRun(stack, {}, (run) =>
      generateTextV7({ model, tools, prompt: "go", stopWhen: [stepCountIsV7(50), run.stopWhen] }),
    );
    expect(result.steps).toHaveLength(4);
    expect(ran).toEqual(["echo 0", "echo 1"]);
  });
});

describe("aiSdkRun around streamText", () => {
  const streamingModel = (onCancel?: () => void) =>
    new MockLanguageModelV3({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            { type: "stream-start" as const, warnings: [] },
            { type: "text-start" as const, id: "t1" },
            { type: "text-delta" as const, id: "t1", delta: "Hello" },
            { type: "text-delta" as const, id: "t1", delta: " world" },
            { type: "text-end" as const, id: "t1" },
            { type: "finish" as const, finishReason: stop, usage: usage(10, 5) },
          ],
          chunkDelayInMs: 5,
        }).pipeThrough(new TransformStream({ flush: () => void 0, transform: (c, k) => k.enqueue(c) }), {
          preventCancel: onCancel === undefined,
        }),
      }),
    });

  it("hands the stream back at once and ends the run when the stream ends", async () => {
    const { stack, seen } = watched(createAgentStack());
    const model = wrapLanguageModel({ model: streamingModel(), middleware: aiSdkMiddleware(stack) });
    const result = await aiSdkRun(stack, { runId: "r-s" }, () => streamText({ model, prompt: "go" }));
    expect(seen.runs).toEqual([]);
    expect(await result.text).toBe("Hello world");
    await vi.waitFor(() => expect(seen.runs).toEqual(["r-s:Completed"]));
    expect(seen.modelCall).toEqual(["r-s"]);
    expect(seen.step).toEqual([0]);
  });

  it("refuses a Response returned by fn, which would end the run before its stream, and says what to return", async () => {
    const { stack, seen } = watched(createAgentStack());
    const model = wrapLanguageModel({ model: streamingModel(), middleware: aiSdkMiddleware(stack) });
    const call = aiSdkRun(stack, { runId: "r-response" }, () => streamText({ model, prompt: "go" }).toTextStreamResponse());
    await expect(call).rejects.toThrow(/aiSdkRun: fn returned a Response.*return the SDK's result/);
    await expect(call).rejects.toBeInstanceOf(TypeError);
    expect(seen.runs).toEqual(["r-response:Failed"]);
  });

  it("ends the run of a stream whose provider fails once, as the SDK reports it: finished with reason error", async () => {
    const ends: unknown[] = [];
    const { stack, seen } = watched(
      createAgentStack().use("run", {
        name: "why",
        onSettled: (o) => void ends.push(o._tag === "Completed" ? o.value.finishReason : o._tag),
      }),
    );
    const failing = new MockLanguageModelV3({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            { type: "stream-start" as const, warnings: [] },
            { type: "error" as const, error: new Error("overloaded") },
          ],
        }),
      }),
    });
    const model = wrapLanguageModel({ model: failing, middleware: aiSdkMiddleware(stack) });
    const result = await aiSdkRun(stack, { runId: "r-e" }, () =>
      streamText({ model, prompt: "go", maxRetries: 0, onError: () => undefined }),
    );
    await result.consumeStream();
    await vi.waitFor(() => expect(seen.runs).toEqual(["r-e:Completed"]));
    expect(ends).toEqual(["error"]);
    expect(await result.finishReason).toBe("error");
  });

  it("ends the run once when the stream is aborted through the run's signal", async () => {
    const { stack, seen } = watched(createAgentStack());
    const model = wrapLanguageModel({ model: streamingModel(), middleware: aiSdkMiddleware(stack) });
    const controller = new AbortController();
    const result = await aiSdkRun(stack, { runId: "r-c", signal: controller.signal }, (run) =>
      streamText({ model, prompt: "go", abortSignal: run.signal }),
    );
    const reader = result.textStream.getReader();
    await reader.read();
    controller.abort(new Error("user left"));
    await vi.waitFor(() => expect(seen.runs).toEqual(["r-c:Failed"]));
    await new Promise((r) => setTimeout(r, 30));
    expect(seen.runs).toEqual(["r-c:Failed"]);
  });
});

describe("aiSdkRun around a streamText loop", () => {
  /** A streaming model that asks for `bash` on every call. */
  const loopingStream = () => {
    let calls = 0;
    return new MockLanguageModelV3({
      doStream: async () => {
        const n = calls++;
        return {
          stream: simulateReadableStream({
            chunks: [
              { type: "stream-start" as const, warnings: [] },
              { type: "tool-call" as const, toolCallId: `call-${n}`, toolName: "bash", input: JSON.stringify({ command: `echo ${n}` }) },
              { type: "finish" as const, finishReason: { unified: "tool-calls" as const, raw: "tool_use" }, usage: usage(10, 5) },
            ],
          }),
        };
      },
    });
  };

  it("runs the step point around each streamed step and stops cleanly at guards({ maxSteps })", async () => {
    const { stack, seen } = watched(withMiddleware(createAgentStack(), guards({ maxSteps: 2 })));
    const provider = loopingStream();
    const model = wrapLanguageModel({ model: provider, middleware: aiSdkMiddleware(stack) });
    const ran: string[] = [];
    const result = await aiSdkRun(stack, { runId: "r-loop" }, (run) =>
      streamText({ model, tools: wrapAiSdkTools(stack, bash(ran)), prompt: "go", stopWhen: [stepCountIs(50), run.stopWhen] }),
    );
    expect(await result.steps).toHaveLength(2);
    expect(ran).toEqual(["echo 0", "echo 1"]);
    expect(provider.doStreamCalls).toHaveLength(2);
    await vi.waitFor(() => expect(seen.runs).toEqual(["r-loop:Completed"]));
    expect(seen.step).toEqual([0, 1]);
  });
});

describe("calls outside aiSdkRun", () => {
  it("warn once per stack that run and step hooks never run and per-run counts count one call", async () => {
    const stack = withMiddleware(createAgentStack(), callLimit({ match: "bash", max: 2 }), guards({ maxSteps: 5 }));
    const model = wrapLanguageModel({ model: loopingModel(3), middleware: aiSdkMiddleware(stack) });
    const ran: string[] = [];
    await generateText({ model, tools: wrapAiSdkTools(stack, bash(ran)), prompt: "go", stopWhen: stepCountIs(10) });
    await generateText({ model, prompt: "again" });
    // Each call is a run of its own: the limit never stops anything, which the warning says.
    expect(ran).toHaveLength(3);
    const ours = unscopedWarnings().map((w) => w.message);
    expect(ours).toHaveLength(2);
    expect(ours[0]).toMatch(/^aiSdkMiddleware: .*callLimit.*stepLimit.*counts one call/);
    expect(ours[1]).toMatch(/^wrapAiSdkTools: /);
  });

  it("warn once for stacks made per request with the same hooks", async () => {
    for (let i = 0; i < 3; i++) {
      const stack = withMiddleware(createAgentStack(), callLimit({ match: "echo", max: 2 }));
      const model = wrapLanguageModel({
        model: new MockLanguageModelV3({ doGenerate: async () => generated("hi") as never }),
        middleware: aiSdkMiddleware(stack),
      });
      await generateText({ model, prompt: "go" });
    }
    expect(unscopedWarnings().map((w) => w.message)).toEqual([
      expect.stringMatching(/^aiSdkMiddleware: this stack has hooks on run \(callLimit\)/),
    ]);
  });

  it("do not warn for a stack without run, step or stop hooks", async () => {
    const stack = createAgentStack().use("modelCall", { name: "noop", before: () => undefined });
    const model = wrapLanguageModel({
      model: new MockLanguageModelV3({ doGenerate: async () => generated("hi") as never }),
      middleware: aiSdkMiddleware(stack),
    });
    await generateText({ model, prompt: "go" });
    expect(unscopedWarnings()).toEqual([]);
  });
});
