/**
 * The notifications the reference agent sends through the `notification` point (Claude Code's
 * Notification): `idle_prompt` when a session has waited for its next prompt, `error` when a
 * turn failed, beside its warnings and notices. A Notification command hook receives them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAgent, createAgentStack, createScriptedModel, type Notification } from "../../src/agent/index.ts";
import { fromClaudeSettings } from "../../src/executors/index.ts";
import { answer, on, settings } from "../support/claude-code/hooks.ts";
import { tempDir } from "../executors/helpers.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("idle_prompt", () => {
  it("is sent once when a session waits for its next prompt, and not while a prompt runs or after the close", async () => {
    const notices: Notification[] = [];
    const agent = createAgent({
      model: createScriptedModel({ turns: [], whenDone: "ok" }),
      stack: createAgentStack(),
      idleNotificationMs: 30,
      onNotification: (n) => notices.push(n),
    });
    const session = await agent.session();

    await session.prompt("one");
    await session.prompt("two"); // asked before the wait is over: no notice for the first
    await sleep(120);
    await session.prompt("three");
    await session.close();
    await sleep(120);

    expect(notices).toEqual([{ type: "idle_prompt", message: "agent is waiting for your input" }]);
  });

  it("is never sent with idleNotificationMs: false", async () => {
    const notices: Notification[] = [];
    const session = await createAgent({
      model: createScriptedModel({ turns: [], whenDone: "ok" }),
      stack: createAgentStack(),
      idleNotificationMs: false,
      onNotification: (n) => notices.push(n),
    }).session();

    await session.prompt("one");
    await sleep(60);
    await session.close();

    expect(notices).toEqual([]);
  });

  it("reaches a Notification command hook as Claude Code sends it", async () => {
    const dir = tempDir();
    const { stack } = fromClaudeSettings(settings(on("Notification", "idle_prompt", answer({ save: "$CLAUDE_PROJECT_DIR/idle.json" }))), {
      cwd: dir,
      projectDir: dir,
    });
    const session = await createAgent({ model: createScriptedModel({ turns: [], whenDone: "ok" }), stack, idleNotificationMs: 10 }).session(
      { sessionId: "s1" },
    );

    await session.prompt("one");
    await expect
      .poll(
        () => {
          try {
            return JSON.parse(readFileSync(join(dir, "idle.json"), "utf8")) as unknown;
          } catch {
            return undefined;
          }
        },
        { timeout: 5000 },
      )
      .toEqual({
        session_id: "s1",
        transcript_path: expect.any(String),
        cwd: dir,
        prompt_id: expect.any(String),
        hook_event_name: "Notification",
        message: "agent is waiting for your input",
        notification_type: "idle_prompt",
      });
    await session.close();
  });

  it("says which option is wrong", () => {
    const base = { model: createScriptedModel({ turns: [] }), stack: createAgentStack() };
    expect(() => createAgent({ ...base, idleNotificationMs: -1 })).toThrow(
      "createAgent: idleNotificationMs must be a number of ms from 0 or false, got -1",
    );
    expect(() => createAgent({ ...base, permissionNotificationMs: true as never })).toThrow(
      "createAgent: permissionNotificationMs must be a number of ms from 0 or false, got true",
    );
  });
});

describe("error", () => {
  it("is sent when a turn fails, saying why", async () => {
    const notices: Notification[] = [];
    const model = createScriptedModel({ turns: [{ error: new Error("provider down") }] });

    const turn = await createAgent({
      model,
      stack: createAgentStack(),
      idleNotificationMs: false,
      onNotification: (n) => notices.push(n),
    }).run("go");

    expect(turn.status).toBe("failed");
    expect(notices).toEqual([{ type: "error", message: "agent failed: provider down" }]);
  });
});
