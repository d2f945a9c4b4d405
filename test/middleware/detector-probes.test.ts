/**
 * The built-in detectors find where to look by probing every few characters (a long run of token
 * characters, a stretch of digits) instead of reading every one. What they find must not depend
 * on where a secret falls relative to the probes: at the very start or end of the text, across
 * line breaks, next to another secret, between characters beyond ASCII, or shifted by any number
 * of characters.
 */
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { defaultDetectors, digitStretches, scan } from "../../src/middleware/detectors.ts";
import { createRedactor } from "../../src/middleware/redactor.ts";
import { tokenRules } from "../../src/middleware/secret-rules.ts";
import { tokenCandidates, unescapedStart } from "../../src/middleware/token-runs.ts";

/** Labelled secrets, one of each kind a probe finds, with the kind a redaction shows. */
const secrets: readonly { readonly kind: string; readonly text: string }[] = [
  { kind: "api_key", text: "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8" },
  { kind: "api_key", text: "sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0" },
  { kind: "api_key", text: "AKIAZ3MHTQ6PXN2KWR4Y" },
  { kind: "api_key", text: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U" },
  { kind: "api_key", text: "xoxb-2048-4096-Qw3rTy7uI9oP" },
  { kind: "credit_card", text: "4111 1111 1111 1111" },
  { kind: "credit_card", text: "5500-0000-0000-0004" },
  { kind: "phone", text: "+1 415 555 0100" },
  { kind: "phone", text: "(415) 555-0100" },
  { kind: "ip_address", text: "10.20.30.40" },
  { kind: "email", text: "alice.smith@example.org" },
];
/** A named secret: only its value is redacted. */
const named = { text: "GITHUB_TOKEN=9f8e7d6c5b4a3210fedcba98", value: "9f8e7d6c5b4a3210fedcba98" };

const redact = (text: string) => createRedactor().text(text).value;

/** What surrounds a secret in each placement. */
const placements: readonly [string, (s: string) => string][] = [
  ["alone", (s) => s],
  ["at the start", (s) => `${s} was printed`],
  ["at the end", (s) => `printed: ${s}`],
  ["after a line break", (s) => `first line\n${s}\nlast line`],
  ["between CRLF line breaks", (s) => `a\r\n${s}\r\nb`],
  ["in quotes", (s) => `"${s}"`],
  ["between letters beyond ASCII", (s) => `é ${s} 日本`],
  ["after an emoji", (s) => `🔑 ${s} ✓`],
  ["after a no-break space", (s) => `value:\u00a0${s}`],
];

describe("secrets wherever they fall", () => {
  for (const [where, place] of placements)
    it(`are redacted whole ${where}`, () => {
      for (const { kind, text } of secrets) {
        const out = redact(place(text));
        expect(out, `${kind} ${where}`).not.toContain(text);
        expect(out, `${kind} ${where}`).toBe(place(`[REDACTED:${kind}]`));
      }
      expect(redact(place(named.text))).toBe(place("GITHUB_TOKEN=[REDACTED:secret]"));
    });

  it("are redacted whole when two of them follow each other", () => {
    // Not after a space alone: digits, a space and more digits read as one number, so a phone
    // number right after a number (a card, a token ending in a digit) is taken for its tail.
    for (const a of secrets)
      for (const b of secrets)
        for (const sep of [", ", "\n", "\r\n", "; "]) {
          const text = `${a.text}${sep}${b.text}`;
          expect(redact(text), JSON.stringify(text)).toBe(`[REDACTED:${a.kind}]${sep}[REDACTED:${b.kind}]`);
        }
  });

  it("are redacted whole at every offset from the start of the text", () => {
    for (const { kind, text } of secrets)
      for (let k = 0; k < 30; k++) {
        // `#` joins no run, stretch, name or address, and neither does a space.
        const pad = "# ".repeat(k).slice(0, k);
        expect(redact(`${pad}${text}`), `${kind} at ${k}`).toBe(`${pad}[REDACTED:${kind}]`);
        expect(redact(`${text}${pad}`), `${kind} before ${k}`).toBe(`[REDACTED:${kind}]${pad}`);
      }
  });
});

/** Text made of the pieces detectors look for, and the characters around them. */
const pieces = fc.constantFrom(
  ...secrets.map((s) => s.text),
  named.text,
  " ",
  "\n",
  "=",
  ":",
  ".",
  "-",
  "(",
  ")",
  "+",
  "_",
  "@",
  "/",
  "0",
  "7",
  "12",
  "415",
  "1111",
  "ab",
  "Zq",
  "token=",
  "password: ",
  "\u00a0",
  "\u200b",
  "é",
  "😀",
  "\\n",
  "%3D",
  "==",
  "x_",
  "v1/",
  "ghp_",
  "sk-",
  "AKIA",
  "dapi",
  "Qw3rTy7u",
  "123456789",
  "abcdefghijkl",
);
const texts = fc.array(pieces, { maxLength: 40 }).map((parts) => parts.join(""));

describe("what the detectors find", () => {
  test.prop([texts, fc.integer({ min: 1, max: 40 })], { numRuns: 300 })("does not depend on how far into the text it is", (text, shift) => {
    // `#` joins no run, stretch, name or address: the same text, shifted.
    const pad = "#".repeat(shift);
    const here = scan(text, defaultDetectors());
    const there = scan(pad + text, defaultDetectors()).map((d) => ({ ...d, start: d.start - shift, end: d.end - shift }));
    expect(there).toEqual(here);
  });
});

/**
 * The stretches of digits, read plainly: every match of the regex they stand for, with nine digits.
 */
const stretchesByRegex = (text: string): number[] => {
  const out: number[] = [];
  for (const m of text.matchAll(/\d[\d .()\u00a0-]{8,}/g))
    if ((m[0].match(/\d/g)?.length ?? 0) >= 9) out.push(m.index, m.index + m[0].length);
  return out;
};

const pairs = new Set(tokenRules.flatMap((r) => r.prefixes.filter((p) => p.length >= 2).map((p) => p.slice(0, 2))));
/**
 * Where tokens may start, read plainly: every run of twelve or more token characters, its start
 * (past an escape), each place after a `=` that is not padding (64 at most), and each place after
 * a character that is not a letter where a token rule's prefix begins (8 at most), but its last
 * character; paired with the run's end, negative for the last kind.
 */
const candidatesByRegex = (text: string): number[] => {
  const out: number[] = [];
  for (const m of text.matchAll(/[A-Za-z0-9_\-.+/=~]{12,}/g)) {
    const a = m.index;
    const b = a + m[0].length;
    const first = unescapedStart(text, a, text.length);
    const here: [number, number][] = [[first, b]];
    let assignments = 0;
    let inside = 0;
    for (let p = a + 1; p < b; p++) {
      const before = text[p - 1] as string;
      if (before === "=") {
        if (text[p] !== "=" && (p - 1 === a || text[p - 2] !== "=") && assignments++ < 64) here.push([p, b]);
      } else if (!/[A-Za-z]/.test(before) && p > first && pairs.has(text.slice(p, p + 2)) && inside++ < 8) here.push([p, -b]);
    }
    if (here.length > 1 && here.at(-1)?.[0] === b - 1) here.pop();
    for (const [start, end] of here) out.push(start, end);
  }
  return out;
};

describe("the places the detectors probe for", () => {
  test.prop([texts], { numRuns: 500 })("are every stretch of digits the plain regex finds", (text) => {
    expect([...digitStretches(text)]).toEqual(stretchesByRegex(text));
  });

  test.prop([texts], { numRuns: 500 })("are every place a token may start that a plain reading finds", (text) => {
    expect([...tokenCandidates(text)]).toEqual(candidatesByRegex(text));
  });

  it("include runs and stretches that start right after another ends", () => {
    for (const text of [
      "4111 1111 1111 1111,123456789,98765 4321;(12)345-6789",
      "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8,token=abc123,Qw3rTy7uI9oP,x_ghp_A1b2C3d4E5f6G7h8",
    ]) {
      expect([...digitStretches(text)]).toEqual(stretchesByRegex(text));
      expect([...tokenCandidates(text)]).toEqual(candidatesByRegex(text));
    }
  });
});
