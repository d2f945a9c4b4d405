/**
 * The standard agent points (DESIGN section 4), each with its kind, subject and detail.
 */
import { SHELL_TOOLS } from "../core/match/condition.ts";
import { readDetail, UNREADABLE_DETAIL } from "../core/match/detail.ts";
import { isBoxedInput } from "./tool-input.ts";
import { grepGlobs, searchGlob } from "../core/match/search.ts";
import { gate, observe } from "../core/point.ts";
import {
  compactionRequestCheck,
  compactionResultCheck,
  errorDecisionCheck,
  errorEventCheck,
  modelRequestCheck,
  modelResponseCheck,
  nothingCheck,
  notificationCheck,
  permissionDecisionCheck,
  permissionRequestCheck,
  runInputCheck,
  runResultCheck,
  sessionEndCheck,
  sessionInfoCheck,
  sessionStartCheck,
  stepInputCheck,
  stepResultCheck,
  stopDecisionCheck,
  stopRequestCheck,
  subagentStartCheck,
  subagentStopRequestCheck,
  toolBatchCheck,
  toolCallCheck,
  toolResultCheck,
  userPromptCheck,
} from "./point-checks.ts";
import type { Outcome } from "../core/outcome.ts";
import type {
  CompactionRequest,
  CompactionResult,
  ErrorDecision,
  ErrorEvent,
  ModelRequest,
  ModelResponse,
  Notification,
  PermissionDecision,
  PermissionRequest,
  RunInput,
  RunResult,
  SessionEnd,
  SessionInfo,
  SessionStart,
  StepInput,
  StepResult,
  StopDecision,
  StopRequest,
  SubagentStart,
  SubagentStopRequest,
  ToolBatch,
  ToolCall,
  ToolResult,
  UserPrompt,
} from "./types.ts";

// Which input keys can hold a tool's detail, by the kind of tool. The model writes the input, so a
// key the tool does not read must never decide a rule: a known tool is read only through its kind's
// keys, and the order within a kind is the order `toolDetail` prefers.
const SHELL_KEYS = ["command", "cmd"] as const;
const FILE_KEYS = ["file_path", "notebook_path", "path"] as const;
const ANY_KEYS = ["command", "cmd", "file_path", "path", "notebook_path", "url", "pattern", "query"] as const;
const KEYS_BY_TOOL: ReadonlyMap<string, readonly string[]> = new Map<string, readonly string[]>([
  ...[...SHELL_TOOLS].map((name) => [name, SHELL_KEYS] as const),
  ...["Read", "Write", "Edit", "MultiEdit", "NotebookRead", "NotebookEdit"].map((name) => [name, FILE_KEYS] as const),
  ["WebFetch", ["url"]],
  ["WebSearch", ["query"]],
]);

/**
 * The search tools: the directory they search (default the working directory) and the file patterns
 * that narrow it, each matched as ripgrep's `--glob` matches it (a name without `/` at any depth).
 * Grep's `glob` holds several globs, split as Claude Code splits it; Glob's `pattern` is one,
 * relative to its `path` unless absolute.
 */
const SEARCHES: ReadonlyMap<string, { readonly filter?: string; readonly split: boolean }> = new Map([
  ["Grep", { filter: "glob", split: true }],
  ["Glob", { filter: "pattern", split: false }],
  ["LS", { split: false }],
]);

/** A search as one glob (`searchGlob`); unreadable when a field is not a string or holds a NUL (no path can). */
const searchDetail = (
  input: Record<string, unknown>,
  search: { readonly filter?: string; readonly split: boolean },
): string | undefined => {
  const dir = readDetail(input.path);
  const filter = search.filter === undefined ? undefined : readDetail(input[search.filter]);
  if (dir === UNREADABLE_DETAIL || filter === UNREADABLE_DETAIL) return UNREADABLE_DETAIL;
  if (dir?.includes("\u0000") || filter?.includes("\u0000")) return UNREADABLE_DETAIL;
  return searchGlob(dir, filter === undefined ? undefined : search.split ? grepGlobs(filter) : [filter], search.split) ?? UNREADABLE_DETAIL;
};

/**
 * Every string a `Name(pattern)` condition may have to hold for: for a known tool, the fields of
 * its kind (the command of shell tools, the path of file tools, the URL of `WebFetch`; for the
 * searches Grep, Glob and LS, one glob of the directory and the file pattern); for any
 * other tool, every field that could be its detail (`command`, `cmd`, `file_path`, `path`,
 * `notebook_path`, `url`, `pattern`, `query`). Policies deny when ANY of them matches and allow
 * only when EVERY one does, so a decoy key cannot decide a rule. A field that is there but not a
 * string (`command: ["rm", "-rf", "/"]`) gives `UNREADABLE_DETAIL`, which a deny condition matches
 * and no allow condition accepts; a missing or `null` field gives nothing. An input that was not
 * an object (`boxInput`: the model sent a bare string) is read as the detail itself.
 *
 * @example
 * toolDetails({ id: "1", name: "mcp__fs__read", input: { path: "/etc/shadow", query: "src/x" } }) // ["/etc/shadow", "src/x"]
 * toolDetails({ id: "2", name: "Grep", input: { pattern: "TODO", path: "src", glob: "*.ts" } }) // ["src/**\/*.ts"]
 */
export const toolDetails = (call: ToolCall): string[] => {
  const input = call.input ?? {};
  // An input that was not an object (a bare string the model sent) is the detail itself, whatever the tool.
  if (isBoxedInput(input)) {
    const detail = readDetail(input.value);
    return detail === undefined ? [] : [detail];
  }
  const search = SEARCHES.get(call.name);
  if (search !== undefined) {
    const detail = searchDetail(input, search);
    return detail === undefined ? [] : [detail];
  }
  const details: string[] = [];
  for (const key of KEYS_BY_TOOL.get(call.name) ?? ANY_KEYS) {
    const detail = readDetail(input[key]);
    if (detail !== undefined) details.push(detail);
  }
  return details;
};

/**
 * The detail a `Name(pattern)` condition is matched against: the command of shell tools,
 * the path of file tools, the URL of fetch tools; for a tool it does not know, the one string
 * among its candidate fields. Another key in the input never stands in for a known tool's own
 * field. When the fields that could be the detail disagree (`{ file_path: "/tmp/ok", path:
 * "/etc/passwd" }`: which one the tool reads is not known), the detail is `UNREADABLE_DETAIL`,
 * which a deny condition in a hook's `match` matches, as `toolPolicy`'s deny matches any of them.
 *
 * @example
 * toolDetail({ id: "1", name: "Bash", input: { command: "git push" } }) // "git push"
 * toolDetail({ id: "2", name: "mcp__fs__read", input: { file_path: "/tmp/ok", path: "/etc/passwd" } }) === UNREADABLE_DETAIL // true
 */
export const toolDetail = (call: ToolCall): string | undefined => {
  const details = toolDetails(call);
  return details.every((d) => d === details[0]) ? details[0] : UNREADABLE_DETAIL;
};

/**
 * A step's type, for `{ stepType }` matchers (a tool execution or a final response): `"tool"`
 * when the model asked for tools, `"final"` when it answered without, `"error"` when the step failed.
 *
 * @example
 * stepType({ _tag: "Failed", error: new Error("x") }) // "error"
 */
export const stepType = (outcome: Outcome<StepResult>): "tool" | "final" | "error" | undefined => {
  if (outcome._tag === "Failed") return "error";
  if (outcome._tag !== "Completed") return undefined;
  // A hook may have replaced the result with something else (untyped code): no type then.
  const calls = (outcome.value as { response?: { toolCalls?: unknown } } | undefined)?.response?.toolCalls;
  return Array.isArray(calls) ? (calls.length > 0 ? "tool" : "final") : undefined;
};

/**
 * The standard agent points. `createAgentStack()` is `createStack(agentPoints)`.
 *
 * @example
 * const stack = createStack(agentPoints).use("toolCall", { name: "log", before: (c) => void console.log(c.name) })
 */
export const agentPoints = {
  sessionStart: gate<SessionStart, SessionInfo>({
    name: "sessionStart",
    subject: (s) => s.source,
    input: sessionStartCheck,
    output: sessionInfoCheck,
  }),
  userPrompt: gate<UserPrompt, UserPrompt>({ name: "userPrompt", input: userPromptCheck, output: userPromptCheck }),
  run: gate<RunInput, RunResult>({ name: "run", input: runInputCheck, output: runResultCheck }),
  step: observe<StepInput, StepResult>({
    name: "step",
    subject: (s) => String(s.index),
    stepType,
    input: stepInputCheck,
    output: stepResultCheck,
  }),
  modelCall: observe<ModelRequest, ModelResponse>({
    name: "modelCall",
    subject: (r) => r.model,
    input: modelRequestCheck,
    output: modelResponseCheck,
  }),
  toolCall: gate<ToolCall, ToolResult>({
    name: "toolCall",
    subject: (c) => c.name,
    detail: toolDetail,
    input: toolCallCheck,
    output: toolResultCheck,
  }),
  stop: gate<StopRequest, StopDecision>({ name: "stop", collect: true, input: stopRequestCheck, output: stopDecisionCheck }),
  subagentStop: gate<SubagentStopRequest, StopDecision>({
    name: "subagentStop",
    subject: (s) => s.agent,
    collect: true,
    input: subagentStopRequestCheck,
    output: stopDecisionCheck,
  }),
  compaction: observe<CompactionRequest, CompactionResult>({
    name: "compaction",
    subject: (c) => c.trigger,
    input: compactionRequestCheck,
    output: compactionResultCheck,
  }),
  error: observe<ErrorEvent, ErrorDecision>({ name: "error", subject: (e) => e.where, input: errorEventCheck, output: errorDecisionCheck }),
  sessionEnd: observe<SessionEnd, void>({ name: "sessionEnd", subject: (e) => e.reason, input: sessionEndCheck, output: nothingCheck }),
  notification: observe<Notification, void>({
    name: "notification",
    subject: (n) => n.type,
    input: notificationCheck,
    output: nothingCheck,
  }),
  /** A tool call waiting for a permission decision: a hook may answer it (Replace) or deny it (Reject) before anyone is asked. */
  permissionRequest: gate<PermissionRequest, PermissionDecision>({
    name: "permissionRequest",
    subject: (r) => r.call.name,
    detail: (r) => toolDetail(r.call),
    input: permissionRequestCheck,
    output: permissionDecisionCheck,
  }),
  /** A sub-agent starting; context hooks add goes to the sub-agent. */
  subagentStart: observe<SubagentStart, void>({
    name: "subagentStart",
    subject: (s) => s.agent,
    input: subagentStartCheck,
    output: nothingCheck,
  }),
  /** A step's tool calls, all resolved, before the next model call; a Reject ends the run (every hook's reason is kept). */
  toolBatch: gate<ToolBatch, void>({ name: "toolBatch", collect: true, input: toolBatchCheck, output: nothingCheck }),
} as const;

/** The type of `agentPoints`, for stacks and hooks typed over the standard points. */
export type AgentPoints = typeof agentPoints;
