/**
 * The named-value detector reads a name before a value only when it holds one of the letters every
 * secret-naming word has: each word the keywords match must still name a secret, in any case.
 */
import { describe, expect, it } from "vitest";
import { defaultDetectors, scan } from "../../src/middleware/detectors.ts";
import { namesSecret } from "../../src/middleware/secret-detectors.ts";
import { secretKeywords } from "../../src/middleware/secret-rules.ts";

/**
 * Every word a regular expression source of literals, `[…]` classes, `?`, `(?:…)` and `|` matches
 * (a class as each of its characters).
 */
const expand = (source: string): string[] => {
  let at = 0;
  const alternatives = (): string[] => {
    const out: string[] = [];
    for (;;) {
      out.push(...sequence());
      if (source[at] !== "|") return out;
      at++;
    }
  };
  const sequence = (): string[] => {
    let words = [""];
    while (at < source.length && source[at] !== "|" && source[at] !== ")") {
      let atom: string[];
      if (source.startsWith("(?:", at)) {
        at += 3;
        atom = alternatives();
        at++; // )
      } else if (source[at] === "[") {
        const close = source.indexOf("]", at);
        atom = [...source.slice(at + 1, close).replace(/\\/g, "")];
        at = close + 1;
      } else atom = [source[at++] as string];
      if (source[at] === "?") {
        at++;
        atom = ["", ...atom];
      }
      words = words.flatMap((w) => atom.map((a) => w + a));
    }
    return words;
  };
  return alternatives();
};

describe("secret-naming words", () => {
  const words = expand(secretKeywords);

  it("are read from the keywords as the detector matches them", () => {
    expect(words.length).toBeGreaterThan(50);
    for (const word of words) expect(new RegExp(`^(?:${secretKeywords})$`, "i").test(word), word).toBe(true);
  });

  it("each name a secret in lower, upper, capitalised and alternating case, before a value after `=` or `: `", () => {
    const value = "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2";
    // Alternating case: the password detector, which also finds some of these, reads only the usual cases.
    const alternating = (w: string) => [...w].map((c, i) => (i % 2 === 1 ? c.toUpperCase() : c)).join("");
    for (const word of words)
      for (const name of [
        word,
        word.toUpperCase(),
        word[0]?.toUpperCase() + word.slice(1),
        `MY_${word.toUpperCase()}`,
        alternating(word),
      ]) {
        // A word that is also a name holding no secret (`key_id`...) is left out; `_key` alone is no name.
        if (!namesSecret(name)) continue;
        for (const text of [`${name}=${value}`, `"${name}": "${value}"`])
          expect(
            scan(text, defaultDetectors()).map((d) => text.slice(d.start, d.end)),
            text,
          ).toEqual([value]);
      }
  });
});
