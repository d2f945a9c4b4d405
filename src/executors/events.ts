/**
 * Claude Code's hook events and where each one lands in our onion (DESIGN section 4): which
 * point, which phase, what a blocking answer, a failure and `continue: false` mean there, which
 * handler types and matchers Claude Code allows on it. Events with no counterpart in an agent
 * loop are listed too, with why, so settings naming them load and say so.
 */
import type { AgentPoints } from "../agent/points.ts";

/** The Claude Code events `claude-hook` translates into our points (the bridge's events). */
export type ClaudeEvent =
  | "SessionStart"
  | "UserPromptSubmit"
  | "PreToolUse"
  | "PostToolUse"
  | "PostToolUseFailure"
  | "Stop"
  | "SubagentStop"
  | "PreCompact"
  | "PostCompact"
  | "StopFailure"
  | "SessionEnd"
  | "Notification";

/** The Claude Code events with a counterpart point in an agent loop: hooks loaded for them run in process. */
export type AgentEvent = ClaudeEvent | "PermissionRequest" | "SubagentStart" | "PostToolBatch";

/** Every hook event Claude Code documents. */
export type ClaudeHookEvent =
  | AgentEvent
  | "Setup"
  | "InstructionsLoaded"
  | "UserPromptExpansion"
  | "MessageDisplay"
  | "PermissionDenied"
  | "TaskCreated"
  | "TaskCompleted"
  | "TeammateIdle"
  | "ConfigChange"
  | "CwdChanged"
  | "DirectoryAdded"
  | "FileChanged"
  | "WorktreeCreate"
  | "WorktreeRemove"
  | "Elicitation"
  | "ElicitationResult";

/**
 * What a blocking answer (exit 2, `decision: "block"`, `permissionDecision: "deny"`) does:
 * `reject` the point (a failure on observe points, R2), feed it to the model as `context`,
 * show it to the user only as a `notice` (Claude Code's "Shows stderr to user only": the event
 * goes on), or `ignore` it.
 */
export type BlockEffect = "reject" | "context" | "notice" | "ignore";

/** How agent-onion maps one Claude Code hook event: its point, phase, and what its answers do. */
export interface EventSpec {
  readonly event: AgentEvent;
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
  /**
   * What `continue: false` does: `end-turn` lets the event's action happen and then ends the turn
   * (observed in Claude Code on PreToolUse), `reject` refuses the action, `allow-stop` lets a stop
   * happen, `notice` tells the user and changes nothing.
   */
  readonly onContinueFalse: "end-turn" | "reject" | "allow-stop" | "notice";
  /**
   * What a hook that fails closed does to the event: `refuse` its action (with a reason naming the
   * hook), `withhold` the tool's output from the model (the tool already ran), or only a `notice`
   * (the event cannot be refused: SessionStart, SessionEnd, Notification...).
   */
  readonly onClosedFailure: "refuse" | "withhold" | "notice";
  /** Claude Code sends `effort` (and sets `CLAUDE_EFFORT`) on this event. */
  readonly effort: boolean;
  /** The point's runs that are this event, when not all are (StopFailure: the model failures the `error` point let end the turn). */
  readonly when?: (input: unknown, output?: unknown) => boolean;
}

type SpecFields = Omit<EventSpec, "event" | "point" | "phase" | "onBlock">;

const spec = (
  event: AgentEvent,
  point: keyof AgentPoints,
  phase: EventSpec["phase"],
  onBlock: BlockEffect,
  more: Partial<SpecFields> = {},
): EventSpec => ({
  event,
  point,
  phase,
  onBlock,
  decision: false,
  matcher: "subject",
  stdoutIsContext: false,
  ignoresContinue: false,
  ignoresOutput: false,
  ignoresExitCode: false,
  tool: false,
  permissionMode: false,
  onContinueFalse: "notice",
  onClosedFailure: "notice",
  effort: false,
  ...more,
});

const toolEvent = { tool: true, permissionMode: true, effort: true } as const;

/**
 * The events with a point, and what each answer means there. Blocking effects follow Claude
 * Code's "exit code 2 behavior per event"; on PostToolUse, which cannot undo the call, a block
 * adds its reason beside the tool's output, as Claude Code shows it to Claude.
 *
 * @example
 * agentEvents.PermissionRequest.point // "permissionRequest"
 */
export const agentEvents: Readonly<Record<AgentEvent, EventSpec>> = Object.freeze({
  SessionStart: spec("SessionStart", "sessionStart", "before", "notice", { stdoutIsContext: true }),
  UserPromptSubmit: spec("UserPromptSubmit", "userPrompt", "before", "reject", {
    decision: true,
    matcher: "none",
    stdoutIsContext: true,
    permissionMode: true,
    onContinueFalse: "reject",
    onClosedFailure: "refuse",
  }),
  PreToolUse: spec("PreToolUse", "toolCall", "before", "reject", { ...toolEvent, onContinueFalse: "end-turn", onClosedFailure: "refuse" }),
  PostToolUse: spec("PostToolUse", "toolCall", "after", "context", {
    ...toolEvent,
    decision: true,
    onContinueFalse: "end-turn",
    onClosedFailure: "withhold",
  }),
  PostToolUseFailure: spec("PostToolUseFailure", "toolCall", "recover", "context", {
    ...toolEvent,
    decision: true,
    onContinueFalse: "end-turn",
  }),
  Stop: spec("Stop", "stop", "before", "reject", {
    decision: true,
    matcher: "none",
    permissionMode: true,
    effort: true,
    onContinueFalse: "allow-stop",
    onClosedFailure: "refuse",
  }),
  SubagentStop: spec("SubagentStop", "subagentStop", "before", "reject", {
    decision: true,
    permissionMode: true,
    effort: true,
    onContinueFalse: "allow-stop",
    onClosedFailure: "refuse",
  }),
  PreCompact: spec("PreCompact", "compaction", "before", "reject", { decision: true, ignoresContinue: true, onClosedFailure: "refuse" }),
  PostCompact: spec("PostCompact", "compaction", "after", "notice", { ignoresContinue: true }),
  // An API error ending the turn: a failed model call the `error` point decided to fail (not one it
  // retries or recovers from), not a tool's or a hook's failure.
  StopFailure: spec("StopFailure", "error", "after", "ignore", {
    matcher: "error-type",
    effort: true,
    ignoresOutput: true,
    ignoresExitCode: true,
    ignoresContinue: true,
    when: (e, decision) =>
      (e as { where?: unknown } | null)?.where === "model" && (decision as { action?: unknown } | null)?.action === "fail",
  }),
  SessionEnd: spec("SessionEnd", "sessionEnd", "before", "notice", { ignoresContinue: true }),
  Notification: spec("Notification", "notification", "before", "ignore", { ignoresExitCode: true, ignoresContinue: true }),
  // Exit 2 "isn't honored" here: only the `decision` object grants or denies.
  PermissionRequest: spec("PermissionRequest", "permissionRequest", "before", "ignore", {
    ...toolEvent,
    onContinueFalse: "end-turn",
    onClosedFailure: "refuse",
  }),
  SubagentStart: spec("SubagentStart", "subagentStart", "before", "notice", {}),
  PostToolBatch: spec("PostToolBatch", "toolBatch", "before", "reject", {
    decision: true,
    matcher: "none",
    permissionMode: true,
    effort: true,
    onContinueFalse: "reject",
    onClosedFailure: "refuse",
  }),
});

/**
 * The events `claude-hook` translates (a subset of `agentEvents`, the same specs).
 *
 * @example
 * claudeEvents.PreToolUse.point // "toolCall"
 */
export const claudeEvents: Readonly<Record<ClaudeEvent, EventSpec>> = Object.freeze(
  Object.fromEntries(
    (
      [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "Stop",
        "SubagentStop",
        "PreCompact",
        "PostCompact",
        "StopFailure",
        "SessionEnd",
        "Notification",
      ] as const
    ).map((e) => [e, agentEvents[e]]),
  ) as Record<ClaudeEvent, EventSpec>,
);

/** Handler types Claude Code runs on an event ("Prompt-based hooks"). */
export type HandlerType = "command" | "http" | "mcp_tool" | "prompt" | "agent";

/** What settings need to know about any Claude Code event, driven or not. */
export interface HookEventInfo {
  readonly event: ClaudeHookEvent;
  /** The handler types Claude Code runs on it. */
  readonly types: ReadonlySet<HandlerType>;
  /** How its `matcher` is read: names and RegExps, the narrower FileChanged/StopFailure set, or not at all. */
  readonly matcher: "standard" | "narrow" | "none";
  /** `if` is evaluated (tool events); elsewhere a handler with `if` never runs. */
  readonly tool: boolean;
  /** Claude Code's default timeout in seconds for command, HTTP and MCP tool hooks (SessionEnd: the shared budget). */
  readonly timeoutSeconds: number;
  /** Where it runs in process, or undefined. */
  readonly spec: EventSpec | undefined;
  /** Why it has no counterpart, when it has none. */
  readonly unmapped?: string;
}

const all = new Set<HandlerType>(["command", "http", "mcp_tool", "prompt", "agent"]);
const noModel = new Set<HandlerType>(["command", "http", "mcp_tool"]);
const commandOnly = new Set<HandlerType>(["command", "mcp_tool"]);

const info = (
  event: ClaudeHookEvent,
  types: ReadonlySet<HandlerType>,
  matcher: HookEventInfo["matcher"],
  more: { tool?: boolean; timeoutSeconds?: number; unmapped?: string } = {},
): HookEventInfo => ({
  event,
  types,
  matcher,
  tool: more.tool ?? false,
  timeoutSeconds: more.timeoutSeconds ?? 600,
  spec: Object.hasOwn(agentEvents, event) ? agentEvents[event as AgentEvent] : undefined,
  ...(more.unmapped !== undefined ? { unmapped: more.unmapped } : {}),
});

/**
 * Every Claude Code hook event: the handler types and matcher it takes, and its point or why it
 * has none. Settings may name any of them; those without a point are reported as unused.
 *
 * @example
 * claudeHookEvents.TeammateIdle.unmapped // "agent teams are Claude Code's own; an agent loop has no teammates"
 */
export const claudeHookEvents: Readonly<Record<ClaudeHookEvent, HookEventInfo>> = Object.freeze({
  SessionStart: info("SessionStart", commandOnly, "standard"),
  Setup: info("Setup", commandOnly, "standard", { unmapped: "it fires only for Claude Code's --init and --maintenance runs" }),
  InstructionsLoaded: info("InstructionsLoaded", noModel, "standard", { unmapped: "CLAUDE.md and rules files are Claude Code's own" }),
  UserPromptSubmit: info("UserPromptSubmit", all, "none", { timeoutSeconds: 30 }),
  UserPromptExpansion: info("UserPromptExpansion", all, "standard", {
    unmapped: "slash commands and skills are expanded by Claude Code's interface, not by an agent loop",
  }),
  MessageDisplay: info("MessageDisplay", noModel, "none", {
    timeoutSeconds: 10,
    unmapped: "it changes only what a terminal displays; the host application renders text itself",
  }),
  PreToolUse: info("PreToolUse", all, "standard", { tool: true }),
  PermissionRequest: info("PermissionRequest", all, "standard", { tool: true }),
  PermissionDenied: info("PermissionDenied", all, "standard", {
    tool: true,
    unmapped: "it fires on denials by Claude Code's auto-mode classifier; agent-onion's denials come from hooks on PreToolUse",
  }),
  PostToolUse: info("PostToolUse", all, "standard", { tool: true }),
  PostToolUseFailure: info("PostToolUseFailure", all, "standard", { tool: true }),
  PostToolBatch: info("PostToolBatch", all, "none"),
  Notification: info("Notification", noModel, "standard"),
  SubagentStart: info("SubagentStart", noModel, "standard"),
  SubagentStop: info("SubagentStop", all, "standard"),
  TaskCreated: info("TaskCreated", all, "none", {
    unmapped: "the task list (TaskCreate) is a Claude Code tool, not part of an agent loop",
  }),
  TaskCompleted: info("TaskCompleted", all, "none", {
    unmapped: "the task list (TaskUpdate) is a Claude Code tool, not part of an agent loop",
  }),
  Stop: info("Stop", all, "none"),
  StopFailure: info("StopFailure", noModel, "narrow"),
  TeammateIdle: info("TeammateIdle", all, "none", { unmapped: "agent teams are Claude Code's own; an agent loop has no teammates" }),
  ConfigChange: info("ConfigChange", noModel, "standard", { unmapped: "it watches Claude Code's own settings files" }),
  CwdChanged: info("CwdChanged", noModel, "none", {
    unmapped: "an agent loop has no working directory of its own that a tool call changes",
  }),
  DirectoryAdded: info("DirectoryAdded", noModel, "standard", { unmapped: "/add-dir is Claude Code's interface" }),
  FileChanged: info("FileChanged", noModel, "narrow", { unmapped: "it needs Claude Code's file watcher" }),
  WorktreeCreate: info("WorktreeCreate", noModel, "none", { unmapped: "worktree isolation is Claude Code's own" }),
  WorktreeRemove: info("WorktreeRemove", noModel, "none", { unmapped: "worktree isolation is Claude Code's own" }),
  PreCompact: info("PreCompact", noModel, "standard"),
  PostCompact: info("PostCompact", noModel, "standard"),
  Elicitation: info("Elicitation", noModel, "standard", { unmapped: "MCP elicitation dialogs are Claude Code's interface" }),
  ElicitationResult: info("ElicitationResult", noModel, "standard", { unmapped: "MCP elicitation dialogs are Claude Code's interface" }),
  SessionEnd: info("SessionEnd", noModel, "standard", { timeoutSeconds: 1.5 }),
});

/**
 * Every hook event Claude Code documents. Settings may name any of them; the ones we do not
 * drive are reported as unused rather than dropped.
 *
 * @example
 * allClaudeEvents.has("PermissionDenied") // true
 */
export const allClaudeEvents: ReadonlySet<string> = new Set(Object.keys(claudeHookEvents));

/**
 * True when `name` is an event `claude-hook` translates.
 *
 * @example
 * isDrivenEvent("PreToolUse") // true
 */
export const isDrivenEvent = (name: string): name is ClaudeEvent => Object.hasOwn(claudeEvents, name);

/**
 * True when `name` is a Claude Code event with a point in an agent loop (hooks for it run in process).
 *
 * @example
 * isAgentEvent("PermissionRequest") // true
 */
export const isAgentEvent = (name: string): name is AgentEvent => Object.hasOwn(agentEvents, name);

/**
 * True when `name` is a documented Claude Code hook event.
 *
 * @example
 * isClaudeHookEvent("TeammateIdle") // true
 */
export const isClaudeHookEvent = (name: string): name is ClaudeHookEvent => Object.hasOwn(claudeHookEvents, name);
