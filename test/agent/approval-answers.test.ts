/**
 * The reference agent asks the stack's approver through its permission request path; the
 * approver's answer is read there as strictly as the core reads it: only a well-formed approve or
 * edit lets the call run.
 */
import { describe, expect, it } from "vitest";
import { createAgent, createAgentStack, createScriptedModel, defineTool } from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { approval } from "../../src/middleware/approval.ts";

const corpus: readonly (readonly [string, unknown, boolean])[] = [
  ["approve", { decision: "approve" }, true],
  ["an edit of the command", { decision: "edit", input: { id: "c1", name: "Bash", input: { command: "ls -la" } } }, true],
  ["true", true, false],
  ['"approve"', "approve", false],
  ["{}", {}, false],
  ['{ decision: "reject" }', { decision: "reject" }, false],
  ["approve with an input", { decision: "approve", input: { command: "rm -rf /" } }, false],
  ["an edit to a string", { decision: "edit", input: "rm -rf /" }, false],
  [
    "a getter that throws",
    {
      get decision(): string {
        throw new Error("boom");
      },
    },
    false,
  ],
];

describe("an approver's answers, through the reference agent", () => {
  it.each(corpus)("%s", async (_name, answer, runs) => {
    const ran: string[] = [];
    const stack = withMiddleware(createAgentStack({ approval: () => answer as never }), approval({ match: "Bash" }));
    const bash = defineTool<{ command: string }>({ name: "Bash", execute: ({ command }) => (ran.push(command), "done") });
    const model = createScriptedModel({ turns: [{ toolCalls: [{ id: "c1", name: "Bash", input: { command: "ls" } }] }, "ok"] });
    const turn = await createAgent({ model, stack, tools: [bash], permissionNotificationMs: false }).run("go");
    expect(turn.status).toBe("completed");
    expect(ran.length > 0).toBe(runs);
    if (!runs)
      expect(model.requests.at(-1)!.messages.find((m) => m.role === "tool")?.content).toMatch(/^Tool call Bash was rejected by approval: /);
  });
});
