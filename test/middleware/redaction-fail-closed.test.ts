import { describe, expect, it } from "vitest";
import {
  createAgent,
  createAgentStack,
  createScriptedModel,
  defineTool,
  streamThroughStack,
  type ModelRequest,
  type ModelResponse,
  type StreamPart,
} from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { defaultDetectors, type Detector } from "../../src/middleware/detectors.ts";
import { redaction } from "../../src/middleware/redaction.ts";

const KEY = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
const request: ModelRequest = { model: "scripted", messages: [{ role: "user", content: "hi" }] };
const usage = { inputTokens: 1, outputTokens: 1 };

/** A tool-call input nested deeper than the redactor scans: checking it throws. */
const tooDeep = (): Record<string, unknown> => {
  let deep: Record<string, unknown> = { leaf: "x" };
  for (let i = 0; i < 70; i++) deep = { d: deep };
  return deep;
};

/** A detector whose check throws, as a buggy custom detector would. */
const throwing: Detector = {
  kind: "broken",
  window: 8,
  find: () => {
    throw new Error("detector bug");
  },
};

describe("redaction fails closed on model output when it cannot check it", () => {
  const answer = (input: Record<string, unknown>): ModelResponse => ({
    text: `here is the key ${KEY}`,
    toolCalls: [{ id: "t1", name: "Write", input }],
    finishReason: "tool-calls",
    usage,
  });

  it("never completes a generated answer it could not scan (a too-deep tool input), whatever the strategy", async () => {
    for (const strategies of [{}, { api_key: "block" as const }]) {
      const stack = withMiddleware(createAgentStack(), redaction({ strategies }));
      const outcome = await stack.run("modelCall", request, () => answer(tooDeep()));
      expect(outcome._tag).not.toBe("Completed");
      expect(JSON.stringify(outcome)).not.toContain(KEY);
    }
  });

  it("never completes a generated answer when a custom detector throws", async () => {
    const stack = withMiddleware(createAgentStack(), redaction({ detectors: [...defaultDetectors(), throwing] }));
    const outcome = await stack.run("modelCall", request, () => ({ ...answer({}), toolCalls: [] }));
    expect(outcome._tag).not.toBe("Completed");
  });

  it("never completes a streamed answer it could not scan, and releases none of its secret", async () => {
    const stack = withMiddleware(createAgentStack(), redaction());
    async function* provider(): AsyncGenerator<StreamPart> {
      yield { type: "text-delta", text: `here is the key ${KEY} and more text after it` };
      yield { type: "tool-call", call: { id: "t1", name: "Write", input: tooDeep() } };
      yield { type: "finish", finishReason: "tool-calls", usage };
    }
    const call = streamThroughStack(stack, request, () => provider());
    const parts: StreamPart[] = [];
    try {
      for await (const part of call.parts) parts.push(part);
    } catch {
      // a failed stream may end its reader with the error
    }
    const { outcome } = await call.done;
    expect(outcome._tag).not.toBe("Completed");
    expect(JSON.stringify([parts, outcome])).not.toContain(KEY);
  });

  it("never completes a streamed answer when a custom detector throws on the whole answer's final check", async () => {
    // Throws only on long texts: the stream's windows pass, the final scan of the whole answer does not.
    const longOnly: Detector = {
      kind: "broken",
      window: 8,
      find: (text) => {
        if (text.length > 400) throw new Error("detector bug");
        return [];
      },
    };
    const stack = withMiddleware(createAgentStack(), redaction({ detectors: [...defaultDetectors(), longOnly] }));
    async function* provider(): AsyncGenerator<StreamPart> {
      for (let i = 0; i < 100; i++) yield { type: "text-delta", text: "clean text" };
      yield { type: "finish", finishReason: "stop", usage };
    }
    const call = streamThroughStack(stack, request, () => provider());
    try {
      for await (const _ of call.parts);
    } catch {
      // as above
    }
    const { outcome } = await call.done;
    expect(outcome._tag).not.toBe("Completed");
  });

  it("fails the agent's turn, generated or streamed, and the secret reaches neither the model's history nor the caller", async () => {
    for (const stream of [false, true]) {
      const model = createScriptedModel({
        turns: [{ text: `Sure, the key is ${KEY}`, toolCalls: [{ name: "Write", input: tooDeep() }] }, "done"],
      });
      const write = defineTool({ name: "Write", execute: () => "ok" });
      const agent = createAgent({
        model,
        stream,
        tools: [write],
        stack: withMiddleware(createAgentStack(), redaction({ strategies: { api_key: "block" } })),
      });
      const turn = await agent.run("go");
      expect(turn.status).toBe("failed");
      expect(JSON.stringify([turn.text, turn.result?.messages, model.requests])).not.toContain(KEY);
    }
  });
});
