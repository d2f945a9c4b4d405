import { describe, expect, it } from "vitest";
import { createScriptedModel } from "../../src/agent/scripted-model.ts";
import { agentHook } from "../../src/executors/agent-hook.ts";
import { commandHook } from "../../src/executors/command.ts";
import { httpHook } from "../../src/executors/http.ts";
import { checkLimit } from "../../src/executors/limits.ts";
import { promptHook } from "../../src/executors/prompt.ts";

const model = createScriptedModel({ turns: ['{"ok": true}'] });

describe("numeric limits of executor hooks", () => {
  const cases: [string, () => unknown, RegExp][] = [
    [
      "commandHook's maxStdoutBytes of NaN (the cap would vanish)",
      () => commandHook({ event: "PreToolUse", command: "true", maxStdoutBytes: Number.NaN }),
      /commandHook: maxStdoutBytes must be a finite number of bytes/,
    ],
    [
      "commandHook's maxStderrBytes of Infinity",
      () => commandHook({ event: "PreToolUse", command: "true", maxStderrBytes: Infinity }),
      /commandHook: maxStderrBytes/,
    ],
    [
      "commandHook's killGraceMs of -5",
      () => commandHook({ event: "PreToolUse", command: "true", killGraceMs: -5 }),
      /commandHook: killGraceMs must be a number of ms from 0/,
    ],
    [
      "httpHook's maxBodyBytes of NaN",
      () => httpHook({ event: "PreToolUse", url: "http://127.0.0.1:9/hook", maxBodyBytes: Number.NaN }),
      /httpHook: maxBodyBytes/,
    ],
    [
      "httpHook's connectTimeoutMs of 0",
      () => httpHook({ event: "PreToolUse", url: "http://127.0.0.1:9/hook", connectTimeoutMs: 0 }),
      /httpHook: connectTimeoutMs must be a positive number of ms/,
    ],
    [
      "promptHook's maxEventChars of -10",
      () => promptHook({ event: "Stop", model, prompt: "Done?", maxEventChars: -10 }),
      /promptHook: maxEventChars must be a whole number from 1/,
    ],
    [
      "agentHook's maxSteps of 0 (every run would be refused)",
      () => agentHook({ event: "Stop", model, prompt: "Verify", maxSteps: 0 }),
      /agentHook: maxSteps must be a whole number from 1/,
    ],
    [
      "agentHook's maxEventChars of NaN",
      () => agentHook({ event: "Stop", model, prompt: "Verify", maxEventChars: Number.NaN }),
      /agentHook: maxEventChars/,
    ],
    [
      "an HTTP hook's maxInputBytes of NaN (events of any size would be sent)",
      () => httpHook({ event: "PreToolUse", url: "http://127.0.0.1:9/hook", name: "policy", maxInputBytes: Number.NaN }),
      /policy: maxInputBytes must be a whole number from 1, got NaN/,
    ],
    [
      "a command hook's maxInputBytes of -1 (every event would be refused)",
      () => commandHook({ event: "PreToolUse", command: "true", name: "guard", maxInputBytes: -1 }),
      /guard: maxInputBytes must be a whole number from 1, got -1/,
    ],
  ];
  for (const [what, make, message] of cases)
    it(`refuses ${what} with a TypeError when the hook is made`, () => {
      expect(make).toThrow(TypeError);
      expect(make).toThrow(message);
    });

  it("accepts absent limits, 0 bytes, a 0 ms kill grace, and whole counts", () => {
    for (const [value, kind] of [
      [undefined, "count"],
      [0, "bytes"],
      [0, "delay"],
      [3, "count"],
      [2_147_483_647, "ms"],
    ] as const)
      expect(() => checkLimit("f", "x", value, kind)).not.toThrow();
    expect(() => commandHook({ event: "PreToolUse", command: "true", killGraceMs: 0, maxStdoutBytes: 0 })).not.toThrow();
  });
});

describe("default timeouts of command and HTTP hooks", () => {
  const url = "http://127.0.0.1:9/hook";
  it("follow Claude Code's: 1.5 s on SessionEnd and 30 s on UserPromptSubmit for both, 600 s elsewhere", () => {
    for (const [event, seconds] of [
      ["SessionEnd", 1.5],
      ["UserPromptSubmit", 30],
      ["PreToolUse", 600],
    ] as const) {
      expect(httpHook({ event, url }).timeoutMs).toBe(httpHook({ event, url, timeout: seconds }).timeoutMs);
      expect(commandHook({ event, command: "true" }).timeoutMs).toBe(commandHook({ event, command: "true", timeout: seconds }).timeoutMs);
    }
    expect(httpHook({ event: "SessionEnd", url }).timeoutMs).toBeLessThan(
      httpHook({ event: "PreToolUse", url, timeout: 10 }).timeoutMs as number,
    );
  });
});
