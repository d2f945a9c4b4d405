/**
 * Middleware shape, guards, tool policy, limits and resilience.
 *
 * @module agent-onion/middleware
 */
export {
  combineMiddleware,
  defineMiddleware,
  middlewareHookNames,
  withMiddleware,
  type Middleware,
  type MiddlewareHooks,
  type MiddlewareInput,
  type PointHook,
} from "./apply.ts";
export { FallbackExhaustedError, GuardStopError, LimitExceededError, RedactionBlockedError, type GuardKind } from "./errors.ts";
export { refuse } from "./refuse.ts";
export { scopeKey, type Scope, type TenantOptions } from "./scope.ts";
export { guards, type GuardsOptions } from "./guards.ts";
export { stepLimit, type StepLimitOptions } from "./step-limit.ts";
export { tokenBudget, type TokenBudgetOptions } from "./token-budget.ts";
export { timeLimit, type TimeLimitOptions } from "./time-limit.ts";
export { finishReasonStop, type FinishReasonStopOptions } from "./finish-reason-stop.ts";
export { toolPolicy, type ToolPolicyOptions, type ToolRule, type ToolRules, type UnknownTool } from "./tool-policy.ts";
export { callLimit, rateLimit, type CallLimitOptions, type LimitedPoint, type RateLimitOptions } from "./rate-limit.ts";
export { budget, type BudgetOptions, type TokenPrice } from "./budget.ts";
export { backoffMs, retry, type RetryInfo, type RetryOptions } from "./retry.ts";
export { fallback, type FallbackOptions } from "./fallback.ts";
export { cache, stableJson, type CacheOptions } from "./cache.ts";
export { truncateOutput, truncateText, type TruncateOutputOptions } from "./truncate-output.ts";
// Redaction, approval, audit, the OpenTelemetry names and the Chrome trace export (metrics and
// tracing need @opentelemetry/api: they are in agent-onion/otel).
export {
  Detectors,
  defaultDetectors,
  kindsOf,
  partialStart,
  scan,
  windowOf,
  type Detection,
  type Detector,
  type HighEntropyOptions,
  type PatternOptions,
} from "./detectors.ts";
export { createRedactor, type Redacted, type Redactor, type RedactorOptions, type Strategy } from "./redactor.ts";
export { StreamRedactor, type StreamRedactorOptions, type StreamStep } from "./stream-redactor.ts";
export { redaction, type RedactionOptions } from "./redaction.ts";
export { approval, type ApprovalOptions } from "./approval.ts";
export { audit, type AuditDecision, type AuditMiddleware, type AuditOptions, type AuditRun } from "./audit.ts";
export {
  GenAiAttr,
  GenAiMetric,
  GenAiOperation,
  GenAiTokenType,
  OnionAttr,
  OnionMetric,
  durationBuckets,
  hookBuckets,
  tokenBuckets,
} from "./semconv.ts";
export { providerOf, type ProviderOption } from "./telemetry-attrs.ts";
export {
  chromeTraceRecorder,
  timelineRun,
  toChromeTrace,
  type ChromeTrace,
  type ChromeTraceEvent,
  type ChromeTraceOptions,
  type ChromeTraceRecorder,
  type ChromeTraceRecorderOptions,
  type TimelineRun,
} from "./chrome-trace.ts";
export { allAgentPoints, onEveryPoint, type AgentPointName } from "./every-point.ts";
