/**
 * The demo's hand-written hooks, one section per function (the built-in middleware it uses is
 * in builtins.ts). Each takes a stack and returns a new one, so a section can be added,
 * removed or swapped without touching the rest.
 */
import { Priority, Reject, Transform, type AgentStack, type ToolCall, type ToolResult } from "agent-onion";
import { brief, c, say } from "./print.ts";

/** Tell the model about the project when the session starts. */
export const projectContext = (stack: AgentStack): AgentStack =>
  stack.use("sessionStart", {
    name: "project-context",
    before: (_s, ctx) => void ctx.addContext("Project: web-shop (npm). Tests: npm test."),
  });

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

/** Stop gate: not done before the tests ran. It keeps the agent going once here. */
export const testsBeforeDone = (stack: AgentStack): AgentStack =>
  stack
    .use("toolCall", {
      name: "note-tests",
      match: "Bash(npm test*)",
      after: async (_r, _c, ctx) => void (await ctx.state().set("tests-ran", true)),
    })
    .use("stop", {
      name: "tests-before-done",
      before: async (_request, ctx) =>
        (await ctx.state().get("tests-ran")) ? undefined : Reject("Run the tests (npm test) before you finish."),
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
