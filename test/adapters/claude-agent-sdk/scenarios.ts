/**
 * Scenarios the real-client tests run inside the rig's namespace (test/support/claude-code/
 * agent-sdk-worker.ts): each builds a stack, guards a real `query` with it, and returns what the
 * test checks: the SDK's messages in brief, the result, and what the stack's observers saw.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
import type { ClaudePausedApproval } from "../../../src/adapters/claude-agent-sdk/paused.ts";
import { durableApprovals, type DurableApprovals } from "../../../src/core/interrupt.ts";
import { audit } from "../../../src/middleware/audit.ts";
import type { Middleware } from "../../../src/middleware/apply.ts";
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
  /** The run's approval decisions, as its trace records them. */
  readonly approvals: readonly { readonly hook: string; readonly action: string; readonly reason: string | undefined }[];
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
      approvals: e.decisions.filter((d) => d.phase === "approval").map((d) => ({ hook: d.hook, action: d.action, reason: d.reason })),
      ...(o._tag === "Completed"
        ? { output: o.value }
        : o._tag === "Rejected"
          ? { reason: o.reason, ...("approval" in o ? { approval: (o as { approval: { id: string } }).approval.id } : {}) }
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

/** Audit lines of a stack, written to a file of their own and read back once the runs are flushed. */
const auditLog = () => {
  const file = join(mkdtempSync(join(tmpdir(), "agent-onion-audit-")), "audit.jsonl");
  const log = audit({ to: file, redact: false });
  return {
    log,
    read: async (stack: AgentStack) => {
      await stack.flush();
      await log.close();
      return existsSync(file)
        ? readFileSync(file, "utf8")
            .split("\n")
            .filter((l) => l !== "")
            .map((l) => JSON.parse(l))
        : [];
    },
  };
};

/** The stack for pausing: durable approvals as its approver, approval on Bash, a policy that refuses `rm`, an audit log. */
const pausingStack = (seen: Seen[], approvals: DurableApprovals, log: Middleware) =>
  watched(
    withMiddleware(
      createAgentStack({ approval: approvals }),
      toolPolicy({ deny: ["Bash(rm *)"] }),
      approval({ match: "Bash", reason: (c) => `run ${String(c.input.command)}?` }),
      log,
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

/** The durable approvals every process of a test shares: the same store (Redis when given a port) and key. */
const approvalsOf = async (args: Readonly<Record<string, unknown>>) => {
  const { store, close } = await storeOf(args);
  return { approvals: durableApprovals({ store, key: (args.secret as string | undefined) ?? secret }), close };
};

/** First process: the approval pauses the run; returns the pending approval as the application keeps it. */
export const pause: Scenario = async (ctx) => {
  const seen: Seen[] = [];
  const { approvals, close } = await approvalsOf(ctx.args);
  const { log, read } = auditLog();
  const stack = pausingStack(seen, approvals, log);
  const guard = claudeAgentGuard(stack);
  try {
    const run = await drive(ctx, guard);
    const paused = run.raw === undefined ? undefined : guard.paused(run.raw);
    return { ...run, raw: undefined, paused: JSON.parse(JSON.stringify(paused ?? null)), seen, audit: await read(stack) };
  } finally {
    await close();
  }
};

/** Second process: resume the paused approval with the decision in args. */
export const resume: Scenario = async (ctx) => {
  const seen: Seen[] = [];
  const { approvals, close } = await approvalsOf(ctx.args);
  const { log, read } = auditLog();
  const stack = pausingStack(seen, approvals, log);
  const guard = claudeAgentGuard(stack);
  const messages: Record<string, unknown>[] = [];
  try {
    const query = await guard.resume(ctx.sdk, ctx.args.paused, ctx.args.decision, { ...ctx.options, allowedTools: ["Bash"] });
    for await (const m of query) messages.push(brief(m));
  } finally {
    await close();
  }
  return { messages, result: messages.findLast((m) => m.type === "result"), seen, audit: await read(stack) };
};

/** The deprecated `pause` option: pause and resume in one process, over the durable approvals it builds. */
export const legacyPause: Scenario = async (ctx) => {
  const seen: Seen[] = [];
  const { log, read } = auditLog();
  const stack = watched(
    withMiddleware(createAgentStack(), approval({ match: "Bash", reason: (c) => `run ${String(c.input.command)}?` }), log),
    seen,
  );
  const guard = claudeAgentGuard(stack, { pause: { store: new MemoryStore(), secret } });
  const first = await drive(ctx, guard);
  const paused = first.raw === undefined ? undefined : guard.paused(first.raw);
  const messages: Record<string, unknown>[] = [];
  const query = await guard.resume(ctx.sdk, JSON.parse(JSON.stringify(paused)), ctx.args.decision, {
    ...ctx.options,
    allowedTools: ["Bash"],
  });
  for await (const m of query) messages.push(brief(m));
  return { paused, messages, seen, audit: await read(stack) };
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

/** What `resume` threw, in brief; "resumed" when it did not throw. */
const refusal = async (attempt: () => Promise<unknown>) => {
  try {
    await attempt();
    return "resumed";
  } catch (error) {
    const e = error as { name?: string; problem?: string; kind?: string; message?: string };
    return { name: e.name, problem: e.problem ?? e.kind, message: e.message };
  }
};

/** Paused approvals and decisions that `resume` must refuse before anything is claimed; then the token still resumes. */
export const refusals: Scenario = async (ctx) => {
  const { approvals, close } = await approvalsOf(ctx.args);
  const { store: otherStore } = await storeOf({});
  try {
    const guard = claudeAgentGuard(createAgentStack({ approval: approvals }));
    const paused = ctx.args.paused as ClaudePausedApproval & { token: string };
    const [head, payload, signature] = paused.token.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const forged = `${head}.${Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 1 })).toString("base64url")}.${signature}`;
    // Guards made as another process would make them: a clock past the expiry, another key, another store.
    const later = claudeAgentGuard(createAgentStack(), {
      approvals: durableApprovals({ store: otherStore, key: secret, now: () => claims.exp + 1 }),
    });
    const otherKey = claudeAgentGuard(createAgentStack(), {
      approvals: durableApprovals({ store: otherStore, key: "another-key-that-is-long-enough-for-hmac-sha256" }),
    });
    const elsewhere = claudeAgentGuard(createAgentStack(), { approvals: durableApprovals({ store: otherStore, key: secret }) });
    const base = { ...ctx.options, allowedTools: ["Bash"] };
    const problems: Record<string, unknown> = {
      forgedExpiry: await refusal(() => guard.resume(ctx.sdk, forged, { decision: "approve" }, base)),
      shownInput: await refusal(() =>
        guard.resume(
          ctx.sdk,
          { ...paused, input: { ...(paused.input as object), input: { command: "touch ran-other" } } },
          { decision: "approve" },
          base,
        ),
      ),
      expired: await refusal(() => later.resume(ctx.sdk, paused, { decision: "approve" }, base)),
      otherKey: await refusal(() => otherKey.resume(ctx.sdk, paused, { decision: "approve" }, base)),
      unknown: await refusal(() => elsewhere.resume(ctx.sdk, paused, { decision: "approve" }, base)),
      notPaused: await refusal(() => guard.resume(ctx.sdk, { kind: "something-else" }, { decision: "approve" }, base)),
      yes: await refusal(() => guard.resume(ctx.sdk, paused, true, base)),
      reject: await refusal(() => guard.resume(ctx.sdk, paused, { decision: "reject" }, base)),
      approveWithInput: await refusal(() => guard.resume(ctx.sdk, paused, { decision: "approve", input: {} }, base)),
      editString: await refusal(() => guard.resume(ctx.sdk, paused, { decision: "edit", input: "rm -rf /" }, base)),
    };
    // None of them consumed the token: it is still pending.
    const still = await approvals.inspect(paused.token);
    return { problems, stillPending: still.id === paused.id };
  } finally {
    await close();
  }
};

/** Resume one pending approval twice in one process (the second must be refused), each with the decision given. */
export const resumeTwice: Scenario = async (ctx) => {
  const seen: Seen[] = [];
  const { approvals, close } = await approvalsOf(ctx.args);
  const { log, read } = auditLog();
  const stack = pausingStack(seen, approvals, log);
  const guard = claudeAgentGuard(stack);
  const outcomes: unknown[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      try {
        const query = await guard.resume(ctx.sdk, ctx.args.paused, ctx.args.decision, { ...ctx.options, allowedTools: ["Bash"] });
        const messages: unknown[] = [];
        for await (const m of query) messages.push(brief(m));
        outcomes.push({ resumed: true, result: messages.findLast((m) => (m as { type: string }).type === "result") });
      } catch (error) {
        outcomes.push({ resumed: false, name: (error as Error).name, kind: (error as { kind?: unknown }).kind });
      }
    }
  } finally {
    await close();
  }
  return { outcomes, seen, audit: await read(stack) };
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
