/**
 * What the bridge sends Claude Code as `updatedToolOutput`: only what fits the tool's output shape,
 * since Claude Code ignores anything else and shows the model the original output.
 */
import { describe, expect, it } from "vitest";
import { createAgentStack } from "../../src/agent/stack.ts";
import type { ToolResult } from "../../src/agent/types.ts";
import { toolDurationMs } from "../../src/agent/tool-duration.ts";
import { Continue, Reject, Transform } from "../../src/core/action.ts";
import { fromClaudeEvent } from "../../src/executors/bridge-event.ts";
import { claudeToolOutput, sameShape, withheldToolOutput } from "../../src/executors/bridge-output.ts";
import { runBridge } from "../../src/executors/bridge.ts";

const bashOutput = { stdout: "API_KEY=s3cret\nPORT=80", stderr: "warning: API_KEY=s3cret", interrupted: false, isImage: false };
const readOutput = { type: "text", file: { filePath: "/repo/.env", content: "API_KEY=s3cret", numLines: 1, startLine: 1, totalLines: 1 } };

describe("sameShape", () => {
  it.each([
    ["equal strings", "a", "b", true],
    ["a string and a number", "a", 1, false],
    ["objects with the same keys and types", bashOutput, { ...bashOutput, stdout: "x" }, true],
    ["an object missing a key", bashOutput, { stdout: "x", stderr: "", interrupted: false }, false],
    ["an object with a key more", bashOutput, { ...bashOutput, extra: 1 }, false],
    ["a nested field of another type", readOutput, { ...readOutput, file: { ...readOutput.file, numLines: "1" } }, false],
    [
      "arrays whose elements have an element's shape",
      [{ type: "text", text: "a" }],
      [
        { type: "text", text: "b" },
        { type: "text", text: "c" },
      ],
      true,
    ],
    ["arrays with an element of another shape", [{ type: "text", text: "a" }], [{ type: "image" }], false],
    ["null and an object", null, {}, false],
  ])("%s: %s", (_name, a, b, expected) => {
    expect(sameShape(a, b)).toBe(expected);
  });
});

describe("claudeToolOutput", () => {
  it("sends nothing when the output is unchanged", () => {
    expect(claudeToolOutput("Bash", bashOutput, { ...bashOutput })).toEqual({ kind: "unchanged" });
  });

  it("sends a rewrite with the tool's own shape as it is", () => {
    const redacted = { ...bashOutput, stdout: "API_KEY=[redacted]\nPORT=80", stderr: "warning: API_KEY=[redacted]" };
    expect(claudeToolOutput("Bash", bashOutput, redacted)).toEqual({ kind: "replace", value: redacted });
    const read = { ...readOutput, file: { ...readOutput.file, content: "API_KEY=[redacted]" } };
    expect(claudeToolOutput("Read", readOutput, read)).toEqual({ kind: "replace", value: read });
  });

  it("puts a string for a shell tool's output in stdout, empties stderr and keeps the other fields", () => {
    expect(claudeToolOutput("Bash", bashOutput, "API_KEY=[redacted]")).toEqual({
      kind: "replace",
      value: { stdout: "API_KEY=[redacted]", stderr: "", interrupted: false, isImage: false },
    });
    const powershell = { stdout: "secret", stderr: "", interrupted: true, isImage: false, backgroundTaskId: "b1" };
    expect(claudeToolOutput("PowerShell", powershell, "[redacted]")).toEqual({
      kind: "replace",
      value: { ...powershell, stdout: "[redacted]" },
    });
  });

  it("passes any value for an MCP tool, whose output Claude Code does not check", () => {
    expect(claudeToolOutput("mcp__db__query", [{ type: "text", text: "secret" }], "redacted")).toEqual({
      kind: "replace",
      value: "redacted",
    });
  });

  it("writes a structured rewrite of a string output as its JSON text", () => {
    expect(claudeToolOutput("Custom", "secret", { redacted: true })).toEqual({ kind: "replace", value: '{"redacted":true}' });
  });

  it("refuses to send what no rule can express, and says which shape the tool needs", () => {
    const answer = claudeToolOutput("Read", readOutput, "API_KEY=[redacted]");
    expect(answer.kind).toBe("unexpressible");
    expect(answer.kind === "unexpressible" && answer.why).toMatch(
      /^Read's output is an object with type, file, and the hooks made it a string: Claude Code ignores a replacement/,
    );
    expect(claudeToolOutput("Bash", bashOutput, { stdout: "[redacted]" }).kind).toBe("unexpressible");
  });
});

describe("withheldToolOutput", () => {
  it("empties a shell tool's output, answers an MCP tool's with the reason, and has nothing for other tools", () => {
    expect(withheldToolOutput("Bash", bashOutput, "no")).toEqual({ stdout: "", stderr: "", interrupted: false, isImage: false });
    expect(withheldToolOutput("mcp__db__query", [{ type: "text", text: "secret" }], "no")).toBe("no");
    expect(withheldToolOutput("Read", readOutput, "no")).toBeUndefined();
  });
});

describe("runBridge on PostToolUse", () => {
  const postToolUseJson = (tool: string, response: unknown) => ({
    hook_event_name: "PostToolUse",
    session_id: "s1",
    cwd: "/tmp",
    tool_name: tool,
    tool_input: { command: "cat .env" },
    tool_use_id: "t1",
    tool_response: response,
  });
  const postToolUse = (tool: string, response: unknown) => fromClaudeEvent(postToolUseJson(tool, response));
  const redactToString = createAgentStack().use("toolCall", {
    name: "redact",
    after: (out: ToolResult) => Transform({ ...out, content: JSON.stringify(out.content).replace(/s3cret/g, "[redacted]") }),
  });

  it("answers a hook that turned Bash's output object into a string with Bash's shape, so the secret never reaches the model", async () => {
    const reply = await runBridge(redactToString, postToolUse("Bash", bashOutput));
    expect(reply.exitCode).toBe(0);
    const updated = (reply.json?.hookSpecificOutput as { updatedToolOutput: Record<string, unknown> }).updatedToolOutput;
    expect(Object.keys(updated).sort()).toEqual(["interrupted", "isImage", "stderr", "stdout"]);
    expect(updated.stderr).toBe("");
    expect(JSON.stringify(reply.json)).not.toContain("s3cret");
  });

  it("blocks loudly, naming the hook and the shape, when a rewrite cannot be sent for the tool", async () => {
    const reply = await runBridge(redactToString, postToolUse("Read", readOutput));
    expect(reply.exitCode).toBe(2);
    expect(reply.json).toBeUndefined();
    expect(reply.stderr).toMatch(
      /^agent-onion: PostToolUse: redact rewrote the output of Read, and the rewrite cannot be sent: Read's output is an object with type, file/,
    );
  });

  it("gives in-process hooks the tool's run time Claude Code reported (duration_ms), on PostToolUse and PostToolUseFailure", async () => {
    const seen: (number | undefined)[] = [];
    const stack = createAgentStack().use("toolCall", {
      name: "timing",
      after: (_out, _call, ctx) => (seen.push(ctx.local(toolDurationMs)), Continue),
      recover: (_error, _call, ctx) => (seen.push(ctx.local(toolDurationMs)), Continue),
    });
    await runBridge(stack, fromClaudeEvent({ ...postToolUseJson("Bash", bashOutput), duration_ms: 42 }));
    await runBridge(
      stack,
      fromClaudeEvent({
        ...postToolUseJson("Bash", bashOutput),
        hook_event_name: "PostToolUseFailure",
        error: "Exit code 1",
        duration_ms: 7,
      }),
    );
    await runBridge(stack, fromClaudeEvent({ ...postToolUseJson("Bash", bashOutput), duration_ms: "soon" }));
    expect(seen).toEqual([42, 7, undefined]);
  });

  it("withholds a refused Bash output beside the reason", async () => {
    const stack = createAgentStack().use("toolCall", { name: "no-secrets", after: () => Reject("the output holds a secret") });
    const reply = await runBridge(stack, postToolUse("Bash", bashOutput));
    expect(reply.json).toEqual({
      decision: "block",
      reason: "the output holds a secret",
      hookSpecificOutput: {
        hookEventName: "PostToolUse",
        updatedToolOutput: { stdout: "", stderr: "", interrupted: false, isImage: false },
      },
    });
  });
});

describe("runBridge on PreToolUse, rewriting the input", () => {
  it("denies when a hook turns the input into something that is not an object, naming the hook: the toolCall point refuses it", async () => {
    const stack = createAgentStack().use("toolCall", {
      name: "broken",
      before: (call) => Transform({ ...call, input: "ls" as unknown as Record<string, unknown> }),
    });
    const reply = await runBridge(
      stack,
      fromClaudeEvent({
        hook_event_name: "PreToolUse",
        session_id: "s1",
        cwd: "/tmp",
        tool_name: "Bash",
        tool_input: { command: "ls" },
        tool_use_id: "t1",
      }),
    );
    expect(reply).toMatchObject({
      exitCode: 0,
      decision: "deny",
      json: { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny" } },
    });
    expect(reply.reason).toBe(
      'hook "broken" failed in before on toolCall: returned an invalid action: Transform gave toolCall an input it does not take: a tool call is an object { id, name, input } with string id and name and an object input, got {"id":"t1","name":"Bash","input":"ls"}',
    );
  });
});
