import { describe, expect, it } from "vitest";
import { firstWindow } from "../../src/middleware/char-windows.ts";

const digits = new Uint8Array(58).fill(1, 48);

/** What a plain regular expression finds: the start of the first run of `n` digits at or after `from`. */
const oracle = (text: string, from: number, n: number): number => {
  const re = new RegExp(`(?<!\\d)\\d{${n},}`, "g");
  re.lastIndex = from;
  return re.exec(text)?.index ?? -1;
};

describe("firstWindow", () => {
  it("finds the start of the first stretch of n characters of the class", () => {
    expect(firstWindow("call 415555010 now", 0, 9, digits)).toBe(5);
    expect(firstWindow("call 41555501 now", 0, 9, digits)).toBe(-1);
    expect(firstWindow("123456789", 0, 9, digits)).toBe(0);
    expect(firstWindow("12345678", 0, 9, digits)).toBe(-1);
  });

  it("reads code units beyond its table as outside the class", () => {
    expect(firstWindow("1234\u20ac56789012345", 0, 9, digits)).toBe(5);
  });

  it("agrees with a regular expression on random text, from any place after a character outside the class", () => {
    let seed = 11;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), seed / 2 ** 32);
    for (let round = 0; round < 2000; round++) {
      const text = Array.from({ length: Math.floor(random() * 60) }, () => (random() < 0.8 ? String(Math.floor(random() * 10)) : "a")).join(
        "",
      );
      const n = 1 + Math.floor(random() * 10);
      const starts = [0, ...[...text].flatMap((ch, i) => (ch === "a" ? [i + 1] : []))];
      const from = starts[Math.floor(random() * starts.length)] as number;
      expect(firstWindow(text, from, n, digits), `${JSON.stringify(text)} from ${from}, n ${n}`).toBe(oracle(text, from, n));
    }
  });
});
