/**
 * The other direction: a Claude Code event (what Claude Code writes on a command hook's stdin)
 * as the input of our point. Unknown fields are ignored, since Claude Code adds fields over
 * time; the fields we read must have the documented types, or the event is refused.
 */
import type {
  CompactionRequest,
  ErrorDecision,
  ErrorEvent,
  Notification,
  SessionEnd,
  SessionStart,
  StopRequest,
  SubagentStopRequest,
  ToolCall,
  UserPrompt,
} from "../agent/types.ts";
import { ClaudeStopFailure, type FromClaude } from "./event-json.ts";
import { isDrivenEvent, claudeEvents, type ClaudeEvent, type EventSpec } from "./events.ts";
import { brandError } from "../core/errors.ts";

// The fields we read and their JSON types. Checked by hand rather than with Effect's Schema:
// this runs once per tool call in a fresh process, where loading Effect would cost more than the check.
const fieldTypes = {
  hook_event_name: "string",
  session_id: "string",
  cwd: "string",
  transcript_path: "string",
  permission_mode: "string",
  agent_type: "string",
  tool_name: "string",
  tool_input: "object",
  tool_use_id: "string",
  error: "string",
  error_details: "string",
  prompt: "string",
  source: "string",
  stop_hook_active: "boolean",
  last_assistant_message: "string",
  trigger: "string",
  compact_summary: "string",
  reason: "string",
  message: "string",
  notification_type: "string",
  title: "string",
  custom_instructions: "string",
} as const;
type Fields = {
  -readonly [K in keyof typeof fieldTypes]?: (typeof fieldTypes)[K] extends "string"
    ? string
    : (typeof fieldTypes)[K] extends "boolean"
      ? boolean
      : Record<string, unknown>;
} & { tool_response?: unknown; duration_ms?: unknown };

const readFields = (json: unknown): Fields => {
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new BridgeEventError("the event must be a JSON object");
  const e = json as Record<string, unknown>;
  for (const [key, type] of Object.entries(fieldTypes)) {
    const v = e[key];
    // Claude Code sends `custom_instructions: null` on a manual /compact without instructions.
    if (v === undefined || (v === null && key === "custom_instructions")) continue;
    const ok = type === "object" ? typeof v === "object" && v !== null && !Array.isArray(v) : typeof v === type;
    if (!ok)
      throw new BridgeEventError(
        `the event does not fit the protocol: ${key}: expected ${type}, got ${Array.isArray(v) ? "array" : v === null ? "null" : typeof v}`,
      );
  }
  if (e.hook_event_name === undefined) throw new BridgeEventError("the event does not fit the protocol: hook_event_name is missing");
  if (e.trigger !== undefined && e.trigger !== "auto" && e.trigger !== "manual")
    throw new BridgeEventError(`the event does not fit the protocol: trigger: expected "auto" or "manual"`);
  return e as Fields;
};

/** A Claude Code event, translated. */
export interface BridgeEvent {
  readonly event: ClaudeEvent;
  readonly spec: EventSpec;
  readonly input: unknown;
  /** The operation's output Claude Code already has (PostToolUse's tool_response, PostCompact's summary). */
  readonly output?: unknown;
  /** The failure Claude Code reports (PostToolUseFailure's `error`). */
  readonly error?: string;
  /** How long the tool ran, as Claude Code reports it (`duration_ms`), when it is a whole number of ms. */
  readonly durationMs?: number;
  readonly sessionId: string | undefined;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/**
 * The event on stdin is not one we can run.
 *
 * @example
 * fromClaudeEvent({ hook_event_name: "PreToolUse" }) // throws BridgeEventError: PreToolUse event is missing tool_name
 */
export class BridgeEventError extends TypeError {
  override name = "BridgeEventError";
}
brandError(BridgeEventError);

/**
 * The event on stdin is well formed but is not one agent-onion drives (`PermissionRequest`, an
 * event added after this version): no hook of ours has anything to say about it.
 *
 * @example
 * fromClaudeEvent({ hook_event_name: "PermissionRequest" }) // throws UndrivenEventError (event "PermissionRequest")
 */
export class UndrivenEventError extends BridgeEventError {
  override name = "UndrivenEventError";
  constructor(readonly event: string) {
    super(`agent-onion does not drive ${event} events`);
  }
}

const need = (value: string | undefined, field: string, event: string): string => {
  if (value === undefined) throw new BridgeEventError(`${event} event is missing ${field}`);
  return value;
};

/**
 * Translate a Claude Code event JSON into our point's input.
 *
 * @example
 * fromClaudeEvent({ hook_event_name: "PreToolUse", session_id: "s", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "t" }).input
 * // { id: "t", name: "Bash", input: { command: "ls" } }
 */
export const fromClaudeEvent = (json: unknown): BridgeEvent => {
  const e = readFields(json);
  const name = e.hook_event_name!;
  if (!isDrivenEvent(name)) throw new UndrivenEventError(name);
  const metadata = {
    claudeEvent: name,
    ...(e.cwd !== undefined ? { cwd: e.cwd } : {}),
    ...(e.transcript_path !== undefined ? { transcriptPath: e.transcript_path } : {}),
    ...(e.permission_mode !== undefined ? { permissionMode: e.permission_mode } : {}),
  };
  const base = { event: name, spec: claudeEvents[name], sessionId: e.session_id, metadata };
  switch (name) {
    case "PreToolUse":
    case "PostToolUse":
    case "PostToolUseFailure": {
      const input: ToolCall = { id: e.tool_use_id ?? "", name: need(e.tool_name, "tool_name", name), input: e.tool_input ?? {} };
      // Optional in Claude Code's events; anything but a whole number of ms is left out.
      const ms = Number.isSafeInteger(e.duration_ms) && (e.duration_ms as number) >= 0 ? { durationMs: e.duration_ms as number } : {};
      if (name === "PostToolUse") return { ...base, input, output: { content: e.tool_response ?? null }, ...ms };
      if (name === "PostToolUseFailure") return { ...base, input, error: e.error ?? "the tool failed", ...ms };
      return { ...base, input };
    }
    case "UserPromptSubmit":
      return { ...base, input: { text: need(e.prompt, "prompt", name) } satisfies UserPrompt };
    // Claude Code's values (and ones it adds later) are carried as given: matchers test them and
    // hooks read them back.
    case "SessionStart":
      return { ...base, input: { sessionId: e.session_id ?? "", source: e.source ?? "startup" } satisfies SessionStart };
    case "Stop":
    case "SubagentStop": {
      const stop: StopRequest = {
        reason: "end_turn",
        blockedCount: e.stop_hook_active ? 1 : 0,
        ...(e.last_assistant_message !== undefined ? { lastMessage: e.last_assistant_message } : {}),
      };
      if (name === "Stop") return { ...base, input: stop };
      const agent = e.agent_type ?? "subagent";
      return { ...base, input: { ...stop, agent, path: [agent] } satisfies SubagentStopRequest };
    }
    case "PreCompact":
    case "PostCompact": {
      const input: CompactionRequest & FromClaude = {
        trigger: (e.trigger ?? "auto") as CompactionRequest["trigger"],
        messages: [],
        tokens: 0,
        budget: 0,
        ...(typeof e.custom_instructions === "string" ? { customInstructions: e.custom_instructions } : {}),
      };
      return name === "PreCompact"
        ? { ...base, input }
        : { ...base, input, output: { messages: [], summary: e.compact_summary ?? "", removed: 0 } };
    }
    case "StopFailure":
      // As given: `error` is what StopFailure matchers test, and hooks read both fields on stdin.
      return {
        ...base,
        input: { where: "model", error: new ClaudeStopFailure(e.error ?? "unknown", e.error_details), attempt: 1 } satisfies ErrorEvent,
        // The turn already ended on it.
        output: { action: "fail" } satisfies ErrorDecision,
      };
    case "SessionEnd":
      return { ...base, input: { sessionId: e.session_id ?? "", reason: e.reason ?? "other" } satisfies SessionEnd };
    case "Notification": {
      const input: Notification & FromClaude = {
        type: e.notification_type ?? "info",
        message: e.message ?? "",
        ...(e.title !== undefined ? { title: e.title } : {}),
      };
      return { ...base, input };
    }
  }
};
