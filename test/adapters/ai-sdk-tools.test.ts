import { generateText, jsonSchema, simulateReadableStream, stepCountIs, streamText, tool, type ToolSet } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { wrapAiSdkTools } from "../../src/adapters/ai-sdk-tools.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { ToolCallError } from "../../src/agent/wrap-tool.ts";
import { Reject, Replace, Transform } from "../../src/core/index.ts";
import { redaction, withMiddleware } from "../../src/middleware/index.ts";
import { generated, stop, toolParts, usage } from "./ai-sdk-fixtures.ts";

/** A model that calls `name` with `input` once, then answers with text; it records every prompt it got. */
const callingModel = (name: string, input: object) => {
  let turn = 0;
  return new MockLanguageModelV3({
    doGenerate: async () =>
      turn++ === 0
        ? {
            content: [{ type: "tool-call", toolCallId: "call-1", toolName: name, input: JSON.stringify(input) }],
            finishReason: { unified: "tool-calls", raw: "tool_use" },
            usage: usage(5, 5),
            warnings: [],
          }
        : (generated("done") as never),
  });
};

const bashTools = (log: string[] = []) => ({
  bash: tool({
    description: "Run a shell command",
    inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } } }),
    execute: async ({ command }, { abortSignal }) => {
      log.push(command);
      if (command === "hang") await new Promise((_r, reject) => abortSignal?.addEventListener("abort", () => reject(abortSignal.reason)));
      if (command === "fail") throw new Error("exit code 1");
      return `ran ${command}`;
    },
  }),
  echo: tool({ inputSchema: jsonSchema<{ command: string }>({ type: "object" }), execute: async ({ command }) => `echo ${command}` }),
});

/** What the model read back as the tool's result on its second call. */
const toolOutputSeen = (model: MockLanguageModelV3) => {
  const message = model.doGenerateCalls[1]?.prompt.find((m) => m.role === "tool");
  const part = message?.role === "tool" ? message.content[0] : undefined;
  return part?.type === "tool-result" ? part.output : undefined;
};

const noRm = createAgentStack().use("toolCall", {
  name: "no-rm",
  match: "bash(rm *)",
  before: () => Reject("Destructive command blocked"),
});

describe("wrapAiSdkTools with generateText (ai 6)", () => {
  it("hands a tool whose input is a bare string the string a redaction rewrote, not its box", async () => {
    const ran: unknown[] = [];
    const tools = {
      note: tool({ inputSchema: jsonSchema<string>({ type: "string" }), execute: async (text: string) => (ran.push(text), "noted") }),
    };
    const model = new MockLanguageModelV3({
      doGenerate: async (options) =>
        options.prompt.some((m) => m.role === "tool")
          ? (generated("done") as never)
          : {
              content: [{ type: "tool-call", toolCallId: "c1", toolName: "note", input: JSON.stringify("key AKIAIOSFODNN7EXAMPLE") }],
              finishReason: { unified: "tool-calls", raw: "tool_use" },
              usage: usage(5, 5),
              warnings: [],
            },
    });
    await generateText({
      model,
      tools: wrapAiSdkTools(withMiddleware(createAgentStack(), redaction()), tools),
      prompt: "note",
      stopWhen: stepCountIs(3),
    });
    expect(ran).toEqual(["key [REDACTED:api_key]"]);
  });

  it("matches a rule on the command of a tool whose input is a bare string", async () => {
    const ran: string[] = [];
    const tools = {
      bash: tool({
        inputSchema: jsonSchema<string>({ type: "string" }),
        execute: async (command: string) => (ran.push(command), `ran ${command}`),
      }),
    };
    let turn = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () =>
        turn++ < 2
          ? {
              content: [
                { type: "tool-call", toolCallId: `c${turn}`, toolName: "bash", input: JSON.stringify(turn === 1 ? "rm -rf /" : "ls") },
              ],
              finishReason: { unified: "tool-calls", raw: "tool_use" },
              usage: usage(5, 5),
              warnings: [],
            }
          : (generated("done") as never),
    });
    await generateText({ model, tools: wrapAiSdkTools(noRm, tools), prompt: "clean", stopWhen: stepCountIs(4) });
    expect(ran).toEqual(["ls"]);
  });

  it("runs execute through toolCall with the tool name as subject and the SDK's call id", async () => {
    const seen: unknown[] = [];
    const stack = createAgentStack().use("toolCall", { name: "watch", before: (c, ctx) => void seen.push(ctx.subject, c.id, c.input) });
    const model = callingModel("bash", { command: "ls" });
    const result = await generateText({ model, tools: wrapAiSdkTools(stack, bashTools()), prompt: "list", stopWhen: stepCountIs(3) });
    expect(seen).toEqual(["bash", "call-1", { command: "ls" }]);
    expect(toolOutputSeen(model)).toEqual({ type: "text", value: "ran ls" });
    expect(result.text).toBe("done");
  });

  it("turns a rejection into a tool error the model reads, without running the tool, and the loop goes on", async () => {
    const log: string[] = [];
    const model = callingModel("bash", { command: "rm -rf /" });
    const result = await generateText({ model, tools: wrapAiSdkTools(noRm, bashTools(log)), prompt: "clean", stopWhen: stepCountIs(3) });
    expect(log).toEqual([]);
    expect(toolOutputSeen(model)).toEqual({
      type: "error-text",
      value: "Tool call bash was rejected by no-rm: Destructive command blocked",
    });
    const error = result.steps[0]?.content.find((p) => p.type === "tool-error");
    expect(error?.type === "tool-error" && error.error).toBeInstanceOf(ToolCallError);
    expect(result.text).toBe("done");
  });

  it("answers a rejection with a normal result when asked to", async () => {
    const model = callingModel("bash", { command: "rm -rf /" });
    const tools = wrapAiSdkTools(noRm, bashTools(), { rejected: (reason) => ({ blocked: reason }) });
    await generateText({ model, tools, prompt: "clean", stopWhen: stepCountIs(3) });
    expect(toolOutputSeen(model)).toEqual({ type: "json", value: { blocked: "Destructive command blocked" } });
  });

  it("rethrows the tool's own error unchanged, so the SDK's tool-error carries it", async () => {
    const result = await generateText({
      model: callingModel("bash", { command: "fail" }),
      tools: wrapAiSdkTools(createAgentStack(), bashTools()),
      prompt: "x",
      stopWhen: stepCountIs(3),
    });
    const error = result.steps[0]?.content.find((p) => p.type === "tool-error");
    expect(error?.type === "tool-error" && (error.error as Error).message).toBe("exit code 1");
  });

  it("runs the input a before hook rewrote, and the tool a hook renamed the call to", async () => {
    const log: string[] = [];
    const stack = createAgentStack().use("toolCall", {
      name: "safe",
      before: (c) => Transform({ ...c, name: "echo", input: { command: `${String(c.input.command)} --dry-run` } }),
    });
    const model = callingModel("bash", { command: "deploy" });
    await generateText({ model, tools: wrapAiSdkTools(stack, bashTools(log)), prompt: "x", stopWhen: stepCountIs(3) });
    expect(log).toEqual([]);
    expect(toolOutputSeen(model)).toEqual({ type: "text", value: "echo deploy --dry-run" });
  });

  it("answers from a Replace without running the tool", async () => {
    const log: string[] = [];
    const stack = createAgentStack().use("toolCall", { name: "cache", before: () => Replace({ content: "cached listing" }) });
    const model = callingModel("bash", { command: "ls" });
    await generateText({ model, tools: wrapAiSdkTools(stack, bashTools(log)), prompt: "x", stopWhen: stepCountIs(3) });
    expect(log).toEqual([]);
    expect(toolOutputSeen(model)).toEqual({ type: "text", value: "cached listing" });
  });

  it("cancels a hanging tool through its abortSignal when the run's deadline passes", async () => {
    const log: string[] = [];
    const tools = wrapAiSdkTools(createAgentStack(), bashTools(log), { run: { timeoutMs: 20 } });
    const model = callingModel("bash", { command: "hang" });
    const result = await generateText({ model, tools, prompt: "x", stopWhen: stepCountIs(3) });
    const error = result.steps[0]?.content.find((p) => p.type === "tool-error");
    expect(error?.type === "tool-error" && (error.error as Error).message).toMatch(/exceeded its deadline/);
    expect(log).toEqual(["hang"]);
  });

  it("leaves tools without execute as they are", () => {
    const clientSide = tool({ inputSchema: jsonSchema({ type: "object" }) });
    expect(wrapAiSdkTools(createAgentStack(), { ask: clientSide }).ask).toBe(clientSide);
  });
});

describe("wrapAiSdkTools with streamText (ai 6)", () => {
  it("reports a rejected call as a tool-error part in the stream", async () => {
    let turn = 0;
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: (turn++ === 0
            ? toolParts("bash", { command: "rm -rf /" })
            : [
                { type: "text-start", id: "1" },
                { type: "text-delta", id: "1", delta: "ok" },
                { type: "text-end", id: "1" },
                { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(1, 1) },
              ]) as never[],
        }),
      }),
    });
    const result = streamText({ model, tools: wrapAiSdkTools(noRm, bashTools()), prompt: "x", stopWhen: stepCountIs(3) });
    const errors: unknown[] = [];
    for await (const part of result.fullStream) if (part.type === "tool-error") errors.push(part.error);
    expect(errors[0]).toBeInstanceOf(ToolCallError);
    expect((errors[0] as Error).message).toBe("Tool call bash was rejected by no-rm: Destructive command blocked");
    expect(await result.text).toBe("ok");
  });
});

/** A tool that streams `steps` as its progress (the last one is its output), recording what it was asked and whether it ended. */
const progressTool = (steps: readonly string[]) => {
  const log = { started: 0, ended: false, signal: undefined as AbortSignal | undefined };
  const progress = tool({
    inputSchema: jsonSchema<{ job: string }>({ type: "object" }),
    async *execute(_input, { abortSignal }) {
      log.started++;
      log.signal = abortSignal;
      for (const step of steps) yield step;
      log.ended = true;
    },
  });
  return { log, tools: { progress } };
};

const steps = ["step 1/3", "step 2/3", "done: token sk-abcdefghijklmnopqrstuvwxyz"];

/** The tool results of a streamText run whose model calls `progress` once: each output, and whether it was preliminary. */
const streamedResults = async (tools: ToolSet) => {
  let turn = 0;
  const model = new MockLanguageModelV3({
    doStream: async () => ({
      stream: simulateReadableStream({
        chunks: (turn++ === 0
          ? toolParts("progress", { job: "build" })
          : [{ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(1, 1) }]) as never[],
      }),
    }),
  });
  const result = streamText({ model, tools: tools as ToolSet, prompt: "x", stopWhen: stepCountIs(2) });
  const results: { output: unknown; preliminary: boolean }[] = [];
  for await (const part of result.fullStream)
    if (part.type === "tool-result") results.push({ output: part.output, preliminary: part.preliminary === true });
  const second = model.doStreamCalls[1]?.prompt.find((m) => m.role === "tool");
  const read = second?.role === "tool" && second.content[0]?.type === "tool-result" ? second.content[0].output : undefined;
  return { results, read };
};

describe("wrapAiSdkTools with a streaming tool (async *execute)", () => {
  it("passes each value to the SDK as a preliminary result, exactly as the unwrapped tool does, and after hooks see the last one", async () => {
    const outputs: unknown[] = [];
    const stack = createAgentStack().use("toolCall", { name: "watch", after: (r) => void outputs.push(r.content) });
    const direct = await streamedResults(progressTool(steps).tools);
    const wrapped = await streamedResults(wrapAiSdkTools(stack, progressTool(steps).tools));
    expect(wrapped).toEqual(direct);
    expect(wrapped.results).toEqual([...steps.map((output) => ({ output, preliminary: true })), { output: steps[2], preliminary: false }]);
    expect(outputs).toEqual([steps[2]]);
  });

  it("makes the output what the after hooks settled on: the SDK records it and the model reads it", async () => {
    const stack = createAgentStack().use("toolCall", {
      name: "redact",
      after: (r) => Transform({ ...r, content: String(r.content).replace(/sk-\w+/, "[key]") }),
    });
    const { results, read } = await streamedResults(wrapAiSdkTools(stack, progressTool(steps).tools));
    expect(results.at(-1)).toEqual({ output: "done: token [key]", preliminary: false });
    expect(results.slice(0, 2)).toEqual([
      { output: "step 1/3", preliminary: true },
      { output: "step 2/3", preliminary: true },
    ]);
    expect(read).toEqual({ type: "text", value: "done: token [key]" });
  });

  it("withholds the tool's last value when the tool ended before it was read, so a changed output replaces it unseen", async () => {
    const { log, tools } = progressTool(steps);
    const stack = createAgentStack().use("toolCall", {
      name: "redact",
      after: (r) => Transform({ ...r, content: String(r.content).replace(/sk-\w+/, "[key]") }),
    });
    const execute = wrapAiSdkTools(stack, tools).progress.execute as (input: unknown, options: object) => AsyncIterable<unknown>;
    const iterator = execute({ job: "build" }, { toolCallId: "c1", messages: [] })[Symbol.asyncIterator]();
    const read = [(await iterator.next()).value];
    for (let i = 0; i < 100 && !log.ended; i++) await new Promise((r) => setTimeout(r, 1));
    for (let r = await iterator.next(); r.done !== true; r = await iterator.next()) read.push(r.value);
    expect(log.ended).toBe(true);
    expect(read).toEqual(["step 1/3", "step 2/3", "done: token [key]"]);
  });

  it("never starts a rejected tool, and the SDK records the rejection as a tool error", async () => {
    const { log, tools } = progressTool(steps);
    const stack = createAgentStack().use("toolCall", { name: "no-jobs", before: () => Reject("no builds today") });
    let turn = 0;
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: (turn++ === 0
            ? toolParts("progress", { job: "build" })
            : [{ type: "finish", finishReason: stop, usage: usage(1, 1) }]) as never[],
        }),
      }),
    });
    const errors: unknown[] = [];
    for await (const part of streamText({ model, tools: wrapAiSdkTools(stack, tools), prompt: "x", stopWhen: stepCountIs(2) }).fullStream)
      if (part.type === "tool-error") errors.push(part.error);
    expect(log.started).toBe(0);
    expect(errors[0]).toBeInstanceOf(ToolCallError);
    expect((errors[0] as Error).message).toBe("Tool call progress was rejected by no-jobs: no builds today");
  });

  it("rethrows the tool's own error after the values it yielded, as the SDK reports a tool that fails", async () => {
    const tools = {
      flaky: tool({
        inputSchema: jsonSchema<{ job: string }>({ type: "object" }),
        async *execute() {
          yield "step 1";
          throw new Error("disk full");
        },
      }),
    };
    const read: unknown[] = [];
    const execute = wrapAiSdkTools(createAgentStack(), tools).flaky.execute as (input: unknown, options: object) => AsyncIterable<unknown>;
    const error = await (async () => {
      for await (const value of execute({ job: "x" }, { toolCallId: "c1", messages: [] })) read.push(value);
    })().catch((e: unknown) => e);
    expect(read).toEqual(["step 1"]);
    expect((error as Error).message).toBe("disk full");
  });

  it("ends with the caller's abort reason, and the tool sees its signal abort", async () => {
    const { log, tools } = progressTool(["one", "two"]);
    const controller = new AbortController();
    const execute = wrapAiSdkTools(createAgentStack(), tools).progress.execute as (
      input: unknown,
      options: object,
    ) => AsyncIterable<unknown>;
    const iterator = execute({ job: "x" }, { toolCallId: "c1", messages: [], abortSignal: controller.signal })[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toBe("one");
    const reason = new Error("user pressed stop");
    controller.abort(reason);
    await expect(
      (async () => {
        for (let r = await iterator.next(); r.done !== true; r = await iterator.next());
      })(),
    ).rejects.toBe(reason);
    expect(log.signal?.aborted).toBe(true);
  });

  it("gives up on the run when the reader stops early: the tool sees its signal abort", async () => {
    const { log, tools } = progressTool(["one", "two", "three"]);
    const execute = wrapAiSdkTools(createAgentStack(), tools).progress.execute as (
      input: unknown,
      options: object,
    ) => AsyncIterable<unknown>;
    for await (const value of execute({ job: "x" }, { toolCallId: "c1", messages: [] })) {
      expect(value).toBe("one");
      break;
    }
    expect(log.signal?.aborted).toBe(true);
  });
});

describe("wrapAiSdkTools at creation", () => {
  it("refuses a tool set that is not an object, instead of a raw Object.entries error", () => {
    expect(() => wrapAiSdkTools(createAgentStack(), null as never)).toThrow(
      new TypeError("wrapAiSdkTools: tools must be an object of AI SDK tools by name, got null"),
    );
  });

  it("refuses a tool that is not an object, naming it", () => {
    expect(() => wrapAiSdkTools(createAgentStack(), { bash: "run" } as never)).toThrow(
      new TypeError('wrapAiSdkTools "bash": the tool must be an object, got "run"'),
    );
  });

  it("refuses an execute that is given but not a function, naming the tool", () => {
    expect(() => wrapAiSdkTools(createAgentStack(), { bash: { execute: "run" } })).toThrow(
      new TypeError('wrapAiSdkTools "bash": execute must be a function when given, got "run"'),
    );
  });

  it("refuses a rejected option that is not a function, instead of failing on the first rejection", () => {
    expect(() => wrapAiSdkTools(createAgentStack(), bashTools(), { rejected: {} as never })).toThrow(
      new TypeError("wrapAiSdkTools: rejected must be a function when given, got {}"),
    );
  });

  it("refuses a stack it cannot run the toolCall point on", () => {
    expect(() => wrapAiSdkTools({} as never, bashTools())).toThrow(
      new TypeError("wrapAiSdkTools: stack must be a stack with run (createAgentStack()), got {}"),
    );
  });
});
