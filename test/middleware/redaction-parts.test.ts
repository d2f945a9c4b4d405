import { generateText, simulateReadableStream, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import * as ai7 from "ai-v7";
import { MockLanguageModelV4 } from "ai-v7/test";
import { describe, expect, it } from "vitest";
import { aiSdkMiddleware } from "../../src/adapters/ai-sdk.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { createRedactor } from "../../src/middleware/redactor.ts";
import { PartStreamRedactor, redactPart } from "../../src/middleware/redaction-parts.ts";
import { redaction, withMiddleware, type RedactionOptions } from "../../src/middleware/index.ts";
import { stop, usage } from "../adapters/ai-sdk-fixtures.ts";

const KEY = "AKIAIOSFODNN7EXAMPLE";
const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
const middleware = (options: RedactionOptions = {}) => aiSdkMiddleware(withMiddleware(createAgentStack(), redaction(options)));

const streamed = async (parts: readonly object[], options: RedactionOptions = {}) => {
  const model = new MockLanguageModelV3({
    doStream: async () => ({
      stream: simulateReadableStream({
        chunks: [{ type: "stream-start", warnings: [] }, ...parts, { type: "finish", finishReason: stop, usage: usage(1, 1) }] as never[],
      }),
    }),
  });
  const result = streamText({ model: wrapLanguageModel({ model, middleware: middleware(options) }), prompt: "x", onError: () => {} });
  const seen: { type: string; [key: string]: unknown }[] = [];
  for await (const part of result.fullStream) seen.push(part as never);
  return seen;
};

const generated = async (content: readonly object[], options: RedactionOptions = {}) => {
  const model = new MockLanguageModelV3({
    doGenerate: async () => ({ content: content as never[], finishReason: stop, usage: usage(1, 1), warnings: [] }),
  });
  return generateText({ model: wrapLanguageModel({ model, middleware: middleware(options) }), prompt: "x" });
};

const reasoning = (deltas: readonly string[], metadata?: object) => [
  { type: "reasoning-start", id: "r1" },
  ...deltas.map((delta) => ({ type: "reasoning-delta", id: "r1", delta })),
  { type: "reasoning-end", id: "r1", ...(metadata !== undefined && { providerMetadata: metadata }) },
];

describe("redaction of reasoning in a stream", () => {
  it("never releases a secret split across reasoning deltas at any index", async () => {
    const text = `I will use ${KEY} for bob@example.com.`;
    for (let i = 0; i <= text.length; i += 3) {
      const seen = await streamed(reasoning([text.slice(0, i), text.slice(i)]));
      expect(JSON.stringify(seen)).not.toContain(KEY);
      const said = seen.flatMap((p) => (p.type === "reasoning-delta" ? [p.text] : [])).join("");
      expect(said).toBe("I will use [REDACTED:api_key] for [REDACTED:email].");
    }
  });

  it("releases what a block held before the block's end, dropping the signature of text it rewrote", async () => {
    const signature = { anthropic: { signature: "sig-AAAA" } };
    const seen = await streamed(reasoning(["thinking about ", `key ${KEY}`], signature));
    const kinds = seen.filter((p) => p.type.startsWith("reasoning")).map((p) => p.type);
    expect(kinds.at(-1)).toBe("reasoning-end");
    expect(seen.find((p) => p.type === "reasoning-end")?.providerMetadata).toBeUndefined();
    expect(seen.flatMap((p) => (p.type === "reasoning-delta" ? [p.text] : [])).join("")).toBe("thinking about key [REDACTED:api_key]");
  });

  it("keeps the signature of a block whose text it left alone", async () => {
    const signature = { anthropic: { signature: "sig-AAAA" } };
    const seen = await streamed(reasoning(["thinking about ", "the weather"], signature));
    expect(seen.find((p) => p.type === "reasoning-end")?.providerMetadata).toEqual(signature);
  });

  it("sends a signature delta only after the text it signs, without the signature when that text was rewritten", async () => {
    const deltas = (secret: string) => [
      { type: "reasoning-start", id: "r1" },
      { type: "reasoning-delta", id: "r1", delta: `use ${secret}` },
      { type: "reasoning-delta", id: "r1", delta: "", providerMetadata: { anthropic: { signature: "sig-B" } } },
      { type: "reasoning-end", id: "r1" },
    ];
    const rewritten = await streamed(deltas(KEY));
    const signedPart = (seen: typeof rewritten) => seen.find((p) => p.type === "reasoning-delta" && p.providerMetadata !== undefined);
    expect(signedPart(rewritten)).toBeUndefined();
    expect(rewritten.flatMap((p) => (p.type === "reasoning-delta" ? [p.text] : [])).join("")).toBe("use [REDACTED:api_key]");
    const clean = await streamed(deltas("the stairs"));
    expect(signedPart(clean)?.providerMetadata).toEqual({ anthropic: { signature: "sig-B" } });
    expect(clean.flatMap((p) => (p.type === "reasoning-delta" ? [p.text] : [])).join("")).toBe("use the stairs");
  });

  it("keeps two interleaved reasoning blocks apart", async () => {
    const seen = await streamed([
      { type: "reasoning-start", id: "a" },
      { type: "reasoning-start", id: "b" },
      { type: "reasoning-delta", id: "a", delta: "AKIAIOSF" },
      { type: "reasoning-delta", id: "b", delta: "plain words" },
      { type: "reasoning-delta", id: "a", delta: "ODNN7EXAMPLE" },
      { type: "reasoning-end", id: "a" },
      { type: "reasoning-end", id: "b" },
    ]);
    const of = (id: string) => seen.flatMap((p) => (p.type === "reasoning-delta" && p.id === id ? [p.text] : [])).join("");
    expect(of("a")).toBe("[REDACTED:api_key]");
    expect(of("b")).toBe("plain words");
  });

  it("fails the call on a block kind in the reasoning, releasing none of it", async () => {
    const seen = await streamed(reasoning([`key ${KEY}`]), { strategies: { api_key: "block" } });
    expect(JSON.stringify(seen)).not.toContain(KEY);
    expect(seen.some((p) => p.type === "error")).toBe(true);
  });
});

describe("redaction of the other parts of a stream", () => {
  it("redacts a provider-executed tool's result, a source's title and URL, and a text file", async () => {
    const seen = await streamed([
      { type: "tool-call", toolCallId: "p1", toolName: "web_search", input: "{}", providerExecuted: true },
      { type: "tool-result", toolCallId: "p1", toolName: "web_search", result: { page: `key ${KEY}` } },
      { type: "source", sourceType: "url", id: "s", url: `https://example.com/?mail=bob@example.com`, title: `key ${KEY}` },
      { type: "file", mediaType: "text/plain", data: base64(`key ${KEY}`) },
    ]);
    expect(JSON.stringify(seen)).not.toContain(KEY);
    expect(JSON.stringify(seen)).not.toContain("bob@example.com");
    expect(seen.find((p) => p.type === "tool-result")?.output).toEqual({ page: "key [REDACTED:api_key]" });
    expect(seen.find((p) => p.type === "source")).toMatchObject({
      title: "key [REDACTED:api_key]",
      url: "https://example.com/?mail=[REDACTED:email]",
    });
    const file = seen.find((p) => p.type === "file")?.file as { base64: string };
    expect(Buffer.from(file.base64, "base64").toString("utf8")).toBe("key [REDACTED:api_key]");
  });

  it("redacts a text file a provider sent as text rather than base64", async () => {
    const seen = await streamed([{ type: "file", mediaType: "text/plain", data: `key ${KEY}` }]);
    expect(JSON.stringify(seen)).not.toContain(KEY);
  });

  it("leaves a binary file and the parts' ids and provider metadata as they are", async () => {
    const png = new Uint8Array([137, 80, 78, 71, 65, 75, 73, 65]);
    const metadata = { openai: { itemId: KEY } };
    const seen = await streamed([
      { type: "file", mediaType: "image/png", data: png },
      { type: "source", sourceType: "url", id: "s1", url: "https://example.com", title: "Docs", providerMetadata: metadata },
    ]);
    expect((seen.find((p) => p.type === "file")?.file as { uint8Array: Uint8Array }).uint8Array).toEqual(png);
    expect(seen.find((p) => p.type === "source")).toMatchObject({ id: "s1", title: "Docs", providerMetadata: metadata });
  });
});

describe("redaction of the other parts of a generated answer", () => {
  it("redacts reasoning, a provider tool's result, a source and a text file", async () => {
    const result = await generated([
      { type: "reasoning", text: `key ${KEY}`, providerMetadata: { anthropic: { signature: "sig" } } },
      { type: "tool-call", toolCallId: "p1", toolName: "web_search", input: "{}", providerExecuted: true },
      { type: "tool-result", toolCallId: "p1", toolName: "web_search", result: { page: `mail bob@example.com` } },
      { type: "source", sourceType: "document", id: "d", mediaType: "text/plain", title: `key ${KEY}`, filename: "bob@example.com.txt" },
      { type: "file", mediaType: "application/json", data: new TextEncoder().encode(`{"key":"${KEY}"}`) },
      { type: "text", text: "done" },
    ]);
    expect(result.reasoningText).toBe("key [REDACTED:api_key]");
    // The signature covers the text the provider sent: it would be refused with the redacted text.
    expect(result.reasoning[0]?.providerMetadata).toBeUndefined();
    expect(result.content.find((p) => p.type === "tool-result")).toMatchObject({ output: { page: "mail [REDACTED:email]" } });
    expect(result.sources[0]).toMatchObject({ title: "key [REDACTED:api_key]", filename: "[REDACTED:email]" });
    expect(new TextDecoder().decode(result.files[0]?.uint8Array)).toBe('{"key":"[REDACTED:api_key]"}');
    expect(result.text).toBe("done");
    expect(JSON.stringify(result.content)).not.toContain(KEY);
  });

  it("keeps the order of the answer's parts", async () => {
    const result = await generated([
      { type: "reasoning", text: "first" },
      { type: "text", text: "then" },
      { type: "reasoning", text: `key ${KEY}` },
    ]);
    expect(result.content.map((p) => p.type)).toEqual(["reasoning", "text", "reasoning"]);
    expect(result.reasoningText).toBe("firstkey [REDACTED:api_key]");
  });

  it("fails the call on a block kind in the reasoning", async () => {
    await expect(
      generated(
        [
          { type: "reasoning", text: `key ${KEY}` },
          { type: "text", text: "hi" },
        ],
        { strategies: { api_key: "block" } },
      ),
    ).rejects.toThrow(/api_key/);
  });
});

describe("redaction of the other parts with ai 7 (spec V4)", () => {
  const v4 = (options: RedactionOptions = {}) =>
    aiSdkMiddleware(withMiddleware(createAgentStack(), redaction(options)), { specificationVersion: "v4" });

  it("redacts streamed reasoning and a text file's tagged data", async () => {
    const model = new MockLanguageModelV4({
      doStream: async () => ({
        stream: ai7.simulateReadableStream({
          chunks: [
            { type: "stream-start", warnings: [] },
            ...reasoning(["use AKIAIOSF", "ODNN7EXAMPLE now"]),
            { type: "file", mediaType: "text/plain", data: { type: "data", data: base64(`key ${KEY}`) } },
            { type: "finish", finishReason: stop, usage: usage(1, 1) },
          ] as never[],
        }),
      }),
    });
    const result = ai7.streamText({ model: ai7.wrapLanguageModel({ model, middleware: v4() }), prompt: "x" });
    const seen: { type: string; [key: string]: unknown }[] = [];
    for await (const part of result.fullStream) seen.push(part as never);
    expect(JSON.stringify(seen)).not.toContain(KEY);
    expect(await result.reasoningText).toBe("use [REDACTED:api_key] now");
  });

  it("redacts generated reasoning and a reasoning file", async () => {
    const model = new MockLanguageModelV4({
      doGenerate: async () => ({
        content: [
          { type: "reasoning", text: `key ${KEY}` },
          { type: "reasoning-file", mediaType: "text/plain", data: { type: "data", data: new TextEncoder().encode(`key ${KEY}`) } },
          { type: "text", text: "hi" },
        ] as never[],
        finishReason: stop,
        usage: usage(1, 1),
        warnings: [],
      }),
    });
    const result = await ai7.generateText({ model: ai7.wrapLanguageModel({ model, middleware: v4() }), prompt: "x" });
    expect(result.reasoningText).toBe("key [REDACTED:api_key]");
    const file = result.content.find((p) => p.type === "reasoning-file") as unknown as { file: { uint8Array: Uint8Array } };
    expect(new TextDecoder().decode(file.file.uint8Array)).toBe("key [REDACTED:api_key]");
  });
});

describe("redactPart", () => {
  const redactor = createRedactor();

  it("returns a clean part itself", () => {
    const part = { type: "reasoning", text: "nothing here" };
    expect(redactPart(redactor, part)).toEqual({ value: part, changed: false, blocked: [] });
    expect(redactPart(redactor, part).value).toBe(part);
  });

  it("reads a V4 file's tagged data and leaves a file given by URL alone", () => {
    const inline = { type: "file", mediaType: "text/markdown", data: { type: "data", data: base64(`# ${KEY}`) } };
    const r = redactPart(redactor, inline);
    expect(Buffer.from((r.value as typeof inline).data.data, "base64").toString("utf8")).toBe("# [REDACTED:api_key]");
    const linked = { type: "reasoning-file", mediaType: "text/plain", data: { type: "url", url: new URL("https://example.com/a.txt") } };
    expect(redactPart(redactor, linked).value).toBe(linked);
  });

  it("leaves parts it does not know alone", () => {
    const part = { type: "custom", kind: "acme.thing", providerMetadata: { acme: { note: KEY } } };
    expect(redactPart(redactor, part).value).toBe(part);
  });
});

describe("PartStreamRedactor", () => {
  it("releases an open block's held reasoning when the stream finishes without its end", () => {
    const s = new PartStreamRedactor(createRedactor());
    const blocked = new Set<string>();
    const out = [
      s.push({ type: "reasoning-start", id: "r" }, blocked),
      s.push({ type: "reasoning-delta", id: "r", delta: `key ${KEY}` }, blocked),
    ];
    const rest = s.end(blocked);
    const text = [...out, ...rest]
      .flatMap((p) => (typeof p === "object" && p !== null && "delta" in p ? [(p as { delta: string }).delta] : []))
      .join("");
    expect(text).toBe("key [REDACTED:api_key]");
  });
});
