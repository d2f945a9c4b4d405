/**
 * `claudeAgentGuard`: one agent-onion stack guarding a Claude Agent SDK agent, through the SDK's
 * own extension points: its `hooks` option (in-process callbacks per hook event, which answer in
 * Claude Code's hook protocol) and `canUseTool` (the permission prompt).
 *
 * - Tool calls: one `toolCall` run per call, from PreToolUse to PostToolUse (see tool-calls.ts).
 * - PostToolBatch runs `toolBatch`, SubagentStart `subagentStart`, `canUseTool` runs
 *   `permissionRequest`; every other event goes through the same bridge `agent-onion claude-hook`
 *   uses (`runBridge`), so a stack answers Claude Code the same way from a settings file and from
 *   the SDK.
 * - Approvals: with an in-process approval handler, a hook's `ctx.approve` asks it while the
 *   PreToolUse callback waits. With durable approvals (`durableApprovals()`, the stack's approver
 *   or the guard's `approvals`), a hook that asks stops the call's run `Interrupted`, and the guard
 *   pauses Claude Code through its own flow: PreToolUse answers `defer`, the turn ends with
 *   `stop_reason: "tool_deferred"`, `paused(result)` gives the pending approval to keep, and
 *   `resume(sdk, paused, decision)` claims it (once, in any process sharing the store) and resumes
 *   the session; the re-fired PreToolUse runs the stack again, and the asking hook gets the
 *   decision, which the trace and the audit log record as that hook's `approval` decision.
 */
import type {
  CanUseTool,
  GetSessionMessagesOptions,
  HookCallbackMatcher,
  HookEvent,
  HookInput,
  HookJSONOutput,
  Options,
  PermissionResult,
  PostToolBatchHookInput,
  PostToolUseFailureHookInput,
  PostToolUseHookInput,
  PreToolUseHookInput,
  Query,
  SDKMessage,
  SDKResultMessage,
  SDKUserMessage,
  SubagentStartHookInput,
  SyncHookJSONOutput,
} from "@anthropic-ai/claude-agent-sdk";
import type { AgentStack } from "../../agent/stack.ts";
import type { PermissionDecision, ToolBatch, ToolCall } from "../../agent/types.ts";
import { isDurableApprover, type PendingApproval } from "../../core/approval-types.ts";
import type { ApprovalDecision, ApprovalHandler, RunOptions } from "../../core/context.ts";
import { describe, describeGiven } from "../../core/errors.ts";
import { durableApprovals, type ClaimedApproval, type DurableApprovals } from "../../core/interrupt.ts";
import { Outcome } from "../../core/outcome.ts";
import type { StateStore } from "../../core/state.ts";
import { maxTimerMs } from "../../core/signal.ts";
import { fromClaudeEvent } from "../../executors/bridge-event.ts";
import { runBridge } from "../../executors/bridge.ts";
import { cleanText } from "../../executors/sanitize.ts";
import { ClaudeApprovalError, ClaudeSessionNotWaitingError, decisionFor, isCall, tokenOf, type ClaudePausedApproval } from "./paused.ts";
import { ToolCalls, type CallApprovals } from "./tool-calls.ts";
import { stackArgument } from "../../agent/stack-argument.ts";
import { knownOptions } from "../../core/known-options.ts";

/**
 * What the guard needs of a stack: an agent stack (`createAgentStack()` with any middleware).
 *
 * @example
 * const stack: ClaudeAgentStack = withMiddleware(createAgentStack(), toolPolicy({ deny: ["Bash(rm *)"] }))
 */
export type ClaudeAgentStack = AgentStack;

/**
 * Deprecated: give `approvals: durableApprovals({ store, key, ttlMs })` instead (or make it the
 * stack's approver). This option builds exactly that, with `key: secret` and a 7-day default `ttlMs`.
 *
 * @deprecated Use `approvals: durableApprovals({ store, key: secret, ttlMs })`.
 * @example
 * { store: new RedisStore({ client }), secret: process.env.APPROVAL_KEY!, ttlMs: 24 * 3_600_000 }
 */
export interface ClaudePauseOptions {
  /** Where pending approvals are kept and claimed once; a `RedisStore` when another process may resume. */
  readonly store: StateStore;
  /** The HMAC key that signs approval tokens: at least 32 bytes, the same in every process. */
  readonly secret: string | Uint8Array;
  /** How long a paused call can be resumed, in ms; default 7 days (Claude Code keeps sessions 30 days). */
  readonly ttlMs?: number;
}

/**
 * Options of `claudeAgentGuard`.
 *
 * @example
 * claudeAgentGuard(stack, { run: { metadata: { tenant } }, pause: { store, secret } })
 */
export interface ClaudeAgentGuardOptions {
  /** Run options for every run (metadata, a trace, timeouts), or a function of the hook event. */
  readonly run?: Omit<RunOptions, "signal" | "approval"> | ((event: HookInput) => Omit<RunOptions, "signal" | "approval">);
  /** How long Claude Code waits for one callback, in seconds (the matcher's `timeout`); default 600. */
  readonly timeoutSeconds?: number;
  /**
   * Durable approvals for tool calls: a hook that asks pauses Claude Code (see the module comment).
   * Default: the stack's approver when it is `durableApprovals()`; otherwise the stack's approval
   * handler answers in process.
   */
  readonly approvals?: DurableApprovals;
  /** @deprecated Use `approvals: durableApprovals({ store, key: secret, ttlMs })`. */
  readonly pause?: ClaudePauseOptions;
}

/**
 * The hooks and permission callback for a Claude Agent SDK `query`, and the pause/resume of approvals.
 *
 * @example
 * const guard = claudeAgentGuard(stack)
 * for await (const message of query({ prompt, options: guard.options({ cwd }) })) console.log(message)
 */
export interface ClaudeAgentGuard {
  /** The SDK's `hooks` option. */
  readonly hooks: Partial<Record<HookEvent, HookCallbackMatcher[]>>;
  /** The SDK's `canUseTool` option. */
  readonly canUseTool: CanUseTool;
  /** `base` with the guard's hooks added to its own and the guard's `canUseTool` (which must not be set in `base`). */
  options(base?: Options): Options;
  /**
   * Run `userPrompt` on a prompt before it is sent, and give the prompt to send: what hooks made of
   * it (a redaction), or an `OutcomeRejectedError` when one refused it. Claude Code cannot take a
   * rewritten prompt from a hook, so a rewrite in its UserPromptSubmit blocks the prompt instead;
   * a prompt that went through here is let through there without running the hooks again.
   */
  prompt(text: string, run?: Omit<RunOptions, "signal" | "approval">): Promise<string>;
  /** The pending approval a result with `stop_reason: "tool_deferred"` stands for, when a hook of this guard asked; else undefined. */
  paused(result: SDKMessage): ClaudePausedApproval | undefined;
  /**
   * Resume the session of `paused` (what `paused` gave, as stored, or its token) with the person's decision,
   * once: the token is claimed in the durable approvals' store, so a second resume, here or in
   * another process sharing the store, throws `ApprovalReplayedError`, and one of a session whose
   * call is no longer waiting `ClaudeSessionNotWaitingError`. The returned `Query` runs the
   * deferred call's turn to its end and then finishes. `sdk` is the SDK module (`import * as sdk
   * from "@anthropic-ai/claude-agent-sdk"`), or any object with its `query` and `getSessionMessages`.
   */
  resume(sdk: ClaudeAgentSdk, paused: unknown, decision: ApprovalDecision | unknown, options?: Options): Promise<Query>;
}

/**
 * The SDK functions `resume` uses: `query`, and `getSessionMessages` to check that the session
 * still waits on the call before resuming it (Claude Code resumed with nothing to run waits for input).
 *
 * @example
 * import * as sdk from "@anthropic-ai/claude-agent-sdk"
 * const query = await guard.resume(sdk, paused, { decision: "approve" }, { cwd })
 */
export interface ClaudeAgentSdk {
  /** The SDK's `query`: starts or resumes a session. */
  readonly query: (params: { prompt: AsyncIterable<SDKUserMessage>; options?: Options }) => Query;
  /** The SDK's `getSessionMessages`: the messages a stored session holds. */
  readonly getSessionMessages: (
    sessionId: string,
    options?: GetSessionMessagesOptions,
  ) => Promise<readonly { readonly type: string; readonly message: unknown }[]>;
}

/**
 * The events the guard can register (each only when the stack has hooks for it), and the
 * agent-onion point each one runs.
 *
 * @example
 * guardedEvents.PostToolBatch // "toolBatch"
 */
export const guardedEvents = {
  SessionStart: "sessionStart",
  UserPromptSubmit: "userPrompt",
  PreToolUse: "toolCall",
  PostToolUse: "toolCall",
  PostToolUseFailure: "toolCall",
  PostToolBatch: "toolBatch",
  Stop: "stop",
  SubagentStart: "subagentStart",
  SubagentStop: "subagentStop",
  PreCompact: "compaction",
  PostCompact: "compaction",
  StopFailure: "error",
  SessionEnd: "sessionEnd",
  Notification: "notification",
} as const satisfies Partial<Record<HookEvent, string>>;

const sevenDays = 7 * 24 * 3_600_000;
/** How many paused calls whose result nobody passed to `paused` a guard remembers. */
const maxUnreadPauses = 10_000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Claude Code's fields as run metadata (as `agent-onion claude-hook` carries them), and a sub-agent's path. */
const eventRunOptions = (event: HookInput): RunOptions => ({
  sessionId: event.session_id,
  metadata: {
    claudeEvent: event.hook_event_name,
    ...(event.cwd !== undefined ? { cwd: event.cwd } : {}),
    ...(event.transcript_path !== undefined ? { transcriptPath: event.transcript_path } : {}),
    ...(event.permission_mode !== undefined ? { permissionMode: event.permission_mode } : {}),
    ...(event.agent_id !== undefined ? { agentId: event.agent_id } : {}),
  },
  ...(event.agent_id !== undefined && event.agent_type !== undefined ? { path: [event.agent_type] } : {}),
});

/** An event without `null` fields, which the bridge's reader takes as absent (PreCompact's `custom_instructions: null`). */
const withoutNulls = (event: HookInput): Record<string, unknown> => Object.fromEntries(Object.entries(event).filter(([, v]) => v !== null));

/** What the SDK's callback answers for a bridge reply; a run that failed becomes the event's blocking answer. */
const bridgeAnswer = (event: string, reply: Awaited<ReturnType<typeof runBridge>>): SyncHookJSONOutput => {
  if (reply.exitCode === 0) return (reply.json ?? {}) as SyncHookJSONOutput;
  const reason = cleanText(reply.stderr ?? reply.reason ?? "agent-onion failed");
  return event === "UserPromptSubmit" || event === "Stop" || event === "SubagentStop" || event === "PreCompact"
    ? { decision: "block", reason }
    : { systemMessage: reason };
};

/** PermissionDecision (the `permissionRequest` point's answer) as the SDK's PermissionResult. */
const toPermissionResult = (
  decision: PermissionDecision,
  input: Record<string, unknown>,
  toolUseID: string | undefined,
): PermissionResult => {
  const id = toolUseID !== undefined ? { toolUseID } : {};
  if (decision.behavior === "allow")
    return {
      behavior: "allow",
      updatedInput: { ...(decision.updatedInput ?? input) },
      ...(decision.updatedPermissions ? { updatedPermissions: [...decision.updatedPermissions] as never } : {}),
      ...id,
    };
  return {
    behavior: "deny",
    message: cleanText(decision.message ?? "denied"),
    ...(decision.interrupt === true ? { interrupt: true } : {}),
    ...id,
  };
};

/** A person's approval answer as a permission decision. */
const fromApproval = (answer: ApprovalDecision, input: Record<string, unknown>): PermissionDecision => {
  if (answer?.decision === "approve") return { behavior: "allow", updatedInput: input };
  if (answer?.decision === "edit") {
    const edited =
      isObject(answer.input) && isObject(answer.input.input) ? answer.input.input : isObject(answer.input) ? answer.input : undefined;
    if (edited !== undefined) return { behavior: "allow", updatedInput: edited };
    return { behavior: "deny", message: "the approver's edit is not an input object" };
  }
  const reason = (answer as { reason?: unknown } | undefined)?.reason;
  return { behavior: "deny", message: typeof reason === "string" && reason !== "" ? reason : "denied" };
};

const isPermissionDecision = (v: unknown): v is PermissionDecision => isObject(v) && (v.behavior === "allow" || v.behavior === "deny");

/** Whether a session's messages hold the call `id` and no result for it yet. */
const waitsOn = (messages: readonly { readonly type: string; readonly message: unknown }[], id: string): boolean => {
  let asked = false;
  for (const m of messages) {
    const content = isObject(m.message) ? m.message.content : undefined;
    if (!Array.isArray(content)) continue;
    for (const block of content) {
      if (!isObject(block)) continue;
      if (m.type === "assistant" && block.type === "tool_use" && block.id === id) asked = true;
      if (m.type === "user" && block.type === "tool_result" && block.tool_use_id === id) return false;
    }
  }
  return asked;
};

/**
 * A `Query` that ends its held-open prompt at the first `result` message: the resumed turn has
 * ended, and an open prompt would keep Claude Code waiting for more input.
 */
const endingAtResult = (query: Query, end: () => void): Query => {
  const next = query.next.bind(query);
  return new Proxy(query, {
    get(target, prop) {
      if (prop === "next")
        return async (...args: [] | [unknown]) => {
          const step = await next(...(args as []));
          if (step.done === true || (step.value as SDKMessage).type === "result") end();
          return step;
        };
      if (prop === Symbol.asyncIterator)
        return function (this: unknown) {
          return this;
        };
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
};

/**
 * Guard a Claude Agent SDK agent with `stack`: see the module comment.
 *
 * @example
 * import { query } from "@anthropic-ai/claude-agent-sdk"
 * const stack = withMiddleware(createAgentStack(), guards(), toolPolicy({ deny: ["Bash(rm -rf*)"] }), metrics())
 * const guard = claudeAgentGuard(stack)
 * for await (const message of query({ prompt: "Tidy the repo", options: guard.options({ cwd: repo }) })) console.log(message.type)
 */
export const claudeAgentGuard = (stack: ClaudeAgentStack, options: ClaudeAgentGuardOptions = {}): ClaudeAgentGuard => {
  const owner = "claudeAgentGuard";
  stackArgument(owner, stack);
  if (typeof options !== "object" || options === null)
    throw new TypeError(`${owner}: options must be an object, got ${describeGiven(options)}`);
  knownOptions(owner, options, { run: true, timeoutSeconds: true, approvals: true, pause: true });
  const timeoutSeconds = options.timeoutSeconds ?? 600;
  if (typeof timeoutSeconds !== "number" || !(timeoutSeconds > 0) || timeoutSeconds * 1000 > maxTimerMs)
    throw new TypeError(`${owner}: timeoutSeconds must be a number of seconds above 0, got ${describeGiven(options.timeoutSeconds)}`);
  const userRun = options.run;
  if (userRun !== undefined && typeof userRun !== "function" && !isObject(userRun))
    throw new TypeError(`${owner}: run must be run options or a function of the hook event, got ${describeGiven(userRun)}`);
  const approvals = approvalsOf(owner, stack, options);

  // canUseTool is not told the session: the call's PreToolUse was (it fires first), else the latest event's.
  let sessionId = "";
  const runOptionsOf = (event: HookInput): RunOptions => {
    if (event.session_id) sessionId = event.session_id;
    const own = typeof userRun === "function" ? userRun(event) : userRun;
    const base = eventRunOptions(event);
    return own === undefined
      ? base
      : { ...own, ...base, metadata: { ...own.metadata, ...base.metadata }, ...(own.path !== undefined ? { path: own.path } : {}) };
  };
  const calls = new ToolCalls(stack, (event) => runOptionsOf(event as HookInput));

  // Pausing: the approvals calls paused on (for `paused`), and the claims resumed in this process,
  // by tool use id. A paused call's approval waits here until its result message is read.
  const pausedCalls = new Map<string, { readonly call: ToolCall; readonly approval: PendingApproval }>();
  const claims = new Map<string, ClaimedApproval>();

  const approvalsFor = (call: ToolCall): CallApprovals => {
    const claimed = claims.get(call.id);
    if (claimed === undefined) return approvals === undefined || approvals === stack.options?.approval ? {} : { approval: approvals };
    claims.delete(call.id);
    // The view answers the hook that asked, about that same input, with the decision; anything else asks anew.
    return { approval: claimed.options.approval, runId: claimed.options.runId };
  };
  const onPaused = (call: ToolCall, approval: PendingApproval): void => {
    pausedCalls.set(call.id, { call, approval });
    // Kept until its result is read with `paused`; an application that never reads them does not
    // grow this without end (the approval itself stays in the store, and `inspect` shows it).
    if (pausedCalls.size > maxUnreadPauses) pausedCalls.delete(pausedCalls.keys().next().value as string);
  };

  const guarded = async (event: HookInput, work: () => Promise<SyncHookJSONOutput>): Promise<HookJSONOutput> => {
    try {
      return await work();
    } catch (error) {
      // A bug of ours must not let a call through unguarded: refuse where the event can refuse.
      const reason = cleanText(`agent-onion: ${event.hook_event_name} could not be guarded: ${describe(error)}`);
      if (event.hook_event_name === "PreToolUse")
        return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason } };
      return bridgeAnswer(event.hook_event_name, { exitCode: 2, stderr: reason, decision: "block" });
    }
  };

  const viaBridge = async (event: HookInput): Promise<SyncHookJSONOutput> => {
    const run = runOptionsOf(event);
    const reply = await runBridge(stack, fromClaudeEvent(withoutNulls(event)), { ...(run.trace ? { trace: run.trace } : {}), run });
    return bridgeAnswer(event.hook_event_name, reply);
  };

  const toolBatch = async (event: PostToolBatchHookInput): Promise<SyncHookJSONOutput> => {
    // A call of the batch without a PostToolUse did not run (Claude Code refused it after our hooks let it through).
    for (const c of event.tool_calls) calls.settle(c.tool_use_id, "it was not run (refused by Claude Code's permissions, or interrupted)");
    if (!stack.has("toolBatch")) return {};
    const batch: ToolBatch = {
      calls: event.tool_calls.map((c) => ({
        call: { id: c.tool_use_id, name: c.tool_name, input: isObject(c.tool_input) ? c.tool_input : {} },
        result: { content: c.tool_response ?? null },
      })),
    };
    const context: string[] = [];
    const run = runOptionsOf(event);
    const outcome = await stack.run("toolBatch", batch, () => undefined, {
      ...run,
      onContext: (t, h) => (context.push(t), run.onContext?.(t, h)),
    });
    const added =
      context.length > 0
        ? { hookSpecificOutput: { hookEventName: "PostToolBatch" as const, additionalContext: cleanText(context.join("\n\n")) } }
        : {};
    if (outcome._tag === "Rejected") {
      const reason = cleanText((outcome.reasons ?? [outcome]).map((r) => r.reason).join("; "));
      return { decision: "block", reason, ...added };
    }
    if (outcome._tag === "Failed")
      return { decision: "block", reason: cleanText(`agent-onion: toolBatch failed: ${describe(outcome.error)}`), ...added };
    return added;
  };

  const subagentStart = async (event: SubagentStartHookInput): Promise<SyncHookJSONOutput> => {
    if (!stack.has("subagentStart")) return {};
    const context: string[] = [];
    const run = runOptionsOf(event);
    await stack.run("subagentStart", { agent: event.agent_type, path: [event.agent_type] }, () => undefined, {
      ...run,
      onContext: (t, h) => (context.push(t), run.onContext?.(t, h)),
    });
    return context.length > 0
      ? { hookSpecificOutput: { hookEventName: "SubagentStart", additionalContext: cleanText(context.join("\n\n")) } }
      : {};
  };

  // Claude Code (2.1.332) does not call the SDK's SessionStart callbacks: they are registered after
  // it fired. A session's first prompt runs `sessionStart` first, and its context goes with the prompt's.
  const started = new Set<string>();
  const resumed = new Set<string>();
  // Prompts `prompt()` accepted, waiting for their UserPromptSubmit (counted: the same text may be sent twice).
  const accepted = new Map<string, number>();
  const submitted = (event: HookInput): Promise<SyncHookJSONOutput> => {
    const text = (event as { prompt?: unknown }).prompt;
    const waiting = typeof text === "string" ? accepted.get(text) : undefined;
    if (waiting === undefined) return viaBridge(event);
    if (waiting > 1) accepted.set(text as string, waiting - 1);
    else accepted.delete(text as string);
    return Promise.resolve({});
  };
  const promptSubmitted = async (event: HookInput): Promise<SyncHookJSONOutput> => {
    if (started.has(event.session_id)) return submitted(event);
    started.add(event.session_id);
    const source = resumed.has(event.session_id) ? "resume" : "startup";
    const session = await viaBridge({ ...event, hook_event_name: "SessionStart", source } as unknown as HookInput);
    if (session.continue === false)
      return { continue: false, ...(session.stopReason !== undefined ? { stopReason: session.stopReason } : {}) };
    const prompt = await submitted(event);
    const before = (session.hookSpecificOutput as { additionalContext?: string } | undefined)?.additionalContext;
    if (before === undefined || prompt.decision === "block" || prompt.continue === false) return prompt;
    const own = (prompt.hookSpecificOutput as { additionalContext?: string } | undefined)?.additionalContext;
    return {
      ...prompt,
      ...(session.systemMessage !== undefined && prompt.systemMessage === undefined ? { systemMessage: session.systemMessage } : {}),
      hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: own === undefined ? before : `${before}\n\n${own}` },
    };
  };

  const handle = (event: HookInput): Promise<SyncHookJSONOutput> => {
    switch (event.hook_event_name) {
      case "SessionStart":
        started.add(event.session_id);
        return viaBridge(event);
      case "UserPromptSubmit":
        return promptSubmitted(event);
      case "PreToolUse":
        return calls.pre(event as PreToolUseHookInput, approvalsFor, onPaused);
      case "PostToolUse":
        return calls.post(event as PostToolUseHookInput);
      case "PostToolUseFailure":
        return calls.failure(event as PostToolUseFailureHookInput);
      case "PostToolBatch":
        return toolBatch(event as PostToolBatchHookInput);
      case "SubagentStart":
        return subagentStart(event as SubagentStartHookInput);
      case "Stop":
      case "StopFailure":
        // The main agent's turn is over: its calls still open did not run (a sub-agent's may still).
        calls.settleAll(event.session_id, "the turn ended first", (agent) => agent === undefined);
        return viaBridge(event);
      case "SubagentStop":
        calls.settleAll(event.session_id, "the sub-agent ended first", (agent) => agent === event.agent_id);
        return viaBridge(event);
      case "SessionEnd":
        calls.settleAll(event.session_id, "the session ended first");
        started.delete(event.session_id);
        resumed.delete(event.session_id);
        return viaBridge(event);
      default:
        return viaBridge(event);
    }
  };

  const blocking = new Set<string>(["PreToolUse", "UserPromptSubmit"]);
  // Claude Code asks the SDK for every callback over its control channel, a round trip each: an
  // event is registered only when a hook of the stack would run on it (stacks never change).
  const has = (point: keyof AgentStack["points"]): boolean => stack.has?.(point) !== false;
  const tools = has("toolCall");
  const wanted: Record<keyof typeof guardedEvents, boolean> = {
    SessionStart: has("sessionStart"),
    // sessionStart runs at the first prompt (see promptSubmitted).
    UserPromptSubmit: has("userPrompt") || has("sessionStart"),
    PreToolUse: tools,
    PostToolUse: tools,
    PostToolUseFailure: tools,
    PostToolBatch: has("toolBatch"),
    // Stop settles the calls Claude Code did not run, and ends a resumed turn's pending state.
    Stop: has("stop") || tools,
    SubagentStart: has("subagentStart"),
    SubagentStop: has("subagentStop") || tools,
    PreCompact: has("compaction"),
    PostCompact: has("compaction"),
    StopFailure: has("error") || tools,
    SessionEnd: has("sessionEnd") || tools,
    Notification: has("notification"),
  };
  const hooks: Partial<Record<HookEvent, HookCallbackMatcher[]>> = {};
  for (const event of Object.keys(guardedEvents) as (keyof typeof guardedEvents)[]) {
    if (!wanted[event]) continue;
    hooks[event] = [
      {
        timeout: timeoutSeconds,
        // Our callbacks do not throw; should one still fail or time out, the action it guards does not go ahead.
        ...(blocking.has(event) ? { onFailure: "block" as const } : {}),
        hooks: [(input) => guarded(input, () => handle(input))],
      },
    ];
  }

  // Claude Code's permission prompt waits for its answer and has no `defer`: durable approvals
  // cannot pause it, and a pending approval kept for it could never be resumed.
  const permissionsCannotPause = isDurableApprover(stack.options?.approval);
  const cannotPause: ApprovalHandler = (request) => ({
    decision: "deny",
    reason: `${request.subject ?? "the tool"} needs a person's permission, and Claude Code's permission prompt cannot pause for durable approvals (allow the tool in allowedTools and ask from a toolCall hook, or answer with a permissionRequest hook)`,
  });
  const canUseTool: CanUseTool = async (toolName, input, o) => {
    const call: ToolCall = { id: o.toolUseID ?? "", name: toolName, input };
    let result: PermissionResult;
    try {
      const event = {
        session_id: calls.sessionOf(call.id) ?? sessionId,
        hook_event_name: "PermissionRequest",
        tool_name: toolName,
        tool_input: input,
        tool_use_id: call.id,
        permission_suggestions: o.suggestions,
      };
      const run = runOptionsOf(event as unknown as HookInput);
      const reason = o.title ?? o.decisionReason ?? `${toolName} needs permission`;
      const outcome = await stack.run(
        "permissionRequest",
        { call, ...(o.suggestions ? { suggestions: o.suggestions } : {}) },
        async (request, ctx) =>
          fromApproval(
            await ctx.approve({ hook: "canUseTool", reason, input: request.call }),
            request.call.input as Record<string, unknown>,
          ),
        { ...run, signal: o.signal, ...(permissionsCannotPause ? { approval: cannotPause } : {}) },
      );
      if (outcome._tag === "Completed" && isPermissionDecision(outcome.value))
        result = toPermissionResult(outcome.value, input, o.toolUseID);
      else if (outcome._tag === "Rejected")
        result = { behavior: "deny", message: cleanText(outcome.reason), ...(o.toolUseID ? { toolUseID: o.toolUseID } : {}) };
      else
        result = {
          behavior: "deny",
          message: cleanText(
            `agent-onion: the permission request for ${toolName} could not be decided: ${outcome._tag === "Failed" ? describe(outcome.error) : "not a permission decision"}`,
          ),
        };
    } catch (error) {
      result = {
        behavior: "deny",
        message: cleanText(`agent-onion: the permission request for ${toolName} could not be decided: ${describe(error)}`),
      };
    }
    if (result.behavior === "deny" && call.id !== "") calls.settle(call.id, `canUseTool denied it: ${result.message}`);
    return result;
  };

  const answersPermissions = has("permissionRequest") || (stack.options?.approval !== undefined && !permissionsCannotPause);
  const options_ = (base: Options = {}): Options => {
    if (!isObject(base)) throw new TypeError(`${owner}.options: base must be SDK options, got ${describeGiven(base)}`);
    if (base.canUseTool !== undefined && base.canUseTool !== canUseTool)
      throw new TypeError(
        `${owner}.options: base.canUseTool is set; the guard answers permission requests (add a permissionRequest hook to the stack instead)`,
      );
    // Options the guard already made (passed again to resume, say) keep one copy of its hooks.
    const merged: Partial<Record<HookEvent, HookCallbackMatcher[]>> = { ...base.hooks };
    for (const [event, matchers] of Object.entries(hooks) as [HookEvent, HookCallbackMatcher[]][])
      merged[event] = [...(base.hooks?.[event] ?? []).filter((m) => !matchers.includes(m)), ...matchers];
    // Without permissionRequest hooks or an approval handler the callback could only deny, which
    // Claude Code does itself when nobody answers; leaving it out keeps allowedTools from shadowing it.
    return answersPermissions ? { ...base, hooks: merged, canUseTool } : { ...base, hooks: merged };
  };

  const paused = (message: SDKMessage): ClaudePausedApproval | undefined => {
    if (message.type !== "result" || message.subtype !== "success") return undefined;
    const use = (message as SDKResultMessage & { deferred_tool_use?: { id: string; name: string; input: Record<string, unknown> } })
      .deferred_tool_use;
    if (message.stop_reason !== "tool_deferred" || use === undefined) return undefined;
    const record = pausedCalls.get(use.id);
    if (record === undefined) return undefined;
    pausedCalls.delete(use.id);
    return { ...record.approval, toolUse: { id: use.id, name: use.name, input: record.call.input } };
  };

  const resume: ClaudeAgentGuard["resume"] = async (sdk, value, decision, base = {}) => {
    if (approvals === undefined)
      throw new TypeError(
        `${owner}.resume: this guard has no durable approvals (give approvals: durableApprovals(...), or make it the stack's approver), so it has nothing to resume`,
      );
    if (typeof sdk?.query !== "function" || typeof sdk.getSessionMessages !== "function")
      throw new TypeError(
        `${owner}.resume: sdk must be the Claude Agent SDK module (with query and getSessionMessages), got ${describeGiven(sdk)}`,
      );
    // Everything below comes from the store's record under the signed token, not from what was handed back.
    const token = tokenOf(approvals, value);
    const pending = await approvals.inspect(token);
    const call = pending.input;
    if (pending.point !== "toolCall" || !isCall(call) || pending.sessionId === undefined)
      throw new ClaudeApprovalError("malformed", `approval ${pending.id} is not one of a Claude Code tool call (point ${pending.point})`);
    const answer = await decisionFor(decision, call);
    const options = options_(base);
    const transcript = await sdk.getSessionMessages(pending.sessionId, {
      ...(base.cwd !== undefined ? { dir: base.cwd } : {}),
      ...(base.sessionStore !== undefined ? { sessionStore: base.sessionStore } : {}),
    });
    // An empty answer is a session the SDK cannot read from here (another CLAUDE_CONFIG_DIR in the
    // options' env than in this process): Claude Code, which can, is left to resume it.
    if (transcript.length > 0 && !waitsOn(transcript, call.id))
      throw new ClaudeSessionNotWaitingError(pending.id, pending.sessionId, call.id);
    // The claim is final: from here the token is spent, in every process sharing the store.
    const claimed = await approvals.claim(token, answer);
    claims.set(call.id, claimed);
    const sessionId = pending.sessionId;
    resumed.add(sessionId);
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    // Claude Code runs a deferred call when the resumed session gets input, and ends when the input
    // ends: an input that ends only after the resumed turn's result runs that turn and nothing more.
    const prompt = (async function* (): AsyncGenerator<SDKUserMessage> {
      await ended;
    })();
    // Resumed, Claude Code runs the deferred call as it starts. The SDK makes its own bundled Claude
    // Code wait for the hooks first (--await-initialize); one started another way would run the call
    // before they are registered (seen in about a third of resumes), so it is told to wait too.
    const own = options.pathToClaudeCodeExecutable !== undefined || options.spawnClaudeCodeProcess !== undefined;
    const extraArgs = own ? { extraArgs: { ...options.extraArgs, "await-initialize": null } } : {};
    return endingAtResult(sdk.query({ prompt, options: { ...options, ...extraArgs, resume: sessionId } }), end);
  };

  const prompt = async (text: string, run: Omit<RunOptions, "signal" | "approval"> = {}): Promise<string> => {
    if (typeof text !== "string") throw new TypeError(`${owner}.prompt: text must be a string, got ${describeGiven(text)}`);
    const outcome = await stack.run("userPrompt", { text }, (p) => p, { ...(typeof userRun === "function" ? {} : userRun), ...run });
    const accepted_ = Outcome.getOrThrow(outcome).text;
    accepted.set(accepted_, (accepted.get(accepted_) ?? 0) + 1);
    return accepted_;
  };

  return { hooks, canUseTool, options: options_, prompt, paused, resume };
};

/** The durable approvals of a guard: its option, the deprecated `pause` built into one, or the stack's durable approver. */
const approvalsOf = (owner: string, stack: ClaudeAgentStack, options: ClaudeAgentGuardOptions): DurableApprovals | undefined => {
  const { approvals, pause } = options;
  if (approvals !== undefined && pause !== undefined) throw new TypeError(`${owner}: give approvals or the deprecated pause, not both`);
  if (approvals !== undefined) {
    if (!isDurableApprover(approvals) || typeof (approvals as Partial<DurableApprovals>).claim !== "function")
      throw new TypeError(`${owner}: approvals must be durableApprovals({ store, key }), got ${describeGiven(approvals)}`);
    return approvals;
  }
  if (pause !== undefined) {
    if (!isObject(pause)) throw new TypeError(`${owner}: pause must be { store, secret, ttlMs? }, got ${describeGiven(pause)}`);
    try {
      return durableApprovals({ store: pause.store, key: pause.secret, ttlMs: pause.ttlMs ?? sevenDays, prefix: "claude-agent-sdk" });
    } catch (error) {
      const problem = (error as Error).message.replace(/^durableApprovals: key/, "secret").replace(/^durableApprovals: /, "");
      throw new TypeError(`${owner}: pause.${problem}`);
    }
  }
  const own = stack.options?.approval;
  return isDurableApprover(own) && typeof (own as Partial<DurableApprovals>).claim === "function" ? (own as DurableApprovals) : undefined;
};
