import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Continue, Reject, Replace, Transform } from "../../src/index.ts";
import {
  createAgentStack,
  createScriptedModel,
  outputGate,
  streamControl,
  wrapModel,
  type HoldBack,
  type ModelResponse,
} from "../../src/agent/index.ts";
import { collect, request, splitAt, textOf } from "./stream-helpers.ts";

const SECRET = "sk-LIVE-9f8e7d";
const noSecretText = fc.string({ unit: fc.constantFrom(..."abcdefgh ijkl.\n"), maxLength: 40 });

const blockSecrets = (holdBack: Exclude<HoldBack, "none">) =>
  outputGate({
    name: "no-secrets",
    holdBack,
    check: (text) => (text.includes(SECRET) ? Reject("the answer contains a live key") : Continue),
  });

const redactSecrets = (holdBack: Exclude<HoldBack, "none">) =>
  outputGate({
    name: "redact",
    holdBack,
    check: (text) => (text.includes(SECRET) ? Transform(text.replaceAll(SECRET, "[redacted]")) : Continue),
  });

/** The same answer through generate and through stream, with the given chunks. */
const bothWays = async (stack: ReturnType<typeof createAgentStack>, chunks: string[], holdBack?: HoldBack) => {
  const model = createScriptedModel({ turns: [{ chunks }, { chunks }] });
  const wrapped = wrapModel(stack, model);
  const generated = await wrapped.generate(request());
  const call = wrapped.streamWithOutcome(request(), holdBack === undefined ? {} : { holdBack });
  const parts = await collect(call.parts);
  const { outcome } = await call.done;
  return { generated, streamed: textOf(parts), outcome, parts };
};

describe("the same guard on generate and stream", () => {
  for (const holdBack of ["all", { window: SECRET.length - 1 }] as const) {
    it(`gives the same verdict on both paths (hold-back ${JSON.stringify(holdBack)})`, async () => {
      await fc.assert(
        fc.asyncProperty(
          noSecretText,
          noSecretText,
          fc.boolean(),
          fc.array(fc.nat(100), { maxLength: 12 }),
          async (before, after, leak, cuts) => {
            const text = leak ? `${before}${SECRET}${after}` : `${before}${after}`;
            const { generated, streamed, outcome } = await bothWays(
              createAgentStack().use("modelCall", blockSecrets(holdBack)),
              splitAt(text, cuts),
            );
            const verdict = outcome._tag === "Completed" ? outcome.value.finishReason : outcome._tag;
            expect(verdict).toBe(generated.finishReason);
            expect(generated.finishReason).toBe(leak ? "content-filter" : "stop");
            expect(streamed.includes(SECRET)).toBe(false);
            // "all" holds everything: the texts are identical. A window may already have released
            // the clean text before the secret; the blocked answer then ends in the same replacement.
            if (holdBack === "all" || !leak) expect(streamed).toBe(generated.text);
            else {
              expect(streamed.endsWith(generated.text)).toBe(true);
              expect(before.startsWith(streamed.slice(0, -generated.text.length))).toBe(true);
            }
          },
        ),
        { numRuns: 150 },
      );
    });
  }

  it("gives a plain after guard the same verdict when the caller holds the whole answer back", async () => {
    const guard = createAgentStack().use("modelCall", {
      name: "after-guard",
      after: (res) => (res.text.includes(SECRET) ? Replace({ ...res, text: "[withheld]" } as ModelResponse) : undefined),
    });
    const text = `key: ${SECRET}!`;

    const held = await bothWays(guard, splitAt(text, [3, 8, 12]), "all");
    expect(held.streamed).toBe("[withheld]");
    expect(held.generated.text).toBe("[withheld]");
  });

  it("lets a plain after hook ask for the whole answer to be held from its before", async () => {
    const guard = createAgentStack().use("modelCall", {
      name: "after-guard",
      before: (_req, ctx) => void streamControl(ctx)?.holdBack("all"),
      after: (res) => (res.text.includes(SECRET) ? Replace({ ...res, text: "[withheld]" } as ModelResponse) : undefined),
    });

    const { streamed, generated } = await bothWays(guard, splitAt(`key: ${SECRET}!`, [3, 8, 12]));

    expect([streamed, generated.text]).toEqual(["[withheld]", "[withheld]"]);
  });

  it("reports divergence when a plain after hook changes text that was already streamed", async () => {
    const late = createAgentStack().use("modelCall", {
      name: "late",
      after: (res) => Replace({ ...res, text: "changed" } as ModelResponse),
    });
    const model = createScriptedModel({ turns: [{ chunks: ["orig", "inal"] }] });

    const call = wrapModel(late, model).streamWithOutcome(request());
    const parts = await collect(call.parts);
    const result = await call.done;

    expect(textOf(parts)).toBe("original");
    expect(result).toMatchObject({ diverged: true, emittedText: "original", holdBack: "none" });
  });
});

describe("a secret split across chunks", () => {
  const text = `Here you go: ${SECRET} (keep it safe)`;
  const start = text.indexOf(SECRET);
  const redacted = text.replace(SECRET, "[redacted]");

  it("is never emitted, for every pair of split points around and inside it", async () => {
    const stack = createAgentStack().use("modelCall", redactSecrets({ window: SECRET.length - 1 }));
    for (let i = start - 1; i <= start + SECRET.length + 1; i++)
      for (let j = i; j <= start + SECRET.length + 1; j++) {
        const { streamed, generated } = await bothWays(stack, splitAt(text, [i, j]));
        expect(streamed, `cut at ${i} and ${j}`).toBe(redacted);
        expect(generated.text).toBe(redacted);
      }
  });

  it("is never emitted with one character per chunk, or under any chunking (property)", async () => {
    const stack = createAgentStack().use("modelCall", redactSecrets({ window: SECRET.length - 1 }));
    expect((await bothWays(stack, [...text])).streamed).toBe(redacted);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(text.length), { maxLength: 20 }), async (cuts) => {
        expect((await bothWays(stack, splitAt(text, cuts))).streamed).toBe(redacted);
      }),
      { numRuns: 200 },
    );
  });

  it("streams text before the answer is complete when the window allows it", async () => {
    const log: string[] = [];
    const stack = createAgentStack().use("modelCall", redactSecrets({ window: 4 }));
    const start = async function* () {
      for (const chunk of ["aaaa", "bbbb", "cccc", "dddd"]) {
        log.push(`provider ${chunk}`);
        yield { type: "text-delta" as const, text: chunk };
        await new Promise((r) => setTimeout(r, 1));
      }
      yield { type: "finish" as const, finishReason: "stop" as const, usage: { inputTokens: 1, outputTokens: 4 } };
    };
    const wrapped = wrapModel(stack, { id: "m", generate: () => Promise.reject(new Error("unused")), stream: () => start() });

    for await (const part of wrapped.stream(request())) if (part.type === "text-delta") log.push(`consumer ${part.text}`);

    expect(log.indexOf("consumer aaaa")).toBeLessThan(log.indexOf("provider dddd"));
    expect(log.filter((l) => l.startsWith("consumer")).join("|")).toBe("consumer aaaa|consumer bbbb|consumer cccc|consumer dddd");
  });
});

describe("a shadowed output gate", () => {
  it("records its verdict without enforcing it on either path", async () => {
    const { Trace } = await import("../../src/core/index.ts");
    const trace = new Trace();
    const stack = createAgentStack().use("modelCall", { ...blockSecrets("all"), shadow: true });
    const model = createScriptedModel({ turns: [{ chunks: ["key ", SECRET] }, { chunks: ["key ", SECRET] }] });
    const wrapped = wrapModel(stack, model, { trace });

    const generated = await wrapped.generate(request());
    const streamed = textOf(await collect(wrapped.stream(request())));

    expect(generated.text).toBe(`key ${SECRET}`);
    expect(streamed).toBe(`key ${SECRET}`);
    expect(trace.entries.filter((e) => e.phase === "after").map((e) => [e.action, e.shadow])).toEqual([
      ["Replace", true],
      ["Replace", true],
    ]);
  });
});
