/**
 * Payloads of the standard agent points (DESIGN section 4). The field names kept by the
 * contract are `ToolCall`, `ToolResult`, `UserPrompt` and `StopRequest`; the others follow the
 * same shape: plain JSON-like data, so they can be frozen, traced and sent to external hooks.
 */
import type { PendingApproval } from "../core/approval-types.ts";

/** One tool invocation requested by the model. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly input: Record<string, unknown>;
}

/** What a tool returned; `isError` marks a failure the model should read. */
export interface ToolResult {
  readonly content: unknown;
  readonly isError?: boolean;
}

/** A message of the conversation, provider-neutral. */
export interface Message {
  readonly role: "system" | "user" | "assistant" | "tool";
  readonly content: string;
  /** Tool calls the assistant asked for in this message. */
  readonly toolCalls?: readonly ToolCall[];
  /** For `tool` messages: which call this answers, and the tool's name. */
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly isError?: boolean;
}

/** A tool as the model sees it. */
export interface ToolSpec {
  readonly name: string;
  readonly description?: string;
  /** JSON Schema of the input. */
  readonly inputSchema?: Record<string, unknown>;
}

/** Tokens a provider call used, as the provider reported them (or estimated, see `usageEstimated`). */
export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** Why the model stopped answering (the AI SDK's finish reasons). */
export type FinishReason = "stop" | "length" | "tool-calls" | "content-filter" | "error" | "other";

/** One LLM provider call. */
export interface ModelRequest {
  /** The model id; the subject of `modelCall`. */
  readonly model: string;
  readonly messages: readonly Message[];
  readonly tools?: readonly ToolSpec[];
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  /** True when the caller asked for a stream. */
  readonly stream?: boolean;
  /** The provider as its SDK names it (the AI SDK's `LanguageModel.provider`: `amazon-bedrock`, `azure.chat`), when known; telemetry maps it to `gen_ai.provider.name`. */
  readonly provider?: string;
  /** The endpoint the call goes to, when the adapter knows its base URL; telemetry writes it as `server.address` and `server.port`. */
  readonly server?: ModelServer;
}

/** Where a model call goes: the host (or socket path) and port of its endpoint. */
export interface ModelServer {
  readonly address: string;
  readonly port: number;
}

/** What a provider call produced (for streams: the assembled response). */
export interface ModelResponse {
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  readonly finishReason: FinishReason;
  readonly usage: Usage;
  /** The model that answered (after a fallback it may differ from the request). */
  readonly model?: string;
  /** The provider's id of this response (`chatcmpl-…`, `msg_…`), when it gave one. */
  readonly id?: string;
  /** For streams: ms from the call to the first chunk. */
  readonly timeToFirstChunkMs?: number;
  /** For streams: ms between each chunk after the first and the chunk before it, in order. */
  readonly chunkIntervalsMs?: readonly number[];
  /** For streams: the stream was cut short (caller abort, consumer cancel); text and usage are partial. */
  readonly aborted?: boolean;
  /** True when the provider reported no usage and the numbers are estimates (about 4 characters a token). */
  readonly usageEstimated?: boolean;
  /**
   * The answer's other parts, in the model adapter's own shapes and order (the AI SDK's content
   * parts: reasoning, sources, files, results of tools the provider ran); absent when there are
   * none. Hooks may rewrite them (`redaction` does); a streamed answer carries them as `raw` parts instead.
   */
  readonly parts?: readonly unknown[];
}

/** A user message entering the agent; hooks may rewrite it. */
export interface UserPrompt {
  readonly text: string;
}

/** What `userPrompt` yields: the accepted (possibly rewritten) prompt. */
export type AcceptedPrompt = UserPrompt;

/** The decision to stop; `Reject` keeps the agent going with the reason fed back (R13 caps it). */
export interface StopRequest {
  readonly reason: string;
  readonly lastMessage?: string;
  /** How many consecutive times a stop was already blocked in this run. */
  readonly blockedCount: number;
}

/** The answer of the `stop` point: stop, with the final text. */
export interface StopDecision {
  readonly stop: true;
}

/** A sub-agent finishing; subject is the sub-agent's name. */
export interface SubagentStopRequest extends StopRequest {
  readonly agent: string;
  readonly path: readonly string[];
}

/**
 * How a session was opened: Claude Code's SessionStart sources, or any other name (the bridge
 * passes on what Claude Code sends, including sources added after these).
 */
export type SessionSource = "startup" | "resume" | "clear" | "compact" | "fork" | (string & {});

/** Opening a session; subject is the source. */
export interface SessionStart {
  readonly sessionId: string;
  readonly source: SessionSource;
}
/** What `sessionStart` yields; hooks may add context for the model with `ctx.addContext`. */
export interface SessionInfo {
  readonly sessionId: string;
  /**
   * Variables the session's start hooks exported for later shell commands (Claude Code's
   * `CLAUDE_ENV_FILE`), as they stand after the file is evaluated; absent when none were.
   * A Bash tool passes them to the commands it runs.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** The file those `export` lines were written to, for a Bash tool that sources it before each command instead. */
  readonly envFile?: string;
}

/** Closing a session; subject is the reason. */
export interface SessionEnd {
  readonly sessionId: string;
  /** Claude Code's SessionEnd reasons, `error` (a session closed on a failure), or any other name. */
  readonly reason: "clear" | "resume" | "logout" | "prompt_input_exit" | "other" | "error" | (string & {});
}

/**
 * One agent run: a prompt in, a result out. `before` hooks on `run` may rewrite any of it
 * (seed 001's onAgentStart: the system instruction, the tools, the input).
 */
export interface RunInput {
  readonly prompt: string;
  /** The conversation so far, ending with the user's message. */
  readonly messages: readonly Message[];
  /** The system prompt sent first in every model request of this run. */
  readonly system?: string;
  /** The tools offered to the model in this run; a hook may remove some. */
  readonly tools?: readonly ToolSpec[];
}
/** What one agent run produced: the final text, steps, usage, why it ended, and the conversation. */
export interface RunResult {
  readonly text: string;
  readonly steps: number;
  readonly usage: Usage;
  /** `interrupted`: a tool call waits for a person's approval (durable approvals); `paused` says where. */
  readonly finishReason: FinishReason | "stop-rejected-cap" | "max-steps" | "stopped-by-guard" | "interrupted";
  /** Set when a guard stopped the run: why, which hook, and which kind of limit. */
  readonly stoppedBy?: { readonly reason: string; readonly by?: string; readonly kind?: string };
  readonly messages: readonly Message[];
  /** Set when the run stopped to wait for approvals: where the loop stopped, to go on from there. */
  readonly paused?: LoopPause;
}

/**
 * Where an agent run stopped for approvals: the conversation before the step whose tool calls
 * wait, that step (its model response, the context hooks added to its request, and each call with
 * its result or the approval it waits for), and the run's counters. Plain JSON data.
 */
export interface LoopPause {
  readonly messages: readonly Message[];
  readonly step: {
    readonly index: number;
    readonly response: ModelResponse;
    readonly carried: readonly Message[];
    readonly calls: readonly { readonly call: ToolCall; readonly result?: ToolResult; readonly approval?: PendingApproval }[];
  };
  readonly steps: number;
  readonly usage: Usage;
  readonly blocks: number;
}

/** One loop iteration. */
export interface StepInput {
  readonly index: number;
  readonly messages: readonly Message[];
}
/** What one loop iteration produced: the model's response and its tool calls' results. */
export interface StepResult {
  readonly response: ModelResponse;
  /** Each call and the result the model reads; a call that waits for a person has its `approval` (and a placeholder result). */
  readonly toolResults: readonly { readonly call: ToolCall; readonly result: ToolResult; readonly approval?: PendingApproval }[];
}

/** Context compaction; subject is the trigger. */
export interface CompactionRequest {
  readonly trigger: "auto" | "manual";
  readonly messages: readonly Message[];
  readonly tokens: number;
  readonly budget: number;
}
/** The compacted conversation, its summary, and how many messages it replaced. */
export interface CompactionResult {
  readonly messages: readonly Message[];
  readonly summary: string;
  readonly removed: number;
}

/** An error in the loop; subject is where it happened. */
export interface ErrorEvent {
  readonly where: "model" | "tool" | "hook" | "loop";
  readonly error: unknown;
  readonly attempt: number;
}
/** What to do about an error: fail (default), retry the failed operation, or recover with a value. */
export type ErrorDecision =
  | { readonly action: "fail" }
  | { readonly action: "retry"; readonly delayMs?: number }
  | { readonly action: "recover"; readonly value: unknown };

/** A notice to the user; subject is its type. */
export interface Notification {
  /**
   * Ours (`info`, `warning`, `error`: a turn failed, `approval`), Claude Code's notification types
   * (the reference agent sends `permission_prompt` and `idle_prompt`), or any other name.
   */
  readonly type:
    | "info"
    | "warning"
    | "error"
    | "approval"
    | "permission_prompt"
    | "idle_prompt"
    | "auth_success"
    | "elicitation_dialog"
    | "elicitation_url_dialog"
    | "elicitation_complete"
    | "elicitation_response"
    | "agent_needs_input"
    | "agent_completed"
    | (string & {});
  readonly message: string;
}

/**
 * A tool call that needs a permission decision before it runs (Claude Code's PermissionRequest);
 * subject is the tool's name. The operation asks whoever decides (a person, a policy).
 */
export interface PermissionRequest {
  readonly call: ToolCall;
  /** The "always allow" options a person would be offered (Claude Code's `permission_suggestions`), as given. */
  readonly suggestions?: readonly unknown[];
}

/**
 * The answer to a permission request: allow (perhaps with a rewritten input and permission
 * updates to remember) or deny (with a message for the model, and whether to stop the turn).
 */
export type PermissionDecision =
  | {
      readonly behavior: "allow";
      readonly updatedInput?: Readonly<Record<string, unknown>>;
      readonly updatedPermissions?: readonly unknown[];
    }
  | { readonly behavior: "deny"; readonly message?: string; readonly interrupt?: boolean };

/** A sub-agent being started (Claude Code's SubagentStart); subject is the sub-agent's name. Hooks' context goes to the sub-agent. */
export interface SubagentStart {
  readonly agent: string;
  /** Agent names from the root to the new sub-agent. */
  readonly path: readonly string[];
  /** The task it was given, when known. */
  readonly prompt?: string;
}

/**
 * Every tool call of one step, resolved, before the next model call (Claude Code's
 * PostToolBatch). A `Reject` ends the run there; context goes to the next model call.
 */
export interface ToolBatch {
  readonly calls: readonly { readonly call: ToolCall; readonly result: ToolResult }[];
}
