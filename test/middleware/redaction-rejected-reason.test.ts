import { describe, expect, it } from "vitest";
import { HookError, Reject } from "../../src/core/index.ts";
import { createAgentStack, type ToolCall } from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { redaction } from "../../src/middleware/redaction.ts";
import { recordingTool, runAgent, toolMessagesSeen } from "./harness.ts";

const KEY = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
const call: ToolCall = { id: "c1", name: "Deploy", input: {} };
const policyServerDown = {
  name: "policy",
  before: () => {
    throw new Error(`policy server 401 for key ${KEY}`);
  },
};

describe("redaction of a tool call's rejection reason", () => {
  it("keeps the secret in a failed-closed hook's message from the model, whatever the strategy", async () => {
    for (const strategies of [{}, { api_key: "block" as const }]) {
      const deploy = recordingTool("Deploy");
      const stack = withMiddleware(createAgentStack(), redaction({ strategies })).use("toolCall", policyServerDown);
      const { model } = await runAgent(stack, [{ toolCalls: [{ name: "Deploy", input: {} }] }, "done"], { tools: [deploy] });
      expect(deploy.calls).toEqual([]);
      expect(toolMessagesSeen(model)).toEqual([
        'Tool call Deploy was rejected by policy: hook "policy" failed in before on toolCall: threw: policy server 401 for key [REDACTED:api_key]',
      ]);
      expect(JSON.stringify(model.requests)).not.toContain(KEY);
    }
  });

  it("keeps who rejected and, for the caller, the hook's failure as cause", async () => {
    const stack = withMiddleware(createAgentStack(), redaction()).use("toolCall", policyServerDown);
    const outcome = await stack.run("toolCall", call, () => ({ content: "deployed" }));
    expect(outcome).toMatchObject({ _tag: "Rejected", by: "policy", reason: expect.stringContaining("for key [REDACTED:api_key]") });
    expect(outcome._tag === "Rejected" && outcome.cause).toBeInstanceOf(HookError);
  });

  it("scrubs a hook's own Reject reason too", async () => {
    const stack = withMiddleware(createAgentStack(), redaction()).use("toolCall", {
      name: "quota",
      before: () => Reject(`quota exceeded for bob@example.com`),
    });
    const outcome = await stack.run("toolCall", call, () => ({ content: "deployed" }));
    expect(outcome).toEqual({ _tag: "Rejected", by: "quota", reason: "quota exceeded for [REDACTED:email]" });
  });
});
