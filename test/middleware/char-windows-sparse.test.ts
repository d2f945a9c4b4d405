import { describe, expect, it } from "vitest";
import { codeUnits, firstSparseWindowIn, firstWindow, nextWide } from "../../src/middleware/char-windows.ts";

const digits = new Uint8Array(0x10000).fill(1, 48, 58);
const narrow = new Uint8Array(58).fill(1, 48);

describe("firstSparseWindowIn", () => {
  it("finds what firstWindow finds, from any place after a character outside the class", () => {
    let seed = 17;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), seed / 2 ** 32);
    const alphabet = ["1", "7", "a", " ", "é", "€", "😀"];
    for (let round = 0; round < 3000; round++) {
      const text = Array.from({ length: Math.floor(random() * 80) }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
      const n = 1 + Math.floor(random() * 12);
      const starts = [0];
      for (let i = 0; i < text.length; i++) if (!/\d/.test(text[i] as string)) starts.push(i + 1);
      const from = starts[Math.floor(random() * starts.length)] as number;
      const expected = firstWindow(text, from, n, narrow);
      expect(firstSparseWindowIn(codeUnits(text), text.length, from, n, digits), `${JSON.stringify(text)} from ${from}, n ${n}`).toBe(
        expected,
      );
    }
  });
});

describe("nextWide", () => {
  it("finds every code unit beyond Latin-1 in order, in blocks and between them", () => {
    let seed = 5;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), seed / 2 ** 32);
    for (let round = 0; round < 300; round++) {
      const length = Math.floor(random() * 400);
      const text = Array.from({ length }, () => (random() < 0.02 ? "\u2026" : random() < 0.05 ? "\u00e9" : "a")).join("");
      const expected: number[] = [];
      for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0xff) expected.push(i);
      const found: number[] = [];
      for (let at = nextWide(text, 0); at < text.length; at = nextWide(text, at + 1)) found.push(at);
      expect(found, JSON.stringify(text)).toEqual(expected);
    }
  });

  it("reads a text longer than the copy it keeps", () => {
    const text = `${"a".repeat(2_200_000)}\u2026b`;
    expect(nextWide(text, 0)).toBe(2_200_000);
    expect(nextWide(text, 2_200_001)).toBe(text.length);
  });
});
