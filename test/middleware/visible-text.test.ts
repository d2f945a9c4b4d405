import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { generateText, simulateReadableStream, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { aiSdkMiddleware } from "../../src/adapters/ai-sdk.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { redaction, withMiddleware } from "../../src/middleware/index.ts";
import { generated, textParts } from "../adapters/ai-sdk-fixtures.ts";
import { createRedactor } from "../../src/middleware/redactor.ts";
import { StreamRedactor } from "../../src/middleware/stream-redactor.ts";
import { splitAt } from "./harness.ts";

const KEY = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
/** `text` with `invisible` after every `every` characters. */
const spread = (text: string, invisible: string, every = 1) => text.match(new RegExp(`.{1,${every}}`, "gu"))!.join(invisible);

/** Secrets as they are written outside ASCII (invisible characters inside, no-break spaces, international addresses), and their kinds. */
const written: readonly (readonly [string, string])[] = [
  [spread(KEY, "\u200d", 4), "api_key"],
  [`${KEY.slice(0, 10)}\u00ad${KEY.slice(10)}`, "api_key"],
  [spread(KEY, "\u200b\u2060\ufeff"), "api_key"],
  ["AKIA\u200bIOSFODNN7EXAMPLE", "api_key"],
  [`s\u200bk-${KEY.slice(3)}`, "api_key"],
  [`eyJhbGciOiJIUzI1NiJ9.\u200beyJzdWIiOiIxMjM0In0.${spread("dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "\u200b", 3)}`, "api_key"],
  ["alice\u200b@example.com", "email"],
  [spread("bob.smith@example.com", "\u00ad\u200b\u200c"), "email"],
  ["jürgen@example.de", "email"],
  ["alice@bücher.de", "email"],
  ["info@пример.рф", "email"],
  ["user@例え.jp", "email"],
  ["4111\u00a01111\u00a01111\u00a01111", "credit_card"],
  ["4111\u202f1111\u202f1111\u202f1111", "credit_card"],
  [spread("4111111111111111", "\u200b", 2), "credit_card"],
  ["+1\u00a0415\u00a0555\u00a00100", "phone"],
  ["+49\u00a030\u00a0123456789", "phone"],
];
/** Text next to a secret, or like one, that is not part of one, and what the reader gets: amounts grouped as French, Russian and Polish write them, words written right after an address. */
const bordering: readonly (readonly [string, string])[] = [
  ["Le total : 4\u202f111\u202f111\u202f111\u202f111\u202f111 €.", "Le total : 4\u202f111\u202f111\u202f111\u202f111\u202f111 €."],
  ["было 1\u00a0234\u00a0567\u00a0890\u00a0123 заявок", "было 1\u00a0234\u00a0567\u00a0890\u00a0123 заявок"],
  ["razem 987\u2009654\u2009321\u2009012 zł", "razem 987\u2009654\u2009321\u2009012 zł"],
  ["이메일은 bob@example.com입니다", "이메일은 [REDACTED:email]입니다"],
  ["Пишите на bob@example.comили звоните", "Пишите на [REDACTED:email]или звоните"],
  ["info@пример.рф입니다", "[REDACTED:email]입니다"],
];
const secrets = [...written.map(([secret]) => secret), ...bordering.map(([text]) => text)];
const company = [
  "k=",
  "/",
  "-",
  ".",
  "5 ",
  " ",
  "x",
  "\u200b",
  "\u00a0",
  "\u202f",
  "\u2009",
  "\u00ad",
  "ü",
  "@",
  "1 ",
  "eyJ",
  "\n",
  "😀",
  "\u{e0041}",
  "입",
  "и",
  "123",
];

/** Feed `chunks` through a fresh stream redactor: what the consumer receives, and what it blocked. */
const stream = (chunks: readonly string[], redactor = createRedactor()) => {
  const s = new StreamRedactor(redactor);
  let out = "";
  for (const c of chunks) out += s.push(c).text;
  const end = s.end();
  return { out: out + end.text, blocked: end.blocked };
};

describe("the built-in detectors, reading text as a reader sees it", () => {
  it("redact secrets written with invisible characters, no-break spaces or international letters whole, leaving none of them out", () => {
    const r = createRedactor();
    for (const [secret, kind] of written)
      expect(r.text(`Here it is: ${secret} - keep it safe.`).value, JSON.stringify(secret)).toBe(
        `Here it is: [REDACTED:${kind}] - keep it safe.`,
      );
  });

  it("see every invisible character and unusual space, in text of Latin-1 only, beyond it, or far into a long text", () => {
    // Every code point that makes a text read differently, from Unicode's own tables: each must be
    // seen wherever it is, whatever else the text holds (the check for them passes over text that
    // cannot hold one). An invisible one inside a key leaves it whole; a space between the groups of
    // a card number separates them as a space does.
    const invisible = /\p{Default_Ignorable_Code_Point}/u;
    const space = /[\u1680\u2000-\u200a\u202f\u205f\u3000]/u;
    const points: number[] = [];
    for (let c = 0; c <= 0xe0fff; c++)
      if ((c < 0xd800 || c > 0xdfff) && (invisible.test(String.fromCodePoint(c)) || space.test(String.fromCodePoint(c)))) points.push(c);
    expect(points.length).toBeGreaterThan(4000);
    const r = createRedactor();
    const filler = "x = 1;\n".repeat(3000);
    const company: readonly (readonly [string, string])[] = [
      ["Here it is: ", " ok"],
      ["Here it is, café: ", " ok"],
      ["Here — 日本 — ", " ok"],
      [`${"中".repeat(40)} `, " ok"],
      [filler, ` ${filler}`],
    ];
    for (const [i, c] of points.entries()) {
      const ch = String.fromCodePoint(c);
      const [secret, kind] = space.test(ch)
        ? [["4111", "1111", "1111", "1111"].join(ch), "credit_card"]
        : [`${KEY.slice(0, 20)}${ch}${KEY.slice(20)}`, "api_key"];
      // The long text for a sample of the astral ones: a scan of 48 KB each.
      for (const [before, after] of c > 0xffff && i % 64 !== 0 ? company.slice(0, 4) : company)
        expect(r.text(`${before}${secret}${after}`).value, `U+${c.toString(16)} after ${JSON.stringify(before.slice(0, 12))}`).toBe(
          `${before}[REDACTED:${kind}]${after}`,
        );
    }
  });

  it("see an invisible character after any number of characters beyond Latin-1, however far apart, up to the end of the text", () => {
    // The check for invisible characters tests each character beyond Latin-1 it finds, the first
    // sixteen one by one: before, at and after that count, next to each other or far apart.
    const r = createRedactor();
    const secret = `${KEY.slice(0, 20)}\u200b${KEY.slice(20)}`;
    for (const count of [1, 2, 15, 16, 17, 40])
      for (const gap of ["", "é", "x = 1;\n", "a".repeat(5000)])
        for (const wide of ["…", "中", "😀"]) {
          const before = Array.from({ length: count }, () => `${gap}${wide}`).join("");
          const label = `${count} × ${JSON.stringify(wide)} ${gap.length} apart`;
          expect(r.text(`${before} ${secret} ok`).value, label).toBe(`${before} [REDACTED:api_key] ok`);
          expect(r.text(`${before} ${secret}`).value, `${label}, at the end`).toBe(`${before} [REDACTED:api_key]`);
          expect(r.text(`${secret} ${before}`).value, `${label}, at the start`).toBe(`[REDACTED:api_key] ${before}`);
        }
  });

  it("leave amounts grouped by no-break spaces alone and a word written right after an address out of it, in the whole text and in a stream", () => {
    const r = createRedactor();
    for (const [text, expected] of bordering) {
      expect(r.text(text).value, JSON.stringify(text)).toBe(expected);
      for (const chunks of [[...text], splitAt(text, [7, 20, 31])]) expect(stream(chunks).out, JSON.stringify(text)).toBe(expected);
    }
  });

  it("come out of a stream as out of the whole text, split at every index and one character at a time", () => {
    for (const strategies of [{}, { api_key: "block" as const, email: "block" as const }]) {
      const redactor = createRedactor({ strategies });
      for (const secret of secrets) {
        const text = `Here it is: ${secret} - keep it safe.${" more".repeat(30)}`;
        const whole = redactor.text(text);
        for (const chunks of [[...text], ...Array.from({ length: text.length + 1 }, (_, i) => [text.slice(0, i), text.slice(i)])]) {
          const { out, blocked } = stream(chunks, redactor);
          const label = `${JSON.stringify(secret)} in ${chunks.length} chunks`;
          expect(blocked, label).toEqual(whole.blocked);
          if (whole.blocked.length === 0) expect(out, label).toBe(whole.value);
        }
      }
    }
  });

  it("come out of a stream as out of the whole text under any chunking, in awkward company (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...secrets),
        fc.array(fc.constantFrom(...company), { maxLength: 10 }).map((a) => a.join("")),
        fc.array(fc.constantFrom(...company), { maxLength: 10 }).map((a) => a.join("")),
        fc.array(fc.nat(300), { maxLength: 8 }),
        fc.constantFrom<Record<string, "block" | "redact">>(
          {},
          { phone: "block" },
          { secret: "block" },
          { api_key: "block" },
          { credit_card: "block" },
        ),
        (secret, before, after, cuts, strategies) => {
          const text = `${before}${secret}${after}${" tail".repeat(30)}`;
          const redactor = createRedactor({ strategies });
          const whole = redactor.text(text);
          const { out, blocked } = stream(
            splitAt(
              text,
              cuts.map((c) => c % (text.length + 1)),
            ),
            redactor,
          );
          expect(blocked).toEqual(whole.blocked);
          if (whole.blocked.length === 0) expect(out).toBe(whole.value);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("hold a key padded with more invisible characters than the stream's window, so none of it is let out before it is recognised", () => {
    const padded = spread(KEY, "\u200b".repeat(12));
    const text = `key ${padded} done`;
    expect(createRedactor().text(text).value).toBe("key [REDACTED:api_key] done");
    for (const chunks of [[...text], splitAt(text, [40, 200, 400])]) expect(stream(chunks).out).toBe("key [REDACTED:api_key] done");
  });

  it("through the ai SDK: a model answer with a soft hyphen or zero-width joiners inside a key is blocked whole under api_key: block, generated or streamed", async () => {
    const answers = [`Sure: ${KEY.slice(0, 10)}\u00ad${KEY.slice(10)} enjoy`, `Sure: ${spread(KEY, "\u200d", 4)} enjoy`];
    const middleware = () => aiSdkMiddleware(withMiddleware(createAgentStack(), redaction({ strategies: { api_key: "block" } })));
    for (const answer of answers) {
      const generating = new MockLanguageModelV3({ doGenerate: async () => generated(answer) as never });
      await expect(
        generateText({ model: wrapLanguageModel({ model: generating, middleware: middleware() }), prompt: "key?" }),
      ).rejects.toThrow(/api_key/);
      const streaming = new MockLanguageModelV3({
        doStream: async () => ({ stream: simulateReadableStream({ chunks: textParts(answer.match(/[^]{1,5}/g)!) as never[] }) }),
      });
      const result = streamText({
        model: wrapLanguageModel({ model: streaming, middleware: middleware() }),
        prompt: "key?",
        onError: () => {},
      });
      let text = "";
      const errors: unknown[] = [];
      for await (const part of result.fullStream) {
        if (part.type === "text-delta") text += part.text;
        if (part.type === "error") errors.push(part.error);
      }
      expect(String(errors[0])).toMatch(/api_key/);
      expect(text.replace(/[\u00ad\u200d]/g, "")).not.toContain("AbCd");
    }
  });
});
