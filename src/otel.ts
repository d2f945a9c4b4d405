/**
 * `agent-onion/otel`: OpenTelemetry metrics and tracing middleware. Needs `@opentelemetry/api`
 * (an optional peer dependency: the application's own copy, so spans and metrics reach its SDK).
 *
 * @module agent-onion/otel
 */
export { metrics, type MetricsOptions } from "./middleware/metrics.ts";
export { tracing, type TracingOptions } from "./middleware/tracing.ts";
export { aiSdkTracer } from "./middleware/tracing-ai-sdk.ts";
export {
  GenAiAttr,
  GenAiMetric,
  GenAiOperation,
  GenAiProvider,
  GenAiTokenType,
  OnionAttr,
  OnionMetric,
  agentDurationBuckets,
  durationBuckets,
  genAiConventions,
  hookBuckets,
  tokenBuckets,
} from "./middleware/semconv.ts";
export { providerOf, providerOfSdk, rejectedErrorType, type ProviderOption } from "./middleware/telemetry-attrs.ts";
