import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Agent, tool as agentsTool } from "@openai/agents";
import { ScriptedModel } from "@openai/agents/testing";
import { tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { aiSdkMiddleware } from "../../src/adapters/ai-sdk.ts";
import { wrapAiSdkTools } from "../../src/adapters/ai-sdk-tools.ts";
import { claudeAgentGuard } from "../../src/adapters/claude-agent-sdk/guard.ts";
import { claudeModelGateway } from "../../src/adapters/claude-agent-sdk/gateway/gateway.ts";
import { effectHook } from "../../src/adapters/effect.ts";
import { fromKoa } from "../../src/adapters/koa.ts";
import { langchainMiddleware } from "../../src/adapters/langchain.ts";
import { wrapMcpClient } from "../../src/adapters/mcp.ts";
import { guardAgent } from "../../src/adapters/openai-agents/agent.ts";
import { guardModel, guardModelProvider } from "../../src/adapters/openai-agents/model.ts";
import { guardTool } from "../../src/adapters/openai-agents/tool.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { toolPolicy } from "../../src/middleware/tool-policy.ts";

const stack = createAgentStack();
const aiTools = { bash: tool({ inputSchema: z.object({ command: z.string() }), execute: async () => "ok" }) };
const agentsModel = new ScriptedModel([]);
const agentsProvider = { getModel: () => agentsModel };
const agentsFunctionTool = agentsTool({
  name: "bash",
  description: "sh",
  parameters: z.object({ command: z.string() }),
  execute: async () => "ok",
});
const mcpClient = new Client({ name: "test-client", version: "1.0.0" });

/** Each entry point that takes a stack, called with the stack given and the options given. */
const takingStack: readonly [string, (stack: unknown, options?: object) => unknown][] = [
  ["aiSdkMiddleware", (s, o) => aiSdkMiddleware(s as never, o as never)],
  ["wrapAiSdkTools", (s, o) => wrapAiSdkTools(s as never, aiTools, o as never)],
  ["langchainMiddleware", (s, o) => langchainMiddleware(s as never, o as never)],
  ["wrapMcpClient", (s, o) => wrapMcpClient(s as never, mcpClient, o as never)],
  ["guardAgent", (s, o) => guardAgent(s as never, new Agent({ name: "a", model: agentsModel }), o as never)],
  ["guardModel", (s, o) => guardModel(s as never, agentsModel, o as never)],
  ["guardModelProvider", (s, o) => guardModelProvider(s as never, agentsProvider as never, o as never)],
  ["guardTool", (s, o) => guardTool(s as never, agentsFunctionTool, o as never)],
  ["claudeAgentGuard", (s, o) => claudeAgentGuard(s as never, o as never)],
  ["claudeModelGateway", (s, o) => claudeModelGateway(s as never, o as never)],
];

/** Each entry point with options, a misspelling a user would make, and the option meant. */
const withOptions: readonly [string, (options: object) => unknown, string, string][] = [
  ["aiSdkMiddleware", (o) => aiSdkMiddleware(stack, o as never), "hold", "holdBack"],
  ["wrapAiSdkTools", (o) => wrapAiSdkTools(stack, aiTools, o as never), "aproval", "approval"],
  ["langchainMiddleware", (o) => langchainMiddleware(stack, o as never), "aprovals", "approvals"],
  ["wrapMcpClient", (o) => wrapMcpClient(stack, mcpClient, o as never), "unlistedTool", "unlistedTools"],
  ["guardAgent", (o) => guardAgent(stack, new Agent({ name: "a", model: agentsModel }), o as never), "tool", "tools"],
  ["guardModel", (o) => guardModel(stack, agentsModel, o as never), "holdback", "holdBack"],
  ["guardModelProvider", (o) => guardModelProvider(stack, agentsProvider as never, o as never), "nam", "name"],
  ["guardTool", (o) => guardTool(stack, agentsFunctionTool, o as never), "approval", "approvals"],
  ["claudeAgentGuard", (o) => claudeAgentGuard(stack, o as never), "timeoutSecond", "timeoutSeconds"],
  ["claudeModelGateway", (o) => claudeModelGateway(stack, o as never), "upstreem", "upstream"],
  ["fromKoa", (o) => fromKoa(async (_ctx, next) => next(), o as never), "timeout", "timeoutMs"],
  ["effectHook", (o) => effectHook({ name: "e", ...o } as never), "befor", "before"],
];

/** The error an entry point threw or its promise rejected with. */
const refusal = async (call: () => unknown): Promise<unknown> => {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
};

describe("every adapter entry point", () => {
  it.each(takingStack)("%s refuses undefined where the stack belongs, naming itself", async (name, call) => {
    const error = await refusal(() => call(undefined));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(`${name}: stack must be a stack with run (createAgentStack()), got undefined`);
  });

  it.each(takingStack)("%s refuses a middleware where the stack belongs, saying how to put it on a stack", async (name, call) => {
    const error = await refusal(() => call(toolPolicy({ deny: [] })));
    expect((error as Error).message).toBe(
      `${name}: stack must be a stack with run (createAgentStack()), got the middleware "toolPolicy": put it on a stack first, withMiddleware(createAgentStack(), middleware)`,
    );
  });

  it.each(withOptions)("%s refuses a misspelt option, naming the option meant", async (name, call, typo, near) => {
    const error = await refusal(() => call({ [typo]: 1 }));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(
      new RegExp(`^${name}: unknown option "${typo}" \\(did you mean "${near}"\\?\\); its options are `),
    );
  });

  it("wrapAiSdkTools refuses a list where the object of tools by name belongs", () => {
    expect(() => wrapAiSdkTools(stack, [] as never)).toThrow(
      new TypeError("wrapAiSdkTools: tools must be an object of AI SDK tools by name, got a list"),
    );
  });
});
