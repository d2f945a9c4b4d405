/**
 * An output gate on a stream: a secret split across chunks never reaches the reader, and the
 * same gate gives the same answer through `generate`. The gate holds back just enough text
 * (a window as long as the secret) to see a secret whole before releasing anything.
 *
 * Run: node --import tsx examples/output-gate.ts
 * @expect same verdict, no leak
 */
import { Continue, Transform, createAgentStack, createScriptedModel, outputGate, wrapModel } from "agent-onion";

const SECRET = "sk-live-4f9a2c";
const answer = { chunks: ["Your key is sk-", "live-4f", "9a2c, keep it safe."] };

const stack = createAgentStack().use(
  "modelCall",
  outputGate({
    name: "redact-keys",
    holdBack: { window: SECRET.length },
    check: (text) => (text.includes(SECRET) ? Transform(text.replaceAll(SECRET, "[redacted]")) : Continue),
  }),
);

const model = wrapModel(stack, createScriptedModel({ turns: [answer, answer] }));
const request = { model: model.id, messages: [{ role: "user" as const, content: "What is my key?" }] };

let streamed = "";
for await (const part of model.stream(request)) if (part.type === "text-delta") streamed += part.text;
const generated = (await model.generate(request)).text;

console.log(`stream  : ${streamed}`);
console.log(`generate: ${generated}`);
console.log(streamed === generated && !streamed.includes(SECRET) ? "same verdict, no leak" : "MISMATCH");
