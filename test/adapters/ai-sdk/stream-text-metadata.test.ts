import { simulateReadableStream, streamText, wrapLanguageModel, type LanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { aiSdkMiddleware } from "../../../src/adapters/ai-sdk.ts";
import { createAgentStack } from "../../../src/agent/stack.ts";
import { chunkHook, outputGate } from "../../../src/agent/stream/hooks.ts";
import { Continue, Transform } from "../../../src/core/index.ts";
import { stop, usage } from "../ai-sdk-fixtures.ts";

const signature = (sig: string) => ({ google: { thoughtSignature: sig } });
const item = (id: string) => ({ openai: { itemId: id } });

/** Two text blocks around reasoning, each with the metadata providers put on them (Gemini's signatures, OpenAI's item ids). */
const parts = [
  { type: "stream-start", warnings: [] },
  { type: "text-start", id: "t1", providerMetadata: signature("start-1") },
  { type: "text-delta", id: "t1", delta: "Hello ", providerMetadata: signature("delta-1a") },
  { type: "text-delta", id: "t1", delta: "there." },
  { type: "text-end", id: "t1", providerMetadata: item("msg_1") },
  { type: "reasoning-start", id: "r1" },
  { type: "reasoning-delta", id: "r1", delta: "thinking" },
  { type: "reasoning-end", id: "r1" },
  { type: "text-start", id: "t2" },
  { type: "text-delta", id: "t2", delta: "Bye.", providerMetadata: signature("delta-2") },
  { type: "text-end", id: "t2", providerMetadata: item("msg_2") },
  { type: "finish", finishReason: stop, usage: usage(10, 5) },
];
const provider = () =>
  new MockLanguageModelV3({ doStream: async () => ({ stream: simulateReadableStream({ chunks: parts as never[] }) }) });

/** The text parts as streamed, the step's content, and the assistant message the SDK sends on the next step. */
const consume = async (model: LanguageModel) => {
  const result = streamText({ model, prompt: "hi" });
  const streamed: unknown[] = [];
  for await (const p of result.fullStream)
    if (p.type.startsWith("text-"))
      streamed.push({ type: p.type, providerMetadata: (p as { providerMetadata?: unknown }).providerMetadata });
  return { streamed, content: await result.content, message: (await result.response).messages[0]?.content };
};
const wrapped = (stack: ReturnType<typeof createAgentStack>, holdBack?: { window: number }) =>
  wrapLanguageModel({ model: provider(), middleware: aiSdkMiddleware(stack, holdBack === undefined ? {} : { holdBack }) });

const watching = createAgentStack().use("modelCall", { name: "meter", after: () => undefined });

describe("provider metadata on streamed text", () => {
  it("reaches the SDK on every text part, in the step's content and in the next step's message, as without the middleware", async () => {
    const plain = await consume(provider());

    expect(plain.content).toContainEqual({ type: "text", text: "Hello there.", providerMetadata: item("msg_1") });
    expect(await consume(wrapped(watching))).toEqual(plain);
  });

  it("survives the machinery re-chunking the text under hold-back, in the content and the next step's message", async () => {
    const gated = createAgentStack().use("modelCall", outputGate({ name: "pass", holdBack: { window: 4 }, check: () => Continue }));
    const plain = await consume(provider());

    const through = await consume(wrapped(gated));

    expect(through.content).toEqual(plain.content);
    expect(through.message).toEqual(plain.message);
  });

  it("is left off text a hook changed: an item id must not stand for text the provider did not write", async () => {
    const redacting = createAgentStack().use(
      "modelCall",
      outputGate({ name: "no-greetings", check: (text) => Transform(text.replace("Hello", "[redacted]")) }),
    );

    const { content, message } = await consume(wrapped(redacting));

    const texts = content.filter((p) => p.type === "text");
    expect(texts.map((p) => p.text).join("")).toBe("[redacted] there.Bye.");
    for (const part of texts) expect(part.providerMetadata ?? {}).toEqual({});
    for (const part of message as { type: string; providerOptions?: unknown }[])
      if (part.type === "text") expect(part.providerOptions ?? {}).toEqual({});
  });

  it("is left off text a hook changed to text of the same length, chunk by chunk", async () => {
    const shouting = createAgentStack().use(
      "modelCall",
      chunkHook({ name: "shout", chunk: (p) => (p.type === "text-delta" ? { ...p, text: p.text.toUpperCase() } : undefined) }),
    );

    const { streamed, content } = await consume(wrapped(shouting));

    const texts = content.filter((p) => p.type === "text");
    expect(texts.map((p) => p.text).join("")).toBe("HELLO THERE.BYE.");
    for (const part of texts) expect(part.providerMetadata ?? {}).toEqual({});
    expect(streamed.filter((p) => (p as { providerMetadata?: unknown }).providerMetadata !== undefined)).toEqual([]);
  });

  it("takes back the metadata already sent on a block when a hook then changes the block's text", async () => {
    const late = createAgentStack().use(
      "modelCall",
      outputGate({
        name: "no-there",
        holdBack: { window: 4 },
        check: (text) => (text.includes("there") ? Transform(text.replace("there", "[x]")) : Continue),
      }),
    );

    const { content } = await consume(wrapped(late));

    expect(content.filter((p) => p.type === "text").map((p) => [p.text, p.providerMetadata])).toEqual([["Hello [x].Bye.", {}]]);
  });

  it("keeps it on a block sent whole when a hook changes a later block", async () => {
    const later = createAgentStack().use(
      "modelCall",
      outputGate({
        name: "no-bye",
        holdBack: { window: 2 },
        check: (text) => (text.includes("Bye") ? Transform(text.replace("Bye", "Ciao")) : Continue),
      }),
    );

    const { content } = await consume(wrapped(later));

    expect(content.filter((p) => p.type === "text").map((p) => [p.text, p.providerMetadata])).toEqual([
      ["Hello there.", item("msg_1")],
      ["Ciao.", undefined],
    ]);
  });
});
