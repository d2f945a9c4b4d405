/**
 * AI SDK tool approvals that survive a restart: a hook asks a person before `git push`, through
 * the AI SDK's own `tool-approval-request`. With durable approvals the call's run pauses at once
 * (its signed pending approval kept in the store) and this "process" may stop; the conversation is
 * saved as JSON, and a second deployment over the same store (another process, in production a
 * RedisStore) takes the person's `tool-approval-response`, resumes the paused run, and the tool
 * runs there, once. Handing the same answer back again runs nothing. A mock model stands in for
 * the provider: no network, no keys.
 *
 * Run: node --import tsx examples/ai-sdk-approval.ts
 * @expect paused: the SDK asks about bash {"command":"git push origin main"}
 * @expect saved conversation: 2 messages
 * @expect ran: git push origin main
 * @expect the trace says: approved by ai-sdk tool approval
 * @expect the same answer again ran: nothing
 */
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { aiSdkMiddleware, wrapAiSdkTools } from "agent-onion/ai-sdk";
import { MemoryStore, Trace, createAgentStack, durableApprovals, type StateStore } from "agent-onion";
import { approval, withMiddleware } from "agent-onion/middleware";

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** The provider: it asks for `git push`, then reports what the tool answered. */
const provider = () =>
  new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const result = prompt.flatMap((m) => (m.role === "tool" ? m.content : [])).find((p) => p.type === "tool-result");
      if (result === undefined)
        return {
          content: [{ type: "tool-call", toolCallId: "call_7f3a", toolName: "bash", input: '{"command":"git push origin main"}' }],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        };
      return {
        content: [{ type: "text", text: `done: ${JSON.stringify(result.output)}` }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      };
    },
  });

/** One deployment (one process): the same stack, tools and model, over a shared store. */
const deployment = (store: StateStore) => {
  const ran: string[] = [];
  const trace = new Trace();
  const approvals = durableApprovals({ store, key: "an-example-signing-key-of-32-bytes-or-more" });
  const stack = withMiddleware(createAgentStack({ approval: approvals }), approval({ match: "bash(git push*)" }));
  const tools = wrapAiSdkTools(
    stack,
    {
      bash: tool({
        inputSchema: jsonSchema<{ command: string }>({
          type: "object",
          properties: { command: { type: "string" } },
          required: ["command"],
        }),
        execute: async ({ command }) => (ran.push(command), `pushed (${command})`),
      }),
    },
    { approval: "ai-sdk", run: { trace } },
  );
  const model = wrapLanguageModel({ model: provider(), middleware: aiSdkMiddleware(stack) });
  return { ran, trace, tools, model };
};

const store = new MemoryStore();

// Process 1: the model calls bash; the approval hook asks, and the step ends with the SDK's request.
const first = deployment(store);
const prompt = "Push main, please.";
const asked = await generateText({ model: first.model, tools: first.tools, prompt, stopWhen: stepCountIs(3) });
const request = asked.content.find((p) => p.type === "tool-approval-request");
if (request === undefined) throw new Error("expected a tool-approval-request");
console.log(`paused: the SDK asks about ${request.toolCall.toolName} ${JSON.stringify(request.toolCall.input)}`);
const saved = JSON.stringify([{ role: "user", content: prompt }, ...asked.response.messages]);
console.log(`saved conversation: ${JSON.parse(saved).length} messages`);

// Later, process 2: a person approved; the app sends the conversation on with the answer.
const answer = (messages: ModelMessage[]): ModelMessage[] => [
  ...messages,
  { role: "tool", content: [{ type: "tool-approval-response", approvalId: request.approvalId, approved: true, reason: "release day" }] },
];
const second = deployment(store);
await generateText({ model: second.model, tools: second.tools, messages: answer(JSON.parse(saved)), stopWhen: stepCountIs(3) });
console.log(`ran: ${second.ran.join(", ")}`);
const decision = second.trace.entries.find((e) => e.phase === "approval");
console.log(`the trace says: ${decision?.reason}`);

// A retried request hands the same answer to a third process: the claim in the store was spent.
const third = deployment(store);
await generateText({ model: third.model, tools: third.tools, messages: answer(JSON.parse(saved)), stopWhen: stepCountIs(3) });
console.log(`the same answer again ran: ${third.ran.length === 0 ? "nothing" : third.ran.join(", ")}`);
