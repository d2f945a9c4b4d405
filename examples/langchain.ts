/**
 * A LangChain.js agent (`createAgent`) guarded by one agent-onion stack, plugged in as LangChain
 * middleware: a tool policy refuses `rm -rf` (the model reads why), redaction keeps the user's
 * email from the model, a person approves `git push` through LangGraph's own interrupt (and
 * edits it to a dry run), and a hook counts tokens. LangChain's fake model stands in for the
 * provider: no network, no keys.
 *
 * Run: node --import tsx examples/langchain.ts
 * @expect paused for approval: bash {"command":"git push"}
 * @expect ran: git push --dry-run
 * @expect the model read: Tool call bash was rejected by toolPolicy: Tool "bash" is blocked by policy: it matches deny rule "bash(rm -rf*)"
 * @expect the model saw the prompt: I am [REDACTED:email]. Clean ./build and push.
 * @expect model calls: 2, tokens in/out: 40/10
 * @expect answer: Build left alone; pushed as a dry run.
 */
import { Command, MemorySaver } from "@langchain/langgraph";
import { AIMessage, HumanMessage, createAgent, fakeModel, tool, type BaseMessage } from "langchain";
import { z } from "zod";
import { langchainMiddleware } from "agent-onion/langchain";
import { Priority, createAgentStack } from "agent-onion";
import { approval, redaction, toolPolicy, withMiddleware } from "agent-onion/middleware";

let calls = 0;
let tokensIn = 0;
let tokensOut = 0;
const stack = withMiddleware(
  createAgentStack().use("modelCall", {
    name: "token-count",
    priority: Priority.telemetry,
    after: (response) => {
      calls++;
      tokensIn += response.usage.inputTokens;
      tokensOut += response.usage.outputTokens;
    },
  }),
  toolPolicy({ deny: ["bash(rm -rf*)"] }),
  redaction(),
  approval({ match: "bash(git push*)" }),
);

const bash = tool(
  async ({ command }) => {
    console.log(`ran: ${command}`);
    return `(pretend we ran: ${command})`;
  },
  { name: "bash", description: "Run a shell command", schema: z.object({ command: z.string() }) },
);

// The provider: first it asks for two commands, then it answers, reporting its usage each time.
const usage = { input_tokens: 20, output_tokens: 5, total_tokens: 25 };
const reply = (message: AIMessage): AIMessage => Object.assign(message, { usage_metadata: usage });
const model = fakeModel()
  .respond(
    reply(
      new AIMessage({
        content: "",
        tool_calls: [
          { id: "c1", name: "bash", args: { command: "rm -rf ./build" } },
          { id: "c2", name: "bash", args: { command: "git push" } },
        ],
      }),
    ),
  )
  .respond(reply(new AIMessage("Build left alone; pushed as a dry run.")));

const agent = createAgent({ model, tools: [bash], middleware: [langchainMiddleware(stack)], checkpointer: new MemorySaver() });
const thread = { configurable: { thread_id: "example" } };

// The run pauses at `git push`: LangGraph saved it, and the app shows the request to a person.
const paused = (await agent.invoke({ messages: [new HumanMessage("I am ada@example.com. Clean ./build and push.")] }, thread)) as {
  __interrupt__?: { value: { actionRequests: { name: string; args: unknown }[] } }[];
};
const request = paused.__interrupt__?.[0]?.value.actionRequests[0];
console.log(`paused for approval: ${request?.name} ${JSON.stringify(request?.args)}`);

// Later (here, or in another process sharing the checkpointer) the person's decision resumes it.
const done = (await agent.invoke(
  new Command({ resume: { decisions: [{ type: "edit", editedAction: { name: "bash", args: { command: "git push --dry-run" } } }] } }),
  thread,
)) as { messages: BaseMessage[] };

const read = model.calls.at(-1)?.messages.find((m) => m.getType() === "tool" && (m as { status?: string }).status === "error");
console.log(`the model read: ${read?.text ?? ""}`);
console.log(`the model saw the prompt: ${model.calls[0]?.messages.find((m) => m.getType() === "human")?.text ?? ""}`);
console.log(`model calls: ${calls}, tokens in/out: ${tokensIn}/${tokensOut}`);
console.log(`answer: ${done.messages.at(-1)?.text ?? ""}`);
