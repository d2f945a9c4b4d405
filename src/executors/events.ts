/**
 * The Claude Code events we drive, and where each one lands in our onion (DESIGN section 4):
 * which point, which phase, and what a blocking answer means there.
 */
import type { AgentPoints } from "../agent/points.ts";

/** The Claude Code events agent-onion drives. */
export type ClaudeEvent =
  | "SessionStart" | "UserPromptSubmit" | "PreToolUse" | "PostToolUse" | "PostToolUseFailure" | "Stop"
  | "SubagentStop" | "PreCompact" | "PostCompact" | "StopFailure" | "SessionEnd" | "Notification";

/**
 * What a blocking answer (exit 2, `decision: "block"`, `permissionDecision: "deny"`) does:
 * `reject` the point (a failure on observe points, R2), feed it to the model as `context`,
 * show it to the user only as a `notice` (Claude Code's "Shows stderr to user only": the event
 * goes on), or `ignore` it.
 */
export type BlockEffect = "reject" | "context" | "notice" | "ignore";

export interface EventSpec {
  readonly event: ClaudeEvent;
  readonly point: keyof AgentPoints;
  readonly phase: "before" | "after" | "recover";
  readonly onBlock: BlockEffect;
  /** Claude Code honours top-level `decision: "block"` here (its Decision control table); PreToolUse reads its deprecated form as a permission. */
  readonly decision: boolean;
  /** What the settings `matcher` is tested against; `none` means Claude Code ignores it. */
  readonly matcher: "subject" | "error-type" | "none";
  /** Plain (non-JSON) stdout becomes context for the model. */
  readonly stdoutIsContext: boolean;
  /** Claude Code discards `continue`/`stopReason` here. */
  readonly ignoresContinue: boolean;
  /** Claude Code ignores output and exit code entirely here. */
  readonly ignoresOutput: boolean;
  /** Claude Code ignores the exit code here (and stderr): no exit code is a failure. */
  readonly ignoresExitCode: boolean;
  /** A tool event: `if` conditions apply, `permission_mode` is sent. */
  readonly tool: boolean;
  readonly permissionMode: boolean;
}

const spec = (
  event: ClaudeEvent, point: keyof AgentPoints, phase: EventSpec["phase"], onBlock: BlockEffect,
  more: Partial<Omit<EventSpec, "event" | "point" | "phase" | "onBlock">> = {},
): EventSpec => ({
  event, point, phase, onBlock, decision: false, matcher: "subject", stdoutIsContext: false, ignoresContinue: false,
  ignoresOutput: false, ignoresExitCode: false, tool: false, permissionMode: false, ...more,
});

/**
 * The event table. Blocking effects follow Claude Code's "exit code 2 behavior per event",
 * except PostToolUse, where a block rejects the tool result (our gate) instead of annotating it.
 *
 * @example
 * claudeEvents.PreToolUse.point // "toolCall"
 */
export const claudeEvents: Readonly<Record<ClaudeEvent, EventSpec>> = Object.freeze({
  SessionStart: spec("SessionStart", "sessionStart", "before", "notice", { stdoutIsContext: true }),
  UserPromptSubmit: spec("UserPromptSubmit", "userPrompt", "before", "reject", { decision: true, matcher: "none", stdoutIsContext: true, permissionMode: true }),
  PreToolUse: spec("PreToolUse", "toolCall", "before", "reject", { tool: true, permissionMode: true }),
  PostToolUse: spec("PostToolUse", "toolCall", "after", "reject", { decision: true, tool: true, permissionMode: true }),
  PostToolUseFailure: spec("PostToolUseFailure", "toolCall", "recover", "context", { decision: true, tool: true, permissionMode: true }),
  Stop: spec("Stop", "stop", "before", "reject", { decision: true, matcher: "none", permissionMode: true }),
  SubagentStop: spec("SubagentStop", "subagentStop", "before", "reject", { decision: true, permissionMode: true }),
  PreCompact: spec("PreCompact", "compaction", "before", "reject", { decision: true, ignoresContinue: true }),
  PostCompact: spec("PostCompact", "compaction", "after", "notice", { ignoresContinue: true }),
  StopFailure: spec("StopFailure", "error", "before", "ignore", { matcher: "error-type", ignoresOutput: true, ignoresExitCode: true, ignoresContinue: true }),
  SessionEnd: spec("SessionEnd", "sessionEnd", "before", "notice", { ignoresContinue: true }),
  Notification: spec("Notification", "notification", "before", "ignore", { ignoresExitCode: true, ignoresContinue: true }),
});

/**
 * Every hook event Claude Code documents. Settings may name any of them; the ones we do not
 * drive are reported as unused rather than dropped.
 *
 * @example
 * allClaudeEvents.has("PermissionRequest") // true
 */
export const allClaudeEvents: ReadonlySet<string> = new Set([
  ...Object.keys(claudeEvents), "Setup", "InstructionsLoaded", "UserPromptExpansion", "MessageDisplay",
  "PermissionRequest", "PermissionDenied", "PostToolBatch", "SubagentStart", "TaskCreated", "TaskCompleted",
  "TeammateIdle", "ConfigChange", "CwdChanged", "DirectoryAdded", "FileChanged", "WorktreeCreate", "WorktreeRemove",
  "Elicitation", "ElicitationResult",
]);

/**
 * True when `name` is an event agent-onion drives.
 *
 * @example
 * isDrivenEvent("PreToolUse") // true
 */
export const isDrivenEvent = (name: string): name is ClaudeEvent => Object.hasOwn(claudeEvents, name);
