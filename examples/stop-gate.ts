/**
 * A stop gate: the agent may not finish before it ran the tests. `Reject` on `stop` keeps it
 * going with the reason fed back; the runtime caps consecutive blocks (R13), so a gate that
 * never lets go cannot loop forever. The gate keeps what it knows in the session's StateStore.
 *
 * Run: node --import tsx examples/stop-gate.ts
 * @expect fed back: Stop hook feedback: Run the tests (npm test) before you finish.
 */
import { Reject, createAgent, createAgentStack, createScriptedModel, defineTool } from "agent-onion";

const bash = defineTool<{ command?: unknown }>({
  name: "Bash",
  execute: ({ command }) => (String(command).startsWith("npm test") ? "42 passing" : "ok"),
});

const stack = createAgentStack()
  .use("toolCall", {
    name: "note-tests",
    match: "Bash(npm test*)",
    after: async (_result, _call, ctx) => void (await ctx.state().set("tests-ran", true)),
  })
  .use("stop", {
    name: "tests-before-done",
    before: async (_request, ctx) =>
      (await ctx.state().get("tests-ran")) ? undefined : Reject("Run the tests (npm test) before you finish."),
  });

const model = createScriptedModel({
  turns: [
    "I fixed the bug. Done.",
    { text: "Running the tests first.", toolCalls: [{ name: "Bash", input: { command: "npm test" } }] },
    "Fixed, and all 42 tests pass.",
  ],
});

const turn = await createAgent({ model, stack, tools: [bash] }).run("Fix the off-by-one in pager.ts");

const feedback = turn.result?.messages.find((m) => m.content.startsWith("Stop hook feedback"));
console.log(`fed back: ${feedback?.content.replace("\n", " ")}`);
console.log(`finished after ${turn.steps} steps: ${turn.text}`);
