/**
 * The event JSON a hook reads on stdin, recorded by a real child process, for events that
 * came from Claude Code through the bridge (fromClaudeEvent, then runBridge).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAgentStack } from "../../src/agent/stack.ts";
import { fromClaudeEvent } from "../../src/executors/bridge-event.ts";
import { commandHook } from "../../src/executors/command.ts";
import { runBridge } from "../../src/executors/bridge.ts";
import { fromClaudeSettings } from "../../src/executors/settings.ts";
import { node, tempDir } from "./helpers.ts";

/** Run `event` through settings whose `event` hook (with `matcher`) records its stdin; the recorded JSON, or undefined if it did not run. */
const recorded = async (event: Record<string, unknown>, matcher?: string): Promise<Record<string, unknown> | undefined> => {
  const dir = tempDir();
  const file = join(dir, "stdin.json");
  const { command, args } = node("record-event.mjs", file);
  const settings = {
    hooks: {
      [event.hook_event_name as string]: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: "command", command, args }] }],
    },
  };
  const { stack } = fromClaudeSettings([{ file: join(dir, "settings.json"), settings }], { cwd: dir });
  await runBridge(stack, fromClaudeEvent({ session_id: "s", cwd: dir, ...event }));
  await stack.flush();
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined;
};

describe("StopFailure from Claude Code", () => {
  it("keeps the incoming error as the matcher subject and on stdin, and passes error_details through as given", async () => {
    for (const type of [
      "authentication_failed",
      "billing_error",
      "server_error",
      "model_not_found",
      "oauth_org_not_allowed",
      "rate_limit",
    ]) {
      const got = await recorded({ hook_event_name: "StopFailure", error: type, error_details: "401 Unauthorized" }, type);
      expect(got).toMatchObject({ hook_event_name: "StopFailure", error: type, error_details: "401 Unauthorized" });
    }
    expect(await recorded({ hook_event_name: "StopFailure", error: "server_error" }, "rate_limit")).toBeUndefined();
    expect(await recorded({ hook_event_name: "StopFailure", error: "server_error" })).not.toHaveProperty("error_details");
  });

  it("uses StopFailure's narrower exact-match set: a comma keeps the matcher on the regular-expression path", async () => {
    expect(await recorded({ hook_event_name: "StopFailure", error: "rate_limit" }, "rate_limit, overloaded")).toBeUndefined();
    expect(await recorded({ hook_event_name: "StopFailure", error: "rate_limit" }, "rate_limit|overloaded")).toBeDefined();
  });
});

describe("documented values from Claude Code", () => {
  it("carries each value as given, as the matcher subject and on stdin, including ones we do not know yet", async () => {
    for (const [event, field, value] of [
      ["SessionStart", "source", "fork"],
      ["SessionEnd", "reason", "resume"],
      ["Notification", "notification_type", "auth_success"],
      ["Notification", "notification_type", "elicitation_dialog"],
      ["Notification", "notification_type", "agent_needs_input"],
      ["SessionStart", "source", "some_future_source"],
    ] as const) {
      const got = await recorded({ hook_event_name: event, [field]: value, message: "m" }, value);
      expect(got, `${event} ${field}=${value}`).toMatchObject({ hook_event_name: event, [field]: value });
    }
  });

  it("passes Notification's title and PreCompact's custom_instructions through", async () => {
    expect(
      await recorded({ hook_event_name: "Notification", notification_type: "idle_prompt", message: "waiting", title: "Claude Code" }),
    ).toMatchObject({ message: "waiting", notification_type: "idle_prompt", title: "Claude Code" });
    expect(await recorded({ hook_event_name: "PreCompact", trigger: "manual", custom_instructions: "keep the API notes" })).toMatchObject({
      trigger: "manual",
      custom_instructions: "keep the API notes",
    });
  });

  it("reads PreCompact's custom_instructions: null, as Claude Code sends it on a /compact without instructions, and sends it back so", async () => {
    expect(await recorded({ hook_event_name: "PreCompact", trigger: "manual", custom_instructions: null })).toMatchObject({
      trigger: "manual",
      custom_instructions: null,
    });
    expect(await recorded({ hook_event_name: "PreCompact", trigger: "auto" })).toMatchObject({ trigger: "auto", custom_instructions: "" });
  });
});

describe("hooks inside a sub-agent", () => {
  it("receive agent_id beside agent_type, and neither on the main thread", async () => {
    const file = join(tempDir(), "stdin.json");
    const stack = createAgentStack().use(
      "toolCall",
      commandHook({ event: "PreToolUse", ...node("record-event.mjs", file), timeoutMs: 5000 }),
    );
    const call = { id: "t1", name: "Read", input: { file_path: "/a" } };
    await stack.run("toolCall", call, () => ({ content: "ok" }), { sessionId: "s", path: ["main", "Explore"] });
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ agent_id: "main/Explore", agent_type: "Explore" });
    await stack.run("toolCall", call, () => ({ content: "ok" }), { sessionId: "s", path: ["main"] });
    const main = JSON.parse(readFileSync(file, "utf8"));
    expect(main).not.toHaveProperty("agent_id");
    expect(main).not.toHaveProperty("agent_type");
  });
});

describe("fields that come from the run", () => {
  it("send the prompt's id and a sub-agent's own transcript, when the run's metadata names them", async () => {
    const file = join(tempDir(), "stdin.json");
    const stack = createAgentStack().use(
      "subagentStop",
      commandHook({ event: "SubagentStop", ...node("record-event.mjs", file), timeoutMs: 5000 }),
    );
    await stack.run(
      "subagentStop",
      { reason: "stop", blockedCount: 0, agent: "helper", path: ["agent", "helper"] },
      () => ({ stop: true as const }),
      {
        sessionId: "s",
        path: ["agent", "helper"],
        metadata: { promptId: "p-1", agentTranscriptPath: "/t/s/subagents/agent-helper.jsonl" },
      },
    );
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({
      prompt_id: "p-1",
      agent_transcript_path: "/t/s/subagents/agent-helper.jsonl",
    });
  });
});

describe("StopFailure from a loop", () => {
  it("is an API error: hooks run for the error point's model failures, not a tool's or the loop's", async () => {
    const dir = tempDir();
    const file = join(dir, "stdin.json");
    const { command, args } = node("record-event.mjs", file);
    const { stack } = fromClaudeSettings({ hooks: { StopFailure: [{ hooks: [{ type: "command", command, args }] }] } }, { cwd: dir });
    for (const where of ["tool", "loop", "hook"] as const)
      await stack.run("error", { where, error: new Error("down"), attempt: 1 }, () => ({ action: "fail" as const }));
    expect(existsSync(file)).toBe(false);
    await stack.run(
      "error",
      { where: "model", error: Object.assign(new Error("429 Too Many Requests"), { status: 429 }), attempt: 1 },
      () => ({ action: "fail" as const }),
    );
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({
      hook_event_name: "StopFailure",
      error: "rate_limit",
      error_details: "429 Too Many Requests",
    });
  });
});
