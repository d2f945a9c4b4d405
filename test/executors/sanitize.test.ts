import { describe, expect, it } from "vitest";
import { commandHook } from "../../src/executors/command.ts";
import { cleanText, stripTerminal } from "../../src/executors/sanitize.ts";
import { bash, echoTool } from "./helpers.ts";
import { agentStack } from "./stack-helpers.ts";
import { cpuMs, cpuMsUntil } from "../support/timing.ts";
import { scaled } from "../support/scale.ts";
import type { Outcome } from "../../src/core/outcome.ts";

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

describe("a string escape (OSC, DCS, SOS, PM, APC) is removed up to its terminator, and only when it has one", () => {
  it("removes a terminated string whole, with any other escapes inside it", () => {
    expect(stripTerminal("a\u001b]8;;http://evil\u001bAvisible\u0007rest")).toBe("arest");
    expect(stripTerminal("\u001b]0;\u001b]0;x\u0007y\u0007z")).toBe("yz");
    expect(stripTerminal("a\u001b]0;x\u001b[31mhidden\u001b\\rest")).toBe("arest");
  });

  it("removes only the opener of an unterminated string, so the text after it stays", () => {
    expect(stripTerminal("ok\u001b]52;c;ZXZpbA==")).toBe("ok52;c;ZXZpbA==");
    expect(stripTerminal("\u001b]0;title\nBlocked: rm -rf is not allowed")).toBe("0;title\nBlocked: rm -rf is not allowed");
  });

  it("keeps the text after a stray C1 character, such as the mojibake of a closing quote", () => {
    // "”" read as Latin-1 is "\u00e2\u0080\u009d"; U+009D alone also opens an OSC.
    expect(stripTerminal("Blocked: \u00e2\u0080\u009dmain\u00e2\u0080\u009d is protected")).toBe("Blocked: \u00e2main\u00e2 is protected");
  });

  it("cleans exactly what a lazy scan to the first terminator cleans, on random short texts", () => {
    // The pattern before it was made linear: correct, but quadratic on unterminated openers.
    const lazy =
      /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b[\]PX^_][\s\S]*?(?:\u0007|\u001b\\|\u009c)|[\u009d\u0090\u0098\u009e\u009f][\s\S]*?(?:\u0007|\u001b\\|\u009c)|\u001b[\s\S]?/g;
    const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
    const reference = (t: string) => t.replace(/\r\n?/g, "\n").replace(lazy, "").replace(controls, "");
    const alphabet = [
      "\u001b",
      "]",
      "[",
      "P",
      "X",
      "^",
      "_",
      "\u0007",
      "\\",
      "\u009c",
      "\u009d",
      "\u0090",
      "\u009b",
      "a",
      "0",
      ";",
      "m",
      "\n",
      "\r",
    ];
    let seed = 42;
    const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let i = 0; i < 20_000; i++) {
      const text = Array.from({ length: 1 + random(14) }, () => alphabet[random(alphabet.length)]).join("");
      expect(stripTerminal(text), JSON.stringify(text)).toBe(reference(text));
    }
  });

  it("keeps a command hook's exit-2 reason that follows an unterminated title escape", async () => {
    const hook = commandHook({
      event: "PreToolUse",
      timeoutMs: 5000,
      killGraceMs: 100,
      command: "printf '\\033]0;guard\\nrm -rf is not allowed here\\n' >&2; exit 2",
    });
    const outcome = await agentStack().use("toolCall", hook).run("toolCall", bash("rm -rf /"), echoTool);
    expect(outcome).toMatchObject({ _tag: "Rejected", reason: "0;guard\nrm -rf is not allowed here" });
  });
});

describe("cleanText", () => {
  it("caps text at 10 000 characters and marks the cut", () => {
    const text = cleanText("y".repeat(12_000));
    expect(text.startsWith("y".repeat(10_000))).toBe(true);
    expect(text).toMatch(/\[2000 characters truncated\]$/);
  });

  it("keeps a short reason that follows 48 KB of colour codes: the cap counts visible characters", () => {
    const colored = "\u001b[38;5;196mx\u001b[0m".repeat(3000) + "\nBlocked: REASON";
    expect(cleanText(colored)).toBe(`${"x".repeat(3000)}\nBlocked: REASON`);
  });

  it("counts the visible characters a cut dropped, not the escapes around them", () => {
    const text = cleanText("\u001b[31mz\u001b[0m".repeat(12_000));
    expect(text).toBe(`${"z".repeat(10_000)}… [2000 characters truncated]`);
  });
});

describe("hostile output is cleaned in linear time", () => {
  // Before, each unterminated OSC/DCS opener scanned to the end of the text: 256 KiB took tens of
  // seconds of CPU. CPU time, not wall time: a busy machine stretches the one, not the other.
  const secondsToClean = (text: string): number => cpuMs(() => cleanText(text)) / 1000;

  it.each([
    ["ESC ] (OSC) openers", "\u001b]"],
    ["ESC P (DCS) openers", "\u001bP"],
    ["C1 OSC openers", "\u009d"],
  ])("cleans 256 KiB of unterminated %s in well under a few seconds", (_what, opener) => {
    expect(secondsToClean(opener.repeat((256 * 1024) / opener.length))).toBeLessThan(3);
  });

  it("cleans 1 MiB of mixed escapes, the most a command's stdout holds, in well under a few seconds", () => {
    expect(secondsToClean(("\u001bP\u009d" + "x".repeat(10) + "\u001b[31m").repeat(1 << 16))).toBeLessThan(3);
  });

  it("counts what a cut dropped, even when the text was over the cap before cleaning", () => {
    expect(cleanText("z".repeat(100_000))).toMatch(/^z{10000}… \[90000 characters truncated\]$/);
  });

  it("reads the answer of a command hook that prints 256 KiB of unterminated escapes in well under a few seconds of CPU", async () => {
    const told: string[] = [];
    const hook = commandHook({
      event: "UserPromptSubmit",
      timeoutMs: scaled(30_000), // only against a hang: a loaded machine can take seconds to start node
      killGraceMs: 100,
      command: "node",
      args: ["-e", 'process.stdout.write("\\u001b]".repeat(131072))'],
      onNotice: (n) => void told.push(`${n.kind}: ${n.message}`),
    });
    let outcome: Outcome<unknown> | undefined;
    // This process's CPU, not wall time: the child's start-up waits for a core on a busy machine,
    // while cleaning its answer costs the same anywhere, and a scan that is not linear costs minutes.
    const seconds =
      (await cpuMsUntil(async () => {
        outcome = await agentStack()
          .use("userPrompt", hook)
          .run("userPrompt", { text: "hello" }, (p) => p);
      })) / 1000;
    expect(seconds).toBeLessThan(3);
    expect(outcome?._tag).toBe("Completed");
    expect(told).toEqual([]);
  });
});
