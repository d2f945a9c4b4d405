/**
 * Every Claude Code hook event in settings: the ones with a counterpart in an agent loop run on
 * their point (PermissionRequest, SubagentStart and PostToolBatch included), the others are
 * listed as unused with why. Hooks are real child processes; the event JSON they read is checked.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PermissionRequest, ToolBatch } from "../../src/agent/types.ts";
import { claudeHookEvents, type ClaudeHookEvent } from "../../src/executors/events.ts";
import { fromClaudeSettings } from "../../src/executors/settings.ts";
import { bash, node, tempDir } from "./helpers.ts";

const json = (value: unknown) => `echo '${JSON.stringify(value)}'`;
const one = (event: string, command: string, matcher?: string) => ({
  hooks: { [event]: [{ ...(matcher ? { matcher } : {}), hooks: [{ type: "command", command }] }] },
});
const load = (settings: object) => fromClaudeSettings(settings, { cwd: tempDir(), onNotice: () => {} });

describe("every documented event", () => {
  it("loads from settings without an error: a hook on its point, or unused with the reason it has no counterpart", () => {
    const events = Object.keys(claudeHookEvents) as ClaudeHookEvent[];
    const settings = { hooks: Object.fromEntries(events.map((e) => [e, [{ hooks: [{ type: "command", command: "true" }] }]])) };
    const { hooks, unused } = load(settings);
    const mapped = events.filter((e) => claudeHookEvents[e].spec !== undefined);
    expect(hooks.map((h) => h.event).sort()).toEqual([...mapped].sort());
    expect(unused.map((u) => u.event).sort()).toEqual(events.filter((e) => !mapped.includes(e)).sort());
    for (const u of unused) expect(u.reason).toMatch(new RegExp(`^agent-onion does not drive ${u.event}: .+`));
    expect(mapped).toEqual(
      expect.arrayContaining([
        "PermissionRequest",
        "SubagentStart",
        "PostToolBatch",
        "PreCompact",
        "PostCompact",
        "Notification",
        "SessionEnd",
        "StopFailure",
      ]),
    );
  });
});

describe("PermissionRequest", () => {
  const request: PermissionRequest = {
    call: bash("rm -rf node_modules"),
    suggestions: [
      {
        type: "addRules",
        rules: [{ toolName: "Bash", ruleContent: "rm -rf node_modules" }],
        behavior: "allow",
        destination: "localSettings",
      },
    ],
  };
  const ask = () => ({ behavior: "deny" as const, message: "a person said no" });
  const decide = (decision: unknown) => json({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision } });

  it("receives the call and the suggestions, as Claude Code sends them (no tool_use_id)", async () => {
    const file = join(tempDir(), "event.json");
    const { stack } = load({
      hooks: { PermissionRequest: [{ matcher: "Bash", hooks: [{ type: "command", ...node("record-event.mjs", file) }] }] },
    });
    expect(await stack.run("permissionRequest", request, ask)).toEqual({ _tag: "Completed", value: ask() });
    const event = JSON.parse(readFileSync(file, "utf8"));
    expect(event).toMatchObject({
      hook_event_name: "PermissionRequest",
      tool_name: "Bash",
      tool_input: { command: "rm -rf node_modules" },
      permission_suggestions: request.suggestions,
      permission_mode: "default",
    });
    expect(event.tool_use_id).toBeUndefined();
  });

  it("grants in the person's place, with a rewritten input and permission updates; no one is asked", async () => {
    const { stack } = load(
      one(
        "PermissionRequest",
        decide({
          behavior: "allow",
          updatedInput: { command: "rm -rf ./node_modules" },
          updatedPermissions: [{ type: "setMode", mode: "acceptEdits", destination: "session" }],
        }),
        "Bash",
      ),
    );
    let asked = false;
    const outcome = await stack.run("permissionRequest", request, () => ((asked = true), ask()));
    expect(outcome).toEqual({
      _tag: "Completed",
      value: {
        behavior: "allow",
        updatedInput: { command: "rm -rf ./node_modules" },
        updatedPermissions: [{ type: "setMode", mode: "acceptEdits", destination: "session" }],
      },
    });
    expect(asked).toBe(false);
  });

  it("denies with its message, which wins over another hook's grant", async () => {
    const settings = {
      hooks: {
        PermissionRequest: [
          {
            hooks: [
              { type: "command", command: decide({ behavior: "allow" }) },
              { type: "command", command: decide({ behavior: "deny", message: "not in CI" }) },
            ],
          },
        ],
      },
    };
    expect(await load(settings).stack.run("permissionRequest", request, ask)).toMatchObject({ _tag: "Rejected", reason: "not in CI" });
  });

  it("does not honour exit 2 (only the decision object grants or denies): the request goes to whoever decides", async () => {
    const { stack } = load(one("PermissionRequest", "echo 'no' >&2; exit 2"));
    expect(await stack.run("permissionRequest", request, ask)).toEqual({ _tag: "Completed", value: ask() });
  });

  it("checks a grant's rewritten input again: a guard beside it refuses the rewrite", async () => {
    const guard = `input=$(cat); case "$input" in *'rm -rf /'*) ${decide({ behavior: "deny", message: "not the root" })};; esac`;
    const settings = {
      hooks: {
        PermissionRequest: [
          {
            hooks: [
              { type: "command", command: decide({ behavior: "allow", updatedInput: { command: "rm -rf /" } }) },
              { type: "command", command: guard },
            ],
          },
        ],
      },
    };
    expect(await load(settings).stack.run("permissionRequest", request, ask)).toMatchObject({ _tag: "Rejected", reason: "not the root" });
  });
});

describe("SubagentStart", () => {
  it("matches the sub-agent's name, receives agent_id and agent_type, and its context goes to the sub-agent", async () => {
    const file = join(tempDir(), "event.json");
    const context = json({ hookSpecificOutput: { hookEventName: "SubagentStart", additionalContext: "follow the security guidelines" } });
    const settings = {
      hooks: { SubagentStart: [{ matcher: "Explore", hooks: [{ type: "command", command: `cat > '${file}'; ${context}` }] }] },
    };
    const { stack } = load(settings);
    const said: string[] = [];
    await stack.run("subagentStart", { agent: "Explore", path: ["main", "Explore"], prompt: "find the endpoints" }, () => undefined, {
      onContext: (t) => said.push(t),
    });
    expect(said).toEqual(["follow the security guidelines"]);
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({
      hook_event_name: "SubagentStart",
      agent_id: "main/Explore",
      agent_type: "Explore",
    });
    await stack.run("subagentStart", { agent: "Plan", path: ["main", "Plan"] }, () => undefined, { onContext: (t) => said.push(t) });
    expect(said).toHaveLength(1);
  });

  it("cannot refuse a sub-agent: a block is shown to the user and the sub-agent starts", async () => {
    const told: string[] = [];
    const { stack } = fromClaudeSettings(one("SubagentStart", "echo 'quota' >&2; exit 2"), {
      cwd: tempDir(),
      onNotice: (n) => void told.push(`${n.kind}: ${n.message}`),
    });
    expect((await stack.run("subagentStart", { agent: "Explore", path: ["Explore"] }, () => undefined))._tag).toBe("Completed");
    expect(told).toEqual(["hook-error: quota"]);
  });
});

describe("PostToolBatch", () => {
  const batch: ToolBatch = {
    calls: [
      { call: bash("npm test"), result: { content: "4 passing" } },
      { call: { id: "t2", name: "Read", input: { file_path: "/a" } }, result: { content: { lines: 3 } } },
    ],
  };

  it("receives every call of the batch with what the model reads of each, and adds context before the next model call", async () => {
    const file = join(tempDir(), "event.json");
    const context = json({ hookSpecificOutput: { hookEventName: "PostToolBatch", additionalContext: "run the linter too" } });
    const { stack } = load(one("PostToolBatch", `cat > '${file}'; ${context}`));
    const said: string[] = [];
    expect((await stack.run("toolBatch", batch, () => undefined, { onContext: (t) => said.push(t) }))._tag).toBe("Completed");
    expect(said).toEqual(["run the linter too"]);
    expect(JSON.parse(readFileSync(file, "utf8")).tool_calls).toEqual([
      { tool_name: "Bash", tool_input: { command: "npm test" }, tool_use_id: "toolu_1", tool_response: "4 passing" },
      { tool_name: "Read", tool_input: { file_path: "/a" }, tool_use_id: "t2", tool_response: '{"lines":3}' },
    ]);
  });

  it("ends the run with decision: block or continue: false, with the reason", async () => {
    expect(
      await load(one("PostToolBatch", json({ decision: "block", reason: "CI is red" }))).stack.run("toolBatch", batch, () => undefined),
    ).toMatchObject({ _tag: "Rejected", reason: "CI is red" });
    expect(
      await load(one("PostToolBatch", json({ continue: false, stopReason: "budget spent" }))).stack.run(
        "toolBatch",
        batch,
        () => undefined,
      ),
    ).toMatchObject({ _tag: "Rejected", reason: "budget spent" });
  });
});

describe("PreCompact and PostCompact", () => {
  it("run on the compaction point's before and after", async () => {
    const dir = tempDir();
    const settings = {
      hooks: {
        PreCompact: [{ matcher: "auto", hooks: [{ type: "command", command: `cat > '${dir}/pre'` }] }],
        PostCompact: [{ hooks: [{ type: "command", command: `cat > '${dir}/post'` }] }],
      },
    };
    const { stack } = load(settings);
    await stack.run("compaction", { trigger: "auto", messages: [], tokens: 10, budget: 5 }, () => ({
      messages: [],
      summary: "the gist",
      removed: 3,
    }));
    expect(JSON.parse(readFileSync(`${dir}/pre`, "utf8"))).toMatchObject({
      hook_event_name: "PreCompact",
      trigger: "auto",
      custom_instructions: "",
    });
    expect(JSON.parse(readFileSync(`${dir}/post`, "utf8"))).toMatchObject({
      hook_event_name: "PostCompact",
      trigger: "auto",
      compact_summary: "the gist",
    });
  });
});
