/**
 * The environment of one agent run: what every part of the loop needs, resolved once.
 */
import type { RunOptions } from "../core/context.ts";
import type { Compactor, PartInfo } from "./agent-types.ts";
import type { ContextQueue } from "./context-queue.ts";
import type { LanguageModel, StreamPart } from "./model.ts";
import type { PermissionPolicy } from "./permissions.ts";
import type { AgentStack } from "./stack.ts";
import type { HoldBack } from "./stream/control.ts";
import type { AgentTool } from "./tool.ts";
import type { TranscriptWriter } from "./transcript.ts";
import type { Message, Notification, Usage } from "./types.ts";

/**
 * What a session shares with every run in it: the variables its start hooks exported for later
 * commands (Claude Code's `CLAUDE_ENV_FILE`), as they stand after the last `sessionStart` run.
 */
export interface SessionShared {
  env: Readonly<Record<string, string>> | undefined;
  envFile: string | undefined;
}

/** Settings with their defaults applied. */
export interface LoopSettings {
  readonly maxSteps: number;
  readonly maxStopBlocks: number;
  readonly maxRetries: number;
  readonly contextBudget: number | undefined;
  readonly compact: Compactor;
  readonly countTokens: (messages: readonly Message[]) => number;
  /** Undefined: generate; else stream with this least hold-back. */
  readonly stream: HoldBack | undefined;
  readonly maxOutputTokens: number | undefined;
  readonly temperature: number | undefined;
  /** How hook-added context reaches the model. */
  readonly contextRole: "system" | "user";
  /** After a turn, how long a session waits for the next prompt before `idle_prompt`; `false`: never. */
  readonly idleNotificationMs: number | false;
  /** How long an approval may go unanswered before `permission_prompt`; `false`: never. */
  readonly permissionNotificationMs: number | false;
  /** The agent's permission policy, shared by its sub-agents; undefined: none. */
  readonly permissions?: PermissionPolicy | undefined;
}

export interface LoopEnv {
  readonly stack: AgentStack;
  readonly model: LanguageModel;
  /** Every tool this agent may run, sub-agent tools included. */
  readonly tools: readonly AgentTool[];
  readonly settings: LoopSettings;
  /** Options of every point run in this agent run: signal, ids, metadata, path, trace, context. */
  readonly run: RunOptions;
  readonly signal: AbortSignal | undefined;
  readonly pending: ContextQueue;
  /** `stop` for the root agent, `subagentStop` for a sub-agent. */
  readonly stopPoint: "stop" | "subagentStop";
  readonly path: readonly string[];
  readonly onPart: ((part: StreamPart, info: PartInfo) => void) | undefined;
  readonly notify: (notification: Notification) => Promise<void>;
  /**
   * What the turn has spent so far: the root agent's steps and the tokens of every model call,
   * its sub-agents' included (they share this object). Read when a turn fails or is aborted, so
   * that what was spent is still reported.
   */
  readonly spent: { steps: number; usage: Usage };
  /** This agent's transcript (a sub-agent's is its own), when the session keeps one. */
  readonly transcript: TranscriptWriter | undefined;
  readonly session: SessionShared;
}
