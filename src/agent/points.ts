/**
 * The twelve standard agent points (DESIGN section 4), each with its kind, subject and detail.
 */
import { gate, observe } from "../core/point.ts";
import type {
  CompactionRequest, CompactionResult, ErrorDecision, ErrorEvent, ModelRequest, ModelResponse, Notification,
  RunInput, RunResult, SessionEnd, SessionInfo, SessionStart, StepInput, StepResult, StopDecision, StopRequest,
  SubagentStopRequest, ToolCall, ToolResult, UserPrompt,
} from "./types.ts";

/**
 * The detail a `Name(pattern)` condition is matched against: the command of shell tools,
 * the path of file tools, the URL of fetch tools, else nothing.
 *
 * @example
 * toolDetail({ id: "1", name: "Bash", input: { command: "git push" } }) // "git push"
 */
export const toolDetail = (call: ToolCall): string | undefined => {
  const input = call.input ?? {};
  for (const key of ["command", "cmd", "file_path", "path", "notebook_path", "url", "pattern", "query"]) {
    const value = input[key];
    if (typeof value === "string") return value;
  }
  return undefined;
};

/**
 * The standard agent points. `createAgentStack()` is `createStack(agentPoints)`.
 *
 * @example
 * const stack = createStack(agentPoints).use("toolCall", { name: "log", before: (c) => void console.log(c.name) })
 */
export const agentPoints = {
  sessionStart: gate<SessionStart, SessionInfo>({ name: "sessionStart", subject: (s) => s.source }),
  userPrompt: gate<UserPrompt, UserPrompt>({ name: "userPrompt" }),
  run: gate<RunInput, RunResult>({ name: "run" }),
  step: observe<StepInput, StepResult>({ name: "step", subject: (s) => String(s.index) }),
  modelCall: observe<ModelRequest, ModelResponse>({ name: "modelCall", subject: (r) => r.model }),
  toolCall: gate<ToolCall, ToolResult>({ name: "toolCall", subject: (c) => c.name, detail: toolDetail }),
  stop: gate<StopRequest, StopDecision>({ name: "stop", collect: true }),
  subagentStop: gate<SubagentStopRequest, StopDecision>({ name: "subagentStop", subject: (s) => s.agent, collect: true }),
  compaction: observe<CompactionRequest, CompactionResult>({ name: "compaction", subject: (c) => c.trigger }),
  error: observe<ErrorEvent, ErrorDecision>({ name: "error", subject: (e) => e.where }),
  sessionEnd: observe<SessionEnd, void>({ name: "sessionEnd", subject: (e) => e.reason }),
  notification: observe<Notification, void>({ name: "notification", subject: (n) => n.type }),
} as const;

/** The type of `agentPoints`, for stacks and hooks typed over the standard points. */
export type AgentPoints = typeof agentPoints;
