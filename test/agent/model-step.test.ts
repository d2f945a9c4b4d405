import { describe, expect, it } from "vitest";
import { HookError, OutcomeRejectedError, Replace } from "../../src/index.ts";
import {
  createAgent,
  createAgentStack,
  createScriptedModel,
  defineTool,
  type ErrorDecision,
  type ErrorEvent,
  type LanguageModel,
  type ModelResponse,
} from "../../src/agent/index.ts";

/** A provider whose `generate` answers these values in turn (whatever their shape). */
const answering = (...answers: unknown[]): LanguageModel => {
  let n = 0;
  return { id: "hand-written", generate: async () => answers[Math.min(n++, answers.length - 1)] as ModelResponse };
};

const usage = { inputTokens: 3, outputTokens: 2 };
const shapeError = /^the modelCall response is not a response \(text must be a string, toolCalls an array/;

describe("the loop's model call checks the response it goes on with", () => {
  for (const [what, answer] of [
    ["text that is not a string", { text: 42, toolCalls: [], finishReason: "stop", usage }],
    ["no tool call list", { text: "hi", finishReason: "stop", usage }],
    ["a tool call without input", { text: "", toolCalls: [{ id: "c1", name: "Charge" }], finishReason: "tool-calls", usage }],
    [
      "a tool call whose name is not a string",
      { text: "", toolCalls: [{ id: "c1", name: 5, input: {} }], finishReason: "tool-calls", usage },
    ],
    ["nothing at all", undefined],
  ] as const) {
    for (const stream of [false, true]) {
      it(`fails a ${stream ? "streamed" : "generated"} call whose provider answers ${what} as a model failure, with the response's TypeError, running no tool`, async () => {
        const events: ErrorEvent[] = [];
        const ran: unknown[] = [];
        const stack = createAgentStack().use("error", { name: "watch", before: (event) => void events.push(event) });
        const charge = defineTool({ name: "Charge", execute: (input) => (ran.push(input), "charged") });

        const turn = await createAgent({ model: answering(answer), stack, tools: [charge], stream }).run("pay");

        expect(turn.status).toBe("failed");
        expect(ran).toEqual([]);
        expect(events.map((e) => e.where)).toEqual(["model"]);
        // On a stream the provider's own failure is wrapped with what had arrived (a ModelStreamError).
        const error = stream ? (turn.error as { cause?: unknown }).cause : turn.error;
        expect(error).toBeInstanceOf(TypeError);
        expect((error as Error).message).toMatch(shapeError);
      });
    }
  }

  it("fails a call whose cache hook, failing closed, answers an entry without usage: the same hook failure generated or streamed", async () => {
    const cached = { text: "cached answer", toolCalls: [], finishReason: "stop" };
    const errors: { stream: boolean; where: string; error: unknown }[] = [];
    for (const stream of [false, true]) {
      const stack = createAgentStack()
        .use("modelCall", { name: "cache", failMode: "closed", before: () => Replace(cached as never) })
        .use("error", { name: "watch", before: (event) => void errors.push({ stream, where: event.where, error: event.error }) });
      const turn = await createAgent({ model: createScriptedModel({ turns: ["fresh"] }), stack, stream }).run("go");
      expect(turn.status).toBe("failed");
    }
    expect(errors.map((e) => [e.stream, e.where, (e.error as Error).name, ((e.error as Error).cause as HookError).kind])).toEqual([
      [false, "model", "OutcomeRejectedError", "invalid-action"],
      [true, "model", "OutcomeRejectedError", "invalid-action"],
    ]);
    expect((errors[0]!.error as Error).message).toBe((errors[1]!.error as Error).message);
    expect((errors[0]!.error as Error).message).toMatch(
      /Replace gave modelCall an output it does not take: the modelCall response is not a response \(/,
    );
  });

  it("goes on with the model's answer when that cache hook fails open (the default on modelCall), generated or streamed", async () => {
    const cached = { text: "cached answer", toolCalls: [], finishReason: "stop" };
    for (const stream of [false, true]) {
      const stack = createAgentStack().use("modelCall", { name: "cache", before: () => Replace(cached as never) });
      const turn = await createAgent({ model: createScriptedModel({ turns: ["fresh"] }), stack, stream }).run("go");
      expect([stream, turn.status, turn.text, stack.stats.failOpen]).toEqual([stream, "completed", "fresh", 1]);
    }
  });

  it("lets an error hook that retries model failures retry a malformed response, and goes on with the next answer", async () => {
    const stack = createAgentStack().use("error", {
      name: "retry-model",
      match: "model",
      before: () => Replace({ action: "retry" } as ErrorDecision),
    });
    const model = answering(
      { text: 42, toolCalls: [], finishReason: "stop", usage },
      { text: "fine", toolCalls: [], finishReason: "stop", usage },
    );

    const turn = await createAgent({ model, stack }).run("go");

    expect(turn).toMatchObject({ status: "completed", text: "fine", usage });
  });

  it("estimates the usage a provider left out (or gave as NaN) on generate, as on a stream, and says it did", async () => {
    const seen: ModelResponse[] = [];
    const results = [];
    for (const stream of [false, true]) {
      for (const given of [undefined, { inputTokens: Number.NaN, outputTokens: 2 }]) {
        const stack = createAgentStack().use("modelCall", {
          name: "meter",
          after: (response) => void seen.push(response as ModelResponse),
        });
        const turn = await createAgent({
          model: answering({ text: "a fine answer", toolCalls: [], finishReason: "stop", usage: given }),
          stack,
          stream,
        }).run("hello there");
        results.push([stream, turn.status, turn.usage]);
      }
    }
    const estimated = { inputTokens: 4, outputTokens: 4 };
    expect(results).toEqual([
      [false, "completed", estimated],
      [false, "completed", { ...estimated, outputTokens: 2 }],
      [true, "completed", estimated],
      [true, "completed", { ...estimated, outputTokens: 2 }],
    ]);
    expect(seen.map((r) => r.usageEstimated)).toEqual([true, true, true, true]);
  });
});

describe("the turn's usage counts what a streamed call spent", () => {
  const cut = (text: string) => ({ text, chunkSize: 40, error: new Error("connection reset"), errorAfterChunks: 5 });
  const partialUsage = { inputTokens: 2, outputTokens: 50 }; // estimated: "go" in, 200 characters out

  it("counts a stream that failed part-way and was retried by an error hook, with the retry's answer", async () => {
    const partials: unknown[] = [];
    const stack = createAgentStack().use("error", {
      name: "retry-model",
      match: "model",
      before: (event) => {
        partials.push((event.error as { partial?: ModelResponse }).partial?.usage);
        return Replace({ action: "retry" } as ErrorDecision);
      },
    });
    const model = createScriptedModel({
      turns: [cut("x".repeat(400)), { text: "fine", usage: { inputTokens: 1000, outputTokens: 1 } }],
      chunkSize: 40,
    });

    const turn = await createAgent({ model, stack, stream: true }).run("go");

    expect(partials).toEqual([partialUsage]);
    expect(turn).toMatchObject({ status: "completed", text: "fine", usage: { inputTokens: 1002, outputTokens: 51 } });
  });

  it("counts a stream that failed part-way and failed the turn", async () => {
    const model = createScriptedModel({ turns: [cut("x".repeat(400))], chunkSize: 40 });

    const turn = await createAgent({ model, stack: createAgentStack(), stream: true }).run("go");

    expect(turn).toMatchObject({ status: "failed", usage: partialUsage });
  });

  it("counts a stream once when a modelCall recover hook answers with what it had streamed", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "keep-partial",
      recover: (error) => Replace((error as { partial: ModelResponse }).partial),
    });
    const model = createScriptedModel({ turns: [cut("x".repeat(400))], chunkSize: 40 });

    const turn = await createAgent({ model, stack, stream: true }).run("go");

    expect(turn).toMatchObject({ status: "completed", usage: partialUsage });
  });

  it("counts a stream that failed part-way when a modelCall recover hook answers in its place, with the hook's answer", async () => {
    const answer = { text: "sorry", toolCalls: [], finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } } as ModelResponse;
    const stack = createAgentStack().use("modelCall", { name: "apologise", recover: () => Replace(answer) });
    const model = createScriptedModel({ turns: [cut("x".repeat(400))], chunkSize: 40 });

    const turn = await createAgent({ model, stack, stream: true }).run("go");

    expect(turn).toMatchObject({ status: "completed", text: "sorry", usage: { inputTokens: 3, outputTokens: 51 } });
  });

  it("counts a stream that failed part-way when an around hook calls next() again, with the second attempt's answer", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "again",
      around: async (_ctx, next) => {
        const first = await next();
        return first._tag === "Failed" ? next() : first;
      },
    });
    const model = createScriptedModel({
      turns: [cut("x".repeat(400)), { text: "fine", usage: { inputTokens: 1000, outputTokens: 1 } }],
      chunkSize: 40,
    });

    const turn = await createAgent({ model, stack, stream: true }).run("go");

    expect(turn).toMatchObject({ status: "completed", text: "fine", usage: { inputTokens: 1002, outputTokens: 51 } });
  });

  it("counts a stream once when a modelCall recover hook answers with a copy of what it had streamed", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "keep-partial",
      recover: (error) => Replace({ ...(error as { partial: ModelResponse }).partial, text: "cut short" }),
    });
    const model = createScriptedModel({ turns: [cut("x".repeat(400))], chunkSize: 40 });

    const turn = await createAgent({ model, stack, stream: true }).run("go");

    expect(turn).toMatchObject({ status: "completed", text: "cut short", usage: partialUsage });
  });

  it("counts a stream once when an after hook answers with a deep copy of its response", async () => {
    const stack = createAgentStack().use("modelCall", { name: "copy", after: (res) => Replace(structuredClone(res) as ModelResponse) });
    const model = createScriptedModel({ turns: [{ text: "fresh", usage: { inputTokens: 10, outputTokens: 20 } }] });

    const turn = await createAgent({ model, stack, stream: true }).run("go");

    expect(turn.usage).toEqual({ inputTokens: 10, outputTokens: 20 });
  });

  it("counts a stream once when a modelCall recover hook answers with a deep copy of what it had streamed", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "keep-partial",
      recover: (error) => Replace(structuredClone((error as { partial: ModelResponse }).partial)),
    });
    const model = createScriptedModel({ turns: [cut("x".repeat(400))], chunkSize: 40 });

    const turn = await createAgent({ model, stack, stream: true }).run("go");

    expect(turn).toMatchObject({ status: "completed", usage: partialUsage });
  });

  it("counts both streams when an around hook calls next() twice and answers with the first", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "first-of-two",
      around: async (_ctx, next) => {
        const first = await next();
        await next();
        return first;
      },
    });
    const model = createScriptedModel({
      turns: [
        { text: "one", usage: { inputTokens: 10, outputTokens: 20 } },
        { text: "two", usage: { inputTokens: 1000, outputTokens: 1 } },
      ],
    });

    const turn = await createAgent({ model, stack, stream: true }).run("go");

    expect(turn).toMatchObject({ text: "one", usage: { inputTokens: 1010, outputTokens: 21 } });
  });

  it("counts the stream an around hook's retry replaced when the caller aborts during the retry", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "again",
      around: async (_ctx, next) => {
        const first = await next();
        return first._tag === "Failed" ? next() : first;
      },
    });
    const controller = new AbortController();
    let streams = 0;
    // The first stream sends 200 characters and fails; the second sends 80 and the caller aborts.
    const model: LanguageModel = {
      id: "flaky",
      generate: async () => {
        throw new Error("unused");
      },
      async *stream() {
        const second = streams++ > 0;
        for (let i = 0; i < 5; i++) {
          if (second && i === 2) controller.abort(new Error("ctrl-c"));
          yield { type: "text-delta", text: (second ? "z" : "x").repeat(40) };
        }
        throw new Error("connection reset");
      },
    };

    const turn = await createAgent({ model, stack, stream: true }).run("go", { signal: controller.signal });

    expect(turn.status).toBe("aborted");
    expect(turn.usage).toEqual({ inputTokens: 4, outputTokens: 70 }); // 2/50 and 2/20
  });

  it("refunds a stream that failed before it produced anything, whose usage is only an estimate", async () => {
    const model = createScriptedModel({ turns: [{ text: "never", error: new Error("connection refused"), errorAfterChunks: 0 }] });

    const turn = await createAgent({ model, stack: createAgentStack(), stream: true }).run("go");

    expect(turn).toMatchObject({ status: "failed", usage: { inputTokens: 0, outputTokens: 0 } });
  });

  for (const watched of [false, true]) {
    it(`counts what a stream had streamed when the caller aborted it part-way${watched ? ", as a modelCall after hook saw it" : ""}`, async () => {
      const seen: ModelResponse[] = [];
      const stack = watched
        ? createAgentStack().use("modelCall", { name: "meter", after: (response) => void seen.push(response as ModelResponse) })
        : createAgentStack();
      const model = createScriptedModel({ turns: ["a long answer that takes a while to stream out completely"], chunkSize: 4, delayMs: 5 });
      const controller = new AbortController();
      let parts = 0;

      const turn = await createAgent({ model, stack, stream: true }).run("go", {
        signal: controller.signal,
        onPart: () => {
          if (++parts === 4) controller.abort(new Error("ctrl-c"));
        },
      });

      expect(turn.status).toBe("aborted");
      expect(turn.usage).toEqual({ inputTokens: 2, outputTokens: 4 }); // 16 characters streamed
      await new Promise((resolve) => setTimeout(resolve, 30));
      if (watched) expect(seen.map((r) => [r.aborted, r.usage])).toEqual([[true, turn.usage]]);
    });
  }

  it("counts the usage a provider reported when the caller aborts after its stream ended, while after hooks still run", async () => {
    const stack = createAgentStack().use("modelCall", {
      name: "slow-audit",
      after: () => new Promise<void>((resolve) => setTimeout(resolve, 100)),
    });
    const model = createScriptedModel({ turns: [{ text: "short answer", usage: { inputTokens: 10, outputTokens: 5 } }] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("ctrl-c")), 30);

    const turn = await createAgent({ model, stack, stream: true }).run("go", { signal: controller.signal });

    expect(turn).toMatchObject({ status: "aborted", usage: { inputTokens: 10, outputTokens: 5 } });
  });
});

describe("a model call a hook refused by failing closed", () => {
  for (const stream of [false, true]) {
    it(`reaches the error point and the turn as an OutcomeRejectedError whose cause is the hook's HookError${stream ? ", streamed" : ""}`, async () => {
      const events: ErrorEvent[] = [];
      const stack = createAgentStack()
        .use("modelCall", {
          name: "pii-check",
          failMode: "closed",
          before: () => {
            throw new Error("detector service unreachable");
          },
        })
        .use("error", { name: "watch", before: (event) => void events.push(event) });

      const turn = await createAgent({ model: createScriptedModel({ turns: ["hi"] }), stack, stream }).run("go");

      expect(turn.status).toBe("failed");
      expect(events.map((e) => e.where)).toEqual(["model"]);
      expect(events[0]!.error).toBe(turn.error);
      expect(turn.error).toBeInstanceOf(OutcomeRejectedError);
      expect(turn.error).toMatchObject({
        by: "pii-check",
        cause: { name: "HookError", hook: "pii-check", point: "modelCall", phase: "before", kind: "threw" },
      });
      expect((turn.error as { cause: HookError }).cause).toBeInstanceOf(HookError);
    });
  }
});

describe("an answer an error hook recovers a streamed model call with", () => {
  for (const errorAfterChunks of [0, 2]) {
    it(`reaches onPart as text and a finish, after the failed stream's error part (${errorAfterChunks} chunks streamed first)`, async () => {
      const answer = {
        text: "recovered",
        toolCalls: [],
        finishReason: "stop",
        usage: { inputTokens: 1, outputTokens: 1 },
      } as ModelResponse;
      const stack = createAgentStack().use("error", {
        name: "recover",
        before: () => Replace({ action: "recover", value: answer } as ErrorDecision),
      });
      const model = createScriptedModel({ turns: [{ chunks: ["aaaa", "bbbb"], error: new Error("conn reset"), errorAfterChunks }] });
      const parts: string[] = [];

      const turn = await createAgent({
        model,
        stack,
        stream: true,
        onPart: (p) => void parts.push(p.type === "text-delta" ? p.text : `<${p.type}>`),
      }).run("go");

      expect(turn).toMatchObject({ status: "completed", text: "recovered" });
      expect(parts).toEqual([...["aaaa", "bbbb"].slice(0, errorAfterChunks), "<error>", "recovered", "<finish>"]);
    });
  }
});

describe("an answer an error hook recovers a model call with", () => {
  it("counts its usage, as a modelCall recover hook's answer is counted", async () => {
    const answer = { text: "recovered", toolCalls: [], finishReason: "stop", usage: { inputTokens: 5, outputTokens: 5 } } as ModelResponse;
    const stack = createAgentStack().use("error", {
      name: "recover",
      before: () => Replace({ action: "recover", value: answer } as ErrorDecision),
    });
    const model = createScriptedModel({ turns: [{ text: "never", error: new Error("connection refused"), errorAfterChunks: 0 }] });

    const turn = await createAgent({ model, stack, stream: true }).run("go");

    expect(turn).toMatchObject({ status: "completed", usage: { inputTokens: 5, outputTokens: 5 } });
  });

  it("does not count the failed stream twice when it is that stream's partial answer", async () => {
    const stack = createAgentStack().use("error", {
      name: "recover",
      before: (event) => Replace({ action: "recover", value: (event.error as { partial: ModelResponse }).partial } as ErrorDecision),
    });
    const model = createScriptedModel({
      turns: [{ text: "x".repeat(400), error: new Error("connection reset"), errorAfterChunks: 5 }],
      chunkSize: 40,
    });

    const turn = await createAgent({ model, stack, stream: true }).run("go");

    expect(turn).toMatchObject({ status: "completed", usage: { inputTokens: 2, outputTokens: 50 } });
  });

  it("takes a field given as undefined as left out", async () => {
    const stack = createAgentStack().use("error", {
      name: "recover",
      before: () => Replace({ action: "recover", value: { text: "x", usage: undefined } } as ErrorDecision),
    });
    const model = createScriptedModel({ turns: [{ text: "never", error: new Error("connection refused"), errorAfterChunks: 0 }] });

    const turn = await createAgent({ model, stack, stream: false }).run("go");

    expect(turn).toMatchObject({ status: "completed", text: "x" });
  });

  for (const [what, value] of [
    ["a call list that is not a list", { text: "x", toolCalls: "oops" }],
    ["a tool call without a name", { text: "x", toolCalls: [{ id: "c1", input: {} }] }],
    ["usage that is not token counts", { text: "x", usage: { inputTokens: -1, outputTokens: "many" } }],
  ] as const) {
    for (const stream of [false, true]) {
      it(`fails the turn with the response's TypeError when it has ${what}${stream ? ", streamed" : ""}`, async () => {
        const stack = createAgentStack().use("error", {
          name: "recover",
          before: () => Replace({ action: "recover", value } as ErrorDecision),
        });
        const model = createScriptedModel({ turns: [{ chunks: ["aaaa"], error: new Error("conn reset"), errorAfterChunks: 0 }] });
        const parts: string[] = [];

        const turn = await createAgent({ model, stack, stream, onPart: (p) => void parts.push(p.type) }).run("go");

        expect(turn.status).toBe("failed");
        expect(turn.error).toBeInstanceOf(TypeError);
        expect((turn.error as Error).message).toMatch(
          /^the error point's recover value: the modelCall response is not a response \(text must be a string, toolCalls an array/,
        );
        expect(parts).not.toContain("tool-call");
      });
    }
  }
});
