/**
 * The reference agent's permission policy, Claude Code's model: a call no rule allows needs
 * permission, which fires PermissionRequest (with Claude Code's `permission_suggestions`) whether
 * or not a hook asked; a hook's grant may carry `updatedPermissions`, which hold for the rest of
 * the session. Every hook here is a real command hook from settings (a child process).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAgent, createAgentStack, createScriptedModel, defineTool, type AgentPermissions } from "../../src/agent/index.ts";
import type { ScriptedTurn } from "../../src/agent/scripted-model.ts";
import { Continue } from "../../src/core/action.ts";
import { fromClaudeSettings } from "../../src/executors/index.ts";
import { tempDir } from "../executors/helpers.ts";
import { answer, decision, on, settings, shell } from "../support/claude-code/hooks.ts";

/**
 * A PermissionRequest hook in node: it saves the event, then grants calls whose command (or tool)
 * is in `grant`, with `updatedPermissions` (`"echo"`: the suggestions it received), and says
 * nothing about the others.
 */
const grantingHook = (dir: string, grant: readonly string[], updatedPermissions?: unknown) => {
  const file = join(dir, "grant.mjs");
  writeFileSync(
    file,
    `import { writeFileSync } from "node:fs";
let text = "";
process.stdin.on("data", (d) => (text += d)).on("end", () => {
  const e = JSON.parse(text);
  writeFileSync(process.env.CLAUDE_PROJECT_DIR + "/.requests/" + process.hrtime.bigint() + ".json", text);
  const grant = ${JSON.stringify(grant)};
  if (!grant.includes(e.tool_input.command ?? e.tool_name)) return;
  const updates = ${JSON.stringify(updatedPermissions ?? null)};
  const decision = { behavior: "allow", ...(updates === null ? {} : { updatedPermissions: updates === "echo" ? e.permission_suggestions : updates }) };
  console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision } }));
});
`,
  );
  return shell(`node ${file}`);
};

const requests = (dir: string): Record<string, unknown>[] =>
  existsSync(join(dir, ".requests"))
    ? readdirSync(join(dir, ".requests"))
        .sort()
        .map((f) => JSON.parse(readFileSync(join(dir, ".requests", f), "utf8")) as Record<string, unknown>)
    : [];

/** Runs one prompt per list of calls (each list one step, then "Done."), in one session; what ran and what the model read. */
const session = async (
  dir: string,
  hooks: ReturnType<typeof on>[],
  permissions: AgentPermissions | undefined,
  turns: readonly (readonly { name: string; input: Record<string, unknown> }[])[][],
) => {
  mkdirSync(join(dir, ".requests"), { recursive: true });
  const { stack } = fromClaudeSettings(settings(...hooks), { cwd: dir, projectDir: dir, onNotice: () => {} });
  const ran: string[] = [];
  const tool = (name: string) =>
    defineTool<Record<string, unknown>>({
      name,
      execute: (input) => {
        ran.push(`${name} ${String(input.command ?? input.file_path ?? "")}`);
        return "ok";
      },
    });
  const scripted: ScriptedTurn[] = turns.flatMap((steps) => [...steps.map((calls) => ({ toolCalls: calls })), "Done."]);
  const agent = createAgent({
    model: createScriptedModel({ turns: scripted }),
    stack,
    tools: [tool("Bash"), tool("Write"), tool("Read")],
    transcript: false,
    idleNotificationMs: false,
    ...(permissions !== undefined ? { permissions } : {}),
  });
  const s = await agent.session({ sessionId: "s-perm" });
  const read: string[] = [];
  for (let i = 0; i < turns.length; i++) {
    const turn = await s.prompt(`turn ${i + 1}`);
    read.push(...(turn.result?.messages ?? []).filter((m) => m.role === "tool").map((m) => m.content));
  }
  await s.close();
  // Each turn's messages hold the earlier turns' too: keep each tool result once.
  return { ran, read: [...new Set(read)] };
};

const bash = (command: string) => ({ name: "Bash", input: { command } });

describe("a call the permission policy would ask about", () => {
  it("fires PermissionRequest, with Claude Code's permission_suggestions, though no hook asked", async () => {
    const dir = tempDir();
    const { ran, read } = await session(dir, [on("PermissionRequest", undefined, grantingHook(dir, []))], {}, [[[bash("npm test")]]]);

    expect(requests(dir)).toEqual([
      expect.objectContaining({
        hook_event_name: "PermissionRequest",
        permission_mode: "default",
        tool_name: "Bash",
        tool_input: { command: "npm test" },
        permission_suggestions: [
          { type: "addRules", rules: [{ toolName: "Bash", ruleContent: "npm test" }], behavior: "allow", destination: "localSettings" },
        ],
      }),
    ]);
    expect(requests(dir)[0]).not.toHaveProperty("tool_use_id");
    // No hook decided and no one can approve: refused, and the model reads why.
    expect(ran).toEqual([]);
    expect(read).toEqual([expect.stringMatching(/Bash needs permission: no rule allows it.*no one could approve/)]);
  });

  it("suggests acceptEdits for the session on file edits, as Claude Code does for Write", async () => {
    const dir = tempDir();
    await session(dir, [on("PermissionRequest", undefined, grantingHook(dir, []))], {}, [
      [[{ name: "Write", input: { file_path: "a.txt" } }]],
    ]);
    expect(requests(dir).map((r) => r.permission_suggestions)).toEqual([
      [{ type: "setMode", mode: "acceptEdits", destination: "session" }],
    ]);
  });

  it("does not fire for calls a rule allows, tools that only read, or a PreToolUse hook's allow", async () => {
    const dir = tempDir();
    const allowGit = on("PreToolUse", "Bash", answer({ out: decision("allow") }, { if: "Bash(git *)" }));
    const { ran } = await session(dir, [allowGit, on("PermissionRequest", undefined, grantingHook(dir, []))], { allow: ["Bash(ls)"] }, [
      [[bash("ls"), { name: "Read", input: { file_path: "a.txt" } }, bash("git status")]],
    ]);
    expect(ran.sort()).toEqual(["Bash git status", "Bash ls", "Read a.txt"]);
    expect(requests(dir)).toEqual([]);
  });

  it("refuses what a deny rule matches, also after a hook's allow, and without a request", async () => {
    const dir = tempDir();
    const allowAll = on("PreToolUse", "Bash", answer({ out: decision("allow") }));
    const { ran, read } = await session(
      dir,
      [allowAll, on("PermissionRequest", undefined, grantingHook(dir, ["rm -rf x"]))],
      { deny: ["Bash(rm *)"] },
      [[[bash("rm -rf x")]]],
    );
    expect(ran).toEqual([]);
    expect(read).toEqual([expect.stringContaining('it matches deny rule "Bash(rm *)"')]);
    expect(requests(dir)).toEqual([]);
  });

  it("asks when an ask rule matches, even after a hook's allow", async () => {
    const dir = tempDir();
    const allowAll = on("PreToolUse", "Bash", answer({ out: decision("allow") }));
    const { ran } = await session(
      dir,
      [allowAll, on("PermissionRequest", undefined, grantingHook(dir, ["git push"]))],
      { allow: ["Bash"], ask: ["Bash(git push*)"] },
      [[[bash("git push")]]],
    );
    expect(requests(dir).map((r) => r.tool_input)).toEqual([{ command: "git push" }]);
    expect(ran).toEqual(["Bash git push"]);
  });

  it("is refused without a request in dontAsk mode, and runs in bypassPermissions mode", async () => {
    const refused = tempDir();
    const r = await session(refused, [on("PermissionRequest", undefined, grantingHook(refused, ["make"]))], { mode: "dontAsk" }, [
      [[bash("make")]],
    ]);
    expect(r.ran).toEqual([]);
    expect(r.read).toEqual([expect.stringContaining("the permission mode is dontAsk")]);
    expect(requests(refused)).toEqual([]);

    const bypass = tempDir();
    const b = await session(bypass, [on("PermissionRequest", undefined, grantingHook(bypass, []))], { mode: "bypassPermissions" }, [
      [[bash("make")]],
    ]);
    expect(b.ran).toEqual(["Bash make"]);
    expect(requests(bypass)).toEqual([]);
  });

  it("is asked once when a PreToolUse hook asks too: PermissionRequest, then no second question", async () => {
    const dir = tempDir();
    const asks = on("PreToolUse", "Bash", answer({ out: decision("ask", "check deploys") }));
    const { ran } = await session(dir, [asks, on("PermissionRequest", undefined, grantingHook(dir, ["deploy"]))], {}, [[[bash("deploy")]]]);
    expect(ran).toEqual(["Bash deploy"]);
    expect(requests(dir)).toHaveLength(1);
  });

  it("goes to the stack's approval handler when no PermissionRequest hook decides", async () => {
    const asked: string[] = [];
    const model = createScriptedModel({ turns: [{ toolCalls: [bash("make")] }, "Done."] });
    const ran: string[] = [];
    const agent = createAgent({
      model,
      stack: createAgentStack({ approval: (r) => (asked.push(String(r.reason)), { decision: "approve" }) }),
      tools: [defineTool({ name: "Bash", execute: ({ command }) => (ran.push(String(command)), "ok") })],
      transcript: false,
      idleNotificationMs: false,
      permissions: {},
    });
    await agent.run("go");
    expect(asked).toEqual(["Bash needs permission: no rule allows it"]);
    expect(ran).toEqual(["make"]);
  });
});

describe("updatedPermissions in a PermissionRequest grant", () => {
  it("addRules for the session: the next matching call runs without a new request; another still asks", async () => {
    const dir = tempDir();
    const rule = [{ type: "addRules", rules: [{ toolName: "Bash", ruleContent: "npm test" }], behavior: "allow", destination: "session" }];
    const { ran } = await session(dir, [on("PermissionRequest", undefined, grantingHook(dir, ["npm test"], rule))], {}, [
      [[bash("npm test")], [bash("npm test")], [bash("rm -rf x")]],
    ]);
    expect(ran).toEqual(["Bash npm test", "Bash npm test"]);
    expect(requests(dir).map((r) => (r.tool_input as { command: string }).command)).toEqual(["npm test", "rm -rf x"]);
  });

  it("echoing a suggestion is the person's 'always allow': Write's setMode acceptEdits holds for the session", async () => {
    const dir = tempDir();
    const write = (file_path: string) => ({ name: "Write", input: { file_path } });
    const { ran } = await session(
      dir,
      [
        on("PermissionRequest", undefined, grantingHook(dir, ["Write"], "echo")),
        on("PreToolUse", "Write", answer({ save: "$CLAUDE_PROJECT_DIR/.requests/zz-pre-$(date +%s%N).json" })),
      ],
      {},
      [[[write("a.txt")], [write("b.txt")]], [[write("c.txt")]]],
    );
    expect(ran).toEqual(["Write a.txt", "Write b.txt", "Write c.txt"]);
    const seen = requests(dir);
    expect(seen.filter((r) => r.hook_event_name === "PermissionRequest")).toHaveLength(1);
    // Hooks read the session's mode from the next turn on.
    expect(seen.filter((r) => r.hook_event_name === "PreToolUse").map((r) => r.permission_mode)).toEqual([
      "default",
      "default",
      "acceptEdits",
    ]);
  });

  it("addRules deny: the next matching call is refused without a request", async () => {
    const dir = tempDir();
    const rule = [{ type: "addRules", rules: [{ toolName: "Bash", ruleContent: "curl:*" }], behavior: "deny", destination: "session" }];
    const { ran, read } = await session(dir, [on("PermissionRequest", undefined, grantingHook(dir, ["curl a"], rule))], {}, [
      [[bash("curl a")], [bash("curl b")]],
    ]);
    expect(ran).toEqual(["Bash curl a"]);
    expect(read.at(-1)).toContain('deny rule "Bash(curl:*)"');
    expect(requests(dir)).toHaveLength(1);
  });

  it("what the agent cannot apply (a mode it has not, directories) is a warning; the grant stands", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, ".requests"));
    const updates = [
      { type: "setMode", mode: "plan", destination: "session" },
      { type: "addDirectories", directories: ["/tmp"], destination: "session" },
    ];
    const { stack } = fromClaudeSettings(settings(on("PermissionRequest", undefined, grantingHook(dir, ["make"], updates))), {
      cwd: dir,
      projectDir: dir,
    });
    const warnings: string[] = [];
    const ran: string[] = [];
    await createAgent({
      model: createScriptedModel({ turns: [{ toolCalls: [bash("make")] }, "Done."] }),
      stack,
      tools: [defineTool({ name: "Bash", execute: ({ command }) => (ran.push(String(command)), "ok") })],
      transcript: false,
      idleNotificationMs: false,
      permissions: {},
      onNotification: (n) => void (n.type === "warning" && warnings.push(n.message)),
    }).run("go");
    expect(ran).toEqual(["make"]);
    expect(warnings).toEqual([
      'permission update not applied: setMode to "plan" is not a mode the agent has; ignored',
      "permission update not applied: addDirectories has no counterpart in the agent; ignored",
    ]);
  });
});

describe("permissions from settings files", () => {
  it("fromClaudeSettings reads permissions.allow, ask, deny and defaultMode, over layers, for createAgent", () => {
    const dir = tempDir();
    const user = join(dir, "user.json");
    const local = join(dir, "local.json");
    writeFileSync(user, JSON.stringify({ permissions: { allow: ["Bash(npm test)"], deny: ["Bash(rm *)"], defaultMode: "acceptEdits" } }));
    writeFileSync(
      local,
      JSON.stringify({ permissions: { allow: ["Bash(npm test)", "Read"], ask: ["Bash(git push*)"], additionalDirectories: ["/x"] } }),
    );
    const { permissions } = fromClaudeSettings([user, local], { cwd: dir });
    expect(permissions).toEqual({ allow: ["Bash(npm test)", "Read"], ask: ["Bash(git push*)"], deny: ["Bash(rm *)"], mode: "acceptEdits" });
  });

  it("leaves out a mode the agent has no meaning for, with a warning", () => {
    const { permissions, warnings } = fromClaudeSettings({ permissions: { defaultMode: "plan" } }, { cwd: tempDir() });
    expect(permissions).toEqual({ allow: [], ask: [], deny: [] });
    expect(warnings.map((w) => w.message)).toContain(
      'permissions.defaultMode "plan" has no meaning in the agent; the default mode applies',
    );
  });

  it("drives the agent's questions: what the file allows runs, the rest fires PermissionRequest", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, ".requests"));
    const loaded = fromClaudeSettings(
      { permissions: { allow: ["Bash(npm test)"] }, ...settings(on("PermissionRequest", undefined, grantingHook(dir, []))) },
      { cwd: dir, projectDir: dir },
    );
    const ran: string[] = [];
    await createAgent({
      model: createScriptedModel({ turns: [{ toolCalls: [bash("npm test"), bash("make")] }, "Done."] }),
      stack: loaded.stack,
      tools: [defineTool({ name: "Bash", execute: ({ command }) => (ran.push(String(command)), "ok") })],
      transcript: false,
      idleNotificationMs: false,
      permissions: loaded.permissions,
    }).run("go");
    expect(ran).toEqual(["npm test"]);
    expect(requests(dir).map((r) => r.tool_input)).toEqual([{ command: "make" }]);
  });
});

describe("createAgent's permissions option", () => {
  const model = createScriptedModel({ turns: ["hi"] });
  it.each([
    [{ mode: "plan" }, /permissions.mode must be one of default, acceptEdits, dontAsk, bypassPermissions or manual, got plan/],
    [{ allow: "Bash" }, /permissions.allow must be a list of non-empty rule strings/],
    [{ deny: ["Bash(("] }, /createAgent: permissions/],
  ])("refuses %j at createAgent, naming the option", (permissions, message) => {
    expect(() => createAgent({ model, stack: createAgentStack(), permissions: permissions as AgentPermissions })).toThrow(message);
  });

  it("adds its hook under a name of its own, beside a caller's hook named permissions", () => {
    const stack = createAgentStack().use("toolCall", { name: "permissions", before: () => Continue });
    expect(() => createAgent({ model, stack, permissions: {} })).not.toThrow();
  });

  it("leaves the caller's stack as it was", () => {
    const stack = createAgentStack();
    createAgent({ model, stack, permissions: {} });
    expect(stack.has("toolCall")).toBe(false);
  });
});
