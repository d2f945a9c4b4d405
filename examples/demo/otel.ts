/**
 * A real OpenTelemetry SDK for the built-in `metrics` middleware: a `MeterProvider` with a
 * reader that collects on demand (no exporter, no timer), so the demo can print what an OTLP
 * backend would receive.
 */
import { MeterProvider, MetricReader, type MetricData } from "@opentelemetry/sdk-metrics";

/** Collects only when asked. */
class OnDemandReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

/** A meter to give `metrics({ meter })`, and how to read back everything it recorded. */
export const otelMeter = () => {
  const reader = new OnDemandReader();
  const provider = new MeterProvider({ readers: [reader] });
  const read = async (): Promise<MetricData[]> => {
    const { resourceMetrics, errors } = await reader.collect();
    if (errors.length > 0) throw new AggregateError(errors, "metrics collection failed");
    return resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
  };
  return { meter: provider.getMeter("agent-onion-demo"), read, shutdown: () => provider.shutdown() };
};
