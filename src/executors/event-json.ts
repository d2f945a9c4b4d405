/**
 * Our point data as a Claude Code event: the common fields (`session_id`, `transcript_path`
 * when there is one, `cwd`, `hook_event_name`, `permission_mode` on the events that carry it)
 * plus each event's own fields, so existing hook scripts read what they expect on stdin.
 */
import type {
  CompactionRequest,
  CompactionResult,
  ErrorEvent,
  Notification,
  PermissionRequest,
  SessionEnd,
  SessionStart,
  StopRequest,
  SubagentStart,
  SubagentStopRequest,
  ToolBatch,
  ToolCall,
  ToolResult,
  UserPrompt,
} from "../agent/types.ts";
import { brandError, describe } from "../core/errors.ts";
import type { EventSpec } from "./events.ts";

/** What an executor knows about the run beyond the point's data. */
export interface EventEnvironment {
  readonly sessionId: string | undefined;
  readonly cwd: string;
  readonly transcriptPath?: string | undefined;
  readonly permissionMode?: string | undefined;
  /** Agent names from the root; a sub-agent adds `agent_id` and `agent_type`. */
  readonly path?: readonly string[] | undefined;
  /** The effort level of the turn (`low` ... `max`), sent as `effort: { level }` on the events that carry it. */
  readonly effort?: string | undefined;
  /** The user prompt being processed (Claude Code's `prompt_id`), once there is one. */
  readonly promptId?: string | undefined;
  /** A sub-agent's own transcript (SubagentStop's `agent_transcript_path`). */
  readonly agentTranscriptPath?: string | undefined;
  /** How long the tool ran, in ms (PostToolUse's and PostToolUseFailure's `duration_ms`), when known. */
  readonly durationMs?: number | undefined;
}

/**
 * Fields only Claude Code's own events carry (Notification's `title`, PreCompact's
 * `custom_instructions`): the bridge keeps them on the point's input so hooks read them back.
 */
export interface FromClaude {
  readonly title?: string;
  readonly customInstructions?: string;
}

/** The data of one point run, as far as the phase has it. */
export interface PointData {
  readonly input: unknown;
  readonly output?: unknown;
  readonly error?: unknown;
}

/**
 * A turn-ending API error as Claude Code reported it (StopFailure's `error` and `error_details`):
 * the bridge carries both as given, so matchers and hooks see Claude Code's own values.
 *
 * @example
 * new ClaudeStopFailure("billing_error", "402 Payment Required").errorType // "billing_error"
 */
export class ClaudeStopFailure extends Error {
  override name = "ClaudeStopFailure";
  constructor(
    readonly errorType: string,
    readonly details?: string | undefined,
  ) {
    super(details ?? errorType);
  }
}
brandError(ClaudeStopFailure);

/**
 * Claude Code's error type for a StopFailure: the one Claude Code reported (`ClaudeStopFailure`),
 * else derived from whatever the loop caught (HTTP status, error code or name). It is what
 * StopFailure matchers (`rate_limit|overloaded`) test.
 *
 * @example
 * stopFailureType({ where: "model", error: { status: 429 }, attempt: 1 }) // "rate_limit"
 */
export const stopFailureType = (event: ErrorEvent): string => {
  if (event.error instanceof ClaudeStopFailure) return event.error.errorType;
  const e = event.error as { status?: unknown; statusCode?: unknown; code?: unknown; name?: unknown } | null | undefined;
  const status = Number(e?.status ?? e?.statusCode);
  const code = typeof e?.code === "string" ? e.code.toLowerCase() : "";
  if (status === 429 || code.includes("rate")) return "rate_limit";
  if (status === 529 || code.includes("overload")) return "overloaded";
  if (status === 401 || status === 403) return "authentication_failed";
  if (status === 402) return "billing_error";
  if (status === 404) return "model_not_found";
  if (status === 400 || status === 413 || status === 422) return "invalid_request";
  if (status >= 500 && status < 600) return "server_error";
  if (code.includes("max_output") || code === "length") return "max_output_tokens";
  return "unknown";
};

const isAbort = (error: unknown): boolean =>
  typeof error === "object" && error !== null && ((error as Error).name === "AbortError" || (error as Error).name === "RunAbortedError");

/**
 * Build the event JSON an external hook receives for this point run.
 *
 * @example
 * toClaudeEvent(claudeEvents.PreToolUse, { input: { id: "t1", name: "Bash", input: { command: "ls" } } }, { sessionId: "s", cwd: "/repo" })
 * // { session_id: "s", cwd: "/repo", hook_event_name: "PreToolUse", permission_mode: "default", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "t1" }
 */
export const toClaudeEvent = (spec: EventSpec, data: PointData, env: EventEnvironment): Record<string, unknown> => {
  const common: Record<string, unknown> = {
    session_id: env.sessionId ?? "",
    ...(env.transcriptPath ? { transcript_path: env.transcriptPath } : {}),
    cwd: env.cwd,
    ...(env.promptId ? { prompt_id: env.promptId } : {}),
    hook_event_name: spec.event,
    ...(spec.permissionMode ? { permission_mode: env.permissionMode ?? "default" } : {}),
    ...(spec.effort && env.effort ? { effort: { level: env.effort } } : {}),
  };
  const path = env.path ?? [];
  // Inside a sub-agent Claude Code sends both; agent_id is the path, as SubagentStop's (our runs have no per-call agent id).
  if (path.length > 1) {
    common.agent_id = path.join("/");
    common.agent_type = path[path.length - 1];
  }
  const input = data.input;
  switch (spec.event) {
    case "SessionStart":
      return { ...common, source: (input as SessionStart).source };
    case "UserPromptSubmit":
      return { ...common, prompt: (input as UserPrompt).text };
    case "PreToolUse":
    case "PostToolUse":
    case "PostToolUseFailure": {
      const call = input as ToolCall;
      const tool = { tool_name: call.name, tool_input: call.input, tool_use_id: call.id };
      if (spec.event === "PreToolUse") return { ...common, ...tool };
      const duration = env.durationMs !== undefined ? { duration_ms: env.durationMs } : {};
      if (spec.event === "PostToolUse")
        return { ...common, ...tool, tool_response: (data.output as ToolResult | undefined)?.content ?? null, ...duration };
      return { ...common, ...tool, error: describe(data.error), is_interrupt: isAbort(data.error), ...duration };
    }
    case "Stop":
    case "SubagentStop": {
      const stop = input as StopRequest;
      const base = {
        ...common,
        stop_hook_active: stop.blockedCount > 0,
        ...(stop.lastMessage !== undefined ? { last_assistant_message: stop.lastMessage } : {}),
        background_tasks: [],
        session_crons: [],
      };
      if (spec.event === "Stop") return base;
      const sub = input as SubagentStopRequest;
      return {
        ...base,
        agent_id: sub.path.join("/") || sub.agent,
        agent_type: sub.agent,
        ...(env.agentTranscriptPath ? { agent_transcript_path: env.agentTranscriptPath } : {}),
      };
    }
    case "PreCompact": {
      // As observed: none given is null on a manual compaction; the reference says "" on an automatic one.
      const trigger = (input as CompactionRequest).trigger;
      return { ...common, trigger, custom_instructions: (input as FromClaude).customInstructions ?? (trigger === "manual" ? null : "") };
    }
    case "PostCompact":
      return {
        ...common,
        trigger: (input as CompactionRequest).trigger,
        compact_summary: (data.output as CompactionResult | undefined)?.summary ?? "",
      };
    case "StopFailure": {
      const e = input as ErrorEvent;
      // Claude Code's own values go back as given; `error_details` is optional there, so it stays absent when it was.
      if (e.error instanceof ClaudeStopFailure)
        return { ...common, error: e.error.errorType, ...(e.error.details !== undefined ? { error_details: e.error.details } : {}) };
      // last_assistant_message is the error as the conversation shows it ("API Error: Rate limit reached").
      return {
        ...common,
        error: stopFailureType(e),
        error_details: describe(e.error),
        last_assistant_message: `API Error: ${describe(e.error)}`,
      };
    }
    case "SessionEnd":
      return { ...common, reason: (input as SessionEnd).reason };
    case "Notification": {
      const n = input as Notification & FromClaude;
      return { ...common, message: n.message, ...(n.title !== undefined ? { title: n.title } : {}), notification_type: n.type };
    }
    case "PermissionRequest": {
      // Like PreToolUse's, without tool_use_id.
      const r = input as PermissionRequest;
      return {
        ...common,
        tool_name: r.call.name,
        tool_input: r.call.input,
        ...(r.suggestions !== undefined ? { permission_suggestions: r.suggestions } : {}),
      };
    }
    case "SubagentStart": {
      const s = input as SubagentStart;
      return { ...common, agent_id: s.path.join("/") || s.agent, agent_type: s.agent };
    }
    case "PostToolBatch": {
      const b = input as ToolBatch;
      // tool_response is what the model reads: a string or content blocks as given, anything else as JSON text.
      const response = (content: unknown): unknown =>
        typeof content === "string" || Array.isArray(content) ? content : (JSON.stringify(content) ?? null);
      return {
        ...common,
        tool_calls: b.calls.map(({ call, result }) => ({
          tool_name: call.name,
          tool_input: call.input,
          tool_use_id: call.id,
          tool_response: response(result.content),
        })),
      };
    }
  }
};
