import { describe, expect, it } from "vitest";
import { cleanText, stripTerminal } from "../../src/executors/sanitize.ts";

describe("stripTerminal", () => {
  it.each([
    ["colour", "\u001b[31mred\u001b[0m", "red"],
    ["clear screen", "a\u001b[2Jb", "ab"],
    ["OSC 52 clipboard write", "x\u001b]52;c;ZXZpbA==\u0007y", "xy"],
    ["OSC terminated by ST", "x\u001b]0;title\u001b\\y", "xy"],
    ["C1 CSI", "a\u009b31mb", "ab"],
    ["bidi override", "abc\u202Edef", "abcdef"],
    ["NUL and bell", "a\u0000b\u0007c", "abc"],
  ])("removes %s", (_what, input, output) => {
    expect(stripTerminal(input)).toBe(output);
  });

  it("keeps newlines and tabs, and folds CRLF", () => {
    expect(stripTerminal("a\tb\r\nc")).toBe("a\tb\nc");
  });
});

describe("cleanText", () => {
  it("caps text at 10 000 characters and marks the cut", () => {
    const text = cleanText("y".repeat(12_000));
    expect(text.startsWith("y".repeat(10_000))).toBe(true);
    expect(text).toMatch(/\[2000 characters truncated\]$/);
  });
});
