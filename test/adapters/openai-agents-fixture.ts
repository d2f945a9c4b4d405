/**
 * The mailer agent the OpenAI Agents adapter tests pause and resume: the same stack and agent in
 * the test process and in the worker that resumes the run (openai-agents-resume-worker.ts), as an
 * application builds them at each start.
 */
import { Agent, setTracingDisabled, tool } from "@openai/agents";
import { ScriptedModel, type ScriptedModelInput } from "@openai/agents/testing";
import { z } from "zod";
import type { RunEvent } from "../../src/core/context.ts";
import { Priority } from "../../src/core/priority.ts";
import type { StateStore } from "../../src/core/state.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import type { ToolCall, ToolResult } from "../../src/agent/types.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { approval } from "../../src/middleware/approval.ts";
import { toolPolicy } from "../../src/middleware/tool-policy.ts";
import { guardAgent } from "../../src/adapters/openai-agents/index.ts";

setTracingDisabled(true);

/** The mailer: `send_email` needs a person's approval, `delete_mailbox` is refused by policy. */
export const buildMailer = (store: StateStore | undefined, script: readonly ScriptedModelInput[]) => {
  const sent: string[] = [];
  const events: RunEvent<ToolCall, ToolResult>[] = [];
  const stack = withMiddleware(
    createAgentStack(store !== undefined ? { store } : {}),
    toolPolicy({ allow: ["send_email"], deny: ["delete_mailbox"] }),
    approval({ match: "send_email", reason: (call) => `send an email to ${String(call.input.to)}` }),
  ).use("toolCall", { name: "watch", priority: Priority.first, observe: (e) => void events.push(e as RunEvent<ToolCall, ToolResult>) });
  const sendEmail = tool({
    name: "send_email",
    description: "Send an email",
    parameters: z.object({ to: z.string(), body: z.string() }),
    execute: async ({ to }) => (sent.push(to), `sent to ${to}`),
  });
  const deleteMailbox = tool({
    name: "delete_mailbox",
    description: "Delete the mailbox",
    parameters: z.object({}),
    execute: async () => "deleted",
  });
  const model = new ScriptedModel(script);
  const agent = guardAgent(
    stack,
    new Agent({ name: "mailer", instructions: "You send emails.", tools: [sendEmail, deleteMailbox], model }),
  );
  return { agent, stack, model, sent, events };
};
