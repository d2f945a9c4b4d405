/**
 * `claudeAgentGuard` with the real Claude Agent SDK and the real Claude Code it starts, offline:
 * each scenario (claude-agent-sdk/scenarios.ts) runs in a worker inside a network namespace with
 * loopback only, against the scripted mock Messages API. What the model read is what the mock
 * received in the next request; what ran is the `ran-<id>` files the commands created.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { claudeCodeTestMs, describeClaudeCode } from "../support/claude-code/suite.ts";
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
  it.concurrent(
    "refuses, rewrites and observes tool calls as Claude Code reports its own hooks' answers",
    async () => {
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
      expect(rewritten).toMatchObject({
        isError: false,
        alongside: ["PreToolUse:Bash hook additional context: agent-onion saw this call"],
      });
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
    },
    claudeCodeTestMs,
  );

  it.concurrent(
    "withholds a refused output in the tool's own shape, and puts a plain-text answer where the model reads it",
    async () => {
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
    },
    claudeCodeTestMs,
  );

  it.concurrent(
    "refuses a call whose guard crashed (fail-closed) and one a hook answered in the tool's place",
    async () => {
      const r = await run("failures", { turns: [bashTurn("touch ran-broken"), bashTurn("touch ran-cached"), "Done."] });
      expect(r.executed).toEqual([]);
      expect(r.toolResults.map((t) => [t.text, t.isError])).toEqual([
        ['PreToolUse:Bash hook error: hook "broken-guard" failed in before on toolCall: threw: guard crashed', true],
        ["PreToolUse:Bash hook error: answered by a hook instead of running Bash: cached answer", true],
      ]);
    },
    claudeCodeTestMs,
  );

  it.concurrent(
    "answers Claude Code's permission prompt with the permissionRequest point and the stack's approval handler",
    async () => {
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
    },
    claudeCodeTestMs,
  );

  it.concurrent(
    "asks the stack's approval handler in process when no pause is configured",
    async () => {
      const r = await run("approvedInProcess", { turns: [bashTurn("touch ran-yes"), bashTurn("touch ran-no"), "Done."] });
      expect(r.executed).toEqual(["yes"]);
      expect(r.toolResults[1]).toMatchObject({ text: "PreToolUse:Bash hook error: Bash was not approved: not this one", isError: true });
    },
    claudeCodeTestMs,
  );

  it.concurrent(
    "runs session, prompt, stop and batch hooks through the same bridge as claude-hook",
    async () => {
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
    },
    claudeCodeTestMs,
  );
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
  it(
    "guards the sub-agent's calls with the same stack, and gives it the context of its start",
    async () => {
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
    },
    claudeCodeTestMs,
  );
});

describeClaudeCode("claudeModelGateway in front of the real Claude Code", () => {
  it.concurrent(
    "rewrites what the model reads, gates what it streams, and reports its usage to hooks and metrics",
    async () => {
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
    },
    claudeCodeTestMs,
  );

  it.concurrent(
    "lets a retry hook recover from an overloaded API, and gives Claude Code the API's own error otherwise",
    async () => {
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
    },
    claudeCodeTestMs,
  );
});

const describeRedisAndClaudeCode = redisAvailable && redisBinary !== undefined ? describeClaudeCode : describeClaudeCode.skip;

/** An audit line as the audit middleware writes it. */
interface AuditLine {
  type: "decision" | "run";
  point: string;
  hook?: string;
  phase?: string;
  action?: string;
  reason?: string;
  outcome?: string;
  approval?: string;
}
const approvalLines = (r: AgentSdkRun): AuditLine[] =>
  (r.result.audit as AuditLine[]).filter((l) => l.type === "decision" && l.point === "toolCall" && l.phase === "approval");

describeRedisAndClaudeCode("durable approvals that pause through Claude Code's defer and resume in another process", () => {
  let redis: RedisServer;
  let link: { readonly socket: string; close(): Promise<void> };
  const redisPort = 40_002;
  beforeAll(async () => {
    redis = await startRedis();
    link = await socketTo(redis.port, mkdtempSync(join(tmpdir(), "ao-redis-")));
  });
  afterAll(async () => {
    await link?.close();
    await redis?.stop();
  });
  /** A run whose durable approvals live in the test's Redis server. */
  const shared = (scenario: string, options: Omit<Parameters<typeof runAgentSdk>[0], "module" | "scenario">) =>
    run(scenario, { ...options, forwards: [{ port: redisPort, socket: link.socket }], args: { ...options.args, redisPort } });

  const pause = async (command: string) => {
    const first = await shared("pause", { turns: [bashTurn(command), "Done."] });
    const paused = first.result.paused;
    // The turn ended at the call, which did not run; the pending approval names it, with a signed token.
    expect(first.executed).toEqual([]);
    expect(first.result.result).toMatchObject({ stop_reason: "tool_deferred", deferred_tool_use: { name: "Bash", input: { command } } });
    expect(paused).toMatchObject({
      point: "toolCall",
      hook: "approval",
      subject: "Bash",
      reason: `run ${command}?`,
      sessionId: first.result.result.session_id,
      input: { name: "Bash", input: { command } },
      toolUse: { name: "Bash", input: { command } },
    });
    expect(paused.token).toMatch(/^ao1\.[\w-]+\.[\w-]+$/);
    // The call's run ended Interrupted: a rejection by the asking hook, holding the approval.
    expect(toolRuns(first).map((s) => [s.outcome, (s as Seen & { approval?: string }).approval])).toEqual([["Rejected", paused.id]]);
    // The audit log has the question and a run line naming the approval.
    expect(approvalLines(first).map((l) => [l.hook, l.action, l.reason])).toEqual([
      ["approval", "Reject", expect.stringContaining(`waiting for a person to approve (approval ${paused.id}`)],
    ]);
    expect((first.result.audit as AuditLine[]).filter((l) => l.type === "run" && l.point === "toolCall")).toMatchObject([
      { outcome: "Rejected", approval: paused.id },
    ]);
    return first;
  };

  it.concurrent(
    "runs the call once the person approves, in a second process, and records who approved",
    async () => {
      const first = await pause("touch ran-deploy");
      const second = await shared("resume", {
        dirs: first.dirs,
        args: { paused: first.result.paused, decision: { decision: "approve", by: "alice", reason: "release day" } },
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
      // The person's decision is the asking hook's approval decision, in the audit log (and so in the trace).
      expect(approvalLines(second).map((l) => [l.hook, l.action, l.reason])).toEqual([
        ["approval", "Continue", `approved by alice (resumed approval ${first.result.paused.id}): release day`],
      ]);
      expect(toolRuns(second).map((s) => (s as Seen & { approvals: unknown[] }).approvals)).toEqual([
        [{ hook: "approval", action: "Continue", reason: `approved by alice (resumed approval ${first.result.paused.id}): release day` }],
      ]);
    },
    2 * claudeCodeTestMs,
  ); // two runs, one after the other

  it.concurrent(
    "tells the model why when the person denies, and runs an edit through the guards again",
    async () => {
      const [a, b] = await Promise.all([pause("touch ran-denied"), pause("touch ran-edit-me")]);
      const [denied, edited] = await Promise.all([
        shared("resume", {
          dirs: a.dirs,
          args: { paused: a.result.paused, decision: { decision: "deny", reason: "not during the freeze", by: "bob" } },
          turns: ["Understood."],
        }),
        shared("resume", {
          dirs: b.dirs,
          args: { paused: b.result.paused, decision: { decision: "edit", input: { command: "rm -rf ./victim" }, by: "carol" } },
          turns: ["Refused."],
        }),
      ]);
      expect(denied.executed).toEqual([]);
      expect(denied.toolResults).toMatchObject([
        { text: "PreToolUse:Bash hook error: Bash was not approved: not during the freeze", isError: true },
      ]);
      expect(approvalLines(denied).map((l) => [l.action, l.reason])).toEqual([
        ["Reject", `denied by bob (resumed approval ${a.result.paused.id}): not during the freeze`],
      ]);
      // The edited command meets the policy that refuses rm: the person's edit does not skip the guards.
      expect(edited.executed).toEqual([]);
      expect(edited.toolResults).toMatchObject([
        { isError: true, text: 'PreToolUse:Bash hook error: Tool "Bash" is blocked by policy: it matches deny rule "Bash(rm *)"' },
      ]);
      expect(approvalLines(edited).map((l) => [l.action, l.reason])).toEqual([
        ["Transform", `approved with an edit by carol (resumed approval ${b.result.paused.id})`],
      ]);
    },
    2 * claudeCodeTestMs,
  ); // two runs, one after the other

  it.concurrent(
    "refuses a second resume of the same approval, in the same process and in another",
    async () => {
      const first = await pause("touch ran-once");
      const twice = await shared("resumeTwice", {
        dirs: first.dirs,
        args: { paused: first.result.paused, decision: { decision: "approve" } },
        turns: ["Once."],
      });
      expect(twice.executed).toEqual(["once"]);
      expect(twice.result.outcomes).toMatchObject([
        { resumed: true, result: { type: "result", result: "Once." } },
        { resumed: false, name: "ApprovalReplayedError", kind: "replayed" },
      ]);
      const again = await shared("resume", {
        dirs: first.dirs,
        args: { paused: first.result.paused, decision: { decision: "approve" }, expectFailure: true },
        turns: ["Twice?"],
      });
      expect(again.failure).toMatchObject({ name: "ApprovalReplayedError", problem: "replayed" });
      expect(again.modelCalls).toHaveLength(0);
      expect(executedIn(first.dirs.project)).toEqual(["once"]);
    },
    2 * claudeCodeTestMs,
  ); // two runs, one after the other

  it.concurrent(
    "refuses tokens that were changed, signed with another key, expired or unknown, and malformed decisions",
    async () => {
      const first = await pause("touch ran-never");
      const r = await shared("refusals", { dirs: first.dirs, args: { paused: first.result.paused }, turns: [] });
      const problems = r.result.problems as Record<string, { name: string; problem: string }>;
      expect(Object.fromEntries(Object.entries(problems).map(([k, v]) => [k, [v.name, v.problem]]))).toEqual({
        forgedExpiry: ["ApprovalTamperedError", "tampered"],
        shownInput: ["ApprovalTamperedError", "tampered"],
        expired: ["ApprovalExpiredError", "expired"],
        otherKey: ["ApprovalTamperedError", "tampered"],
        unknown: ["UnknownApprovalError", "unknown"],
        notPaused: ["ClaudeApprovalError", "malformed"],
        yes: ["ClaudeApprovalError", "decision"],
        reject: ["ClaudeApprovalError", "decision"],
        approveWithInput: ["ClaudeApprovalError", "decision"],
        editString: ["ClaudeApprovalError", "decision"],
      });
      // Nothing was claimed: the approval still waits, and nothing ran.
      expect(r.result.stillPending).toBe(true);
      expect(r.modelCalls).toHaveLength(0);
      expect(r.executed).toEqual([]);
    },
    2 * claudeCodeTestMs,
  ); // two runs, one after the other

  it(
    "lets exactly one of two processes racing to resume the same approval run the call",
    async () => {
      const first = await pause("touch ran-raced");
      const racer = () =>
        shared("resume", {
          dirs: first.dirs,
          args: { paused: first.result.paused, decision: { decision: "approve" }, expectFailure: true },
          turns: ["Raced."],
        });
      const [a, b] = await Promise.all([racer(), racer()]);
      const failures = [a, b].filter((x) => x.failure !== undefined);
      expect(failures.map((f) => [f.failure?.name, f.failure?.problem])).toEqual([["ApprovalReplayedError", "replayed"]]);
      expect([a, b].filter((x) => x.failure === undefined).map((x) => x.result.result.result)).toEqual(["Raced."]);
      expect(executedIn(first.dirs.project)).toEqual(["raced"]);
    },
    2 * claudeCodeTestMs,
  ); // two runs, one after the other
});

describeClaudeCode("the deprecated pause option", () => {
  it.concurrent(
    "pauses and resumes through the durable approvals it builds",
    async () => {
      const r = await run("legacyPause", {
        args: { decision: { decision: "approve", by: "dana" } },
        turns: [bashTurn("touch ran-legacy"), "Done.", "Ran it."],
      });
      expect(r.result.paused).toMatchObject({ hook: "approval", toolUse: { name: "Bash", input: { command: "touch ran-legacy" } } });
      expect(r.executed).toEqual(["legacy"]);
      expect(approvalLines(r).map((l) => [l.action, l.reason])).toEqual([
        ["Reject", expect.stringContaining("waiting for a person to approve")],
        ["Continue", `approved by dana (resumed approval ${r.result.paused.id})`],
      ]);
    },
    2 * claudeCodeTestMs,
  ); // two runs, one after the other
});
