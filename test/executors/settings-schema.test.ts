/**
 * Every settings field Claude Code accepts loads; a field or handler type agent-onion does not
 * know is a warning naming where it is, never a failure; a malformed known field is an error.
 */
import { describe, expect, it } from "vitest";
import { decodeHookSettings } from "../../src/executors/settings-schema.ts";
import { fromClaudeSettings } from "../../src/executors/settings.ts";
import { tempDir } from "./helpers.ts";

const load = (settings: object) => fromClaudeSettings(settings, { cwd: tempDir(), onNotice: () => {}, withoutModel: "skip" });

describe("handler fields", () => {
  it("accepts every documented field of every handler type", () => {
    const settings = {
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              {
                type: "command",
                command: "true",
                args: [],
                async: false,
                asyncRewake: false,
                shell: "bash",
                if: "Bash(git *)",
                timeout: 5,
                statusMessage: "checking",
                once: true,
                rewakeMessage: "Findings:",
                rewakeSummary: "found issues",
              },
              {
                type: "http",
                url: "https://hooks.example.com/pre",
                headers: { Authorization: "Bearer $T" },
                allowedEnvVars: ["T"],
                timeout: 5,
                statusMessage: "asking",
              },
              { type: "mcp_tool", server: "scanner", tool: "scan", input: { file: "${tool_input.file_path}" }, timeout: 5 },
              { type: "prompt", prompt: "Safe? $ARGUMENTS", model: "claude-haiku", continueOnBlock: true, timeout: 30 },
              { type: "agent", prompt: "Verify $ARGUMENTS", model: "claude-haiku", timeout: 60 },
            ],
          },
        ],
      },
    };
    const { hooks, warnings } = load(settings);
    expect(hooks.map((h) => h.type)).toEqual(["command", "http", "mcp_tool"]);
    expect(warnings.filter((w) => !/mcpClients/.test(w.message))).toEqual([]);
  });

  it("loads security-guidance's Stop handler with rewakeMessage and rewakeSummary", () => {
    const { hooks, warnings } = load({
      hooks: {
        Stop: [
          {
            hooks: [
              {
                type: "command",
                command: "true",
                asyncRewake: true,
                rewakeMessage: "Security review findings",
                rewakeSummary: "issues found",
              },
            ],
          },
        ],
      },
    });
    expect(hooks).toHaveLength(1);
    expect(warnings).toEqual([]);
  });

  it("warns about a field it does not know, at its pointer, and loads the handler", () => {
    const { hooks, warnings } = load({
      hooks: { PreToolUse: [{ matcher: "Bash", priority: 3, hooks: [{ type: "command", command: "true", retries: 2 }] }] },
    });
    expect(hooks).toHaveLength(1);
    expect(warnings).toEqual([
      { source: "settings#/hooks/PreToolUse/0/priority", message: '"priority" is not a matcher group field agent-onion knows; ignored' },
      {
        source: "settings#/hooks/PreToolUse/0/hooks/0/retries",
        message: '"retries" is not a command hook field agent-onion knows; ignored',
      },
    ]);
  });

  it("lists a handler of a type it does not know as unused, keeping the pointers of the others right", () => {
    const { hooks, unused } = load({
      hooks: {
        PreToolUse: [
          {
            hooks: [
              { type: "wasm", module: "x.wasm" },
              { type: "command", command: "true" },
            ],
          },
        ],
      },
    });
    expect(unused).toEqual([
      {
        event: "PreToolUse",
        type: "wasm",
        source: "settings#/hooks/PreToolUse/0/hooks/0",
        reason: 'handler type "wasm" is not one agent-onion knows',
      },
    ]);
    expect(hooks.map((h) => h.source)).toEqual(["settings#/hooks/PreToolUse/0/hooks/1"]);
  });

  it("still refuses a malformed known field, naming file and pointer", () => {
    expect(() =>
      decodeHookSettings("s.json", { hooks: { Stop: [{ hooks: [{ type: "command", command: "true", rewakeMessage: "" }] }] } }),
    ).toThrow('s.json: /hooks/Stop/0/hooks/0/rewakeMessage: Expected a string at least 1 character(s) long, actual ""');
    expect(() => decodeHookSettings("s.json", { hooks: { Stop: { hooks: [] } } })).toThrow(
      "s.json: /hooks/Stop: expected an array of matcher groups, got object",
    );
    expect(() => decodeHookSettings("s.json", { hooks: { Stop: [{ matcher: "x" }] } })).toThrow("s.json: /hooks/Stop/0/hooks: is missing");
  });
});
