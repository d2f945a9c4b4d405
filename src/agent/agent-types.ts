/**
 * The shapes of the reference agent: its options, sessions and turn results.
 */
import type { PendingApproval } from "../core/approval-types.ts";
import type { HookError } from "../core/errors.ts";
import type { ClaimedApproval } from "../core/interrupt.ts";
import type { Trace } from "../core/trace.ts";
import type { LanguageModel, StreamPart } from "./model.ts";
import type { AgentStack } from "./stack.ts";
import type { HoldBack } from "./stream/control.ts";
import type { AgentTool } from "./tool.ts";
import type { TranscriptOptions } from "./transcript.ts";
import type {
  CompactionRequest,
  CompactionResult,
  LoopPause,
  Message,
  Notification,
  RunResult,
  SessionEnd,
  SessionSource,
  Usage,
} from "./types.ts";

/** Shrinks a conversation that exceeds the context budget. */
export type Compactor = (request: CompactionRequest, signal: AbortSignal) => CompactionResult | Promise<CompactionResult>;

/** A sub-agent the model can start; it is offered to the model as a tool of the same name taking `{ prompt }`. */
export interface SubagentSpec {
  readonly name: string;
  readonly description?: string;
  readonly system?: string;
  /** Its tools; default none (a sub-agent does not inherit the parent's tools). */
  readonly tools?: readonly AgentTool[];
  /** Its model; default the parent's. */
  readonly model?: LanguageModel;
  readonly maxSteps?: number;
}

/** Where a streamed part came from. */
export interface PartInfo {
  /** Names of the agents from the root to the one streaming. */
  readonly path: readonly string[];
  /** The step index in that agent's run. */
  readonly step: number;
}

/** What `createAgent` takes: the model, the tools, the stack and the loop's settings. */
export interface AgentOptions {
  readonly model: LanguageModel;
  readonly tools?: readonly AgentTool[];
  readonly stack: AgentStack;
  /** The agent's name, the first element of every run's `path`; default `"agent"`. */
  readonly name?: string;
  readonly system?: string;
  /** Model calls per run; default 20. Reaching it ends the run with finish reason `max-steps`. */
  readonly maxSteps?: number;
  /** Consecutive stop blocks honoured per run (R13); default 8. The next block ends the run with `stop-rejected-cap`. */
  readonly maxStopBlocks?: number;
  /** Retries an `error` hook may ask for per failed call; default 3. */
  readonly maxRetries?: number;
  /** Token budget of a request; above it the conversation is compacted through the `compaction` point. */
  readonly contextBudget?: number;
  /** How to compact; default `summarizeOldest()`. */
  readonly compact?: Compactor;
  /** How to count tokens for the budget; default about four characters a token. */
  readonly countTokens?: (messages: readonly Message[]) => number;
  readonly subagents?: readonly SubagentSpec[];
  /** Stream model calls (through `streamThroughStack`); `true` or the least hold-back to use. */
  readonly stream?: boolean | { readonly holdBack?: HoldBack };
  /** How hook-added context reaches the model: as `system` (default) or `user` messages. */
  readonly contextRole?: "system" | "user";
  /** Caller data every run carries (roles, tenant). */
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** Collect the decision trace of every run here. */
  readonly trace?: Trace;
  /** Receives streamed parts as they are released (when `stream` is on). */
  readonly onPart?: (part: StreamPart, info: PartInfo) => void;
  /** Receives notifications after the `notification` point's hooks. */
  readonly onNotification?: (notification: Notification) => void;
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  /**
   * Keep each session's transcript, in Claude Code's JSONL format, in a file whose path hooks get
   * as `metadata.transcriptPath` (`transcript_path` for Claude Code hooks). Default `true`: in
   * `defaultTranscriptDir()`, removed once the session closes; `{ dir }` elsewhere, kept (see
   * `TranscriptOptions.keep`); `false` keeps none. A session whose metadata already names a
   * `transcriptPath` keeps that one and writes none.
   */
  readonly transcript?: boolean | TranscriptOptions;
  /** After a turn, how long a session waits for the next prompt before an `idle_prompt` notification; default 60000 (Claude Code's), `false`: never. */
  readonly idleNotificationMs?: number | false;
  /** How long an approval may go unanswered before a `permission_prompt` notification; default 6000 (Claude Code's), `false`: never. */
  readonly permissionNotificationMs?: number | false;
}

/** Options of a session: its id, source, metadata, signal and earlier messages. */
export interface SessionOptions {
  readonly sessionId?: string;
  /** How it was opened, the subject of `sessionStart`; default `"resume"` when `messages` are given, else `"startup"`. */
  readonly source?: SessionSource;
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** Cancels every turn of the session. */
  readonly signal?: AbortSignal;
  /** Start from an earlier conversation (a resumed session). */
  readonly messages?: readonly Message[];
}

/** Options of one prompt: its signal, metadata and a receiver of streamed parts. */
export interface PromptOptions {
  readonly signal?: AbortSignal;
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** Receives streamed parts as they are released (when `stream` is on). */
  readonly onPart?: (part: StreamPart, info: PartInfo) => void;
}

/**
 * A turn paused for approvals, as plain JSON: keep it (a database row, a queue message) and pass
 * it to `agent.resume` or `session.resume` with the person's decisions, in this process or another
 * with the same model, tools and stack. It is as trusted as the conversation it holds: its waiting
 * tool calls are checked against the signed tokens and the store, the rest is taken as given.
 */
export interface TurnState {
  readonly v: 1;
  readonly agent: string;
  readonly sessionId: string;
  /** The turn's run id, kept on resume (run-scoped guard state, such as call limits, carries over). */
  readonly runId: string;
  /** The prompt as the `userPrompt` point accepted it (it is not asked again). */
  readonly prompt: string;
  /** The session's conversation before the turn. */
  readonly history: readonly Message[];
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Where the loop stopped: the step whose tool calls wait, and the counters. */
  readonly pause: LoopPause;
  /** What the turn spent before it paused (steps, and tokens with sub-agents'). */
  readonly spent: { readonly steps: number; readonly usage: Usage };
  /**
   * HMAC-SHA256 of every field above, under the durable approvals' key (the one that signs their
   * tokens): `resume` refuses a state that does not match it (`TurnStateTamperedError`). Absent
   * only when the stack's approver cannot sign (not `durableApprovals()`), and then `resume` refuses it.
   */
  readonly signature?: string;
}

/** Who resumes a paused turn's approvals: `durableApprovals()`, the one the stack asks. */
export interface TurnApprovals {
  /** Signs data with the approvals' key (a paused turn's state). */
  sign(purpose: string, value: unknown): string;
  /** Whether data came back as it was signed. */
  checkSignature(purpose: string, value: unknown, signature: unknown): boolean;
  /** The pending approval a token names, checked but not claimed. */
  inspect(token: string): Promise<PendingApproval>;
  /** Claims a pending approval with a decision; the first claim of a token wins. */
  claim(token: string, decision: unknown): Promise<ClaimedApproval>;
}

/** Options of `agent.resume` and `session.resume`. */
export interface ResumeOptions extends PromptOptions {
  /** The durable approvals that issued the tokens (same store and key). */
  readonly approvals: TurnApprovals;
}

/** What one prompt produced. */
export interface TurnResult {
  /**
   * `rejected`: a `userPrompt` or `run` hook said no; `failed`: an error no `error` hook recovered; `aborted`: the caller
   * cancelled; `interrupted`: tool calls wait for a person (durable approvals): see `approvals` and `state`.
   */
  readonly status: "completed" | "rejected" | "failed" | "aborted" | "interrupted";
  /** `<sessionId>#<turn>-<8 hex>`, e.g. `conversation-42#1-3f9a0c2e`: unique per turn, also in a session resumed with the same id. */
  readonly runId: string;
  /** The final answer (empty unless completed). */
  readonly text: string;
  readonly finishReason?: RunResult["finishReason"];
  /** Steps of this agent's loop over the turn (every attempt), also when it did not complete. */
  readonly steps: number;
  /** Tokens of every model call of the turn, sub-agents' included, also when it did not complete (`result.usage` counts this agent's own). */
  readonly usage: Usage;
  readonly reason?: string;
  readonly by?: string;
  /**
   * On a `rejected` turn, when the hook did not say no but failed closed (threw, timed out): its
   * error, as `Rejected.cause` carries it, so "a guard said no" and "a guard broke" stay apart.
   */
  readonly cause?: HookError;
  readonly error?: unknown;
  readonly result?: RunResult;
  /** On an `interrupted` turn: the approvals it waits for (show them to a person). */
  readonly approvals?: readonly PendingApproval[];
  /** On an `interrupted` turn: what `resume` needs to go on with the turn, as plain JSON. */
  readonly state?: TurnState;
}

/** An open session: prompts share its history. */
export interface AgentSession {
  readonly id: string;
  /** The conversation so far. */
  readonly messages: readonly Message[];
  readonly closed: boolean;
  /** The session's transcript file, when one is kept (see `AgentOptions.transcript`). */
  readonly transcriptPath: string | undefined;
  /** The variables the session's start hooks exported for later commands (`CLAUDE_ENV_FILE`), when there are any. */
  readonly env: Readonly<Record<string, string>> | undefined;
  /** Run one turn; turns of a session run one after another. */
  prompt(text: string, options?: PromptOptions): Promise<TurnResult>;
  /** Compact the conversation now, through the `compaction` point (trigger `manual`). */
  compact(): Promise<void>;
  /** Send a notice through the `notification` point. */
  notify(notification: Notification): Promise<void>;
  /**
   * Go on with a turn that paused for approvals, with a decision per approval id (read strictly:
   * anything but a well-formed approve or edit is a denial). Each token is claimed once: a second
   * resume of the same state is refused with `ApprovalReplayedError`. The result may be
   * `interrupted` again when another call asks.
   */
  resume(state: TurnState, decisions: Readonly<Record<string, unknown>>, options: ResumeOptions): Promise<TurnResult>;
  /** Close the session (the `sessionEnd` point); later prompts throw. */
  close(reason?: SessionEnd["reason"]): Promise<void>;
}

/** An agent made by `createAgent`: it opens sessions, or runs one prompt in a session of its own. */
export interface Agent {
  readonly name: string;
  /** Open a session (the `sessionStart` gate); rejects with `SessionRejectedError` when a hook refuses it. */
  session(options?: SessionOptions): Promise<AgentSession>;
  /** One prompt in a session of its own, closed afterwards. */
  run(prompt: string, options?: SessionOptions & PromptOptions): Promise<TurnResult>;
  /**
   * Go on with a turn that paused for approvals, in a session reopened with the state's id and
   * history (`sessionStart` runs with source `resume`) and closed afterwards. See `AgentSession.resume`.
   */
  resume(
    state: TurnState,
    decisions: Readonly<Record<string, unknown>>,
    options: ResumeOptions & Omit<SessionOptions, "sessionId" | "messages">,
  ): Promise<TurnResult>;
}
