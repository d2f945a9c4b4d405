/**
 * The adapter's functions give back what they were given, typed as the SDK types it: an agent
 * keeps its context and output types, a tool its kind, a model and a provider their interfaces.
 */
import { Agent, tool, webSearchTool, type FunctionTool, type HostedTool, type Model, type ModelProvider } from "@openai/agents";
import { ScriptedModel } from "@openai/agents/testing";
import { z } from "zod";
import { describe, expectTypeOf, it } from "vitest";
import { createStack } from "../../src/core/stack.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { agentPoints } from "../../src/agent/points.ts";
import { ApprovalNotAskedError, guardAgent, guardModel, guardModelProvider, guardTool } from "../../src/adapters/openai-agents/index.ts";
import type { AgentOnionError } from "../../src/core/errors.ts";

const stack = createAgentStack();
const send = tool({ name: "send", description: "Send", parameters: z.object({ to: z.string() }), execute: async ({ to }) => to });

describe("openai-agents adapter types", () => {
  it("guardAgent keeps the agent's context and output types", () => {
    const agent = new Agent<{ userId: string }, "text">({ name: "a" });
    expectTypeOf(guardAgent(stack, agent)).toEqualTypeOf<Agent<{ userId: string }, "text">>();
    const typed = new Agent({ name: "b", outputType: z.object({ answer: z.string() }) });
    expectTypeOf(guardAgent(stack, typed)).toEqualTypeOf(typed);
  });

  it("guardTool keeps the tool's type: a function tool stays one, a hosted tool stays one", () => {
    expectTypeOf(guardTool(stack, send)).toEqualTypeOf(send);
    expectTypeOf(guardTool(stack, send)).toExtend<FunctionTool<any, any, any>>();
    expectTypeOf(guardTool(stack, webSearchTool())).toEqualTypeOf<HostedTool>();
  });

  it("guardModel and guardModelProvider give back an SDK Model and ModelProvider", () => {
    expectTypeOf(guardModel(stack, new ScriptedModel([]))).toEqualTypeOf<Model>();
    expectTypeOf(guardModelProvider(stack, { getModel: () => new ScriptedModel([]) })).toEqualTypeOf<ModelProvider>();
  });

  it("ApprovalNotAskedError is an AgentOnionError naming the tool, the call id and why", () => {
    const e = new ApprovalNotAskedError("send", "call_1", "not asked");
    expectTypeOf(e).toExtend<AgentOnionError>();
    expectTypeOf(e.tool).toEqualTypeOf<string>();
    expectTypeOf(e.callId).toEqualTypeOf<string>();
    expectTypeOf(e.why).toEqualTypeOf<string>();
    // @ts-expect-error the reason is required
    new ApprovalNotAskedError("send", "call_1");
  });

  it("refuses what is not an agent, a tool, a model, or an approvals mode", () => {
    // @ts-expect-error a plain object is not an Agent
    guardAgent(stack, { name: "a" });
    // @ts-expect-error a function is not a tool
    guardTool(stack, async () => "x");
    // @ts-expect-error a model needs getResponse and getStreamedResponse
    guardModel(stack, { getResponse: async () => ({}) });
    // @ts-expect-error approvals is "interrupt" or "stack"
    guardTool(stack, send, { approvals: "later" });
  });

  it("accepts any stack with the points it runs, and refuses one without them", () => {
    guardTool(createStack({ toolCall: agentPoints.toolCall }), send);
    guardModel(createStack({ modelCall: agentPoints.modelCall }), new ScriptedModel([]));
    // @ts-expect-error guardAgent also runs userPrompt, which this stack does not have
    guardAgent(createStack({ toolCall: agentPoints.toolCall, modelCall: agentPoints.modelCall }), new Agent({ name: "a" }));
  });
});
