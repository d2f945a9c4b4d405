/**
 * When the reference agent runs `sessionStart`, with which source (Claude Code's matcher values):
 * `startup` for a new session, `resume` for one that starts from an earlier conversation, and
 * `compact` after a compaction, whose hooks give their context again for the next request.
 */
import { describe, expect, it } from "vitest";
import {
  createAgent,
  createAgentStack,
  createScriptedModel,
  summarizeOldest,
  type Notification,
  type SessionStart,
} from "../../src/agent/index.ts";
import { Reject } from "../../src/core/index.ts";
import { lines } from "./helpers.ts";

describe("sessionStart", () => {
  it("is a startup for a new session and a resume for one that starts from messages, unless a source is given", async () => {
    const sources: string[] = [];
    const stack = createAgentStack().use("sessionStart", { name: "see", before: (s) => void sources.push((s as SessionStart).source) });
    const agent = createAgent({ model: createScriptedModel({ turns: [] }), stack });

    await agent.session();
    await agent.session({
      messages: [
        { role: "user", content: "earlier" },
        { role: "assistant", content: "answer" },
      ],
    });
    await agent.session({ messages: [{ role: "user", content: "earlier" }], source: "fork" });

    expect(sources).toEqual(["startup", "resume", "fork"]);
  });

  it("runs again with source compact after a compaction, and its context reaches the next request", async () => {
    const stack = createAgentStack().use("sessionStart", {
      name: "remind",
      match: "compact",
      before: (_s, ctx) => void ctx.addContext("The build uses pnpm."),
    });
    const model = createScriptedModel({ turns: [], whenDone: "ok" });
    const agent = createAgent({ model, stack, contextBudget: 12, compact: summarizeOldest({ keep: 1 }) });
    const session = await agent.session();

    await session.prompt("first question, long enough to pass the budget");
    await session.prompt("second question, long enough to pass the budget");

    const last = lines(model.requests.at(-1)!.messages);
    expect(last[0]).toMatch(/^system: Summary of \d+ earlier messages/);
    expect(last.at(-1)).toBe("system: The build uses pnpm.");
  });

  it("after a compaction, is told but not obeyed when a hook refuses: the session is open", async () => {
    const notices: Notification[] = [];
    const stack = createAgentStack().use("sessionStart", { name: "no-compact", match: "compact", before: () => Reject("no more") });
    const agent = createAgent({
      model: createScriptedModel({ turns: [], whenDone: "ok" }),
      stack,
      compact: summarizeOldest({ keep: 1 }),
      onNotification: (n) => notices.push(n),
    });
    const session = await agent.session();
    await session.prompt("one");

    await session.compact();

    expect((await session.prompt("two")).status).toBe("completed");
    expect(notices.map((n) => n.message)).toContain(
      "sessionStart (compact) was refused by no-compact, but the session is open and goes on: no more",
    );
  });
});
