/**
 * Hooks that run outside the process: Claude Code command, HTTP, prompt and agent hooks in the
 * same onion as in-process ones, Claude Code settings, and the bridge back to Claude Code.
 */
export { commandHook, commandRunner, type CommandHookOptions } from "./command.ts";
export { httpHook, httpRunner, type HttpHookOptions } from "./http.ts";
export { promptHook, promptRunner, type PromptHookOptions } from "./prompt.ts";
export { agentHook, agentRunner, type AgentHookOptions } from "./agent-hook.ts";
export { fillArguments, mcpToolHook, mcpToolRunner, type McpHookClient, type McpToolHookOptions } from "./mcp-tool.ts";
export { readOnlyTools, type ReadOnlyToolsOptions } from "./readonly-tools.ts";
export {
  CLAUDE_STOP_BLOCK_CAP,
  fromClaudePlugin,
  fromClaudeSettings,
  type ClaudeSettingsOptions,
  type ClaudeSettingsResult,
  type LoadedHook,
  type UnusedHandler,
} from "./settings.ts";
export { loadClaudePlugin, type ClaudePlugin, type LoadedPlugin, type PluginSource } from "./plugin.ts";
export {
  claudeSettingsFiles,
  loadClaudeSettings,
  type HandlerEntry,
  type LoadedSettings,
  type LoadOptions as LoadClaudeSettingsOptions,
  type SettingsInput,
  type SettingsLayer,
} from "./settings-load.ts";
export type { GroupMatcher } from "./settings-rules.ts";
export {
  SettingsError,
  type AgentHandler,
  type CommandHandler,
  type HookSettings,
  type HttpHandler,
  type MatcherGroup,
  type McpToolHandler,
  type PromptHandler,
  type SettingsHandler,
  type SettingsNote,
  type UnknownTypeHandler,
} from "./settings-schema.ts";
export {
  claudeHookSet,
  externalHook,
  resolveTimeoutMs,
  routeHookNotices,
  type EventOptions,
  type ExternalHook,
  type ExternalHookOptions,
  type EventPoint,
  type PointOfEvent,
  type HookMember,
  type HookSetOptions,
  type Runner,
  type RunnerSpec,
  type RunRequest,
} from "./external.ts";
export { BackgroundQueue, type BackgroundQueueOptions } from "./queue.ts";
export { ExecutorError, type ExecutorFailure } from "./errors.ts";
export {
  agentEvents,
  allClaudeEvents,
  claudeEvents,
  claudeHookEvents,
  isAgentEvent,
  isClaudeHookEvent,
  isDrivenEvent,
  type AgentEvent,
  type BlockEffect,
  type ClaudeEvent,
  type ClaudeHookEvent,
  type EventSpec,
  type HandlerType,
  type HookEventInfo,
} from "./events.ts";
export { ClaudeStopFailure, stopFailureType, toClaudeEvent, type EventEnvironment, type PointData } from "./event-json.ts";
export {
  endsTurn,
  failureDecision,
  HookStopError,
  readDecision,
  type ExternalNotice,
  type HookDecision,
  type NoticeSink,
  type Notify,
  type TurnEndingReject,
} from "./protocol.ts";
export { applyAnswer, combine, type CombineInput } from "./combine.ts";
export { commandAnswer, httpAnswer, readAnswerText, type HookAnswer } from "./answer.ts";
export {
  decodeHookOutput,
  decodeVerdict,
  readHookOutput,
  type HookOutput,
  type MalformedField,
  type ReadOutput,
  type Verdict,
} from "./schemas.ts";
export { BridgeEventError, fromClaudeEvent, type BridgeEvent } from "./bridge-event.ts";
export { runBridge, type BridgeRunOptions, type ClaudeReply } from "./bridge.ts";
export {
  checkAddress,
  classifyAddress,
  guardedLookup,
  systemResolver,
  type AddressClass,
  type AddressPolicy,
  type LookupCallback,
  type Resolver,
} from "./ssrf.ts";
export { childEnv, DEFAULT_ENV_ALLOWLIST, inheritedEnv, interpolateHeader, HeaderError, type ChildEnvOptions } from "./env.ts";
export { emptyTranscript, envFileVariables, sessionEnvFile } from "./session-files.ts";
export { parseJson, SerializeError, stringifyEvent } from "./json.ts";
export { cleanText, stripTerminal } from "./sanitize.ts";
export { runProcess, type ProcessOptions, type ProcessResult } from "./process.ts";
