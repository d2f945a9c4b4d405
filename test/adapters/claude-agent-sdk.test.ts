/**
 * `claudeAgentGuard` with the real Claude Agent SDK and the real Claude Code it starts, offline:
 * each scenario (claude-agent-sdk/scenarios.ts) runs in a worker inside a network namespace with
 * loopback only, against the scripted mock Messages API. What the model read is what the mock
 * received in the next request; what ran is the `ran-<id>` files the commands created.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeClaudeCode } from "../support/claude-code/suite.ts";
import { runAgentSdk, socketTo, type AgentSdkRun } from "../support/claude-code/run-agent-sdk.ts";
import { bashTurn, executedIn } from "../support/claude-code/run-claude-code.ts";
import { isMainLoop } from "../support/claude-code/event-runs.ts";
import { conversationText, toolExchanges } from "../support/claude-code/model-view.ts";
import type { MockAnswer, MockTurn } from "../support/claude-code/mock-anthropic.ts";
import { redisAvailable, redisBinary } from "../support/redis-availability.ts";
import { startRedis, type RedisServer } from "../support/redis.ts";

const module = join(fileURLToPath(new URL(".", import.meta.url)), "claude-agent-sdk", "scenarios.ts");

/** A run, with the worker's stderr in the message when its scenario failed. */
const run = async (scenario: string, options: Omit<Parameters<typeof runAgentSdk>[0], "module" | "scenario">): Promise<AgentSdkRun> => {
  const r = await runAgentSdk({ module, scenario, ...options });
  if (r.failure !== undefined && !options.args?.expectFailure)
    throw new Error(`${scenario} failed: ${r.failure.error}\n${r.stderr.slice(-3000)}`);
  return r;
};

interface Seen {
  point: string;
  subject?: string;
  outcome: string;
  reason?: string;
  error?: string;
  input: any;
  output?: any;
  durationMs: number;
  metadata: Record<string, unknown>;
  path: string[];
}
const toolRuns = (r: AgentSdkRun): Seen[] => (r.result.seen as Seen[]).filter((s) => s.point === "toolCall");

describeClaudeCode("claudeAgentGuard with the real Claude Agent SDK", () => {
  it.concurrent("refuses, rewrites and observes tool calls as Claude Code reports its own hooks' answers", async () => {
    const r = await run("guarded", {
      turns: [
        bashTurn("rm -rf ./victim"),
        bashTurn("touch ran-orig"),
        bashTurn("echo key=sk-live-abc123"),
        bashTurn("sleep 0.3 && touch ran-slow"),
        bashTurn("exit 3"),
        "Done.",
      ],
      files: { "victim/keep": "keep me\n" },
    });
    const [refused, rewritten, redacted, , failed] = r.toolResults;
    // A refused call never runs; the model reads the reason as an error result, the way Claude Code reports a hook's deny.
    expect(refused).toMatchObject({
      isError: true,
      text: 'PreToolUse:Bash hook error: Tool "Bash" is blocked by policy: it matches deny rule "Bash(rm *)"',
    });
    // The rewritten command is what ran; the original never did.
    expect(r.executed).toEqual(["rewritten", "slow"]);
    expect(rewritten).toMatchObject({ isError: false, alongside: ["PreToolUse:Bash hook additional context: agent-onion saw this call"] });
    // The output a hook rewrote is what the model read; the secret never reached it.
    expect(redacted?.text).toBe("key=[redacted]");
    expect(r.modelSaw("sk-live-abc123")).toBe(false);
    // A tool that failed is reported to the model as Claude Code reports it, and fails the call's run.
    expect(failed).toMatchObject({ isError: true, text: "Exit code 3" });
    expect(r.result.result).toMatchObject({ subtype: "success", result: "Done." });
    // One toolCall run per call, from PreToolUse to PostToolUse: it saw the tool's output, and lasted as long as the tool.
    const runs = toolRuns(r);
    expect(runs.map((s) => [s.input.input.command, s.outcome])).toEqual([
      ["rm -rf ./victim", "Rejected"],
      ["touch ran-orig", "Completed"],
      ["echo key=sk-live-abc123", "Completed"],
      ["sleep 0.3 && touch ran-slow", "Completed"],
      ["exit 3", "Failed"],
    ]);
    expect(runs[4]?.error).toBe("ClaudeToolError: Exit code 3");
    expect(runs[2]?.output.content).toMatchObject({ stdout: "key=[redacted]", stderr: "" });
    expect(runs[3]!.durationMs).toBeGreaterThanOrEqual(300);
    expect(runs[1]?.metadata).toMatchObject({ claudeEvent: "PreToolUse", cwd: r.dirs.project, permissionMode: "default" });
  }, 60_000);

  it.concurrent("withholds a refused output in the tool's own shape, and puts a plain-text answer where the model reads it", async () => {
    const r = await run("outputs", {
      args: { allowedTools: ["Bash", "Read"] },
      files: { "secret.txt": "TOP-SECRET plans\n", "plain.txt": "hello\n" },
      turns: [
        { toolUses: [{ name: "Read", input: { file_path: "secret.txt" } }] },
        bashTurn("echo TOP-SECRET"),
        { toolUses: [{ name: "Read", input: { file_path: "plain.txt" } }] },
        bashTurn("echo plain"),
        "Done.",
      ],
    });
    const [read, bash, readPlain, bashPlain] = r.toolResults;
    const withheld = (tool: string) => `Tool result of ${tool} withheld by output-gate: the output holds a classified marker`;
    // Read's output is line-numbered by Claude Code from the file content we replaced.
    expect(read).toMatchObject({
      text: `1\t${withheld("Read")}`,
      alongside: [`PostToolUse:Read hook blocking error from command: "callback": ${withheld("Read")}`],
    });
    expect(bash).toMatchObject({ text: withheld("Bash") });
    expect(r.modelSaw("TOP-SECRET")).toBe(false);
    expect(readPlain?.text).toBe("1\treplaced as plain text");
    expect(bashPlain?.text).toBe("replaced as plain text");
  }, 60_000);

  it.concurrent("refuses a call whose guard crashed (fail-closed) and one a hook answered in the tool's place", async () => {
    const r = await run("failures", { turns: [bashTurn("touch ran-broken"), bashTurn("touch ran-cached"), "Done."] });
    expect(r.executed).toEqual([]);
    expect(r.toolResults.map((t) => [t.text, t.isError])).toEqual([
      ['PreToolUse:Bash hook error: hook "broken-guard" failed in before on toolCall: threw: guard crashed', true],
      ["PreToolUse:Bash hook error: answered by a hook instead of running Bash: cached answer", true],
    ]);
  }, 60_000);

  it.concurrent("answers Claude Code's permission prompt with the permissionRequest point and the stack's approval handler", async () => {
    const r = await run("permissions", {
      args: { allowedTools: [] },
      turns: [bashTurn("touch ran-ok"), bashTurn("touch ran-no"), bashTurn("touch ran-edit"), "Done."],
    });
    // Approved, denied by the person, and edited by a permissionRequest hook without asking anyone.
    expect(r.executed).toEqual(["edited", "ok"]);
    expect(r.toolResults[1]).toMatchObject({ text: "the person said no", isError: true });
    expect(r.result.asked).toEqual([
      { point: "permissionRequest", hook: "canUseTool", subject: "Bash", reason: "Bash needs permission" },
      { point: "permissionRequest", hook: "canUseTool", subject: "Bash", reason: "Bash needs permission" },
    ]);
    // The refused call's toolCall run settles as a call Claude Code did not run.
    expect(toolRuns(r).map((s) => [s.outcome, s.error ?? ""])).toEqual([
      ["Completed", ""],
      ["Failed", "ClaudeToolNotRunError: Claude Code did not run Bash: canUseTool denied it: the person said no"],
      ["Completed", ""],
    ]);
  }, 60_000);

  it.concurrent("asks the stack's approval handler in process when no pause is configured", async () => {
    const r = await run("approvedInProcess", { turns: [bashTurn("touch ran-yes"), bashTurn("touch ran-no"), "Done."] });
    expect(r.executed).toEqual(["yes"]);
    expect(r.toolResults[1]).toMatchObject({ text: "PreToolUse:Bash hook error: Bash was not approved: not this one", isError: true });
  }, 60_000);

  it.concurrent("runs session, prompt, stop and batch hooks through the same bridge as claude-hook", async () => {
    const r = await run("lifecycle", {
      args: {
        prompts: [
          "Run the task.",
          "Now drop the database.",
          "Use the key sk-live-abc123 directly.",
          "guard:Use the key sk-live-abc123 through the guard.",
        ],
      },
      turns: [bashTurn("touch ran-1"), "Done once.", "Done after the tests.", "Used it.", "Done again."],
    });
    const [first, second, direct, guarded] = r.result.runs as { result: { result: string; subtype: string } }[];
    // Claude Code does not call the SDK's SessionStart callbacks: sessionStart runs at the session's first
    // prompt, and its context goes with the prompt's; the batch hook's context reaches the next call.
    expect(r.modelSaw("UserPromptSubmit hook additional context: Current branch: feature/onion\n\nAnswer in English.")).toBe(true);
    expect(r.modelSaw("PostToolBatch hook additional context: 1 call(s) done")).toBe(true);
    // The stop hook sent the model back once with its reason, then let it stop.
    expect(r.modelSaw("run the tests before stopping")).toBe(true);
    // (Two stops for the first prompt, one for the last; the refused prompts never reached a stop.)
    expect(r.result.stops).toBe(3);
    expect(first?.result).toMatchObject({ subtype: "success", result: "Done after the tests." });
    // The second prompt was refused before any model call.
    expect(second?.result.result).toBe(
      "UserPromptSubmit operation blocked by hook:\nprompts about dropping databases are refused\n\nOriginal prompt: Now drop the database.",
    );
    // Claude Code cannot take a rewritten prompt from a hook: sent directly, the rewrite blocks it; through guard.prompt, the rewrite is what is sent.
    expect(direct?.result.result).toContain(
      "A hook rewrote this prompt and Claude Code cannot replace it. Rewritten prompt: Use the key [redacted] directly.",
    );
    expect(guarded?.result).toMatchObject({ subtype: "success", result: "Used it." });
    expect(r.modelSaw("Use the key [redacted] through the guard.")).toBe(true);
    expect(r.modelSaw("sk-live-abc123")).toBe(false);
    expect(r.modelCalls).toHaveLength(4);
    // The prompt sent through the guard ran userPrompt once, not again in UserPromptSubmit.
    expect((r.result.seen as Seen[]).filter((s) => s.point === "userPrompt").map((s) => s.outcome)).toEqual([
      "Completed",
      "Rejected",
      "Completed",
      "Completed",
    ]);
  }, 60_000);
});

/** The main loop starts an Explore sub-agent, which tries `rm`, then runs `touch ran-sub`; each follows its own script. */
const subagentScript = (): MockTurn => {
  const main: (string | MockAnswer)[] = [
    {
      toolUses: [
        {
          name: "Agent",
          input: { description: "Look around", prompt: "Clean up, create the marker file, then report.", subagent_type: "Explore" },
        },
      ],
    },
    "Waiting for the sub-agent.",
  ];
  const sub = [bashTurn("rm -rf ./victim"), bashTurn("touch ran-sub"), "Sub-agent finished."] as (string | MockAnswer)[];
  return (request) => (isMainLoop(request.body) ? main : sub).shift() ?? "Done.";
};

describeClaudeCode("claudeAgentGuard around a real sub-agent", () => {
  it("guards the sub-agent's calls with the same stack, and gives it the context of its start", async () => {
    const r = await run("subagent", { turns: [], whenDone: subagentScript(), files: { "victim/keep": "keep me\n" } });
    const subCalls = r.modelCalls.filter((c) => !isMainLoop(c.body));
    expect(subCalls.length).toBeGreaterThanOrEqual(3);
    const last = subCalls.at(-1)!.body!;
    // The sub-agent's model read the policy's refusal as Claude Code reports a hook's deny; the allowed call ran.
    expect(toolExchanges(last).map((t) => [t.text, t.isError])).toEqual([
      ['PreToolUse:Bash hook error: Tool "Bash" is blocked by policy: it matches deny rule "Bash(rm *)"', true],
      ["(Bash completed with no output)", false],
    ]);
    expect(r.executed).toEqual(["sub"]);
    // subagentStart's context reached the sub-agent, not the main loop.
    expect(conversationText(last)).toContain(
      "SubagentStart hook additional context: Rules for the Explore agent: stay inside the project.",
    );
    expect(
      r.modelCalls.filter((c) => isMainLoop(c.body)).some((c) => conversationText(c.body!).includes("Rules for the Explore agent")),
    ).toBe(false);
    // The sub-agent's runs carry its id and its path; its start and stop ran their points.
    const seen = r.result.seen as Seen[];
    const subRuns = toolRuns(r).filter((s) => s.metadata.agentId !== undefined);
    expect(subRuns.map((s) => [s.input.input.command, s.outcome, s.path])).toEqual([
      ["rm -rf ./victim", "Rejected", ["Explore"]],
      ["touch ran-sub", "Completed", ["Explore"]],
    ]);
    const agentId = subRuns[0]!.metadata.agentId;
    expect(seen.filter((s) => s.point === "subagentStart").map((s) => [s.input, s.outcome])).toEqual([
      [{ agent: "Explore", path: ["Explore"] }, "Completed"],
    ]);
    expect(seen.filter((s) => s.point === "subagentStop").map((s) => [s.metadata.agentId, s.outcome])).toEqual([[agentId, "Completed"]]);
  }, 60_000);
});

describeClaudeCode("claudeModelGateway in front of the real Claude Code", () => {
  it.concurrent("rewrites what the model reads, gates what it streams, and reports its usage to hooks and metrics", async () => {
    const r = await run("gateway", { turns: [bashTurn("touch ran-unsafe"), "The key is SECRET-42, done."] });
    // The secret in the prompt never reached the API; the redaction did.
    expect(r.modelSaw("sk-live-abc123")).toBe(false);
    expect(r.modelSaw("My key is [redacted]; run the task.")).toBe(true);
    // A hook rewrote the tool call in the model's answer: Claude Code ran the rewrite.
    expect(r.executed).toEqual(["safe"]);
    // The output gate rewrote the streamed answer: Claude Code, and so the application, read the gated text.
    const result = (r.result.messages as { type: string; result?: string }[]).find((m) => m.type === "result");
    expect(result?.result).toBe("The key is [withheld], done.");
    const models = (r.result.seen as Seen[]).filter((s) => s.point === "modelCall");
    expect(models.map((s) => [s.outcome, s.output?.usage, s.input.stream])).toEqual([
      ["Completed", { inputTokens: 12, outputTokens: 7 }, true],
      ["Completed", { inputTokens: 12, outputTokens: 7 }, true],
    ]);
    expect(models[0]?.metadata).toMatchObject({ gateway: "claude" });
    const tokens = (
      r.result.metrics["gen_ai.client.token.usage"] as { attributes: Record<string, string>; value: { count: number; sum: number } }[]
    ).map((p) => [p.attributes["gen_ai.token.type"], p.attributes["gen_ai.request.model"], p.value.count, p.value.sum]);
    expect(tokens).toEqual([
      ["input", "claude-opus-5-5", 2, 24],
      ["output", "claude-opus-5-5", 2, 14],
    ]);
  }, 60_000);

  it.concurrent("lets a retry hook recover from an overloaded API, and gives Claude Code the API's own error otherwise", async () => {
    const badRequest = { error: { status: 400, type: "invalid_request_error", message: "temperature: must be at most 1" } };
    const r = await run("gatewayErrors", {
      turns: [{ error: { status: 529, type: "overloaded_error", message: "Overloaded" } }, "Recovered."],
      whenDone: badRequest,
    });
    const [first, second] = r.result.runs as { type: string; result?: string; is_error?: boolean; message?: string }[][];
    expect(first?.find((m) => m.type === "result")).toMatchObject({ result: "Recovered.", is_error: false });
    // Claude Code reports the API's 400 as it would without the gateway (after its own retries).
    expect(second?.find((m) => m.type === "result")).toMatchObject({
      result: "API Error: 400 temperature: must be at most 1",
      is_error: true,
    });
    expect(second?.at(-1)).toMatchObject({
      type: "thrown",
      message: "Claude Code returned an error result: API Error: 400 temperature: must be at most 1",
    });
    const models = (r.result.seen as Seen[]).filter((s) => s.point === "modelCall");
    expect(models[0]?.outcome).toBe("Completed");
    expect(models.slice(1).every((s) => s.outcome === "Failed" && s.error?.includes("the Messages API answered 400"))).toBe(true);
  }, 60_000);
});

describeClaudeCode("an approval that pauses through Claude Code's defer and resumes in another process", () => {
  const pause = async (command: string) => {
    const first = await run("pause", { turns: [bashTurn(command), "Done."] });
    const paused = first.result.paused;
    // The turn ended at the call, which did not run; the record names it, signed.
    expect(first.executed).toEqual([]);
    expect(first.result.result).toMatchObject({ stop_reason: "tool_deferred", deferred_tool_use: { name: "Bash", input: { command } } });
    expect(paused).toMatchObject({
      kind: "agent-onion.claude-agent-sdk.paused-approval",
      sessionId: first.result.result.session_id,
      toolUse: { name: "Bash", input: { command } },
      asks: [{ hook: "approval", reason: `run ${command}?` }],
    });
    expect(toolRuns(first).map((s) => [s.outcome, s.error])).toEqual([
      [
        "Failed",
        `RunAbortedError: run on toolCall was aborted: Bash was deferred for a person's decision; the session resumes with it later`,
      ],
    ]);
    return first;
  };

  it.concurrent("runs the call once the person approves, in a second process, and the model reads its result", async () => {
    const first = await pause("touch ran-deploy");
    const second = await run("resume", {
      dirs: first.dirs,
      args: { paused: first.result.paused, decision: { decision: "approve" } },
      turns: ["Deployed."],
    });
    expect(second.executed).toEqual(["deploy"]);
    expect(second.toolResults).toMatchObject([
      { input: { command: "touch ran-deploy" }, text: "(Bash completed with no output)", isError: false },
    ]);
    expect(second.result.result).toMatchObject({ subtype: "success", stop_reason: "end_turn", result: "Deployed." });
    // One model call: the resumed turn, and nothing after it.
    expect(second.modelCalls).toHaveLength(1);
    expect(toolRuns(second).map((s) => s.outcome)).toEqual(["Completed"]);
  }, 60_000);

  it.concurrent("tells the model why when the person denies, and runs an edit through the guards again", async () => {
    const [a, b] = await Promise.all([pause("touch ran-denied"), pause("touch ran-edit-me")]);
    const [denied, edited] = await Promise.all([
      run("resume", {
        dirs: a.dirs,
        args: { paused: a.result.paused, decision: { decision: "deny", reason: "not during the freeze" } },
        turns: ["Understood."],
      }),
      run("resume", {
        dirs: b.dirs,
        args: { paused: b.result.paused, decision: { decision: "edit", input: { command: "rm -rf ./victim" } } },
        turns: ["Refused."],
      }),
    ]);
    expect(denied.executed).toEqual([]);
    expect(denied.toolResults).toMatchObject([
      { text: "PreToolUse:Bash hook error: Bash was not approved: not during the freeze", isError: true },
    ]);
    // The edited command meets the policy that refuses rm: the person's edit does not skip the guards.
    expect(edited.executed).toEqual([]);
    expect(edited.toolResults).toMatchObject([
      { isError: true, text: 'PreToolUse:Bash hook error: Tool "Bash" is blocked by policy: it matches deny rule "Bash(rm *)"' },
    ]);
  }, 60_000);

  it.concurrent("refuses a second resume of the same record, and one of a session that no longer waits", async () => {
    const first = await pause("touch ran-once");
    const twice = await run("resumeTwice", {
      dirs: first.dirs,
      args: { paused: first.result.paused, decision: { decision: "approve" } },
      turns: ["Once."],
    });
    expect(twice.executed).toEqual(["once"]);
    expect(twice.result.outcomes).toMatchObject([
      { resumed: true, result: { type: "result", result: "Once." } },
      { resumed: false, name: "ClaudeApprovalError", problem: "replayed" },
    ]);
    // Another process with a store of its own: the claim passes, the transcript says the call was answered.
    const again = await run("resume", {
      dirs: first.dirs,
      args: { paused: first.result.paused, decision: { decision: "approve" }, expectFailure: true },
      turns: ["Twice?"],
    });
    expect(again.failure).toMatchObject({ name: "ClaudeApprovalError", problem: "replayed" });
    expect(again.modelCalls).toHaveLength(0);
  }, 60_000);

  it.concurrent("refuses records that were changed, signed with another key, expired or not ours, and malformed decisions", async () => {
    const first = await pause("touch ran-never");
    const paused = first.result.paused;
    const r = await run("refusals", {
      dirs: first.dirs,
      args: {
        paused,
        attempts: {
          tampered: [{ ...paused, toolUse: { ...paused.toolUse, input: { command: "touch ran-other" } } }, { decision: "approve" }],
          session: [{ ...paused, sessionId: "00000000-0000-4000-8000-000000000000" }, { decision: "approve" }],
          extended: [{ ...paused, expiresAt: paused.expiresAt + 1 }, { decision: "approve" }],
          foreign: [{ ...paused, kind: "something-else" }, { decision: "approve" }],
          yes: [paused, true],
          reject: [paused, { decision: "reject" }],
          editString: [paused, { decision: "edit", input: "rm -rf /" }],
        },
      },
      turns: [],
    });
    expect(Object.fromEntries(Object.entries(r.result as Record<string, { problem: string }>).map(([k, v]) => [k, v.problem]))).toEqual({
      tampered: "tampered",
      session: "tampered",
      extended: "tampered",
      otherKey: "tampered",
      expired: "expired",
      foreign: "malformed",
      yes: "decision",
      reject: "decision",
      editString: "decision",
    });
    expect(r.modelCalls).toHaveLength(0);
    expect(r.executed).toEqual([]);
  }, 60_000);
});

const describeRedisAndClaudeCode = redisAvailable && redisBinary !== undefined ? describeClaudeCode : describeClaudeCode.skip;

describeRedisAndClaudeCode("resumes claimed in a shared Redis store", () => {
  let redis: RedisServer;
  beforeAll(async () => void (redis = await startRedis()));
  afterAll(async () => redis?.stop());

  it("lets exactly one of two processes racing to resume the same record run the call", async () => {
    const first = await run("pause", { args: {}, turns: [bashTurn("touch ran-raced"), "Done."] });
    const link = await socketTo(redis.port, first.dirs.root);
    try {
      const racer = () =>
        run("resume", {
          dirs: first.dirs,
          forwards: [{ port: 40_002, socket: link.socket }],
          args: { paused: first.result.paused, decision: { decision: "approve" }, redisPort: 40_002, expectFailure: true },
          turns: ["Raced."],
        });
      const [a, b] = await Promise.all([racer(), racer()]);
      const failures = [a, b].filter((x) => x.failure !== undefined);
      expect(failures.map((f) => f.failure?.problem)).toEqual(["replayed"]);
      expect([a, b].filter((x) => x.failure === undefined).map((x) => x.result.result.result)).toEqual(["Raced."]);
      expect(executedIn(first.dirs.project)).toEqual(["raced"]);
    } finally {
      await link.close();
    }
  }, 90_000);
});
