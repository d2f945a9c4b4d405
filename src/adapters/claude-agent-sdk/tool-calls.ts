/**
 * One `toolCall` run per Claude Code tool call, from its PreToolUse to its PostToolUse: the SDK
 * calls both hooks in this process, so the onion is whole. `before` hooks and the outer half of
 * `around` hooks run in PreToolUse; when the chain reaches the operation, PreToolUse answers
 * (a rewritten input, context, or nothing) and Claude Code runs the tool; the operation settles with
 * what PostToolUse (the tool's output) or PostToolUseFailure (its error) reports, and `after`,
 * `recover` and the inner half of `around` hooks run there. Durations, metrics and traces see one
 * call, as in the agent loop.
 *
 * A run that ends before the operation (a `Reject`, a hook that answers in the tool's place, a
 * failure) answers PreToolUse with `deny`, which Claude Code reports to the model as an error tool
 * result with the reason. A call that Claude Code then does not run (its permission rules or
 * `canUseTool` refused it, the turn was interrupted) is settled when the batch ends (PostToolBatch),
 * the turn ends (Stop, StopFailure) or the session ends, with `ClaudeToolNotRunError`.
 */
import type {
  PostToolUseFailureHookInput,
  PostToolUseHookInput,
  PreToolUseHookInput,
  SyncHookJSONOutput,
} from "@anthropic-ai/claude-agent-sdk";
import type { AgentStack } from "../../agent/stack.ts";
import type { ToolCall, ToolResult } from "../../agent/types.ts";
import type { PendingApproval } from "../../core/approval-types.ts";
import type { Approver, RunOptions } from "../../core/context.ts";
import { AgentOnionError, brandError, describe } from "../../core/errors.ts";
import { Outcome } from "../../core/outcome.ts";
import { linkSignal, type LinkedController } from "../../core/signal.ts";
import { contentText } from "../../agent/content-text.ts";
import { cleanText } from "../../executors/sanitize.ts";
import { canonicalJson } from "../../core/approval-token.ts";
import { fitToolOutput, textInShape } from "./tool-output.ts";

/**
 * A tool call whose outcome Claude Code never reported: it was refused after our hooks let it
 * through (permission rules, `canUseTool`), deferred, or the turn ended first. The operation of its
 * `toolCall` run fails with this, so observers see a call that did not run.
 *
 * @example
 * event.outcome._tag === "Failed" && event.outcome.error instanceof ClaudeToolNotRunError
 */
export class ClaudeToolNotRunError extends AgentOnionError {
  override name = "ClaudeToolNotRunError";
  constructor(
    readonly tool: string,
    readonly why: string,
  ) {
    super(`Claude Code did not run ${tool}: ${why}`);
  }
}
brandError(ClaudeToolNotRunError);

/**
 * A tool failed in Claude Code (PostToolUseFailure); `message` is Claude Code's error text, which
 * the model reads. `recover` hooks see it as the operation's error.
 *
 * @example
 * recover: (error) => error instanceof ClaudeToolError && error.interrupted ? Replace({ content: "stopped" }) : undefined
 */
export class ClaudeToolError extends AgentOnionError {
  override name = "ClaudeToolError";
  constructor(
    readonly tool: string,
    message: string,
    /** The user interrupted the call. */
    readonly interrupted: boolean,
  ) {
    super(message);
  }
}
brandError(ClaudeToolError);

/**
 * The operation was called a second time (a `retry` around `toolCall`): Claude Code runs each call
 * once, and a hook cannot run it again.
 *
 * @example
 * retry({ point: "toolCall", retryOn: (e) => !(e instanceof ClaudeToolRerunError) })
 */
export class ClaudeToolRerunError extends AgentOnionError {
  override name = "ClaudeToolRerunError";
  constructor(readonly tool: string) {
    super(`${tool} runs in Claude Code, which runs each tool call once; a hook cannot run it again`);
  }
}
brandError(ClaudeToolRerunError);

/**
 * How the run of one call asks for approval: the approver for its run (a claimed decision's view
 * of the durable approvals, on a resumed call), and the run id it keeps. Empty: the stack's own.
 *
 * @example
 * const approvals: CallApprovals = { approval: claimed.options.approval, runId: claimed.options.runId }
 */
export interface CallApprovals {
  readonly approval?: Approver | undefined;
  readonly runId?: string | undefined;
}

/** Claude Code's fields every hook input has, which runs carry as metadata. */
interface EventBase {
  readonly session_id: string;
  readonly cwd?: string;
  readonly transcript_path?: string;
  readonly permission_mode?: string;
  readonly agent_id?: string;
  readonly agent_type?: string;
}

/**
 * Run options for a hook event: the session, Claude Code's fields as metadata, a sub-agent's path.
 *
 * @example
 * const runOptions: EventRunOptions = (event) => ({ sessionId: event.session_id, metadata: { claudeEvent: event.hook_event_name } })
 */
export type EventRunOptions = (event: EventBase & { readonly hook_event_name: string }) => RunOptions;

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}
const deferred = <T>(): Deferred<T> => {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A run that settles before its operation is reached never reads these.
  promise.catch(() => {});
  return { promise, resolve, reject };
};

/** A call between its PreToolUse and its PostToolUse. */
interface OpenCall {
  readonly call: ToolCall;
  /** The session the call belongs to: one guard may serve several queries at once. */
  readonly session: string;
  /** The sub-agent that made the call (`agent_id`); undefined for the main agent. */
  readonly agent: string | undefined;
  /** Settles the operation: the tool's output, or why there is none. */
  readonly ran: Deferred<ToolResult>;
  readonly outcome: Promise<Outcome<ToolResult>>;
  /** Context hooks added, in order; `shownBefore` of them went with PreToolUse's answer. */
  readonly context: string[];
  shownBefore: number;
  readonly stop: LinkedController;
}

/** Equal as JSON; the same object (what a run whose hooks changed nothing gives back) is not serialized. */
const same = (a: unknown, b: unknown): boolean => a === b || canonicalJson(a) === canonicalJson(b);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

type Output = SyncHookJSONOutput;

const preAnswer = (fields: Record<string, unknown>): Output => ({
  hookSpecificOutput: { hookEventName: "PreToolUse", ...fields } as never,
});
const deny = (reason: string): Output => preAnswer({ permissionDecision: "deny", permissionDecisionReason: cleanText(reason) });
const withContext = (texts: readonly string[]): Record<string, unknown> =>
  texts.length > 0 ? { additionalContext: cleanText(texts.join("\n\n")) } : {};

/**
 * The open tool calls of one guard, by tool use id.
 *
 * @example
 * const calls = new ToolCalls(stack, runOptions); hooks.PreToolUse = [{ hooks: [(input) => calls.pre(input, approvals)] }]
 */
export class ToolCalls {
  private readonly open = new Map<string, OpenCall>();

  constructor(
    private readonly stack: AgentStack,
    private readonly runOptions: EventRunOptions,
  ) {}

  /**
   * PreToolUse: run the call's `toolCall` run up to its operation, and answer Claude Code. A run
   * that stopped for a person (`Interrupted`: a durable approval) answers `defer`, after `paused`
   * was told the approval.
   */
  async pre(
    event: PreToolUseHookInput,
    approvals: (call: ToolCall) => CallApprovals,
    paused: (call: ToolCall, approval: PendingApproval) => void,
  ): Promise<Output> {
    const input = event.tool_input;
    if (!isObject(input)) return deny(`agent-onion: ${event.tool_name}'s input is not an object (${typeof input}); refused`);
    const call: ToolCall = { id: event.tool_use_id, name: event.tool_name, input };
    // A second PreToolUse for the same id (a session resumed at a deferred call) starts afresh.
    this.settle(call.id, "its PreToolUse fired again");
    const asked = approvals(call);
    const reached = deferred<ToolCall>();
    const ran = deferred<ToolResult>();
    const stop = linkSignal(undefined);
    const context: string[] = [];
    let calls = 0;
    const options = this.runOptions(event);
    const outcome = this.stack.run(
      "toolCall",
      call,
      (next) => {
        if (++calls > 1) throw new ClaudeToolRerunError(call.name);
        reached.resolve(next as ToolCall);
        return ran.promise;
      },
      {
        ...options,
        signal: stop.controller.signal,
        onContext: (text, hook) => {
          context.push(text);
          options.onContext?.(text, hook);
        },
        ...(asked.approval !== undefined ? { approval: asked.approval } : {}),
        ...(asked.runId !== undefined ? { runId: asked.runId } : {}),
      },
    );
    const open: OpenCall = { call, session: event.session_id, agent: event.agent_id, ran, outcome, context, shownBefore: 0, stop };
    const first = await Promise.race([reached.promise.then((c) => ({ reached: c })), outcome.then((o) => ({ settled: o }))]);
    if ("settled" in first) {
      stop.dispose();
      if (Outcome.isInterrupted(first.settled)) {
        // Claude Code ends the turn with the call kept; the session resumes with it, in a new run.
        paused(call, first.settled.approval);
        return preAnswer({ permissionDecision: "defer" });
      }
      return this.refusal(call, first.settled);
    }
    this.open.set(call.id, open);
    open.shownBefore = context.length;
    const fields: Record<string, unknown> = { ...withContext(context) };
    if (!same(first.reached.input, call.input)) fields.updatedInput = first.reached.input;
    return Object.keys(fields).length > 0 ? preAnswer(fields) : {};
  }

  /** What PreToolUse answers for a run that settled before its operation. */
  private refusal(call: ToolCall, outcome: Outcome<ToolResult>): Output {
    if (outcome._tag === "Rejected") return deny(outcome.reason);
    if (outcome._tag === "Completed")
      // Claude Code cannot take a result in place of running the tool: the model reads the hook's answer as the refusal's reason.
      return deny(`answered by a hook instead of running ${call.name}: ${contentText(outcome.value?.content)}`);
    return deny(`agent-onion: the toolCall run of ${call.name} failed, so the call is refused: ${describe(outcome.error)}`);
  }

  /** PostToolUse: settle the operation with the tool's output, and answer with what the hooks made of it. */
  async post(event: PostToolUseHookInput): Promise<Output> {
    const original = event.tool_response;
    const open = this.open.get(event.tool_use_id) ?? this.startAfter(event);
    open.ran.resolve({ content: original });
    const outcome = await open.outcome;
    this.close(event.tool_use_id, open);
    const context = open.context.slice(open.shownBefore);
    const post = (fields: Record<string, unknown>): Output =>
      Object.keys(fields).length > 0 ? { hookSpecificOutput: { hookEventName: "PostToolUse", ...fields } as never } : {};
    if (outcome._tag === "Completed") {
      const content = outcome.value?.content;
      if (same(content, original)) return post(withContext(context));
      const fitted = fitToolOutput(original, content);
      if (fitted !== undefined) return post({ ...withContext(context), updatedToolOutput: fitted });
      return this.endTurn(
        open.call,
        `a hook rewrote the output of ${open.call.name} into a shape Claude Code does not take for that tool`,
        context,
      );
    }
    const why =
      outcome._tag === "Rejected"
        ? `Tool result of ${open.call.name} withheld by ${outcome.by}: ${outcome.reason}`
        : `Tool result of ${open.call.name} withheld: a hook failed (${describe(outcome.error)})`;
    const withheld = textInShape(original, cleanText(why));
    if (withheld === undefined) return this.endTurn(open.call, why, context);
    // The replacement is what the model reads; the block adds the reason beside it.
    return {
      decision: "block",
      reason: cleanText(why),
      hookSpecificOutput: { hookEventName: "PostToolUse", ...withContext(context), updatedToolOutput: withheld } as never,
    };
  }

  /**
   * The output must not reach the model and no replacement in its shape is known: end the turn
   * (`continue: false`), so no model call reads it; the user is told why.
   */
  private endTurn(call: ToolCall, why: string, context: readonly string[]): Output {
    const reason = cleanText(`agent-onion: ${why}; the turn ends so that the model does not read the output of ${call.name}`);
    return {
      continue: false,
      stopReason: reason,
      decision: "block",
      reason,
      ...(context.length ? { hookSpecificOutput: { hookEventName: "PostToolUse", ...withContext(context) } as never } : {}),
    };
  }

  /** PostToolUseFailure: fail the operation with Claude Code's error; `recover` hooks may add context. */
  async failure(event: PostToolUseFailureHookInput): Promise<Output> {
    const open = this.open.get(event.tool_use_id) ?? this.startAfter(event);
    open.ran.reject(new ClaudeToolError(open.call.name, event.error, event.is_interrupt === true));
    const outcome = await open.outcome;
    this.close(event.tool_use_id, open);
    const context = open.context.slice(open.shownBefore);
    // Claude Code has already reported the error; a hook's answer or refusal can only go beside it.
    if (outcome._tag === "Completed") context.push(`A hook supplied a result for the failed call: ${contentText(outcome.value?.content)}`);
    if (outcome._tag === "Rejected") context.push(outcome.reason);
    return context.length > 0 ? { hookSpecificOutput: { hookEventName: "PostToolUseFailure", ...withContext(context) } as never } : {};
  }

  /**
   * A call PreToolUse never saw (no hook of ours was registered for it then): a run with every
   * phase, whose operation Claude Code already ran.
   */
  private startAfter(event: PostToolUseHookInput | PostToolUseFailureHookInput): OpenCall {
    const input = isObject(event.tool_input) ? event.tool_input : {};
    const call: ToolCall = { id: event.tool_use_id, name: event.tool_name, input };
    const ran = deferred<ToolResult>();
    const context: string[] = [];
    const stop = linkSignal(undefined);
    const options = this.runOptions(event);
    let calls = 0;
    const outcome = this.stack.run(
      "toolCall",
      call,
      () => {
        if (++calls > 1) throw new ClaudeToolRerunError(call.name);
        return ran.promise;
      },
      { ...options, signal: stop.controller.signal, onContext: (text, hook) => (context.push(text), options.onContext?.(text, hook)) },
    );
    return { call, session: event.session_id, agent: event.agent_id, ran, outcome, context, shownBefore: 0, stop };
  }

  private close(id: string, open: OpenCall): void {
    if (this.open.get(id) === open) this.open.delete(id);
    open.stop.dispose();
  }

  /** Settle the call `id` if it is still open: Claude Code did not run it, for `why`. */
  settle(id: string, why: string): void {
    const open = this.open.get(id);
    if (open === undefined) return;
    this.open.delete(id);
    open.ran.reject(new ClaudeToolNotRunError(open.call.name, why));
    void open.outcome.finally(() => open.stop.dispose());
  }

  /**
   * Settle the open calls of `session` (its turn or the session ended), or those of its agents
   * `which` picks (undefined: the main agent); other sessions' calls stay open.
   */
  settleAll(session: string, why: string, which: (agent: string | undefined) => boolean = () => true): void {
    for (const [id, open] of [...this.open]) if (open.session === session && which(open.agent)) this.settle(id, why);
  }

  /** The session of the open call `id`, if one is open. */
  sessionOf(id: string): string | undefined {
    return this.open.get(id)?.session;
  }

  /** How many calls are between PreToolUse and PostToolUse. */
  get size(): number {
    return this.open.size;
  }
}
