/**
 * claudeAgentGuard and a hook's answer the toolCall point refuses, with the PreToolUse event Claude
 * Code 2.1.332 sent (test/fixtures/claude-code/events).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { HookInput, HookJSONOutput } from "@anthropic-ai/claude-agent-sdk";
import { describe, expect, it } from "vitest";
import { claudeAgentGuard, type ClaudeAgentGuard } from "../../../src/adapters/claude-agent-sdk/index.ts";
import { createAgentStack } from "../../../src/agent/stack.ts";
import { Transform } from "../../../src/core/action.ts";
import type { HookError } from "../../../src/core/errors.ts";

const events = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..", "fixtures", "claude-code", "events");
const preToolUse = (): HookInput => JSON.parse(readFileSync(join(events, "PreToolUse.json"), "utf8")) as HookInput;

const call = (guard: ClaudeAgentGuard, input: HookInput): Promise<HookJSONOutput> => {
  const matcher = guard.hooks[input.hook_event_name]?.[0];
  if (matcher === undefined) throw new Error(`the guard registered no callback for ${input.hook_event_name}`);
  return matcher.hooks[0]!(input, "tool_use_id" in input ? String(input.tool_use_id) : undefined, { signal: new AbortController().signal });
};

describe("claudeAgentGuard and a hook that turns a tool call's input into a string", () => {
  it("is that hook's invalid-action failure: closed, Claude Code is told to deny the call, naming the hook", async () => {
    const failures: HookError[] = [];
    const stack = createAgentStack({ onFailure: (e) => failures.push(e) }).use("toolCall", {
      name: "rewrite",
      before: (c) => Transform({ ...c, input: "ls" as never }),
    });

    const output = await call(claudeAgentGuard(stack), preToolUse());

    expect(output).toMatchObject({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny" } });
    expect(JSON.stringify(output)).toMatch(
      /hook \\"rewrite\\" failed in before on toolCall: .*Transform gave toolCall an input it does not take/,
    );
    expect(failures.map((e) => [e.hook, e.kind])).toEqual([["rewrite", "invalid-action"]]);
  });

  it("failing open, the call goes on with the input Claude Code sent: no updatedInput", async () => {
    const stack = createAgentStack().use("toolCall", {
      name: "rewrite",
      failMode: "open",
      before: (c) => Transform({ ...c, input: "ls" as never }),
    });

    const output = await call(claudeAgentGuard(stack), preToolUse());

    expect(JSON.stringify(output)).not.toMatch(/updatedInput|deny/);
    expect(stack.stats.failOpen).toBe(1);
  });
});
