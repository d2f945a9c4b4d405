/**
 * Wrapping the Vercel AI SDK: every provider call of `generateText` runs through `modelCall`
 * (here token metrics and a redaction of what the user typed), every tool `execute` through
 * `toolCall` (here a guardrail), and `aiSdkRun` makes the whole call one run, each of the SDK's
 * steps a `step`. A mock model stands in for the provider: no network, no keys.
 *
 * Run: node --import tsx examples/ai-sdk.ts
 * @expect the model read: Tool call bash was rejected by no-rm-rf: Destructive command blocked
 * @expect answer: The guard blocked rm -rf, so I left the directory alone.
 * @expect model calls: 2, tokens in/out: 24/12
 * @expect the provider saw: I am [email]. Please delete ./build.
 * @expect runs: 1, steps: 2
 */
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { aiSdkMiddleware, aiSdkRun, wrapAiSdkTools } from "agent-onion/ai-sdk";
import { Priority, Reject, Transform, createAgentStack } from "agent-onion";

let calls = 0;
let tokensIn = 0;
let tokensOut = 0;
let runs = 0;
let steps = 0;

const stack = createAgentStack()
  .use("run", { name: "count-runs", after: () => void runs++ })
  .use("step", { name: "count-steps", after: () => void steps++ })
  .use("toolCall", {
    name: "no-rm-rf",
    priority: Priority.guard,
    match: "bash(rm -rf*)",
    before: () => Reject("Destructive command blocked"),
  })
  .use("modelCall", {
    name: "redact-emails",
    before: (req) =>
      Transform({
        ...req,
        messages: req.messages.map((m) => ({ ...m, content: m.content.replace(/[\w.+-]+@[\w-]+(\.[\w-]+)+/g, "[email]") })),
      }),
  })
  .use("modelCall", {
    name: "token-metrics",
    priority: Priority.telemetry,
    after: (res) => {
      calls++;
      tokensIn += res.usage.inputTokens;
      tokensOut += res.usage.outputTokens;
    },
  });

// The provider: first it asks for a tool, then it answers with what the tool result said.
const usage = {
  inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 6, text: 6, reasoning: undefined },
};
const provider = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => {
    const toolMessage = prompt.find((m) => m.role === "tool");
    if (toolMessage === undefined)
      return {
        content: [{ type: "tool-call", toolCallId: "c1", toolName: "bash", input: '{"command":"rm -rf ./build"}' }],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      };
    const part = toolMessage.content[0];
    const read = part?.type === "tool-result" && part.output.type === "error-text" ? part.output.value : "";
    console.log(`the model read: ${read}`);
    return {
      content: [{ type: "text", text: "The guard blocked rm -rf, so I left the directory alone." }],
      finishReason: { unified: "stop", raw: undefined },
      usage,
      warnings: [],
    };
  },
});

const tools = wrapAiSdkTools(stack, {
  bash: tool({
    description: "Run a shell command",
    inputSchema: jsonSchema<{ command: string }>({ type: "object", properties: { command: { type: "string" } }, required: ["command"] }),
    execute: async ({ command }) => `(pretend we ran: ${command})`,
  }),
});

const model = wrapLanguageModel({ model: provider, middleware: aiSdkMiddleware(stack) });
const { text } = await aiSdkRun(stack, { sessionId: "example" }, (run) =>
  generateText({ model, tools, stopWhen: [stepCountIs(3), run.stopWhen], prompt: "I am ada@example.com. Please delete ./build." }),
);

console.log(`answer: ${text}`);
console.log(`model calls: ${calls}, tokens in/out: ${tokensIn}/${tokensOut}`);
const first = provider.doGenerateCalls[0]?.prompt.at(-1);
console.log(`the provider saw: ${first?.role === "user" && first.content[0]?.type === "text" ? first.content[0].text : ""}`);
console.log(`runs: ${runs}, steps: ${steps}`);
