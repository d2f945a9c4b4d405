/**
 * Permission requests in the reference agent: when a tool call's hook asks for approval, the
 * `permissionRequest` gate runs first (Claude Code's PermissionRequest, here with real command
 * hooks from settings and with in-process hooks); when no hook answers, the stack's approval
 * handler is asked, and a `permission_prompt` notification goes out if it is slow to answer.
 */
import { describe, expect, it } from "vitest";
import { createAgent, createAgentStack, createScriptedModel, type Notification, type PermissionDecision } from "../../src/agent/index.ts";
import { Reject, Replace } from "../../src/core/index.ts";
import { fromClaudeSettings } from "../../src/executors/index.ts";
import { approval, withMiddleware } from "../../src/middleware/index.ts";
import { answer, decision, on, settings, specific } from "../support/claude-code/hooks.ts";
import { bashTool } from "./helpers.ts";

const oneCall = (command: string) =>
  createScriptedModel({ turns: [{ toolCalls: [{ name: "Bash", input: { command }, id: "c1" }] }, "Done."] });
const askAll = on("PreToolUse", "Bash", answer({ out: decision("ask", "a person decides") }));
const lastToolMessage = (model: ReturnType<typeof oneCall>) => model.requests[1]!.messages.at(-1)!;

describe("a permission request from settings hooks", () => {
  it("lets a PermissionRequest hook allow the call in the person's place", async () => {
    const ran: string[] = [];
    const { stack } = fromClaudeSettings(
      settings(
        askAll,
        on("PermissionRequest", "Bash", answer({ out: specific("PermissionRequest", { decision: { behavior: "allow" } }) })),
      ),
    );

    await createAgent({ model: oneCall("ls"), stack, tools: [bashTool(ran)] }).run("go");

    expect(ran).toEqual(["ls"]);
  });

  it("runs the input a PermissionRequest hook's allow rewrote, once the PreToolUse hooks saw it", async () => {
    const ran: string[] = [];
    const allowRewritten = answer({
      out: specific("PermissionRequest", { decision: { behavior: "allow", updatedInput: { command: "npm run lint" } } }),
    });
    const { stack } = fromClaudeSettings(
      settings(
        on("PreToolUse", "Bash", answer({ out: decision("ask", "tests need a person") }, { if: "Bash(npm test)" })),
        on("PreToolUse", "Bash", answer({ out: decision("deny", "no linting today") }, { if: "Bash(npm run lint)" })),
        on("PermissionRequest", "Bash", allowRewritten),
      ),
    );
    const model = oneCall("npm test");

    await createAgent({ model, stack, tools: [bashTool(ran)] }).run("go");

    expect(ran).toEqual([]);
    expect(lastToolMessage(model)).toMatchObject({ isError: true, content: expect.stringContaining("no linting today") });
  });

  it("refuses the call with the deny's message for the model", async () => {
    const ran: string[] = [];
    const { stack } = fromClaudeSettings(
      settings(
        askAll,
        on(
          "PermissionRequest",
          "Bash",
          answer({ out: specific("PermissionRequest", { decision: { behavior: "deny", message: "not on Fridays" } }) }),
        ),
      ),
    );
    const model = oneCall("ls");

    await createAgent({ model, stack, tools: [bashTool(ran)] }).run("go");

    expect(ran).toEqual([]);
    expect(lastToolMessage(model)).toMatchObject({ isError: true, content: expect.stringContaining("not on Fridays") });
  });

  it("without an answer from hooks or a handler, is the denial it always was", async () => {
    const ran: string[] = [];
    const { stack } = fromClaudeSettings(settings(askAll, on("PermissionRequest", "Bash", answer({}))));
    const model = oneCall("ls");

    await createAgent({ model, stack, tools: [bashTool(ran)] }).run("go");

    expect(ran).toEqual([]);
    expect(lastToolMessage(model).content).toMatch(/no approval handler is configured, so no one could approve/);
  });
});

describe("a permission request in process", () => {
  it("goes to the approval handler when no hook answers, with a permission_prompt notification when it is slow", async () => {
    const ran: string[] = [];
    const notices: Notification[] = [];
    const asked: unknown[] = [];
    const handler = async (request: { input: unknown }) => {
      asked.push(request.input);
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { decision: "approve" as const };
    };
    const agent = createAgent({
      model: oneCall("ls"),
      stack: withMiddleware(createAgentStack({ approval: handler }), approval()),
      tools: [bashTool(ran)],
      permissionNotificationMs: 10,
      onNotification: (n) => notices.push(n),
    });

    await agent.run("go");

    expect(ran).toEqual(["ls"]);
    expect(asked).toEqual([{ id: "c1", name: "Bash", input: { command: "ls" } }]);
    expect(notices).toEqual([{ type: "permission_prompt", message: "agent needs your permission to use Bash" }]);
  });

  it("sends no permission_prompt for an answer that comes in time, nor when a permissionRequest hook answers", async () => {
    const notices: Notification[] = [];
    const quick = withMiddleware(createAgentStack({ approval: () => ({ decision: "approve" }) }), approval());
    const answered = withMiddleware(createAgentStack({ approval: () => ({ decision: "deny", reason: "never asked" }) }), approval()).use(
      "permissionRequest",
      { name: "policy", before: () => Replace({ behavior: "allow" } satisfies PermissionDecision) },
    );
    const ran: string[] = [];

    for (const stack of [quick, answered])
      await createAgent({
        model: oneCall("ls"),
        stack,
        tools: [bashTool(ran)],
        permissionNotificationMs: 1000,
        onNotification: (n) => notices.push(n),
      }).run("go");

    expect(ran).toEqual(["ls", "ls"]);
    expect(notices).toEqual([]);
  });

  it("lets an in-process hook refuse the request, with its reason for the model", async () => {
    const ran: string[] = [];
    const stack = withMiddleware(createAgentStack({ approval: () => ({ decision: "approve" }) }), approval()).use("permissionRequest", {
      name: "no-shell",
      match: "Bash",
      before: (r) => Reject(`no shell for ${r.call.name}`),
    });
    const model = oneCall("ls");

    await createAgent({ model, stack, tools: [bashTool(ran)] }).run("go");

    expect(ran).toEqual([]);
    expect(lastToolMessage(model).content).toContain("no shell for Bash");
  });
});
