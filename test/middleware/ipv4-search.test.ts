/**
 * IPv4 addresses are searched for by the address alone, and what may not stand before one (a
 * word character, a dot, a version's name) is tried only where an address is. What that finds
 * must be what the one pattern with its look-behinds first finds.
 */
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { ipv4 } from "../../src/middleware/detectors.ts";

const octet = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const whole = new RegExp(
  `(?<![\\w.])(?<![Vv][Ee][Rr][Ss][Ii][Oo][Nn][ \\t]?[=:(]?[ \\t]?["']?)${octet}(?:\\.${octet}){3}(?!\\w|\\.\\d)`,
  "g",
);

/** What the one pattern finds, with the addresses that name no host left out and the next try one character on. */
const plainly = (text: string): [number, number][] => {
  const out: [number, number][] = [];
  whole.lastIndex = 0;
  for (let m = whole.exec(text); m !== null; m = whole.exec(text)) {
    if (m[0] !== "0.0.0.0" && m[0] !== "255.255.255.255" && !m[0].startsWith("127.")) out.push([m.index, m.index + m[0].length]);
    else whole.lastIndex = m.index + 1;
  }
  return out;
};

const found = (text: string): [number, number][] => [...ipv4.find(text)].map((m) => [m.start, m.end]);

const pieces = fc.constantFrom(
  "1",
  "25",
  "255",
  "256",
  "127",
  "0",
  "10",
  "192",
  ".",
  "..",
  " ",
  "a",
  "_",
  "x",
  "Version=",
  "version ",
  "FileVersion ",
  '"',
  "(",
  "é",
  "日",
  "\n",
);
const texts = fc.array(pieces, { maxLength: 40 }).map((parts) => parts.join(""));

describe("IPv4 addresses", () => {
  test.prop([texts], { numRuns: 2000 })("are what the pattern with its look-behinds finds", (text) => {
    expect(found(text)).toEqual(plainly(text));
  });

  it("are found at the very start and end of a text, next to each other, and not after a version's name", () => {
    for (const text of ["10.0.0.1", "host 10.0.0.1", "10.0.0.1,10.0.0.2 10.0.0.3", "v1.10.0.0.1", "Version=4.0.0.0 10.1.2.3", "1.2.3.4.5"])
      expect(found(text), text).toEqual(plainly(text));
    expect(found("Version=4.0.0.0 10.1.2.3")).toEqual([[16, 24]]);
  });
});
