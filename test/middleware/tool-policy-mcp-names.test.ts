/**
 * MCP tool names in `toolPolicy` and permission rules, read as Claude Code reads its permission rules:
 * `mcp__server` and `mcp__server__*` name every tool of a server, `mcp__server__pre*` the server's tools
 * whose names match the wildcard. A labelled corpus of tool names a server could present: a deny
 * catches every tool of the server however the name is split, an allow holds only for a name that is
 * surely the server's (a server named like another's prefix, or a name that could be split two ways,
 * is not it).
 */
import { describe, expect, it } from "vitest";
import { createAgentStack, type ToolCall } from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { toolPolicy } from "../../src/middleware/tool-policy.ts";
import { compileAllowRules, compileDenyRules } from "../../src/middleware/tool-rules.ts";

const call = (name: string): ToolCall => ({ id: "1", name, input: {} });

/** [tool name, denied by `mcp__github`, allowed by `mcp__github`] */
const corpus: readonly (readonly [string, boolean, boolean])[] = [
  ["mcp__github__create_issue", true, true],
  ["mcp__github__delete_repo", true, true],
  ["mcp__github__x", true, true],
  // another server whose name starts with this one's
  ["mcp__github_evil__delete_repo", false, false],
  ["mcp__githubx__delete_repo", false, false],
  ["mcp__github-evil__delete_repo", false, false],
  // split at the first `__`, as Claude Code splits it: server "github", but also server "github__evil" or "github_"
  ["mcp__github__evil__delete_repo", true, false],
  ["mcp__github___delete_repo", true, false],
  // not an MCP tool of this server at all
  ["xmcp__github__delete_repo", false, false],
  ["mcp__gitlab__github", false, false],
  ["MCP__github__delete_repo", false, false],
  ["mcp__github__", true, false],
  ["mcp__github", true, true],
];

describe("an MCP server rule names every tool of the server", () => {
  for (const rule of ["mcp__github", "mcp__github__*"]) {
    const deny = compileDenyRules([rule], "policy");
    const allow = compileAllowRules([rule], "policy");
    it.each(corpus.filter(([name]) => rule === "mcp__github" || name !== "mcp__github"))(`${rule}: %s`, (name, denied, allowed) => {
      expect(deny(call(name)) !== undefined, "deny").toBe(denied);
      expect(allow(call(name)) !== undefined, "allow").toBe(allowed);
    });
  }

  it("reads a wildcard in the tool's part against the tool's name only", () => {
    const deny = compileDenyRules(["mcp__github__delete*"], "policy");
    const allow = compileAllowRules(["mcp__github__get*"], "policy");
    expect(deny(call("mcp__github__delete_repo"))).toBe("mcp__github__delete*");
    expect(deny(call("mcp__github_x__delete_repo"))).toBeUndefined();
    expect(deny(call("mcp__github__get_issue"))).toBeUndefined();
    expect(allow(call("mcp__github__get_issue"))).toBe("mcp__github__get*");
    expect(allow(call("mcp__github_evil__get_issue"))).toBeUndefined();
    expect(allow(call("mcp__github__getx__delete"))).toBeUndefined();
    expect(allow(call("mcp__github__delete_repo"))).toBeUndefined();
  });

  it("reads mcp__* as every MCP tool", () => {
    expect(compileDenyRules(["mcp__*"], "policy")(call("mcp__a__b"))).toBe("mcp__*");
    expect(compileAllowRules(["mcp__*"], "policy")(call("mcp__a__b"))).toBe("mcp__*");
    expect(compileAllowRules(["mcp__*"], "policy")(call("xmcp__a__b"))).toBeUndefined();
    expect(compileAllowRules(["mcp__*"], "policy")(call("Bash"))).toBeUndefined();
  });

  it("refuses a server's tool through toolPolicy, and does not report it as a tool no rule names", async () => {
    const notices: string[] = [];
    const stack = withMiddleware(
      createAgentStack(),
      toolPolicy({ allow: ["mcp__github"], deny: ["mcp__github__delete*"], onUnknownTool: (n) => notices.push(n.tool) }),
    );
    const tagOf = async (name: string) => (await stack.run("toolCall", call(name), () => ({ content: "ran" })))._tag;
    expect(await tagOf("mcp__github__get_issue")).toBe("Completed");
    expect(await tagOf("mcp__github__delete_repo")).toBe("Rejected");
    expect(await tagOf("mcp__github_evil__get_issue")).toBe("Rejected");
    expect(notices).toEqual(["mcp__github_evil__get_issue"]);
  });
});
