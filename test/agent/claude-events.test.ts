/**
 * Every Claude Code event with a counterpart in an agent loop, driven by the reference agent:
 * settings loaded with `fromClaudeSettings`, real command hooks (a recording script on each event)
 * fire at the moment Claude Code fires them, with the input JSON Claude Code sends (its fields held
 * to the events the real binary sent, test/fixtures/claude-code/events).
 */
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createAgent, createScriptedModel, defineTool, type ErrorDecision, type ModelRequest } from "../../src/agent/index.ts";
import { Replace } from "../../src/core/action.ts";
import { fromClaudeSettings } from "../../src/executors/index.ts";
import { answer, fixtures, on, settings, shell, specific } from "../support/claude-code/hooks.ts";
import { tempDir } from "../executors/helpers.ts";
import { scaled } from "../support/scale.ts";

const record = (out?: object) =>
  answer({ save: "$CLAUDE_PROJECT_DIR/.events/$(date +%s%N)-$$.json", ...(out !== undefined ? { out } : {}) });

/** The events a run's recording hooks saved, in the order they arrived. */
const recorded = (dir: string): Record<string, unknown>[] =>
  readdirSync(join(dir, ".events"))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, ".events", f), "utf8")) as Record<string, unknown>);

const fixture = (event: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(fixtures, "events", `${event}.json`), "utf8")) as Record<string, unknown>;

const write = defineTool<{ file_path?: unknown; content?: unknown }>({
  name: "Write",
  execute: ({ file_path }) => ({ type: "create", filePath: String(file_path) }),
});

/** The main loop's answers, one per request, and the sub-agent's. */
const script = (request: ModelRequest) => {
  if (request.messages[0]?.content === "You help.") return "helped";
  const results = request.messages.filter((m) => m.role === "tool").length;
  const last = request.messages.at(-1)!;
  if (last.role === "user" && last.content === "fail now")
    return { error: Object.assign(new Error("429 Too Many Requests"), { status: 429 }) };
  return (
    [
      { toolCalls: [{ name: "Bash", input: { command: "echo hi" }, id: "toolu_1" }] },
      { toolCalls: [{ name: "Bash", input: { command: "exit 3" }, id: "toolu_2" }] },
      { toolCalls: [{ name: "Write", input: { file_path: "notes.txt", content: "notes\n" }, id: "toolu_3" }] },
      { toolCalls: [{ name: "helper", input: { prompt: "look around" }, id: "toolu_4" }] },
    ][results] ?? "Done."
  );
};

describe("the Claude Code events the reference agent drives", () => {
  let dir: string;
  let events: Record<string, unknown>[];
  let ran: string[];

  beforeAll(async () => {
    dir = tempDir();
    mkdirSync(join(dir, ".events"));
    const all = [
      "SessionStart",
      "UserPromptSubmit",
      "PostToolUse",
      "PostToolUseFailure",
      "PostToolBatch",
      "SubagentStart",
      "SubagentStop",
      "Stop",
      "PreCompact",
      "PostCompact",
      "Notification",
      "StopFailure",
      "SessionEnd",
    ];
    const { stack } = fromClaudeSettings(
      settings(
        ...all.map((event) => on(event, undefined, record())),
        on("PreToolUse", undefined, record()),
        // Write needs permission (the agent's policy allows only Bash): a PermissionRequest hook answers in the person's place.
        on("PermissionRequest", "Write", record(specific("PermissionRequest", { decision: { behavior: "allow" } }))),
      ),
      { cwd: dir, projectDir: dir, effort: "medium" },
    );
    ran = [];
    const failing = defineTool({
      name: "Bash",
      execute: ({ command }) => {
        ran.push(String(command));
        if (command === "exit 3") throw new Error("Exit code 3");
        return "hi";
      },
    });
    const agent = createAgent({
      model: createScriptedModel({ turns: [], whenDone: script }),
      stack,
      tools: [failing, write],
      subagents: [{ name: "helper", system: "You help." }],
      transcript: { dir: join(dir, "transcripts") },
      idleNotificationMs: false,
      permissions: { allow: ["Bash"] },
    });
    const session = await agent.session({ sessionId: "s-events" });
    await session.prompt("Run the task.");
    await session.compact();
    await session.prompt("fail now");
    await session.close();
    events = recorded(dir);
  }, scaled(60_000));

  it("fires each event at the moment Claude Code does", () => {
    expect(
      events.map(
        (e) => `${String(e.hook_event_name)}${e.tool_name ? `:${String(e.tool_name)}` : ""}${e.source ? `:${String(e.source)}` : ""}`,
      ),
    ).toEqual([
      "SessionStart:startup",
      "UserPromptSubmit",
      "PreToolUse:Bash",
      "PostToolUse:Bash",
      "PostToolBatch",
      "PreToolUse:Bash",
      "PostToolUseFailure:Bash",
      "PostToolBatch",
      "PreToolUse:Write",
      "PermissionRequest:Write",
      "PostToolUse:Write",
      "PostToolBatch",
      "PreToolUse:helper",
      "SubagentStart",
      "SubagentStop",
      "PostToolUse:helper",
      "PostToolBatch",
      "Stop",
      "PreCompact",
      "PostCompact",
      "Notification",
      "SessionStart:compact",
      "UserPromptSubmit",
      "StopFailure",
      "Notification",
      "SessionEnd",
    ]);
    expect(ran).toEqual(["echo hi", "exit 3"]);
  });

  it("fills the fields of each event from the run: the compaction's trigger, the sub-agent's own transcript, the prompt's id", () => {
    const of = (name: string) => events.find((e) => e.hook_event_name === name)!;
    expect(of("PreCompact")).toMatchObject({ trigger: "manual", custom_instructions: null });
    expect(of("PostCompact")).toMatchObject({ trigger: "manual", compact_summary: expect.stringMatching(/^Summary of /) });
    expect(of("SubagentStop")).toMatchObject({
      agent_type: "helper",
      agent_transcript_path: join(dir, "transcripts", "s-events", "subagents", "agent-helper-toolu_4.jsonl"),
      last_assistant_message: "helped",
    });
    expect(of("StopFailure")).toMatchObject({ error: "rate_limit", error_details: "429 Too Many Requests" });
    // What the real binary suggested for a Write without permission.
    expect(of("PermissionRequest").permission_suggestions).toEqual(fixture("PermissionRequest").permission_suggestions);
    expect(of("Notification")).toMatchObject({
      notification_type: "info",
      message: expect.stringMatching(/^Context compacted \(manual\)/),
    });
    const transcript = join(dir, "transcripts", "s-events.jsonl");
    expect(new Set(events.map((e) => e.transcript_path))).toEqual(new Set([transcript]));
    // One prompt id per prompt, on every event after it.
    const ids = events.map((e) => e.prompt_id);
    expect(ids[0]).toBeUndefined();
    expect(new Set(ids.slice(1, 22)).size).toBe(1);
    expect(new Set(ids.slice(22)).size).toBe(1);
    expect(ids[22]).not.toBe(ids[1]);
  });

  it("sends each event with the fields Claude Code sends", () => {
    const differences: Record<string, { missing: string[]; extra: string[] }> = {};
    for (const event of events) {
      const name = String(event.hook_event_name);
      let theirs: Record<string, unknown>;
      try {
        theirs = fixture(name);
      } catch {
        continue; // no recording of it: Claude Code did not fire it offline (Notification, StopFailure, PostCompact)
      }
      const missing = Object.keys(theirs)
        .filter((k) => !(k in event))
        .sort();
      const extra = Object.keys(event)
        .filter((k) => !(k in theirs))
        .sort();
      if (missing.length > 0 || extra.length > 0)
        differences[`${name}${event.tool_name ? `:${String(event.tool_name)}` : ""}${event.source ? `:${String(event.source)}` : ""}`] ??= {
          missing,
          extra,
        };
    }
    expect(differences).toEqual({
      // Recorded at startup, before any prompt; after one, prompt_id comes with every event (the reference's rule).
      "SessionStart:compact": { missing: [], extra: ["prompt_id"] },
    });
  });
});

describe("PostToolUse and PostToolUseFailure", () => {
  it("carry the tool's own run time as duration_ms, without the time of the hooks before it", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, ".events"));
    const { stack } = fromClaudeSettings(
      settings(
        on("PreToolUse", undefined, shell("sleep 1")),
        on("PostToolUse", undefined, record()),
        on("PostToolUseFailure", undefined, record()),
      ),
      { cwd: dir, projectDir: dir },
    );
    const slow = defineTool<{ ms?: unknown; fail?: unknown }>({
      name: "Slow",
      execute: async ({ ms, fail }) => {
        await new Promise((r) => setTimeout(r, Number(ms)));
        if (fail === true) throw new Error("gave up");
        return "done";
      },
    });
    const model = createScriptedModel({
      turns: [
        {
          toolCalls: [
            { name: "Slow", input: { ms: 150 }, id: "t1" },
            { name: "Slow", input: { ms: 50, fail: true }, id: "t2" },
          ],
        },
        "Done.",
      ],
    });

    await createAgent({ model, stack, tools: [slow], transcript: false, idleNotificationMs: false }).run("go");

    const byEvent = Object.fromEntries(recorded(dir).map((e) => [String(e.hook_event_name), e.duration_ms as number]));
    expect(byEvent.PostToolUse).toBeGreaterThanOrEqual(145);
    expect(byEvent.PostToolUse).toBeLessThan(1000); // the PreToolUse hook's second is not counted
    expect(byEvent.PostToolUseFailure).toBeGreaterThanOrEqual(45);
    expect(byEvent.PostToolUseFailure).toBeLessThan(1000);
  });
});

describe("StopFailure", () => {
  it("fires when a model call fails, not when a tool does", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, ".events"));
    const { stack } = fromClaudeSettings(settings(on("StopFailure", undefined, record())), { cwd: dir, projectDir: dir });
    const broken = defineTool({
      name: "Broken",
      execute: () => {
        throw new Error("tool down");
      },
    });
    const model = createScriptedModel({
      turns: [{ toolCalls: [{ name: "Broken", input: {} }] }, { error: Object.assign(new Error("overloaded"), { status: 529 }) }],
    });

    const turn = await createAgent({ model, stack, tools: [broken], transcript: false, idleNotificationMs: false }).run("go");

    expect(turn.status).toBe("failed");
    expect(recorded(dir)).toEqual([
      expect.objectContaining({
        hook_event_name: "StopFailure",
        error: "overloaded",
        error_details: "overloaded",
        last_assistant_message: "API Error: overloaded",
      }),
    ]);
  });

  /** One turn whose model fails as `failures` say, then answers; an `error` hook decides with `decide`. */
  const turnWith = async (failures: readonly Error[], decide?: (attempt: number) => ErrorDecision) => {
    const dir = tempDir();
    mkdirSync(join(dir, ".events"));
    const { stack } = fromClaudeSettings(settings(on("StopFailure", undefined, record())), { cwd: dir, projectDir: dir });
    const withHook = decide === undefined ? stack : stack.use("error", { name: "decider", before: (e) => Replace(decide(e.attempt)) });
    const model = createScriptedModel({ turns: [...failures.map((error) => ({ error })), "Done."] });
    const turn = await createAgent({ model, stack: withHook, transcript: false, idleNotificationMs: false }).run("go");
    return { turn, events: recorded(dir) };
  };
  const status = (code: number, message = `${code}`) => Object.assign(new Error(message), { status: code });

  it("fires only when the failure ends the turn: not for one an error hook retries or recovers from", async () => {
    const retried = await turnWith([status(429)], () => ({ action: "retry" }));
    expect(retried.turn.status).toBe("completed");
    expect(retried.events).toEqual([]);

    const recovered = await turnWith([status(500)], () => ({ action: "recover", value: "fallback answer" }));
    expect(recovered.turn).toMatchObject({ status: "completed", text: "fallback answer" });
    expect(recovered.events).toEqual([]);

    const retriedThenFailed = await turnWith([status(429), status(401, "401 Unauthorized")], (attempt) => ({
      action: attempt === 1 ? "retry" : "fail",
    }));
    expect(retriedThenFailed.turn.status).toBe("failed");
    expect(retriedThenFailed.events).toEqual([
      expect.objectContaining({ error: "authentication_failed", error_details: "401 Unauthorized" }),
    ]);
  });

  it.each([
    [429, "rate_limit"],
    [529, "overloaded"],
    [401, "authentication_failed"],
    [402, "billing_error"],
    [404, "model_not_found"],
    [400, "invalid_request"],
    [503, "server_error"],
  ])("reports a model call failing with HTTP %i as %s", async (code, type) => {
    const { events } = await turnWith([status(code)]);
    expect(events).toEqual([expect.objectContaining({ hook_event_name: "StopFailure", error: type })]);
  });

  it("fires instead of Stop when the answer is cut at the output limit (max_output_tokens), as Claude Code does", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, ".events"));
    const { stack } = fromClaudeSettings(settings(on("StopFailure", undefined, record()), on("Stop", undefined, record())), {
      cwd: dir,
      projectDir: dir,
    });
    const model = createScriptedModel({ turns: [{ text: "a long answer that", finishReason: "length" }] });
    const turn = await createAgent({ model, stack, transcript: false, idleNotificationMs: false }).run("go");
    expect(turn).toMatchObject({ status: "completed", finishReason: "length", text: "a long answer that" });
    expect(recorded(dir)).toEqual([expect.objectContaining({ hook_event_name: "StopFailure", error: "max_output_tokens" })]);
  });

  it("lets an error hook have the model go on from an answer cut at the output limit; then no StopFailure", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, ".events"));
    const { stack } = fromClaudeSettings(settings(on("StopFailure", undefined, record())), { cwd: dir, projectDir: dir });
    const goOn = stack.use("error", {
      name: "go-on",
      before: (e) => Replace({ action: e.attempt === 1 ? "retry" : "fail" } as ErrorDecision),
    });
    const model = createScriptedModel({ turns: [{ text: "first half", finishReason: "length" }, "second half."] });
    const turn = await createAgent({ model, stack: goOn, transcript: false, idleNotificationMs: false }).run("go");
    expect(turn).toMatchObject({ status: "completed", finishReason: "stop", text: "second half." });
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({
      role: "user",
      content: expect.stringMatching(/cut off at the output token limit/),
    });
    expect(recorded(dir)).toEqual([]);
  });

  it("reports a failure without an HTTP status (a network error) as unknown", async () => {
    const { events } = await turnWith([Object.assign(new Error("socket hang up"), { code: "ECONNRESET" })]);
    expect(events).toEqual([expect.objectContaining({ error: "unknown", error_details: "socket hang up" })]);
  });
});
