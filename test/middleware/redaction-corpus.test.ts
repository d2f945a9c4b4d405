import { describe, expect, it } from "vitest";
import { defaultDetectors, scan } from "../../src/middleware/detectors.ts";
import { createRedactor } from "../../src/middleware/redactor.ts";
import { corpus } from "../fixtures/redaction/corpus.ts";
import { byKey, figures, scoreItems } from "../fixtures/redaction/score.ts";

// Thresholds from the corpus figures (benchmarks/redaction-corpus.ts prints them): a change that
// lets one labelled secret through, or touches ordinary output, fails here.
const scores = scoreItems(corpus, (text) => scan(text, defaultDetectors()));
const secrets = scores.filter((s) => s.item.group === "secret");
const everyday = scores.filter((s) => s.item.group === "everyday");

describe("redaction on the labelled corpus", () => {
  it("holds at least 80 secrets of at least 30 kinds and 40 everyday outputs", () => {
    expect(figures(secrets).secrets).toBeGreaterThanOrEqual(80);
    expect(byKey(secrets, (i) => i.kind).size).toBeGreaterThanOrEqual(30);
    expect(everyday.length).toBeGreaterThanOrEqual(40);
  });

  it("catches every labelled secret whole (recall 1 on the must-catch set)", () => {
    expect(secrets.flatMap((s) => s.missed.map((m) => `${s.item.id}: ${m}`))).toEqual([]);
    expect(figures(secrets).recall).toBe(1);
  });

  it("touches nothing in everyday tool output but the personal data labelled in it (no false positive)", () => {
    expect(everyday.flatMap((s) => s.falsePositives.map((f) => `${s.item.id}: ${f}`))).toEqual([]);
    expect(figures(everyday).recall).toBe(1);
  });

  it("redacts nothing around the secrets it catches (precision 1 on the must-catch set)", () => {
    expect(secrets.flatMap((s) => s.falsePositives.map((f) => `${s.item.id}: ${f}`))).toEqual([]);
  });

  it("leaves none of a labelled secret in what the redactor writes, whatever the strategy", () => {
    for (const strategy of ["redact", "mask", "hash"] as const) {
      const r = createRedactor({ strategy });
      for (const item of corpus) {
        const out = r.text(item.text).value;
        const rest = item.secrets.reduce((text, secret) => text.split(secret).join("\u0000"), item.text);
        // A mask keeps four characters: what must not survive is any eight in a row (unless the text has them elsewhere).
        for (const secret of item.secrets) {
          for (let i = 0; i + 8 <= secret.length; i += 4) {
            const piece = secret.slice(i, i + 8);
            if (!rest.includes(piece)) expect([item.id, strategy, out.includes(piece)]).toEqual([item.id, strategy, false]);
          }
        }
      }
    }
  });

  it("leaves everyday output byte for byte as it was, but for its labelled personal data", () => {
    const r = createRedactor();
    for (const s of everyday.filter((x) => x.item.secrets.length === 0))
      expect([s.item.id, r.text(s.item.text).value]).toEqual([s.item.id, s.item.text]);
  });
});
