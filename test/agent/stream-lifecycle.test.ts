import { describe, expect, it } from "vitest";
import { Continue, Outcome, Replace, Transform } from "../../src/index.ts";
import {
  ModelStreamError,
  chunkHook,
  createAgent,
  createAgentStack,
  createScriptedModel,
  outputGate,
  streamThroughStack,
  streamStarter,
  toReadableStream,
  fromReadableStream,
  wrapModel,
  type ModelResponse,
  type StreamPart,
} from "../../src/agent/index.ts";
import { bashTool } from "./helpers.ts";
import { collect, request, textOf } from "./stream-helpers.ts";

const seenAfter = () => {
  const responses: ModelResponse[] = [];
  const stack = createAgentStack().use("modelCall", { name: "metrics", after: (res) => void responses.push(res as ModelResponse) });
  return { stack, responses };
};

describe("an aborted stream", () => {
  it("still runs the post-phase, with the partial text and estimated usage, when the caller aborts", async () => {
    const { stack, responses } = seenAfter();
    const model = createScriptedModel({ turns: ["0123456789abcdefghij"], chunkSize: 4, delayMs: 10 });
    const controller = new AbortController();
    const call = wrapModel(stack, model).streamWithOutcome(request(), { signal: controller.signal });
    const received: string[] = [];

    await expect(
      (async () => {
        for await (const part of call.parts) {
          if (part.type === "text-delta") received.push(part.text);
          if (received.length === 2) controller.abort(new Error("user cancelled"));
        }
      })(),
    ).rejects.toThrow("user cancelled");
    const { outcome } = await call.done;

    expect(received).toEqual(["0123", "4567"]);
    expect(responses).toHaveLength(1);
    expect(responses[0]).toMatchObject({ aborted: true, usageEstimated: true, finishReason: "other" });
    expect(responses[0]!.text.startsWith("01234567")).toBe(true);
    expect(responses[0]!.usage.outputTokens).toBeGreaterThanOrEqual(2);
    expect(Outcome.isCompleted(outcome)).toBe(true);
  });

  it("stops the provider and runs the post-phase when the consumer stops reading", async () => {
    const { stack, responses } = seenAfter();
    let providerAborted = false;
    const start = async function* (_req: unknown, { signal }: { signal: AbortSignal }) {
      signal.addEventListener("abort", () => (providerAborted = true));
      for (let i = 0; ; i++) {
        yield { type: "text-delta" as const, text: `${i};` };
        await new Promise((r) => setTimeout(r, 2));
      }
    };
    const call = streamThroughStack(stack, request(), start);

    for await (const part of call.parts) if (part.type === "text-delta" && part.text === "2;") break;
    const result = await call.done;

    expect(providerAborted).toBe(true);
    expect(responses[0]).toMatchObject({ aborted: true });
    expect(result.emittedText).toBe("0;1;2;");
  });

  it("reports an upstream error after the partial answer, with what arrived", async () => {
    const recovered: unknown[] = [];
    const stack = createAgentStack().use("modelCall", { name: "see", recover: (error) => void recovered.push(error) });
    const model = createScriptedModel({
      turns: [{ text: "abcdefgh", error: new Error("connection reset"), errorAfterChunks: 1 }],
      chunkSize: 4,
    });

    const call = wrapModel(stack, model).streamWithOutcome(request());
    const parts = await collect(call.parts);
    const { outcome } = await call.done;

    expect(parts.map((p) => p.type)).toEqual(["text-delta", "error"]);
    expect((parts[1] as { error: Error }).error.message).toBe("connection reset");
    expect(outcome._tag).toBe("Failed");
    const error = recovered[0] as ModelStreamError;
    expect(error).toBeInstanceOf(ModelStreamError);
    expect(error.partial).toMatchObject({ text: "abcd", usageEstimated: true, finishReason: "error" });
  });
});

describe("streaming through modelCall", () => {
  it("records usage and the time to the first chunk", async () => {
    const { stack, responses } = seenAfter();
    const model = createScriptedModel({ turns: [{ text: "hello", usage: { inputTokens: 11, outputTokens: 2 } }], firstChunkDelayMs: 25 });

    const parts = await collect(wrapModel(stack, model).stream(request()));

    expect(parts.at(-1)).toEqual({ type: "finish", finishReason: "stop", usage: { inputTokens: 11, outputTokens: 2 } });
    expect(responses[0]!.usage).toEqual({ inputTokens: 11, outputTokens: 2 });
    expect(responses[0]!.timeToFirstChunkMs).toBeGreaterThanOrEqual(20);
    expect(model.modes).toEqual(["stream"]);
  });

  it("lets hooks transform the stream chunk by chunk, innermost first, and after hooks see the assembled text", async () => {
    const { stack: base, responses } = seenAfter();
    const stack = base
      .use(
        "modelCall",
        chunkHook({ name: "outer", priority: 10, chunk: (p) => (p.type === "text-delta" ? { ...p, text: `[${p.text}]` } : undefined) }),
      )
      .use(
        "modelCall",
        chunkHook({
          name: "inner",
          priority: 200,
          chunk: (p) => (p.type === "text-delta" ? { ...p, text: p.text.toUpperCase() } : undefined),
        }),
      )
      .use(
        "modelCall",
        chunkHook({ name: "drop-b", priority: 300, chunk: (p) => (p.type === "text-delta" && p.text === "b" ? null : undefined) }),
      );
    const model = createScriptedModel({ turns: [{ chunks: ["a", "b", "c"] }] });

    const parts = await collect(wrapModel(stack, model).stream(request()));

    expect(parts.filter((p) => p.type === "text-delta").map((p) => (p as { text: string }).text)).toEqual(["[A]", "[C]"]);
    expect(responses[0]!.text).toBe("[A][C]");
  });

  it("streams a replaced answer (a cache hit) without calling the provider", async () => {
    const cached: ModelResponse = { text: "from cache", toolCalls: [], finishReason: "stop", usage: { inputTokens: 0, outputTokens: 0 } };
    const stack = createAgentStack().use("modelCall", { name: "cache", before: () => Replace(cached) });
    const model = createScriptedModel({ turns: [] });

    const parts = await collect(wrapModel(stack, model).stream(request()));

    expect(parts).toEqual([
      { type: "text-delta", text: "from cache" },
      { type: "finish", finishReason: "stop", usage: cached.usage },
    ]);
    expect(model.requests).toHaveLength(0);
  });

  it("holds tool calls until the post-phase, so an after hook can take one away", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "no-bash",
      after: (res) => Transform({ ...res, toolCalls: res.toolCalls.filter((c) => c.name !== "Bash") } as ModelResponse),
    });
    const model = createScriptedModel({
      turns: [
        {
          toolCalls: [
            { name: "Bash", input: {} },
            { name: "Read", input: {} },
          ],
        },
      ],
    });

    const parts = await collect(wrapModel(stack, model).stream(request()));

    expect(parts.filter((p) => p.type === "tool-call").map((p) => (p as Extract<StreamPart, { type: "tool-call" }>).call.name)).toEqual([
      "Read",
    ]);
  });

  it("does not repeat released text when an around hook retries the stream", async () => {
    let attempts = 0;
    const stack = createAgentStack().use("modelCall", {
      name: "retry-once",
      around: async (_ctx, next) => {
        const first = await next();
        attempts++;
        return first._tag === "Failed" ? next() : first;
      },
    });
    const model = createScriptedModel({
      turns: [{ text: "abcdefgh", error: new Error("reset"), errorAfterChunks: 1 }, "abcdefgh"],
      chunkSize: 4,
    });

    const call = wrapModel(stack, model).streamWithOutcome(request());
    const parts = await collect(call.parts);
    const result = await call.done;

    expect(attempts).toBe(1);
    expect(textOf(parts)).toBe("abcdefgh");
    expect(result).toMatchObject({ diverged: false, holdBack: "all" });
  });

  it("works as a web ReadableStream both ways", async () => {
    const model = createScriptedModel({ turns: ["hello world"], chunkSize: 3 });
    const readable = toReadableStream(wrapModel(createAgentStack(), model).stream(request()));

    const parts = await collect(fromReadableStream(readable));

    expect(textOf(parts)).toBe("hello world");
  });

  it("tells whoever asked why its ReadableStream was cancelled", async () => {
    const heard: unknown[] = [];
    const readable = toReadableStream(
      (async function* () {
        yield 1;
        yield 2;
      })(),
      (reason) => void heard.push(reason),
    );
    const reader = readable.getReader();
    await reader.read();
    await reader.cancel("the user left");
    expect(heard).toEqual(["the user left"]);
  });

  it("streams from a model without stream by replaying generate", async () => {
    const model = createScriptedModel({ turns: ["whole"] });
    const plain = { id: model.id, generate: model.generate };

    const parts = await collect(streamThroughStack(createAgentStack(), request(), streamStarter(plain)).parts);

    expect(textOf(parts)).toBe("whole");
  });

  it("lets outer hooks Continue without effect", async () => {
    const stack = createAgentStack().use("modelCall", { name: "noop", before: () => Continue, after: () => Continue });
    const parts = await collect(wrapModel(stack, createScriptedModel({ turns: ["x"] })).stream(request()));
    expect(textOf(parts)).toBe("x");
  });
});

describe("the agent streaming", () => {
  it("streams every model call through the stack and hands the parts to onPart with the agent's path", async () => {
    const seen: string[] = [];
    const model = createScriptedModel({
      turns: [{ text: "Let me look.", toolCalls: [{ name: "Bash", input: { command: "ls" } }] }, "Two files."],
      chunkSize: 5,
    });

    const turn = await createAgent({ model, stack: createAgentStack(), tools: [bashTool()], stream: true, name: "cli" }).run("go", {
      onPart: (part, info) =>
        seen.push(`${info.path.join("/")}#${info.step} ${part.type}${part.type === "text-delta" ? ` ${part.text}` : ""}`),
    });

    expect(turn.text).toBe("Two files.");
    expect(model.modes).toEqual(["stream", "stream"]);
    expect(seen).toEqual([
      "cli#0 text-delta Let m",
      "cli#0 text-delta e loo",
      "cli#0 text-delta k.",
      "cli#0 tool-call",
      "cli#0 finish",
      "cli#1 text-delta Two f",
      "cli#1 text-delta iles.",
      "cli#1 finish",
    ]);
  });
});

describe("the agent streaming, aborted", () => {
  it("ends the turn as aborted after the modelCall post-phase saw the partial answer", async () => {
    const { stack, responses } = seenAfter();
    const controller = new AbortController();
    const model = createScriptedModel({ turns: ["a long answer that takes a while"], chunkSize: 4, delayMs: 10 });
    let parts = 0;

    const turn = await createAgent({ model, stack, stream: true }).run("go", {
      signal: controller.signal,
      onPart: () => {
        if (++parts === 2) controller.abort(new Error("ctrl-c"));
      },
    });

    expect(turn.status).toBe("aborted");
    expect(responses).toHaveLength(1);
    expect(responses[0]).toMatchObject({ aborted: true, usageEstimated: true });
  });
});

/** A provider stream that counts to `n` slowly and says whether it was closed and its signal aborted. */
const countingProvider = (n = 1000, delayMs = 2) => {
  const state = { closed: false, aborted: false };
  const start = async function* (_req: unknown, { signal }: { signal: AbortSignal }) {
    signal.addEventListener("abort", () => (state.aborted = true));
    try {
      for (let i = 0; i < n; i++) {
        yield { type: "text-delta" as const, text: `${i} ` };
        await new Promise((r) => setTimeout(r, delayMs));
      }
    } finally {
      state.closed = true;
    }
  };
  return { state, start };
};

describe("a stream that ends early or badly", () => {
  it("ends with an error part and a Rejected outcome, never hanging, when a hook that fails closed answers a malformed response", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "bad-after",
      failMode: "closed",
      after: (res) => Transform({ ...res, toolCalls: undefined } as never),
    });
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on("unhandledRejection", onUnhandled);
    try {
      const call = wrapModel(stack, createScriptedModel({ turns: ["hello"] })).streamWithOutcome(request());
      const parts = await collect(call.parts);
      const { outcome } = await call.done;
      expect(parts.at(-1)?.type).toBe("error");
      expect(outcome).toMatchObject({ _tag: "Rejected", by: "bad-after", cause: { kind: "invalid-action" } });
      expect(String((outcome as { reason: string }).reason)).toMatch(/the modelCall response is not a response/);
      await new Promise((r) => setTimeout(r, 10));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("closes the provider's stream when it sends an error part, and when a chunk transform throws", async () => {
    const erring = { closed: false };
    const withError = async function* () {
      try {
        yield { type: "text-delta" as const, text: "a" };
        yield { type: "error" as const, error: new Error("upstream 500") };
        yield { type: "text-delta" as const, text: "never read" };
      } finally {
        erring.closed = true;
      }
    };
    expect((await streamThroughStack(createAgentStack(), request(), withError).outcome)._tag).toBe("Failed");
    expect(erring.closed).toBe(true);

    const { state, start } = countingProvider(50, 1);
    const throwing = createAgentStack().use(
      "modelCall",
      chunkHook({
        name: "boom",
        chunk: () => {
          throw new Error("transform broke");
        },
      }),
    );
    expect((await streamThroughStack(throwing, request(), start).outcome)._tag).toBe("Failed");
    expect(state).toEqual({ closed: true, aborted: true });
  });

  it("treats a provider whose return() answers synchronously like any other when the consumer stops reading", async () => {
    let i = 0;
    const iterator = {
      next: async () => ({ done: false, value: { type: "text-delta" as const, text: `${i++};` } }),
      return: () => ({ done: true as const, value: undefined }),
    };
    const call = streamThroughStack(
      createAgentStack(),
      request(),
      () => ({ [Symbol.asyncIterator]: () => iterator }) as unknown as AsyncIterable<StreamPart>,
    );
    for await (const part of call.parts) if (part.type === "text-delta" && part.text === "2;") break;
    const { outcome } = await call.done;
    expect(outcome).toMatchObject({ _tag: "Completed", value: { aborted: true } });
  });
});

describe("an output gate on a stream", () => {
  it("stops waiting for a check that hangs when the caller aborts, and closes the provider", async () => {
    const { state, start } = countingProvider();
    const controller = new AbortController();
    const stack = createAgentStack().use(
      "modelCall",
      outputGate({
        name: "slow-moderation",
        holdBack: { window: 4 },
        check: (_t, info) => {
          if (info.released.length <= 10) return undefined;
          // The caller gives up once the check hangs, however long the parts took to get here.
          setTimeout(() => controller.abort(new Error("user cancelled")), 5);
          return new Promise(() => {});
        },
      }),
    );
    const call = streamThroughStack(stack, request(), start, { signal: controller.signal });
    await collect(call.parts);
    const { outcome } = await call.done;
    expect(outcome).toMatchObject({ _tag: "Completed", value: { aborted: true } });
    expect(state.aborted).toBe(true);
    // Closing is asked of the provider without waiting for it (a provider may never answer): one
    // busy between two parts closes once it reaches the next.
    await expect.poll(() => state.closed, { timeout: 5_000, interval: 5 }).toBe(true);
  });

  it("applies the gate's timeoutMs to its check and blocks, as on generate, where it fails closed", async () => {
    const gate = outputGate({
      name: "moderation",
      timeoutMs: 30,
      check: (_t, info) => new Promise((r) => info.signal.addEventListener("abort", () => r(undefined))),
    });
    const streamed = await streamThroughStack(
      createAgentStack().use("modelCall", gate),
      request(),
      streamStarter(createScriptedModel({ turns: ["hello"] })),
    ).outcome;
    expect(streamed).toMatchObject({
      _tag: "Completed",
      value: { finishReason: "content-filter", text: "[output blocked by moderation: check timed out after 30 ms]" },
    });
    const generated = wrapModel(createAgentStack().use("modelCall", gate), createScriptedModel({ turns: ["hello"] })).generate(request());
    await expect(generated).rejects.toThrow(/hook "moderation" failed in after on modelCall: timed out/);
  });
});
