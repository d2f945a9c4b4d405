/**
 * One stack guards an OpenAI Agents SDK agent: policy refuses a tool, a person must approve
 * emails, and the run pauses through the SDK's own interruptions. The paused state is a string
 * an app can store; here it is restored and approved, and the email goes out once. Offline: the
 * SDK's ScriptedModel plays the model.
 *
 * Run: node --import tsx examples/openai-agents.ts
 * @expect refused: Tool call delete_mailbox was rejected by toolPolicy
 * @expect paused for approval: send an email to bob@corp.test
 * @expect resumed: sent to bob@corp.test (1 email)
 */
import { Agent, RunState, run, setTracingDisabled, tool } from "@openai/agents";
import { ScriptedModel, assistantMessage, functionCall } from "@openai/agents/testing";
import { z } from "zod";
import { approval, createAgentStack, toolPolicy, withMiddleware } from "agent-onion";
import { guardAgent } from "agent-onion/openai-agents";

setTracingDisabled(true); // nothing leaves this machine

const stack = withMiddleware(
  createAgentStack(),
  toolPolicy({ allow: ["send_email"], deny: ["delete_mailbox"] }),
  approval({ match: "send_email", reason: (call) => `send an email to ${String(call.input.to)}` }),
);

const outbox: string[] = [];
const sendEmail = tool({
  name: "send_email",
  description: "Send an email",
  parameters: z.object({ to: z.string() }),
  execute: async ({ to }) => (outbox.push(to), `sent to ${to}`),
});
const deleteMailbox = tool({
  name: "delete_mailbox",
  description: "Delete the mailbox",
  parameters: z.object({}),
  execute: async () => "deleted",
});

const model = new ScriptedModel([
  [functionCall("delete_mailbox", {}, { callId: "c1" }), functionCall("send_email", { to: "bob@corp.test" }, { callId: "c2" })],
  [assistantMessage("Done: Bob has his email; the mailbox stays.")],
]);
const agent = guardAgent(stack, new Agent({ name: "mailer", instructions: "You manage email.", tools: [sendEmail, deleteMailbox], model }));

const paused = await run(agent, "Email Bob, then delete my mailbox.");
const saved = paused.state.toString(); // store it; the person answers later, anywhere
const request = paused.interruptions[0];

const state = await RunState.fromString(agent, saved);
state.approve(state.getInterruptions()[0]!);
const done = await run(agent, state);

const refusal = (model.calls[1]?.request.input as { type?: string; callId?: string; output?: { text: string } }[]).find(
  (i) => i.type === "function_call_result" && i.callId === "c1",
)?.output?.text;
console.log(`refused: ${refusal}`);
console.log(
  `paused for approval: ${request?.name === "send_email" ? "send an email to " + JSON.parse(String(request.arguments)).to : "?"}`,
);
console.log(`resumed: ${outbox.length === 1 ? `sent to ${outbox[0]} (1 email)` : `${outbox.length} emails`}`);
console.log(done.finalOutput);
