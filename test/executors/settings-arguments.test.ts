import { describe, expect, it } from "vitest";
import { createAgentStack } from "../../src/agent/stack.ts";
import { agentHook } from "../../src/executors/agent-hook.ts";
import { commandHook } from "../../src/executors/command.ts";
import { httpHook } from "../../src/executors/http.ts";
import { mcpToolHook } from "../../src/executors/mcp-tool.ts";
import { promptHook } from "../../src/executors/prompt.ts";
import { readOnlyTools } from "../../src/executors/readonly-tools.ts";
import { loadClaudeSettings } from "../../src/executors/settings-load.ts";
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

/** Each hook factory, its options but one, a misspelling a user would make and the option meant. */
const factories: readonly [string, (options: never) => unknown, Record<string, unknown>, string, string][] = [
  ["commandHook", commandHook, { event: "PreToolUse", command: "true" }, "timout", "timeout"],
  ["httpHook", httpHook, { event: "PreToolUse", url: "http://127.0.0.1:9/" }, "header", "headers"],
  ["promptHook", promptHook, { event: "Stop", prompt: "Done?" }, "modelid", "modelId"],
  ["agentHook", agentHook, { event: "Stop", prompt: "Done?" }, "maxStep", "maxSteps"],
  ["mcpToolHook", mcpToolHook, { event: "PreToolUse", server: "s", tool: "t" }, "inputs", "input"],
];

describe("every external hook factory", () => {
  it.each(factories)("%s refuses a misspelt option, naming the option meant", (name, make, good, typo, near) => {
    expect(() => make({ ...good, [typo]: 1 } as never)).toThrow(
      new RegExp(`^${name}: unknown option "${typo}" \\(did you mean "${near}"\\?\\); its options are event, name, `),
    );
  });
});

describe("the other executors' entry points", () => {
  it("loadClaudeSettings refuses a misspelt option, naming the option meant", () => {
    expect(() => loadClaudeSettings({ hooks: {} }, { plugin: [] } as never)).toThrow(
      /^loadClaudeSettings: unknown option "plugin" \(did you mean "plugins"\?\)/,
    );
  });

  it("readOnlyTools refuses a misspelt option, naming the option meant", async () => {
    await expect(readOnlyTools(".", { maxResult: 5 } as never)).rejects.toThrow(
      /^readOnlyTools: unknown option "maxResult" \(did you mean "maxResults"\?\)/,
    );
  });
});
