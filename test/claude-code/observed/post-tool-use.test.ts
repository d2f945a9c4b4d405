/**
 * What the real Claude Code does with PostToolUse answers for Bash, observed with the pinned
 * version: where a block's reason and a context go, and which `updatedToolOutput` shapes replace
 * what the model reads.
 */
import { it } from "vitest";
import { answer, on, settings, specific } from "../../support/claude-code/hooks.ts";
import { bashTurn, runClaudeCode } from "../../support/claude-code/run-claude-code.ts";
import { describeClaudeCode } from "../../support/claude-code/suite.ts";

const echo = "echo ORIGINAL-OUTPUT";
const afterBash = (out: object) =>
  runClaudeCode({ settings: settings(on("PostToolUse", "Bash", answer({ out }))), turns: [bashTurn(echo), "Done."] });
const bashOutput = (stdout: string) => ({ stdout, stderr: "", interrupted: false, isImage: false });

describeClaudeCode("PostToolUse on Bash", () => {
  it.concurrent('`decision: "block"`: the model reads the original output, then a system message with the reason', async ({ expect }) => {
    const hook = answer({ out: { decision: "block", reason: "check the output" } });
    const run = await runClaudeCode({ settings: settings(on("PostToolUse", "Bash", hook)), turns: [bashTurn(echo), "Done."] });
    expect(run.toolResults).toEqual([
      expect.objectContaining({
        text: "ORIGINAL-OUTPUT",
        isError: false,
        alongside: [`PostToolUse:Bash hook blocking error from command: "${String(hook.command)}": check the output`],
      }),
    ]);
  });

  it.concurrent("additionalContext: a system message after the result", async ({ expect }) => {
    const run = await afterBash(specific("PostToolUse", { additionalContext: "the build is slow today" }));
    expect(run.toolResults[0]).toMatchObject({
      text: "ORIGINAL-OUTPUT",
      alongside: ["PostToolUse:Bash hook additional context: the build is slow today"],
    });
  });

  it.concurrent("permissionDecision is ignored, additionalContext beside it still arrives", async ({ expect }) => {
    const run = await afterBash(
      specific("PostToolUse", {
        permissionDecision: "deny",
        permissionDecisionReason: "IGNORED-REASON-MARKER",
        additionalContext: "context kept",
      }),
    );
    expect(run.toolResults[0]).toMatchObject({
      text: "ORIGINAL-OUTPUT",
      isError: false,
      alongside: ["PostToolUse:Bash hook additional context: context kept"],
    });
    expect(run.modelSaw("IGNORED-REASON-MARKER")).toBe(false);
  });

  it.concurrent("updatedToolOutput in Bash's whole output shape replaces what the model reads", async ({ expect }) => {
    const run = await afterBash(specific("PostToolUse", { updatedToolOutput: bashOutput("[redacted]") }));
    expect(run.toolResults[0]!.text).toBe("[redacted]");
    expect(run.modelSaw("ORIGINAL-OUTPUT")).toBe(false);
  });

  it.concurrent("updatedToolOutput as a string, or as an object missing Bash's fields, is rejected: the model reads the original", async ({
    expect,
  }) => {
    const runs = await Promise.all([
      afterBash(specific("PostToolUse", { updatedToolOutput: "[redacted]" })),
      afterBash(specific("PostToolUse", { updatedToolOutput: { stdout: "[redacted]" } })),
    ]);
    for (const run of runs) expect(run.toolResults[0]!.text).toBe("ORIGINAL-OUTPUT");
  });

  it.concurrent("updatedMCPToolOutput is ignored for Bash, as a string and in Bash's shape", async ({ expect }) => {
    const runs = await Promise.all([
      afterBash(specific("PostToolUse", { updatedMCPToolOutput: "[redacted]" })),
      afterBash(specific("PostToolUse", { updatedMCPToolOutput: bashOutput("[redacted]") })),
    ]);
    for (const run of runs) expect(run.toolResults[0]!.text).toBe("ORIGINAL-OUTPUT");
  });

  it.concurrent("a block beside a valid updatedToolOutput: the model reads the replacement and the block's message", async ({ expect }) => {
    const run = await afterBash({
      decision: "block",
      reason: "redacted for you",
      ...specific("PostToolUse", { updatedToolOutput: bashOutput("[redacted]") }),
    });
    expect(run.toolResults[0]!.text).toBe("[redacted]");
    expect(run.toolResults[0]!.alongside).toEqual([
      expect.stringMatching(/^PostToolUse:Bash hook blocking error from command: .*: redacted for you$/),
    ]);
  });
});
