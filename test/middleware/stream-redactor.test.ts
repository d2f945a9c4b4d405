import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { createRedactor } from "../../src/middleware/redactor.ts";
import { StreamRedactor } from "../../src/middleware/stream-redactor.ts";

const secrets = [
  "bob.smith@example.com", "4111 1111 1111 1111", "+1 415 555 0100", "192.168.10.20", "2001:db8::ff00:42:8329",
  "sk-proj-abcdefghijklmnopqrstuvwxyz0123", "ghp_" + "A1b2".repeat(9), "AKIAIOSFODNN7EXAMPLE", "xoxb-123456789012-abcdefghij",
  "Zm9vYmFyQmF6cXV4MTIzNDU2Nzg5MGFi",
];

/** Feed `chunks` through a fresh stream redactor; what the consumer would receive. */
const stream = (chunks: readonly string[], redactor = createRedactor(), options = {}) => {
  const s = new StreamRedactor(redactor, options);
  let out = "";
  const releases: string[] = [];
  for (const c of chunks) {
    const step = s.push(c);
    out += step.text;
    releases.push(out);
  }
  out += s.end().text;
  return { out, releases };
};

const splitAt = (text: string, cuts: readonly number[]) => {
  const sorted = [...new Set(cuts)].sort((a, b) => a - b);
  const parts: string[] = [];
  let at = 0;
  for (const c of sorted) parts.push(text.slice(at, c)), (at = c);
  parts.push(text.slice(at));
  return parts;
};

describe("a stream redactor", () => {
  it("never emits a secret split across two chunks at any index, and emits what redacting the whole text would", () => {
    const redactor = createRedactor();
    for (const secret of secrets) {
      const text = `Here it is: ${secret} - keep it safe.`;
      const whole = redactor.text(text).value;
      for (let i = 0; i <= text.length; i++) {
        const { out } = stream([text.slice(0, i), text.slice(i)], redactor);
        expect(out, `${secret} split at ${i}`).toBe(whole);
        expect(out).not.toContain(secret);
      }
    }
  });

  it("releases nothing it would take back: one character at a time, every release is a prefix of the redacted whole", () => {
    const redactor = createRedactor();
    for (const secret of secrets) {
      const text = `${"padding ".repeat(30)}${secret}${" and more".repeat(30)}`;
      const whole = redactor.text(text).value;
      const { releases } = stream([...text], redactor);
      expect(releases.some((r) => r.length > 0 && r.length < whole.length)).toBe(true); // it did stream
      for (const released of releases) expect(whole.startsWith(released)).toBe(true);
    }
  });

  it("never emits a secret under any chunking (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...secrets),
        fc.string({ unit: fc.constantFrom("a", " ", "x", ".", "\n", "é"), maxLength: 40 }),
        fc.string({ unit: fc.constantFrom("b", " ", "y", ",", "\n"), maxLength: 40 }),
        fc.array(fc.nat(200), { maxLength: 8 }),
        (secret, before, after, cuts) => {
          const text = `${before} ${secret} ${after}`;
          const { out } = stream(splitAt(text, cuts.map((c) => c % (text.length + 1))));
          expect(out).not.toContain(secret);
          expect(out).toBe(createRedactor().text(text).value);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("holds back only the window: clean text longer than it streams before the end", () => {
    const s = new StreamRedactor(createRedactor(), { holdBack: 10 });
    expect(s.push("hello world, this is clean").text).toBe("hello world, thi");
    expect(s.pending).toBe("s is clean");
    expect(s.end().text).toBe("s is clean");
  });

  it("holds a growing match whole, and releases it redacted once it exceeds maxHold", () => {
    const s = new StreamRedactor(createRedactor(), { holdBack: 48, maxHold: 100 });
    let out = s.push("key sk-" + "a".repeat(60)).text;
    expect(out).toBe("key ");
    out += s.push("b".repeat(60)).text;
    expect(out).toContain("[REDACTED:api_key]");
    out += s.push("c".repeat(10) + " done").text + s.end().text;
    expect(out).not.toMatch(/a{5}|b{5}/);
  });

  it("stops releasing anything once a blocked kind appears", () => {
    const s = new StreamRedactor(createRedactor({ strategies: { api_key: "block" } }), { holdBack: 48 });
    expect(s.push("x".repeat(60) + " AKIAIOSFODNN7EXAMPLE").blocked).toEqual(["api_key"]);
    expect(s.push(" more").text).toBe("");
    expect(s.end()).toEqual({ text: "", blocked: ["api_key"] });
  });

  it("never splits a surrogate pair between released and held text", () => {
    const s = new StreamRedactor(createRedactor(), { holdBack: 1 });
    const text = "ab😀";
    const first = s.push(text.slice(0, 3)).text;
    expect(first).toBe("ab");
    expect(first + s.push(text.slice(3)).text + s.end().text).toBe(text);
  });

  it("checks its options", () => {
    expect(() => new StreamRedactor(createRedactor(), { holdBack: -1 })).toThrow(/holdBack/);
    expect(() => new StreamRedactor(createRedactor(), { holdBack: 10, maxHold: 5 })).toThrow(/maxHold/);
  });
});
