/**
 * Scenarios the real-client tests run inside the rig's namespace (test/support/claude-code/
 * agent-sdk-worker.ts): each builds a stack, guards a real `query` with it, and returns what the
 * test checks: the SDK's messages in brief, the result, and what the stack's observers saw.
 */
import { MemoryStore } from "../../../src/core/memory-store.ts";
import { Continue, Reject, Replace, Transform } from "../../../src/core/action.ts";
import type { RunEvent } from "../../../src/core/context.ts";
import { createAgentStack } from "../../../src/agent/stack.ts";
import type { AgentStack } from "../../../src/agent/stack.ts";
import { approval } from "../../../src/middleware/approval.ts";
import { toolPolicy } from "../../../src/middleware/tool-policy.ts";
import { withMiddleware } from "../../../src/middleware/apply.ts";
import { RedisStore } from "../../../src/stores/redis.ts";
import type { SDKMessage } from "@anthropic-ai/claude-agent-sdk";
import {
  AnthropicApiError,
  claudeAgentGuard,
  claudeModelGateway,
  type ClaudeAgentGuard,
} from "../../../src/adapters/claude-agent-sdk/index.ts";
import { outputGate } from "../../../src/agent/stream/hooks.ts";
import { metrics } from "../../../src/middleware/metrics.ts";
import { retry } from "../../../src/middleware/retry.ts";
import { meterHarness } from "../../middleware/otel.ts";
import { signPaused, type ClaudePausedApproval } from "../../../src/adapters/claude-agent-sdk/paused.ts";
import type { Scenario, ScenarioContext } from "../../support/claude-code/agent-sdk-worker.ts";

/** What a stack's observers saw of one run. */
interface Seen {
  readonly point: string;
  readonly subject: string | undefined;
  readonly outcome: string;
  readonly reason?: string;
  readonly error?: string;
  readonly input: unknown;
  readonly output?: unknown;
  readonly durationMs: number;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly path: readonly string[];
}

const observed = (seen: Seen[]) => ({
  name: "observed",
  observe: (e: RunEvent) => {
    const o = e.outcome;
    seen.push({
      point: e.point,
      subject: e.subject,
      outcome: o._tag,
      input: e.input,
      durationMs: e.durationMs,
      metadata: e.metadata,
      path: e.path,
      ...(o._tag === "Completed"
        ? { output: o.value }
        : o._tag === "Rejected"
          ? { reason: o.reason }
          : { error: `${(o.error as Error)?.name}: ${(o.error as Error)?.message}` }),
    });
  },
});

const points = [
  "sessionStart",
  "userPrompt",
  "modelCall",
  "toolCall",
  "toolBatch",
  "stop",
  "sessionEnd",
  "permissionRequest",
  "subagentStart",
  "subagentStop",
  "compaction",
  "error",
  "notification",
] as const;

/** `stack` with an observer on every point the guard runs. */
const watched = (stack: AgentStack, seen: Seen[]): AgentStack => stack.use([...points], observed(seen));

/** Brief of an SDK message, for assertions and failure messages. */
const brief = (m: SDKMessage): Record<string, unknown> => {
  if (m.type === "result") {
    const r = m as Record<string, any>;
    return {
      type: "result",
      subtype: m.subtype,
      stop_reason: r.stop_reason,
      result: r.result,
      is_error: r.is_error,
      deferred_tool_use: r.deferred_tool_use,
      session_id: m.session_id,
    };
  }
  if (m.type === "assistant" || m.type === "user") return { type: m.type, content: (m.message as any).content };
  return { type: m.type, ...("subtype" in m ? { subtype: (m as any).subtype } : {}) };
};

/** Run one query with `guard`, returning its messages in brief and its final result. */
const drive = async (ctx: ScenarioContext, guard: ClaudeAgentGuard, prompt = "Run the task.") => {
  const messages: Record<string, unknown>[] = [];
  let result: SDKMessage | undefined;
  for await (const m of ctx.query({
    prompt,
    options: guard.options({ ...ctx.options, allowedTools: (ctx.args.allowedTools as string[] | undefined) ?? ["Bash"] }),
  })) {
    messages.push(brief(m));
    if (m.type === "result") result = m;
  }
  return { messages, result: result === undefined ? undefined : brief(result), raw: result };
};

/**
 * Guards, rewrites and metrics: `rm` is refused by a policy, `touch ran-orig` is rewritten to
 * `touch ran-rewritten`, a secret in a command's output is rewritten before the model reads it.
 */
export const guarded: Scenario = async (ctx) => {
  const seen: Seen[] = [];
  const stack = watched(
    withMiddleware(createAgentStack(), toolPolicy({ deny: ["Bash(rm *)"] }))
      .use("toolCall", {
        name: "rewrite-touch",
        match: "Bash(touch ran-orig)",
        before: (call) => Transform({ ...call, input: { ...call.input, command: "touch ran-rewritten" } }),
      })
      .use("toolCall", {
        name: "redact-output",
        after: (result) => {
          const text = JSON.stringify(result.content);
          return text.includes("sk-live-")
            ? Transform({ ...result, content: JSON.parse(text.replaceAll(/sk-live-[a-z0-9]+/g, "[redacted]")) })
            : Continue;
        },
      })
      .use("toolCall", { name: "note", before: (_call, c) => void c.addContext("agent-onion saw this call") }),
    seen,
  );
  const run = await drive(ctx, claudeAgentGuard(stack));
  return { ...run, raw: undefined, seen };
};

/** A sub-agent guarded by the same stack: its calls refused by the policy, context at its start, its stop observed. */
export const subagent: Scenario = async (ctx) => {
  const seen: Seen[] = [];
  const stack = watched(
    withMiddleware(createAgentStack(), toolPolicy({ deny: ["Bash(rm *)"] }))
      .use("subagentStart", {
        name: "sub-rules",
        before: (start, c) => void c.addContext(`Rules for the ${start.agent} agent: stay inside the project.`),
      })
      .use("subagentStop", { name: "sub-stop", before: () => Continue }),
    seen,
  );
  const run = await drive(ctx, claudeAgentGuard(stack), "Look around with a sub-agent.");
  return { ...run, raw: undefined, seen };
};

/** An after hook that refuses a result, and one that replaces it with plain text. */
export const outputs: Scenario = async (ctx) => {
  const seen: Seen[] = [];
  const stack = watched(
    createAgentStack().use("toolCall", {
      name: "output-gate",
      after: (result, call) => {
        const text = JSON.stringify(result.content);
        if (text.includes("TOP-SECRET")) return Reject("the output holds a classified marker");
        if (String(call.input.command ?? call.input.file_path ?? "").includes("plain"))
          return Replace({ content: "replaced as plain text" });
        return Continue;
      },
    }),
    seen,
  );
  const run = await drive(ctx, claudeAgentGuard(stack), "Read the files.");
  return { ...run, raw: undefined, seen };
};

/** A hook that throws on PreToolUse (fail-closed) and one that answers in place of the tool. */
export const failures: Scenario = async (ctx) => {
  const seen: Seen[] = [];
  const stack = watched(
    createAgentStack()
      .use("toolCall", {
        name: "broken-guard",
        failMode: "closed",
        match: "Bash(touch ran-broken)",
        before: () => {
          throw new Error("guard crashed");
        },
      })
      .use("toolCall", { name: "cache", match: "Bash(touch ran-cached)", before: () => Replace({ content: "cached answer" }) }),
    seen,
  );
  const run = await drive(ctx, claudeAgentGuard(stack));
  return { ...run, raw: undefined, seen };
};

/** `canUseTool`: a permissionRequest hook answers, and the stack's approval handler decides the rest. */
export const permissions: Scenario = async (ctx) => {
  const seen: Seen[] = [];
  const asked: unknown[] = [];
  const stack = watched(
    createAgentStack({
      approval: (request) => {
        asked.push({ point: request.point, hook: request.hook, subject: request.subject, reason: request.reason });
        return (request.input as { input: { command: string } }).input.command.includes("ran-ok")
          ? { decision: "approve" }
          : { decision: "deny", reason: "the person said no" };
      },
    }).use("permissionRequest", {
      name: "auto-edit",
      match: "Bash(touch ran-edit)",
      before: (request) => Replace({ behavior: "allow" as const, updatedInput: { ...request.call.input, command: "touch ran-edited" } }),
    }),
    seen,
  );
  const run = await drive(ctx, claudeAgentGuard(stack));
  return { ...run, raw: undefined, seen, asked };
};

/** The approval middleware answered in process by the stack's approval handler. */
export const approvedInProcess: Scenario = async (ctx) => {
  const seen: Seen[] = [];
  const stack = watched(
    withMiddleware(
      createAgentStack({
        approval: (request) =>
          (request.input as { input: { command: string } }).input.command.includes("ran-yes")
            ? { decision: "approve" }
            : { decision: "deny", reason: "not this one" },
      }),
      approval({ match: "Bash" }),
    ),
    seen,
  );
  const run = await drive(ctx, claudeAgentGuard(stack));
  return { ...run, raw: undefined, seen };
};

/** The stack for pausing: approval on Bash, a policy that refuses `rm`, and the pause store. */
const pausingStack = (seen: Seen[]) =>
  watched(
    withMiddleware(
      createAgentStack(),
      toolPolicy({ deny: ["Bash(rm *)"] }),
      approval({ match: "Bash", reason: (c) => `run ${String(c.input.command)}?` }),
    ),
    seen,
  );

const storeOf = async (args: Readonly<Record<string, unknown>>) => {
  if (typeof args.redisPort !== "number") return { store: new MemoryStore(), close: async () => {} };
  const { Redis } = await import("ioredis");
  const client = new Redis({ port: args.redisPort, host: "127.0.0.1", lazyConnect: false, maxRetriesPerRequest: 1 });
  return { store: new RedisStore({ client }), close: async () => void client.disconnect() };
};

const secret = "a-test-key-that-is-long-enough-for-hmac-sha256";

/** First process: the approval pauses the run; returns the signed record. */
export const pause: Scenario = async (ctx) => {
  const seen: Seen[] = [];
  const { store, close } = await storeOf(ctx.args);
  const guard = claudeAgentGuard(pausingStack(seen), { pause: { store, secret } });
  const run = await drive(ctx, guard);
  await close();
  return { ...run, raw: undefined, paused: run.raw === undefined ? undefined : guard.paused(run.raw), seen };
};

/** Second process: resume the paused record with the decision in args; a replay is tried when asked to. */
export const resume: Scenario = async (ctx) => {
  const seen: Seen[] = [];
  const { store, close } = await storeOf(ctx.args);
  const guard = claudeAgentGuard(pausingStack(seen), { pause: { store, secret: (ctx.args.secret as string | undefined) ?? secret } });
  const messages: Record<string, unknown>[] = [];
  try {
    const query = await guard.resume(ctx.sdk, ctx.args.paused, ctx.args.decision, { ...ctx.options, allowedTools: ["Bash"] });
    for await (const m of query) messages.push(brief(m));
  } finally {
    await close();
  }
  return { messages, result: messages.findLast((m) => m.type === "result"), seen };
};

/** Session, prompt, stop and batch hooks through the bridge: context for the model, a refused prompt, a stop sent back once. */
export const lifecycle: Scenario = async (ctx) => {
  const seen: Seen[] = [];
  let stops = 0;
  const stack = watched(
    createAgentStack()
      .use("sessionStart", { name: "branch", before: (_s, c) => void c.addContext("Current branch: feature/onion") })
      .use("userPrompt", {
        name: "prompt-guard",
        before: (prompt, c) => {
          if (prompt.text.includes("drop the database")) return Reject("prompts about dropping databases are refused");
          if (prompt.text.includes("sk-live-")) return Transform({ text: prompt.text.replaceAll(/sk-live-[a-z0-9]+/g, "[redacted]") });
          c.addContext("Answer in English.");
          return Continue;
        },
      })
      .use("stop", { name: "tests-first", before: () => (++stops === 1 ? Reject("run the tests before stopping") : Continue) })
      .use("toolBatch", { name: "batch-note", before: (batch, c) => void c.addContext(`${batch.calls.length} call(s) done`) }),
    seen,
  );
  const guard = claudeAgentGuard(stack);
  const runs = [];
  // "guard:" sends the prompt through guard.prompt first, as an application does to have a rewrite applied.
  for (const prompt of ctx.args.prompts as string[])
    runs.push(await drive(ctx, guard, prompt.startsWith("guard:") ? await guard.prompt(prompt.slice(6)) : prompt));
  return { runs: runs.map((r) => ({ ...r, raw: undefined })), seen, stops };
};

/** Paused records and decisions that `resume` must refuse before anything resumes. */
export const refusals: Scenario = async (ctx) => {
  const store = new MemoryStore();
  const guard = claudeAgentGuard(createAgentStack(), { pause: { store, secret } });
  const problems: Record<string, unknown> = {};
  const attempts: Record<string, [unknown, unknown]> = { ...(ctx.args.attempts as Record<string, [unknown, unknown]>) };
  // Signed as the pausing process would sign them: past their expiry, and under another key.
  const { signature: _, ...unsigned } = ctx.args.paused as ClaudePausedApproval;
  attempts.expired = [signPaused(Buffer.from(secret), { ...unsigned, expiresAt: unsigned.createdAt + 1 }), { decision: "approve" }];
  attempts.otherKey = [signPaused(Buffer.from("another-key-that-is-long-enough-for-hmac-sha256"), unsigned), { decision: "approve" }];
  for (const [name, [paused, decision]] of Object.entries(attempts)) {
    try {
      await guard.resume(ctx.sdk, paused, decision, ctx.options);
      problems[name] = "resumed";
    } catch (error) {
      problems[name] = {
        name: (error as Error).name,
        problem: (error as { problem?: unknown }).problem,
        message: (error as Error).message,
      };
    }
  }
  return problems;
};

/** Resume one record twice in one process (the second must be refused), each with the decision given. */
export const resumeTwice: Scenario = async (ctx) => {
  const seen: Seen[] = [];
  const guard = claudeAgentGuard(pausingStack(seen), { pause: { store: new MemoryStore(), secret } });
  const outcomes: unknown[] = [];
  for (let i = 0; i < 2; i++) {
    try {
      const query = await guard.resume(ctx.sdk, ctx.args.paused, ctx.args.decision, { ...ctx.options, allowedTools: ["Bash"] });
      const messages: unknown[] = [];
      for await (const m of query) messages.push(brief(m));
      outcomes.push({ resumed: true, result: messages.findLast((m) => (m as { type: string }).type === "result") });
    } catch (error) {
      outcomes.push({ resumed: false, name: (error as Error).name, problem: (error as { problem?: unknown }).problem });
    }
  }
  return { outcomes, seen };
};

export const resumeDebug: Scenario = async (ctx) => {
  const seen: Seen[] = [];
  const log: unknown[] = [];
  const guard = claudeAgentGuard(pausingStack(seen), { pause: { store: new MemoryStore(), secret } });
  for (const [event, matchers] of Object.entries(guard.hooks))
    for (const m of matchers!)
      m.hooks = m.hooks.map((h) => async (input: any, id: any, o: any) => {
        const out = await h(input, id, o);
        log.push({ event, id, tool_input: input.tool_input, out });
        return out;
      });
  const messages: unknown[] = [];
  const query = await guard.resume(ctx.sdk, ctx.args.paused, ctx.args.decision, { ...ctx.options, allowedTools: ["Bash"] });
  for await (const m of query) messages.push(brief(m));
  return { messages, log, seen };
};

/** Token counts and durations the metrics middleware recorded, read back through the OpenTelemetry SDK. */
const metricsOf = async (collect: () => Promise<Map<string, import("@opentelemetry/sdk-metrics").MetricData>>) => {
  const out: Record<string, unknown[]> = {};
  for (const [name, m] of await collect())
    out[name] = m.dataPoints.map((p) => ({
      attributes: p.attributes,
      value:
        typeof p.value === "number" ? p.value : { count: (p.value as { count: number }).count, sum: (p.value as { sum?: number }).sum },
    }));
  return out;
};

/**
 * Model calls through the gateway: a request rewrite (a secret in the prompt), an output gate on the
 * streamed answer, a rewrite of a tool call the model asked for, usage in after hooks and metrics.
 */
export const gateway: Scenario = async (ctx) => {
  const seen: Seen[] = [];
  const { meter, collect } = meterHarness();
  const stack = watched(
    withMiddleware(createAgentStack(), metrics({ meter, provider: "anthropic" }))
      .use("modelCall", {
        name: "redact-request",
        before: (request) =>
          Transform({
            ...request,
            messages: request.messages.map((m) =>
              m.content.includes("sk-live-") ? { ...m, content: m.content.replaceAll(/sk-live-[a-z0-9]+/g, "[redacted]") } : m,
            ),
          }),
      })
      .use(
        "modelCall",
        outputGate({
          name: "no-secret",
          holdBack: { window: 16 },
          check: (text) => (text.includes("SECRET-42") ? Transform(text.replaceAll("SECRET-42", "[withheld]")) : Continue),
        }),
      )
      .use("modelCall", {
        name: "safer-command",
        after: (response) =>
          response.toolCalls.some((c) => c.input.command === "touch ran-unsafe")
            ? Transform({
                ...response,
                toolCalls: response.toolCalls.map((c) => ({ ...c, input: { ...c.input, command: "touch ran-safe" } })),
              })
            : Continue,
      }),
    seen,
  );
  const gw = await claudeModelGateway(stack);
  try {
    const guard = claudeAgentGuard(stack);
    const messages: Record<string, unknown>[] = [];
    const options = guard.options({ ...ctx.options, allowedTools: ["Bash"], env: gw.env(ctx.options.env), includePartialMessages: true });
    for await (const m of ctx.query({ prompt: "My key is sk-live-abc123; run the task.", options })) messages.push(brief(m));
    return { messages, seen, metrics: await metricsOf(collect) };
  } finally {
    await gw.close();
  }
};

/** An API error the retry middleware recovers from, then one nothing recovers from. */
export const gatewayErrors: Scenario = async (ctx) => {
  const seen: Seen[] = [];
  const stack = watched(
    withMiddleware(
      createAgentStack(),
      retry({ attempts: 2, baseMs: 10, retryOn: (e) => e instanceof AnthropicApiError && e.status === 529 }),
    ),
    seen,
  );
  const gw = await claudeModelGateway(stack);
  try {
    const runs = [];
    for (const prompt of ["First task.", "Second task."]) {
      const messages: Record<string, unknown>[] = [];
      try {
        for await (const m of ctx.query({ prompt, options: { ...ctx.options, env: gw.env(ctx.options.env), maxTurns: 1 } }))
          messages.push(brief(m));
      } catch (error) {
        // The SDK throws for a turn that ended on an error, after its result message.
        messages.push({ type: "thrown", message: (error as Error).message });
      }
      runs.push(messages);
    }
    return { runs, seen };
  } finally {
    await gw.close();
  }
};
