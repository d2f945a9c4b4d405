/**
 * Where the real Claude Code puts what hooks add for the model, per event, observed with the
 * pinned version: `additionalContext`, plain-text stdout, and the answers that end a prompt.
 * Context arrives as system messages in the conversation (or a system reminder in a user message
 * for Stop), prefixed with the event.
 */
import { it } from "vitest";
import { answer, on, settings, specific } from "../../support/claude-code/hooks.ts";
import { isMainLoop, subagentTurns } from "../../support/claude-code/event-runs.ts";
import type { RecordedRequest } from "../../support/claude-code/mock-anthropic.ts";
import { bashTurn, ranCommand, runClaudeCode } from "../../support/claude-code/run-claude-code.ts";
import { describeClaudeCode } from "../../support/claude-code/suite.ts";

/** The texts of the system messages Claude Code put in the conversation of a request. */
const systemTexts = (request: RecordedRequest | undefined): string[] =>
  (request?.body?.messages ?? [])
    .filter((m) => m.role === "system")
    .flatMap((m) => (typeof m.content === "string" ? [m.content] : m.content.map((b) => b.text ?? "")));

const prompt = (hook: ReturnType<typeof answer>, event = "UserPromptSubmit") =>
  runClaudeCode({ settings: settings(on(event, undefined, hook)), turns: ["Done."] });

describeClaudeCode("context for the model, per event", () => {
  it.concurrent("SessionStart: additionalContext and plain stdout, at the head of a system message", async ({ expect }) => {
    const [json, plain] = await Promise.all([
      prompt(answer({ out: specific("SessionStart", { additionalContext: "branch main" }) }), "SessionStart"),
      prompt(answer({ out: "branch main\n" }), "SessionStart"),
    ]);
    expect(systemTexts(json.modelCalls[0])[0]).toMatch(/^SessionStart hook additional context: branch main\n/);
    expect(systemTexts(plain.modelCalls[0])[0]).toMatch(/^SessionStart:startup hook success: branch main\n/);
  });

  for (const [event, label] of [
    ["SessionStart", "SessionStart:startup"],
    ["UserPromptSubmit", "UserPromptSubmit"],
  ] as const) {
    it.concurrent(`${event}: text, an ANSI code or \`OK\\r\` before the JSON makes all of stdout plain text, JSON and codes included`, async ({
      expect,
    }) => {
      const json = JSON.stringify(specific(event, { additionalContext: "from json" }));
      const outs = [`checking\n${json}`, `\u001b[0m${json}`, `OK\r${json}`, "\u001b[32mGREEN\u001b[0m\n"];
      const runs = await Promise.all(outs.map((out) => prompt(answer({ out }), event)));
      runs.forEach((run, i) => {
        expect(run.modelSaw(`${label} hook success: ${outs[i]!.trimEnd()}`)).toBe(true);
        expect(run.modelSaw(`${event} hook additional context: from json`)).toBe(false);
      });
    });
  }

  it.concurrent("SubagentStart: additionalContext reaches the subagent's requests, not the main loop's", async ({ expect }) => {
    const run = await runClaudeCode({
      settings: settings(
        on("SubagentStart", undefined, answer({ out: specific("SubagentStart", { additionalContext: "SUBAGENT-CONTEXT-MARKER" }) })),
      ),
      turns: [],
      whenDone: subagentTurns(),
    });
    const sub = run.modelCalls.filter((r) => !isMainLoop(r.body));
    const main = run.modelCalls.filter((r) => isMainLoop(r.body));
    expect(sub.length).toBeGreaterThan(0);
    expect(sub.every((r) => JSON.stringify(r.body).includes("SubagentStart hook additional context: SUBAGENT-CONTEXT-MARKER"))).toBe(true);
    expect(main.some((r) => JSON.stringify(r.body).includes("SUBAGENT-CONTEXT-MARKER"))).toBe(false);
    expect(run.executed).toEqual(["sub"]);
  });

  it.concurrent("UserPromptSubmit: the contexts of two hooks both arrive, each with its prefix", async ({ expect }) => {
    const run = await runClaudeCode({
      settings: settings(
        on(
          "UserPromptSubmit",
          undefined,
          answer({ out: specific("UserPromptSubmit", { additionalContext: "first context" }) }),
          answer({ out: specific("UserPromptSubmit", { additionalContext: "second context" }) }),
        ),
      ),
      turns: ["Done."],
    });
    expect(run.modelSaw("UserPromptSubmit hook additional context: first context")).toBe(true);
    expect(run.modelSaw("UserPromptSubmit hook additional context: second context")).toBe(true);
  });

  it.concurrent("PreToolUse, PostToolUseFailure and PostToolBatch: a system message after the tool result, also beside a deny", async ({
    expect,
  }) => {
    const tool = (event: string, matcher: string | undefined, extra: object, command: string) =>
      runClaudeCode({
        settings: settings(on(event, matcher, answer({ out: specific(event, { additionalContext: `${event} note`, ...extra }) }))),
        turns: [bashTurn(command), "Done."],
      });
    const [pre, denied, failure, batch] = await Promise.all([
      tool("PreToolUse", "Bash", {}, ranCommand("1")),
      tool("PreToolUse", "Bash", { permissionDecision: "deny", permissionDecisionReason: "no" }, ranCommand("1")),
      tool("PostToolUseFailure", "Bash", {}, "exit 3"),
      tool("PostToolBatch", undefined, {}, ranCommand("1")),
    ]);
    expect(pre.toolResults[0]!.alongside).toEqual(["PreToolUse:Bash hook additional context: PreToolUse note"]);
    expect(denied.toolResults[0]).toMatchObject({
      text: "PreToolUse:Bash hook error: no",
      alongside: ["PreToolUse:Bash hook additional context: PreToolUse note"],
    });
    expect(failure.toolResults[0]).toMatchObject({
      text: "Exit code 3",
      isError: true,
      alongside: ["PostToolUseFailure:Bash hook additional context: PostToolUseFailure note"],
    });
    expect(batch.toolResults[0]!.alongside).toEqual(["PostToolBatch hook additional context: PostToolBatch note"]);
  });

  it.concurrent("Stop: additionalContext continues the turn with a system reminder in a user message", async ({ expect }) => {
    const run = await runClaudeCode({
      settings: settings(
        on(
          "Stop",
          undefined,
          answer({ once: "$CLAUDE_PROJECT_DIR/.once", out: specific("Stop", { additionalContext: "also update the changelog" }) }),
        ),
      ),
      turns: ["First.", "Second."],
    });
    expect(run.modelCalls).toHaveLength(2);
    expect(run.modelCalls[1]!.body!.messages.at(-1)).toMatchObject({
      role: "user",
      content: [{ type: "text", text: "<system-reminder>\nStop hook additional context: also update the changelog\n</system-reminder>" }],
    });
    expect(run.finalText).toBe("Second.");
  });
});

describeClaudeCode("answers that end a prompt before the model", () => {
  it.concurrent('UserPromptSubmit `decision: "block"`, exit 2 and `continue: false`: no model call, the result says why', async ({
    expect,
  }) => {
    const exit2 = answer({ err: "not now", exit: 2 });
    const [block, code, stop] = await Promise.all([
      prompt(answer({ out: { decision: "block", reason: "not now" } })),
      prompt(exit2),
      prompt(answer({ out: { continue: false, stopReason: "not now" } })),
    ]);
    for (const run of [block, code, stop]) expect(run.modelCalls).toHaveLength(0);
    expect(block.finalText).toBe("UserPromptSubmit operation blocked by hook:\nnot now\n\nOriginal prompt: Run the task.");
    expect(code.finalText).toBe(
      `UserPromptSubmit operation blocked by hook:\n[${String(exit2.command)}]: not now\n\nOriginal prompt: Run the task.`,
    );
    expect(stop.finalText).toBe("Operation stopped by hook: not now");
  });

  it.concurrent("SessionStart `continue: false` is ignored: the prompt goes to the model", async ({ expect }) => {
    const run = await prompt(answer({ out: { continue: false, stopReason: "stop the session" } }), "SessionStart");
    expect(run.modelCalls).toHaveLength(1);
    expect(run.finalText).toBe("Done.");
  });
});
