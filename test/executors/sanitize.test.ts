import { describe, expect, it } from "vitest";
import { commandHook } from "../../src/executors/command.ts";
import { cleanText, stripTerminal } from "../../src/executors/sanitize.ts";
import { agentStack } from "./stack-helpers.ts";

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

describe("hostile output is cleaned in linear time", () => {
  // Before, each unterminated OSC/DCS opener scanned to the end of the text: 256 KiB took tens of seconds.
  const secondsToClean = (text: string): number => {
    const start = performance.now();
    cleanText(text);
    return (performance.now() - start) / 1000;
  };

  it.each([
    ["ESC ] (OSC) openers", "\u001b]"],
    ["ESC P (DCS) openers", "\u001bP"],
    ["C1 OSC openers", "\u009d"],
  ])("cleans 256 KiB of unterminated %s in well under a few seconds", (_what, opener) => {
    expect(secondsToClean(opener.repeat((256 * 1024) / opener.length))).toBeLessThan(3);
  });

  it("still removes an unterminated OSC with what follows it, as a terminal would swallow it", () => {
    expect(stripTerminal("ok\u001b]52;c;ZXZpbA==")).toBe("ok");
    expect(stripTerminal("a\u001b]0;title\u001b[31mb")).toBe("ab");
  });

  it("counts what a cut dropped, even when the text was over the cap before cleaning", () => {
    expect(cleanText("z".repeat(100_000))).toMatch(/^z{10000}… \[90000 characters truncated\]$/);
  });

  it("answers a command hook that prints 256 KiB of unterminated escapes within its timeout", async () => {
    const hook = commandHook({
      event: "UserPromptSubmit", timeout: 2, killGraceMs: 100,
      command: "node", args: ["-e", 'process.stdout.write("\\u001b]".repeat(131072))'],
    });
    const start = performance.now();
    const outcome = await agentStack().use("userPrompt", hook).run("userPrompt", { text: "hello" }, (p) => p);
    expect(outcome._tag).toBe("Completed");
    expect(performance.now() - start).toBeLessThan(4000);
  });
});
