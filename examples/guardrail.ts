/**
 * A guardrail: block destructive shell commands before they run. The rejection reaches the
 * model as a tool result that explains it, so the model can choose another way.
 *
 * Run: node --import tsx examples/guardrail.ts
 * @expect blocked: Tool call Bash was rejected by no-rm-rf: Destructive command blocked
 */
import { Priority, Reject, createAgent, createAgentStack, createScriptedModel, defineTool } from "agent-onion";

const bash = defineTool<{ command?: unknown }>({
  name: "Bash",
  description: "Run a shell command",
  execute: ({ command }) => `(pretend we ran: ${String(command)})`,
});

const stack = createAgentStack().use("toolCall", {
  name: "no-rm-rf",
  priority: Priority.guard,
  match: "Bash(rm -rf*)",
  before: () => Reject("Destructive command blocked"),
});

const model = createScriptedModel({
  turns: [
    { text: "Cleaning up.", toolCalls: [{ name: "Bash", input: { command: "rm -rf build" } }] },
    { text: "That was blocked; using the clean script.", toolCalls: [{ name: "Bash", input: { command: "npm run clean" } }] },
    "The build directory is clean.",
  ],
});

const turn = await createAgent({ model, stack, tools: [bash] }).run("Clean the build directory");

for (const message of turn.result?.messages ?? [])
  if (message.role === "tool") console.log(`${message.isError ? "blocked" : "result "}: ${message.content}`);
console.log(`answer : ${turn.text}`);
