/**
 * The agent layer: standard points, the reference loop, provider and tool wrappers, streaming.
 *
 * @module agent-onion/agent
 */
export { agentPoints, toolDetail, toolDetails, type AgentPoints } from "./points.ts";
export type * from "./types.ts";
export { createAgentStack, type AgentStack } from "./stack.ts";
export { addUsage, assemble, noUsage, responseParts, type LanguageModel, type ModelCallOptions, type StreamPart } from "./model.ts";
export { defineTool, toolSpec, type AgentTool, type ToolExecuteOptions } from "./tool.ts";
export { commandEnv } from "./command-env.ts";
export {
  defaultTranscriptDir,
  removeTemporaryTranscripts,
  transcriptFile,
  TranscriptWriter,
  type TranscriptOptions,
  type TranscriptWriterOptions,
} from "./transcript.ts";
export { estimateMessageTokens, estimateTokens } from "./tokens.ts";
export {
  createScriptedModel,
  type ScriptedAnswer,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedToolCall,
  type ScriptedTurn,
} from "./scripted-model.ts";
export { generateThroughStack, streamStarter, wrapModel, type WrappedCallOptions, type WrappedModel } from "./wrap-model.ts";
export {
  ToolCallError,
  UnknownToolError,
  executeTool,
  failedResult,
  lookupIn,
  rejectedResult,
  resultOf,
  runToolCall,
  wrapTool,
  type ToolCallRun,
  type ToolCallStack,
  type ToolLookup,
  type WrappedTool,
} from "./wrap-tool.ts";
export {
  StreamControl,
  inShadow,
  streamControl,
  streamControlKey,
  streamShown,
  stricter,
  type CheckAction,
  type HoldBack,
  type OutputCheck,
  type OutputCheckInfo,
  type PartTransform,
  type RegisteredCheck,
} from "./stream/control.ts";
export { chunkHook, outputGate, type ChunkHookSpec, type ModelHook, type OutputGateSpec } from "./stream/hooks.ts";
export { ModelStreamError, StreamDivergedError, StreamHookError, providerError, streamStarted } from "./stream/errors.ts";
export type { StartStream } from "./stream/pump.ts";
export {
  streamThroughStack,
  type ModelCallStack,
  type StackStream,
  type StreamResult,
  type StreamThroughStackOptions,
} from "./stream/through-stack.ts";
export { fromReadableStream, toReadableStream } from "./stream/readable.ts";
export { createAgent } from "./agent.ts";
export type {
  Agent,
  AgentOptions,
  AgentSession,
  Compactor,
  PartInfo,
  PromptOptions,
  ResumeOptions,
  SessionOptions,
  SubagentSpec,
  TurnApprovals,
  TurnResult,
  TurnState,
} from "./agent-types.ts";
export { SessionRejectedError } from "./session.ts";
export { TurnStateTamperedError } from "./turn-state.ts";
export { AgentRunError } from "./decide.ts";
export { summarizeOldest } from "./compaction.ts";
export { feedback as stopFeedback, type StopReason } from "./stop.ts";
export { isStopSignal, stopsRun, type StopSignal } from "./stop-signal.ts";
export { sleep } from "./sleep.ts";
export { currentInvocation, invoke, trackInvocations, type Invocation } from "./invocation.ts";
