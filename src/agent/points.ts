/**
 * The standard agent points (DESIGN section 4), each with its kind, subject and detail.
 */
import { SHELL_TOOLS } from "../core/match/condition.ts";
import { readDetail, UNREADABLE_DETAIL } from "../core/match/detail.ts";
import { gate, observe } from "../core/point.ts";
import type {
  CompactionRequest, CompactionResult, ErrorDecision, ErrorEvent, ModelRequest, ModelResponse, Notification,
  PermissionDecision, PermissionRequest, RunInput, RunResult, SessionEnd, SessionInfo, SessionStart, StepInput, StepResult,
  StopDecision, StopRequest, SubagentStart, SubagentStopRequest, ToolBatch, ToolCall, ToolResult, UserPrompt,
} from "./types.ts";

// Which input keys can hold a tool's detail, by the kind of tool. The model writes the input, so a
// key the tool does not read must never decide a rule: a known tool is read only through its kind's
// keys, and the order within a kind is the order `toolDetail` prefers.
const SHELL_KEYS = ["command", "cmd"] as const;
const FILE_KEYS = ["file_path", "notebook_path", "path"] as const;
const ANY_KEYS = ["command", "cmd", "file_path", "path", "notebook_path", "url", "pattern", "query"] as const;
const KEYS_BY_TOOL: ReadonlyMap<string, readonly string[]> = new Map<string, readonly string[]>([
  ...[...SHELL_TOOLS].map((name) => [name, SHELL_KEYS] as const),
  ...["Read", "Write", "Edit", "MultiEdit", "NotebookRead", "NotebookEdit", "Glob", "Grep", "LS"].map((name) => [name, FILE_KEYS] as const),
  ["WebFetch", ["url"]],
  ["WebSearch", ["query"]],
]);

/**
 * Every string a `Name(pattern)` condition may have to hold for: for a known tool, the fields of
 * its kind (the command of shell tools, the path of file tools, and a `Glob` pattern that names
 * files on its own or outside its path, the URL of `WebFetch`); for any
 * other tool, every field that could be its detail (`command`, `cmd`, `file_path`, `path`,
 * `notebook_path`, `url`, `pattern`, `query`). Policies deny when ANY of them matches and allow
 * only when EVERY one does, so a decoy key cannot decide a rule. A field that is there but not a
 * string (`command: ["rm", "-rf", "/"]`) gives `UNREADABLE_DETAIL`, which a deny condition matches
 * and no allow condition accepts; a missing or `null` field gives nothing.
 *
 * @example
 * toolDetails({ id: "1", name: "mcp__fs__read", input: { path: "/etc/shadow", query: "src/x" } }) // ["/etc/shadow", "src/x"]
 */
export const toolDetails = (call: ToolCall): string[] => {
  const input = call.input ?? {};
  const details: string[] = [];
  for (const key of KEYS_BY_TOOL.get(call.name) ?? ANY_KEYS) {
    const detail = readDetail(input[key]);
    if (detail !== undefined) details.push(detail);
  }
  // Glob's pattern names files too: alone, or when it may reach outside its path: absolute, `~`,
  // a `..` anywhere, or braces, whose alternatives may be any of these (`{..,x}/secrets/*`); or when it cannot be read.
  const pattern = readDetail(input.pattern);
  if (call.name === "Glob" && pattern !== undefined && (details.length === 0 || pattern === UNREADABLE_DETAIL || /^(?:[/\\~]|[A-Za-z]:)|\.\.|[{]/.test(pattern))) details.push(pattern);
  return details;
};

/**
 * The detail a `Name(pattern)` condition is matched against: the command of shell tools,
 * the path of file tools, the URL of fetch tools; for a tool it does not know, the first of
 * `toolDetails`. Another key in the input never stands in for a known tool's own field.
 *
 * @example
 * toolDetail({ id: "1", name: "Bash", input: { command: "git push" } }) // "git push"
 */
export const toolDetail = (call: ToolCall): string | undefined => toolDetails(call)[0];

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
  /** A tool call waiting for a permission decision: a hook may answer it (Replace) or deny it (Reject) before anyone is asked. */
  permissionRequest: gate<PermissionRequest, PermissionDecision>({ name: "permissionRequest", subject: (r) => r.call.name, detail: (r) => toolDetail(r.call) }),
  /** A sub-agent starting; context hooks add goes to the sub-agent. */
  subagentStart: observe<SubagentStart, void>({ name: "subagentStart", subject: (s) => s.agent }),
  /** A step's tool calls, all resolved, before the next model call; a Reject ends the run (every hook's reason is kept). */
  toolBatch: gate<ToolBatch, void>({ name: "toolBatch", collect: true }),
} as const;

/** The type of `agentPoints`, for stacks and hooks typed over the standard points. */
export type AgentPoints = typeof agentPoints;
