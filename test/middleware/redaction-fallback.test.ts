import { describe, expect, it } from "vitest";
import { Transform } from "../../src/core/index.ts";
import {
  createAgentStack,
  createScriptedModel,
  streamStarter,
  streamThroughStack,
  type ModelRequest,
  type StreamPart,
} from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { defaultDetectors, type Detector } from "../../src/middleware/detectors.ts";
import { fallback } from "../../src/middleware/fallback.ts";
import { RedactionBlockedError, redaction } from "../../src/middleware/redaction.ts";
import { runAgent } from "./harness.ts";

const KEY = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
const request: ModelRequest = { model: "primary", messages: [{ role: "user", content: "hi" }] };
const down = () => {
  throw new Error("primary down");
};
const backupSays = () =>
  createScriptedModel({
    id: "backup",
    chunkSize: 5,
    turns: [{ text: `the key is ${KEY}`, toolCalls: [{ name: "Mail", input: { to: "bob@example.com" } }] }],
  });

describe("redaction sees the answer of a fallback model", () => {
  it("redacts the backup's generated answer, its tool inputs too", async () => {
    const stack = withMiddleware(createAgentStack(), redaction(), fallback({ models: [backupSays()] }));
    const outcome = await stack.run("modelCall", request, down);
    expect(outcome).toMatchObject({
      _tag: "Completed",
      value: { model: "backup", text: "the key is [REDACTED:api_key]", toolCalls: [{ input: { to: "[REDACTED:email]" } }] },
    });
  });

  it("blocks the backup's generated answer holding a blocked kind", async () => {
    const stack = withMiddleware(createAgentStack(), redaction({ strategies: { api_key: "block" } }), fallback({ models: [backupSays()] }));
    const outcome = await stack.run("modelCall", request, down);
    expect(outcome._tag === "Failed" && outcome.error).toBeInstanceOf(RedactionBlockedError);
    expect(JSON.stringify(outcome)).not.toContain(KEY);
  });

  it("redacts, or blocks, the backup's answer released to a stream's reader", async () => {
    for (const strategies of [{}, { api_key: "block" as const }]) {
      const primary = createScriptedModel({
        id: "primary",
        turns: [{ text: "never", error: new Error("connect reset"), errorAfterChunks: 0 }],
      });
      const stack = withMiddleware(createAgentStack(), redaction({ strategies }), fallback({ models: [backupSays()] }));
      const call = streamThroughStack(stack, request, streamStarter(primary));
      const parts: StreamPart[] = [];
      for await (const part of call.parts) parts.push(part);
      const { outcome } = await call.done;
      expect(JSON.stringify([parts, outcome])).not.toContain(KEY);
      if ("api_key" in strategies) expect(outcome._tag === "Failed" && outcome.error).toBeInstanceOf(RedactionBlockedError);
      else expect(parts.flatMap((p) => (p.type === "text-delta" ? [p.text] : [])).join("")).toBe("the key is [REDACTED:api_key]");
    }
  });

  it("keeps the backup's secret out of the agent's turn and the history sent back to the model", async () => {
    const backup = createScriptedModel({ id: "backup", turns: [`the key is ${KEY}`] });
    const stack = withMiddleware(createAgentStack(), redaction(), fallback({ models: [backup] }));
    const { turn, model } = await runAgent(stack, [{ error: new Error("503 overloaded") }]);
    expect(turn).toMatchObject({ status: "completed", text: "the key is [REDACTED:api_key]" });
    expect(JSON.stringify([turn.result?.messages, model.requests, backup.requests])).not.toContain(KEY);
  });

  it("scans an answer a hook outside the innermost one rewrote after it was scanned", async () => {
    const stack = withMiddleware(createAgentStack(), redaction()).use("modelCall", {
      name: "signature",
      priority: 100,
      after: (r) => Transform({ ...r, text: `${r.text} (support: help@example.com)` }),
    });
    const outcome = await stack.run("modelCall", request, () => ({
      text: "done",
      toolCalls: [],
      finishReason: "stop" as const,
      usage: { inputTokens: 1, outputTokens: 1 },
    }));
    expect(outcome).toMatchObject({ _tag: "Completed", value: { text: "done (support: [REDACTED:email])" } });
  });

  it("scans an answer it already scanned only once", async () => {
    let scans = 0;
    // Counts the scans of the answer's text (keys are scanned too, once each).
    const counting: Detector = { kind: "counted", window: 1, find: (text) => (text === "clean" && scans++, []) };
    const stack = withMiddleware(createAgentStack(), redaction({ detectors: [...defaultDetectors(), counting] }));
    await stack.run("modelCall", request, () => ({
      text: "clean",
      toolCalls: [],
      finishReason: "stop" as const,
      usage: { inputTokens: 1, outputTokens: 1 },
    }));
    expect(scans).toBe(1);
  });
});
