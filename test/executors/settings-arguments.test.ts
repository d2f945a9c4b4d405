import { describe, expect, it } from "vitest";
import { createAgentStack } from "../../src/agent/stack.ts";
import { fromClaudePlugin, fromClaudeSettings } from "../../src/executors/settings.ts";
import { toolPolicy } from "../../src/middleware/tool-policy.ts";
import { takeWarnings } from "../support/warnings.ts";

const misspelt = { hooks: { PreTooluse: [{ matcher: "Bash", hooks: [{ type: "command", command: "exit 2" }] }] } };

describe("fromClaudeSettings refuses or reports what it would otherwise drop", () => {
  it("warns of a misspelt event, naming the event meant and then every event, nearest first", () => {
    const { hooks, unused, warnings } = fromClaudeSettings(misspelt);

    expect(hooks).toEqual([]);
    const reason = unused[0]!.reason;
    expect(reason).toMatch(
      /^PreTooluse is not a Claude Code hook event \(did you mean PreToolUse\?\); the events are, nearest first: PreToolUse, PostToolUse, /,
    );
    expect(reason).toContain("SessionStart");
    expect(warnings).toEqual([{ source: "settings#/hooks/PreTooluse/0/hooks/0", message: reason }]);
    expect(takeWarnings()).toEqual([{ type: "AgentOnionSettingsWarning", message: `settings#/hooks/PreTooluse/0/hooks/0: ${reason}` }]);
  });

  it("refuses a misspelt option, naming the option meant", () => {
    expect(() => fromClaudeSettings({ hooks: {} }, { stak: createAgentStack() } as never)).toThrow(
      /^fromClaudeSettings: unknown option "stak" \(did you mean "stack"\?\); its options are /,
    );
    expect(() => fromClaudePlugin("/nonexistent", { trustProjectSetting: true } as never)).toThrow(
      /^fromClaudePlugin: unknown option "trustProjectSetting" \(did you mean "trustProjectSettings"\?\)/,
    );
  });

  it("refuses a middleware given where the stack belongs", () => {
    expect(() => fromClaudeSettings({ hooks: {} }, { stack: toolPolicy({ deny: [] }) } as never)).toThrow(
      'fromClaudeSettings: stack must be a stack with run (createAgentStack()), got the middleware "toolPolicy"',
    );
  });
});
