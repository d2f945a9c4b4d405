/**
 * Hooks that run outside the process: Claude Code command, HTTP, prompt and agent hooks in the
 * same onion as in-process ones, Claude Code settings, and the bridge back to Claude Code.
 */
export { commandHook, type CommandHookOptions } from "./command.ts";
export { httpHook, type HttpHookOptions } from "./http.ts";
export { promptHook, type PromptHookOptions } from "./prompt.ts";
export { agentHook, type AgentHookOptions } from "./agent-hook.ts";
export { readOnlyTools, type ReadOnlyToolsOptions } from "./readonly-tools.ts";
export {
  fromClaudeSettings, type ClaudeSettingsOptions, type ClaudeSettingsResult, type LoadedHook, type UnusedHandler,
} from "./settings.ts";
export { claudeSettingsFiles, loadClaudeSettings, type HandlerEntry, type LoadedSettings, type SettingsInput, type SettingsLayer } from "./settings-load.ts";
export { SettingsError, type HookSettings } from "./settings-schema.ts";
export { externalHook, resolveTimeoutMs, routeHookNotices, type ExternalHook, type ExternalHookOptions, type Runner } from "./external.ts";
export { BackgroundQueue, type BackgroundQueueOptions } from "./queue.ts";
export { ExecutorError, type ExecutorFailure } from "./errors.ts";
export { allClaudeEvents, claudeEvents, isDrivenEvent, type BlockEffect, type ClaudeEvent, type EventSpec } from "./events.ts";
export { ClaudeStopFailure, stopFailureType, toClaudeEvent, type EventEnvironment, type PointData } from "./event-json.ts";
export { applyAnswer, type ExternalNotice, type NoticeSink } from "./protocol.ts";
export { commandAnswer, httpAnswer, readAnswerText, type HookAnswer } from "./answer.ts";
export { decodeHookOutput, decodeVerdict, type HookOutput, type Verdict } from "./schemas.ts";
export { BridgeEventError, fromClaudeEvent, type BridgeEvent } from "./bridge-event.ts";
export { runBridge, type BridgeRunOptions, type ClaudeReply } from "./bridge.ts";
export { checkAddress, classifyAddress, guardedLookup, systemResolver, type AddressClass, type AddressPolicy, type Resolver } from "./ssrf.ts";
export { childEnv, DEFAULT_ENV_ALLOWLIST, interpolateHeader, HeaderError } from "./env.ts";
export { parseJson, SerializeError, stringifyEvent } from "./json.ts";
export { cleanText, stripTerminal } from "./sanitize.ts";
export { runProcess, type ProcessOptions, type ProcessResult } from "./process.ts";
