/**
 * Reading what a hook printed: JSON answers, plain text, and text that only starts like JSON.
 */
import { describe, expect, it } from "vitest";
import { readAnswerText } from "../../src/executors/answer.ts";
import { commandHook } from "../../src/executors/command.ts";
import { node } from "./helpers.ts";
import { agentStack } from "./stack-helpers.ts";
import { cpuMs } from "../support/timing.ts";

describe("stdout starting with {", () => {
  it("reads stdout that starts with { but is not JSON as plain text", async () => {
    expect(readAnswerText("ctx", "UserPromptSubmit", "{WIP} current branch: feat/auth\n")).toEqual({
      text: "{WIP} current branch: feat/auth",
    });
    const context: string[] = [];
    const hook = commandHook({
      event: "UserPromptSubmit",
      ...node("respond.mjs", "0", "{WIP} current branch: feat/auth\n"),
      timeoutMs: 5000,
    });
    const outcome = await agentStack()
      .use("userPrompt", hook)
      .run("userPrompt", { text: "fix the login bug" }, (p) => p, { onContext: (t) => context.push(t) });
    expect(outcome._tag).toBe("Completed");
    expect(context).toEqual(["{WIP} current branch: feat/auth"]);
  });

  it("still fails on stdout that looks like a JSON object but does not parse (a broken answer)", () => {
    for (const text of ['{"ticket": 42', '{ "decision": "block", ', "{}x", '{\n  "a": }'])
      expect(() => readAnswerText("guard", "PreToolUse", text)).toThrow(/printed invalid JSON/);
    expect(() => readAnswerText("guard", "PreToolUse", '{WIP} banner\n{"decision":"block","reason":"no"}')).toThrow(
      /printed text before its JSON/,
    );
  });

  it("fails on an object a guard printed in another language's syntax, so it does not fail open", () => {
    for (const text of [
      "{'decision': 'block', 'reason': 'no'}",
      '{decision: "block"}',
      "{ reason : 'x' }",
      '{:decision=>"block", :reason=>"no"}',
      '{decision = "block"}',
    ])
      expect(() => readAnswerText("guard", "PreToolUse", text)).toThrow(/printed invalid JSON/);
    expect(readAnswerText("ctx", "UserPromptSubmit", "{WIP} on main")).toEqual({ text: "{WIP} on main" });
  });
});

describe("text before a JSON object", () => {
  it("is found whatever the object's strings hold: braces, quotes, backslashes", () => {
    for (const object of ['{"reason":"a } b"}', '{"reason":"say \\"}\\""}', '{"r":"\\\\"}', '{"a":[{"b":"{"}],"c":{}}'])
      expect(() => readAnswerText("ctx", "UserPromptSubmit", `checking... ${object}`)).toThrow(/printed text before its JSON/);
  });

  it("is not found where the end only looks like an object", () => {
    for (const text of ["done: {WIP}", 'note {"a": 1', "a } b }", 'x "}"', "x {}}"])
      expect(readAnswerText("ctx", "UserPromptSubmit", text)).toEqual({ text });
  });

  it("is looked for in time linear in the output: a hostile hook cannot stall the agent's process", () => {
    // Nested braces that almost close: read from every brace, each read would cross the whole text.
    const n = 40_000;
    const hostile = ["x", '{"a":'.repeat(n), "1", "}".repeat(n - 1), ",}"].join("");
    const leading = ["{", '"a":{'.repeat(n), "1", "}".repeat(n)].join("");
    // Quadratic, this takes minutes of CPU; linear, a few milliseconds.
    const used = cpuMs(() => {
      expect(() => readAnswerText("guard", "PreToolUse", hostile)).toThrow(/where its answer must be empty or one JSON object/);
      expect(() => readAnswerText("guard", "PreToolUse", leading)).toThrow(/printed invalid JSON/);
    });
    expect(used).toBeLessThan(2000);
  });
});

/**
 * What stdout may hold on a gate: nothing, or exactly one JSON object once whitespace is trimmed.
 * Each of these holds a block a terminal would show as just the JSON, or more than one answer.
 */
const unreadable: readonly (readonly [string, string])[] = [
  ["an ANSI colour code before the JSON", '\u001b[31m{"decision":"block","reason":"no"}\u001b[0m'],
  ["OK and a carriage return before the JSON", 'OK\r{"decision":"block","reason":"no"}'],
  ["text before the JSON on the same line", 'checking... {"decision":"block","reason":"no"}'],
  ["a banner line before the JSON", 'Welcome!\n{"decision":"block","reason":"no"}'],
  ["two JSON objects", '{"decision":"block"}{"decision":"approve"}'],
  ["two JSON objects on two lines", '{"decision":"approve"}\n{"decision":"block","reason":"no"}'],
  ["a JSON array", '[{"decision":"block"}]'],
  ["a JSON string", '"block"'],
  ["a bare word", "OK"],
  ["a number", "2"],
  ["text after the JSON", '{"decision":"block","reason":"no"} done'],
  ["a reset code after the JSON", '{"decision":"block","reason":"no"}\u001b[0m'],
  ["two objects split by a carriage return", '{"decision":"approve"}\r{"decision":"block","reason":"no"}'],
  ["JSON null", "null"],
  ["JSON true", "true"],
  ["a JSON array of two objects", '[{"decision":"approve"},{"decision":"block"}]'],
];

describe("stdout that is not one JSON object, on a gate", () => {
  // A NUL cannot travel in the fixture's arguments: these are read directly.
  it.each<readonly [string, string]>([
    ...unreadable,
    ["a NUL after the JSON", '{"decision":"block","reason":"no"}\u0000'],
    ["a NUL before the JSON", '\u0000{"decision":"block","reason":"no"}'],
  ])("%s is an unreadable answer", (_what, text) => {
    expect(() => readAnswerText("guard", "PreToolUse", text)).toThrow(/hook "guard" printed/);
  });

  it.each(unreadable)("%s refuses the call when the hook is a commandHook used directly (a guard fails closed)", async (_what, text) => {
    const guard = commandHook({ event: "PreToolUse", name: "guard", ...node("respond.mjs", "0", text), timeoutMs: 5000 });
    let ran = false;
    const outcome = await agentStack()
      .use("toolCall", guard)
      .run("toolCall", { id: "t", name: "Bash", input: { command: "ls" } }, () => ((ran = true), { content: "ok" }));
    expect(outcome).toMatchObject({ _tag: "Rejected", reason: expect.stringMatching(/hook "guard" printed/) });
    expect(ran).toBe(false);
  });

  it("a byte order mark before the JSON is trimmed, as Claude Code trims it", () => {
    expect(readAnswerText("guard", "PreToolUse", '\ufeff{"decision":"block","reason":"no"}')).toEqual({
      output: { decision: "block", reason: "no" },
    });
  });

  it("whitespace around one JSON object is fine", () => {
    expect(readAnswerText("guard", "PreToolUse", '\n  {"decision":"block","reason":"no"}\r\n\t')).toEqual({
      output: { decision: "block", reason: "no" },
    });
    expect(readAnswerText("guard", "PreToolUse", " \n\r\t ")).toEqual({});
  });
});

describe("one JSON object that gives a key twice", () => {
  // Claude Code keeps the last (test/claude-code/observed/answer-text.test.ts): so does this reader, with a notice.
  it.each([
    ["an allow then a deny", "allow", "deny", "deny"],
    ["a deny then an allow", "deny", "allow", "allow"],
  ])("%s: the last is read, and the notice says the key was given twice", (_what, first, last, read) => {
    const text = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"${first}","permissionDecision":"${last}"}}`;
    expect(readAnswerText("guard", "PreToolUse", text)).toEqual({
      output: { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: read } },
      ignored: ["hookSpecificOutput.permissionDecision: given more than once; the last is read, as Claude Code reads it"],
    });
  });

  it("legacy decision given twice: the last", () => {
    expect(readAnswerText("guard", "PreToolUse", '{"decision":"approve","decision":"block"}')).toMatchObject({
      output: { decision: "block" },
    });
  });
});

describe("stdout where Claude Code reads plain text as context", () => {
  it.each(["UserPromptSubmit", "SessionStart"] as const)(
    "on %s, plain text is context; text before a JSON object is still unreadable",
    (event) => {
      expect(readAnswerText("ctx", event, "Current branch: main\n")).toEqual({ text: "Current branch: main" });
      expect(() => readAnswerText("ctx", event, 'checking... {"decision":"block","reason":"no"}')).toThrow(/printed text before its JSON/);
    },
  );

  it("on events nothing can refuse and that read no text (Notification, SessionEnd), plain text is ignored, not a failure", () => {
    expect(readAnswerText("notify", "Notification", "sent")).toEqual({ ignored: ['stdout "sent": not an answer on Notification'] });
    expect(readAnswerText("bye", "SessionEnd", "cleaned up")).toEqual({ ignored: ['stdout "cleaned up": not an answer on SessionEnd'] });
  });
});
