/**
 * The `subagentStart` point (Claude Code's SubagentStart): told before a sub-agent runs, with its
 * name, path and task; what its hooks add is context for the sub-agent, never for the parent.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAgent, createAgentStack, createScriptedModel, type ModelRequest, type SubagentStart } from "../../src/agent/index.ts";
import { fromClaudeSettings } from "../../src/executors/index.ts";
import { answer, on, settings, specific } from "../support/claude-code/hooks.ts";
import { tempDir } from "../executors/helpers.ts";
import { lines } from "./helpers.ts";

const child = (r: ModelRequest) => r.messages[0]?.content === "You research.";
const model = () =>
  createScriptedModel({
    turns: [],
    whenDone: (r) =>
      child(r)
        ? "Found it."
        : r.messages.at(-1)!.role === "user"
          ? { toolCalls: [{ name: "researcher", input: { prompt: "find the docs" }, id: "t1" }] }
          : "Done.",
  });
const researcher = { name: "researcher", system: "You research." };

describe("the subagentStart point", () => {
  it("is told before the sub-agent runs, with its name, path and task, and its context reaches the sub-agent only", async () => {
    const starts: SubagentStart[] = [];
    const stack = createAgentStack().use("subagentStart", {
      name: "brief",
      before: (s, ctx) => {
        starts.push(s as SubagentStart);
        ctx.addContext("Cite your sources.");
      },
    });
    const m = model();

    await createAgent({ model: m, stack, name: "main", subagents: [researcher] }).run("where are the docs?");

    expect(starts).toEqual([{ agent: "researcher", path: ["main", "researcher"], prompt: "find the docs" }]);
    const [first, childRequest, last] = m.requests;
    expect(lines(childRequest!.messages)).toEqual(["system: You research.", "user: find the docs", "system: Cite your sources."]);
    expect(lines(first!.messages).join("\n")).not.toContain("Cite your sources.");
    expect(lines(last!.messages).join("\n")).not.toContain("Cite your sources.");
  });

  it("runs a SubagentStart command hook with Claude Code's input, and its additionalContext reaches the sub-agent", async () => {
    const dir = tempDir();
    const { stack } = fromClaudeSettings(
      settings(
        on(
          "SubagentStart",
          "researcher",
          answer({ save: "$CLAUDE_PROJECT_DIR/start.json", out: specific("SubagentStart", { additionalContext: "SUBAGENT-CONTEXT" }) }),
        ),
      ),
      { cwd: dir, projectDir: dir },
    );
    const m = model();

    await createAgent({ model: m, stack, name: "main", subagents: [researcher] })
      .session({ sessionId: "s1" })
      .then((s) => s.prompt("go"));

    expect(JSON.parse(readFileSync(join(dir, "start.json"), "utf8"))).toEqual({
      session_id: "s1",
      transcript_path: expect.any(String),
      cwd: dir,
      prompt_id: expect.any(String),
      hook_event_name: "SubagentStart",
      agent_id: "main/researcher",
      agent_type: "researcher",
    });
    expect(lines(m.requests[1]!.messages).join("\n")).toContain("SUBAGENT-CONTEXT");
    expect(lines(m.requests[2]!.messages).join("\n")).not.toContain("SUBAGENT-CONTEXT");
  });
});
