/**
 * The OpenTelemetry names agent-onion emits, copied rather than imported: the GenAI conventions
 * are at Development status and `@opentelemetry/semantic-conventions/incubating` "may include
 * breaking changes in minor versions", whose README asks libraries to copy what they use.
 * Names as in `@opentelemetry/semantic-conventions` 1.45.0 (incubating); the GenAI conventions
 * themselves (span names and kinds, requirement levels, bucket boundaries) as published by
 * open-telemetry/semantic-conventions-genai at commit 004902b (no release yet: the conventions
 * left the main repository after v1.41), which `docs/observability.md` checks item by item. The
 * tests compare the names with that package. Names under `agent_onion.` and `hook.` are ours.
 */

/**
 * The version of the GenAI conventions followed here, for readers of the telemetry.
 *
 * @example
 * resource attributes: { "agent_onion.semconv": genAiConventions }
 */
export const genAiConventions = "semantic-conventions-genai@004902b (names of @opentelemetry/semantic-conventions 1.45.0)";

/**
 * GenAI metric names.
 *
 * @example
 * meter.createHistogram(GenAiMetric.operationDuration, { unit: "s" })
 */
export const GenAiMetric = {
  operationDuration: "gen_ai.client.operation.duration",
  tokenUsage: "gen_ai.client.token.usage",
  timeToFirstChunk: "gen_ai.client.operation.time_to_first_chunk",
  timePerOutputChunk: "gen_ai.client.operation.time_per_output_chunk",
  executeToolDuration: "gen_ai.execute_tool.duration",
  invokeAgentDuration: "gen_ai.invoke_agent.duration",
} as const;

/**
 * GenAI and general attribute names.
 *
 * @example
 * histogram.record(0.42, { [GenAiAttr.operationName]: "chat", [GenAiAttr.providerName]: "openai" })
 */
export const GenAiAttr = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  /** Deprecated by `gen_ai.provider.name` (semconv 1.37); emitted only when asked, for older backends. */
  system: "gen_ai.system",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  responseId: "gen_ai.response.id",
  /** Seconds from the request to the first chunk of a streamed response (the span's copy of the metric). */
  responseTimeToFirstChunk: "gen_ai.response.time_to_first_chunk",
  serverAddress: "server.address",
  serverPort: "server.port",
  tokenType: "gen_ai.token.type",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  agentName: "gen_ai.agent.name",
  conversationId: "gen_ai.conversation.id",
  requestStream: "gen_ai.request.stream",
  requestMaxTokens: "gen_ai.request.max_tokens",
  requestTemperature: "gen_ai.request.temperature",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  finishReasons: "gen_ai.response.finish_reasons",
  errorType: "error.type",
} as const;

/**
 * Well-known `gen_ai.operation.name` values.
 *
 * @example
 * span.setAttribute(GenAiAttr.operationName, GenAiOperation.executeTool)
 */
export const GenAiOperation = {
  chat: "chat",
  executeTool: "execute_tool",
  invokeAgent: "invoke_agent",
} as const;

/**
 * `gen_ai.token.type` values.
 *
 * @example
 * tokens.record(12, { [GenAiAttr.tokenType]: GenAiTokenType.input })
 */
export const GenAiTokenType = { input: "input", output: "output" } as const;

/**
 * The convention's bucket boundaries for `gen_ai.client.operation.duration`, `gen_ai.execute_tool.duration`,
 * `gen_ai.client.operation.time_to_first_chunk` and `gen_ai.client.operation.time_per_output_chunk` (seconds).
 *
 * @example
 * meter.createHistogram(name, { unit: "s", advice: { explicitBucketBoundaries: [...durationBuckets] } })
 */
export const durationBuckets: readonly number[] = Object.freeze([
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
]);

/**
 * The convention's bucket boundaries for `gen_ai.invoke_agent.duration` (seconds): agent runs last
 * longer than one model call, up to 409.6 s.
 *
 * @example
 * meter.createHistogram(GenAiMetric.invokeAgentDuration, { unit: "s", advice: { explicitBucketBoundaries: [...agentDurationBuckets] } })
 */
export const agentDurationBuckets: readonly number[] = Object.freeze([
  0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 51.2, 102.4, 204.8, 409.6,
]);

/**
 * The well-known `gen_ai.provider.name` values.
 *
 * @example
 * span.setAttribute(GenAiAttr.providerName, GenAiProvider.awsBedrock)
 */
export const GenAiProvider = {
  anthropic: "anthropic",
  awsBedrock: "aws.bedrock",
  azureAiInference: "azure.ai.inference",
  azureAiOpenai: "azure.ai.openai",
  cohere: "cohere",
  deepseek: "deepseek",
  gcpGemini: "gcp.gemini",
  gcpGenAi: "gcp.gen_ai",
  gcpVertexAi: "gcp.vertex_ai",
  groq: "groq",
  ibmWatsonxAi: "ibm.watsonx.ai",
  mistralAi: "mistral_ai",
  moonshotAi: "moonshot_ai",
  openai: "openai",
  perplexity: "perplexity",
  xAi: "x_ai",
} as const;

/**
 * The convention's bucket boundaries for `gen_ai.client.token.usage`.
 *
 * @example
 * meter.createHistogram(name, { unit: "{token}", advice: { explicitBucketBoundaries: [...tokenBuckets] } })
 */
export const tokenBuckets: readonly number[] = Object.freeze([
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
]);

/**
 * Our buckets for hook overhead (seconds): 10 µs to 10 s, as most hooks take microseconds.
 *
 * @example
 * meter.createHistogram(OnionMetric.hookDuration, { unit: "s", advice: { explicitBucketBoundaries: [...hookBuckets] } })
 */
export const hookBuckets: readonly number[] = Object.freeze([
  0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
]);

/**
 * agent-onion's own metric names.
 *
 * @example
 * collected.get(OnionMetric.failOpen) // the fail-open counter
 */
export const OnionMetric = {
  hookDuration: "agent_onion.hook.duration",
  rejections: "agent_onion.hook.rejections",
  failOpen: "agent_onion.hook.fail_open",
  failures: "agent_onion.hook.failures",
} as const;

/**
 * agent-onion's own attribute names (low cardinality: hook and point names are registered, not data).
 *
 * @example
 * counter.add(1, { [OnionAttr.hookName]: "no-rm", [OnionAttr.hookPoint]: "toolCall" })
 */
export const OnionAttr = {
  hookName: "hook.name",
  hookPoint: "hook.point",
  hookPhase: "hook.phase",
  hookAction: "hook.action",
  /** `allow`, `deny`, `transform`, `error` or `timeout` (the reference's `hook.outcome`). */
  hookOutcome: "hook.outcome",
  hookShadow: "hook.shadow",
  hookSource: "hook.source",
  hookFailMode: "hook.failure_mode",
  /** True on a failure that let the call through (Envoy's `failure_mode_allowed`, K2). */
  failureModeAllowed: "hook.failure_mode_allowed",
  point: "agent_onion.point",
  subject: "agent_onion.subject",
  outcome: "agent_onion.outcome",
  rejectedBy: "agent_onion.rejected_by",
  reason: "agent_onion.reason",
} as const;

/**
 * The value OpenTelemetry uses when an attribute's set of values overflowed.
 *
 * @example
 * new Bounded(1).of("b") // otherValue once "a" was seen
 */
export const otherValue = "_OTHER";
