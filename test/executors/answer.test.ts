/**
 * Reading what a hook printed: JSON answers, plain text, and text that only starts like JSON.
 */
import { describe, expect, it } from "vitest";
import { readAnswerText } from "../../src/executors/answer.ts";
import { commandHook } from "../../src/executors/command.ts";
import { node } from "./helpers.ts";
import { agentStack } from "./stack-helpers.ts";

describe("stdout starting with {", () => {
  it("reads stdout that starts with { but is not JSON as plain text", async () => {
    expect(readAnswerText("ctx", "UserPromptSubmit", "{WIP} current branch: feat/auth\n")).toEqual({ text: "{WIP} current branch: feat/auth" });
    const context: string[] = [];
    const hook = commandHook({ event: "UserPromptSubmit", ...node("respond.mjs", "0", "{WIP} current branch: feat/auth\n"), timeoutMs: 5000 });
    const outcome = await agentStack().use("userPrompt", hook).run("userPrompt", { text: "fix the login bug" }, (p) => p, { onContext: (t) => context.push(t) });
    expect(outcome._tag).toBe("Completed");
    expect(context).toEqual(["{WIP} current branch: feat/auth"]);
  });

  it("still fails on stdout that looks like a JSON object but does not parse (a broken answer)", () => {
    for (const text of ['{"ticket": 42', '{ "decision": "block", ', "{}x", "{\n  \"a\": }"])
      expect(() => readAnswerText("guard", "PreToolUse", text)).toThrow(/printed invalid JSON/);
    expect(() => readAnswerText("guard", "PreToolUse", '{WIP} banner\n{"decision":"block","reason":"no"}')).toThrow(/printed text before its JSON/);
  });

  it("fails on an object a guard printed in another language's syntax, so it does not fail open", () => {
    for (const text of ["{'decision': 'block', 'reason': 'no'}", '{decision: "block"}', "{ reason : 'x' }", '{:decision=>"block", :reason=>"no"}', '{decision = "block"}'])
      expect(() => readAnswerText("guard", "PreToolUse", text)).toThrow(/printed invalid JSON/);
    expect(readAnswerText("ctx", "UserPromptSubmit", "{WIP} on main")).toEqual({ text: "{WIP} on main" });
  });
});
