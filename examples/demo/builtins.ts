/**
 * The built-in middleware the demo uses, each as a section (a stack in, a stack out) like the
 * hand-written ones in sections.ts. Two get a line in the transcript: the cache says when it
 * answers, and a hook just inside `retry` says how each attempt went.
 */
import {
  cache,
  contextKey,
  guards,
  providerError,
  redaction,
  retry,
  stableJson,
  toolPolicy,
  withMiddleware,
  type AgentPoints,
  type AgentStack,
  type GuardsOptions,
  type PointHook,
  type ToolCall,
} from "agent-onion";
import { brief, c, say } from "./print.ts";

/** Deny destructive shell commands, whatever the model says; say so when a tool no rule names is first called. */
export const policy = (stack: AgentStack): AgentStack =>
  withMiddleware(
    stack,
    toolPolicy({
      deny: ["Bash(rm -rf*)", "Bash(git push --force*)"],
      onUnknownTool: (n) => say(c.dim(`  policy: no rule names ${n.tool}, so its default applies (${n.decision})`)),
    }),
  );

/** Demo-sized limits per run (the defaults are 20 steps, 32 768 tokens, 300 s). */
export const guardLimits = { maxSteps: 12, maxTokens: 2_000, maxExecutionTime: 60 } as const satisfies GuardsOptions;

/** Step, token and time limits, checked before each step; reaching one ends the run cleanly. */
export const limits = (stack: AgentStack): AgentStack => withMiddleware(stack, guards(guardLimits));

/** Secrets and PII out of prompts, tool input, tool output and model output, before anyone sees them. */
export const redact = (stack: AgentStack): AgentStack => withMiddleware(stack, redaction());

/** Attempts per model call, the first one included. */
export const retryAttempts = 3;

/** retryOn sees the provider's own error (for streams too), so its HTTP status is right there. */
const transient = (error: unknown): boolean => [429, 500, 502, 503, 529].includes((error as { status?: number } | null)?.status ?? 0);

/** The provider's own message (a failed stream wraps the provider's error). */
const messageOf = (error: unknown): string => {
  const e = providerError(error);
  return e instanceof Error ? e.message : String(e);
};

/** This call's attempts so far: a slot of the model call's run, gone with it. */
const attemptsSoFar = contextKey<number>("retry-log.attempts");

/** Retry model calls that failed with a transient provider error, with backoff; say how each attempt went. */
export const retries = (stack: AgentStack): AgentStack =>
  withMiddleware(stack, retry({ attempts: retryAttempts, baseMs: 100, retryOn: transient })).use("modelCall", {
    name: "retry-log",
    after: ["retry"], // just inside retry: it runs once per attempt
    around: async (ctx, next) => {
      const attempt = ctx.local(attemptsSoFar, (ctx.local(attemptsSoFar) ?? 0) + 1);
      const outcome = await next();
      if (outcome._tag === "Failed")
        say(`  ${c.yellow("⚠ model call failed")} (attempt ${attempt} of ${retryAttempts}): ${brief(messageOf(outcome.error))}`);
      else if (attempt > 1) say(`  ${c.green("↻ retried:")} the model call succeeded on attempt ${attempt} of ${retryAttempts}`);
      return outcome;
    },
  });

/** Serve repeated file reads from the built-in cache (per session, keyed by the path), and say so. */
export const cachedReads = (stack: AgentStack): AgentStack => {
  const { hooks } = cache({
    name: "read-cache",
    point: "toolCall",
    match: "Read",
    scope: "session",
    ttlMs: 10 * 60_000,
    key: (call: ToolCall) => stableJson(call.input),
  });
  const hook = hooks.toolCall as PointHook<AgentPoints, "toolCall">;
  const around = hook.around;
  if (around === undefined) throw new Error("cache: expected an around hook");
  return stack.use("toolCall", {
    ...hook,
    around: async (ctx, next) => {
      const result = await around(ctx, next);
      if (result !== undefined && result._tag === "Replace") say(`    ${c.yellow("↺ cache hit:")} ${String(ctx.input.input.path)}`);
      return result;
    },
  });
};
