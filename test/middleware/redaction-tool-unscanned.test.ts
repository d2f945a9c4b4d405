import { describe, expect, it } from "vitest";
import { Replace, Transform } from "../../src/core/index.ts";
import { createAgentStack, type ToolCall, type ToolResult } from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { defaultDetectors, type Detector } from "../../src/middleware/detectors.ts";
import { redaction } from "../../src/middleware/redaction.ts";
import { recordingTool, runAgent, toolMessagesSeen } from "./harness.ts";

const KEY = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
const call: ToolCall = { id: "c1", name: "Cfg", input: {} };
const down = (): ToolResult => {
  throw new Error("primary config API down");
};

describe("redaction sees a tool result it did not make", () => {
  it("redacts what a recover hook answered for a failed call, and refuses it under block", async () => {
    for (const strategies of [{}, { api_key: "block" as const }]) {
      const cfg = recordingTool("Cfg", down);
      const stack = withMiddleware(createAgentStack(), redaction({ strategies })).use("toolCall", {
        name: "backup-source",
        recover: () => Replace({ content: `backup config: apiKey=${KEY}` }),
      });
      const { turn, model } = await runAgent(stack, [{ toolCalls: [{ name: "Cfg", input: {} }] }, "done"], { tools: [cfg] });
      expect(turn.status).toBe("completed");
      expect(JSON.stringify([model.requests, turn.result?.messages])).not.toContain(KEY);
      expect(toolMessagesSeen(model)).toEqual([
        "api_key" in strategies
          ? "Tool call Cfg was rejected by redaction:unscanned: tool output of Cfg contains api_key; blocked by redaction"
          : "backup config: apiKey=[REDACTED:api_key]",
      ]);
    }
  });

  it("redacts a result an around hook answered without running the tool (a cache's)", async () => {
    const stack = withMiddleware(createAgentStack(), redaction()).use("toolCall", {
      name: "cached",
      priority: 50,
      around: () => Replace({ content: [{ type: "text", text: `cached: ${KEY}` }] }),
    });
    const outcome = await stack.run("toolCall", call, () => ({ content: "fresh" }));
    expect(outcome).toMatchObject({ _tag: "Completed", value: { content: [{ type: "text", text: "cached: [REDACTED:api_key]" }] } });
  });

  it("scans a result an after hook outside the innermost one rewrote after it was scanned", async () => {
    const stack = withMiddleware(createAgentStack(), redaction()).use("toolCall", {
      name: "footer",
      priority: 100,
      after: (r) => Transform({ ...r, content: `${String(r.content)} (owner: help@example.com)` }),
    });
    const outcome = await stack.run("toolCall", call, () => ({ content: "deployed" }));
    expect(outcome).toMatchObject({ _tag: "Completed", value: { content: "deployed (owner: [REDACTED:email])" } });
  });

  it("scans a result the tool returned only once", async () => {
    let scans = 0;
    // Counts the scans of the answer's text (keys are scanned too, once each).
    const counting: Detector = { kind: "counted", window: 1, find: (text) => (text === "clean" && scans++, []) };
    const stack = withMiddleware(createAgentStack(), redaction({ detectors: [...defaultDetectors(), counting] }));
    const outcome = await stack.run("toolCall", call, () => ({ content: "clean" }));
    expect(outcome).toMatchObject({ _tag: "Completed", value: { content: "clean" } });
    expect(scans).toBe(1);
  });
});
