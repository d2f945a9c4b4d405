/**
 * The demo's hooks, one section per function. Each takes a stack and returns a new one, so a
 * section can be added, removed or swapped for built-in middleware without touching the rest.
 */
import {
  Priority, Reject, Replace, Transform, agentPoints, type AgentStack, type RunEvent, type ToolCall, type ToolResult,
} from "../../src/index.ts";
import { brief, c, say } from "./print.ts";

/** Tell the model about the project when the session starts. */
export const projectContext = (stack: AgentStack): AgentStack =>
  stack.use("sessionStart", { name: "project-context", before: (_s, ctx) => void ctx.addContext("Project: web-shop (npm). Tests: npm test.") });

/** Print each tool call and what became of it (outermost, so it sees every outcome). */
export const toolTranscript = (stack: AgentStack): AgentStack =>
  stack.use("toolCall", {
    name: "transcript",
    priority: Priority.first,
    around: async (ctx, next) => {
      const call = ctx.input;
      say(`  ${c.cyan("⚙")} ${call.name} ${c.dim(brief(call.input.command ?? call.input.path ?? call.input))}`);
      const outcome = await next();
      if (outcome._tag === "Rejected") say(`    ${c.red("✗ rejected by")} ${outcome.by}: ${outcome.reason}`);
      else if (outcome._tag === "Failed") say(`    ${c.red("✗ failed:")} ${brief(outcome.error)}`);
      else say(`    ${c.green("✓")} ${call.name}: ${c.dim(brief((outcome.value as ToolResult).content, 60))}`);
      return outcome;
    },
  });

/** Guardrail: no `rm -rf`, whatever follows it. */
export const guardrails = (stack: AgentStack): AgentStack =>
  stack.use("toolCall", { name: "no-rm-rf", priority: Priority.guard, match: "Bash(rm -rf*)", before: () => Reject("Destructive command blocked") });

/** Rewrite a tool input: installs must follow the lockfile. The model is told why. */
export const lockfileInstalls = (stack: AgentStack): AgentStack =>
  stack.use("toolCall", {
    name: "npm-ci",
    match: "Bash(npm install)",
    before: (call, ctx) => {
      say(`    ${c.yellow("✎ rewritten:")} npm install → npm ci`);
      ctx.addContext("Note: `npm install` was run as `npm ci` so installs follow the lockfile.");
      return Transform({ ...call, input: { ...call.input, command: "npm ci" } } as ToolCall);
    },
  });

/** Cache file reads per session in the stack's StateStore (R14). */
export const cachedReads = (stack: AgentStack): AgentStack =>
  stack.use("toolCall", {
    name: "read-cache",
    priority: Priority.default + 10,
    match: "Read",
    before: async (call, ctx) => {
      const hit = await ctx.state().get<ToolResult>(`read:${String(call.input.path)}`);
      if (hit === undefined) return undefined;
      say(`    ${c.yellow("↺ cache hit:")} ${String(call.input.path)}`);
      return Replace(hit);
    },
    after: async (result, call, ctx) => void (result.isError ? undefined : await ctx.state().set(`read:${String(call.input.path)}`, result)),
  });

/** Stop gate: not done before the tests ran. It keeps the agent going once here. */
export const testsBeforeDone = (stack: AgentStack): AgentStack =>
  stack
    .use("toolCall", { name: "note-tests", match: "Bash(npm test*)", after: async (_r, _c, ctx) => void (await ctx.state().set("tests-ran", true)) })
    .use("stop", {
      name: "tests-before-done",
      before: async (_request, ctx) => ((await ctx.state().get("tests-ran")) ? undefined : Reject("Run the tests (npm test) before you finish.")),
      after: () => void say(`  ${c.green("⏹ stop allowed")}`),
    })
    .use("stop", {
      name: "stop-transcript",
      priority: Priority.first,
      around: async (_ctx, next) => {
        const outcome = await next();
        if (outcome._tag === "Rejected") say(`  ${c.yellow("⏹ stop blocked by")} ${outcome.by}: ${outcome.reason}`);
        return outcome;
      },
    });

/** One row of the metrics table. */
export interface MetricsRow { runs: number; completed: number; rejected: number; failed: number; ms: number; firstChunkMs: number }

/** Per-point metrics from an observer on every point: runs, outcomes, time (and time to first chunk for streams). */
export const metrics = (stack: AgentStack) => {
  const table = new Map<string, MetricsRow>();
  const record = (event: RunEvent): void => {
    const row = table.get(event.point) ?? { runs: 0, completed: 0, rejected: 0, failed: 0, ms: 0, firstChunkMs: 0 };
    row.runs++;
    row.ms += event.durationMs;
    const ttfc = (event.outcome as { value?: { timeToFirstChunkMs?: unknown } }).value?.timeToFirstChunkMs;
    if (event.point === "modelCall" && typeof ttfc === "number") row.firstChunkMs += ttfc;
    if (event.outcome._tag === "Completed") row.completed++;
    else if (event.outcome._tag === "Rejected") row.rejected++;
    else row.failed++;
    table.set(event.point, row);
  };
  const points = Object.keys(agentPoints) as (keyof typeof agentPoints)[];
  return { stack: stack.use(points, { name: "metrics", observe: record }), table };
};
