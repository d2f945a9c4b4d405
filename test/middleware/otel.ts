/** Real OpenTelemetry SDKs with in-memory exporters, for reading back what the middleware emitted. */
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type DataPoint,
  type Histogram,
  type MetricData,
} from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";

export const meterHarness = () => {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({ readers: [reader] });
  const meter = provider.getMeter("agent-onion-test");
  /** Every metric exported so far (the last collection), by name. */
  const collect = async (): Promise<Map<string, MetricData>> => {
    exporter.reset();
    await reader.forceFlush();
    const out = new Map<string, MetricData>();
    for (const rm of exporter.getMetrics()) for (const sm of rm.scopeMetrics) for (const m of sm.metrics) out.set(m.descriptor.name, m);
    return out;
  };
  return { meter, provider, collect };
};

/** The data points of a histogram, as plain objects. */
export const histogramPoints = (metric: MetricData | undefined) =>
  (metric?.dataPoints ?? []).map((p) => ({ attributes: p.attributes, ...(p as DataPoint<Histogram>).value }));

/** The data points of a counter: attributes and value. */
export const counterPoints = (metric: MetricData | undefined) =>
  (metric?.dataPoints ?? []).map((p) => ({ attributes: p.attributes, value: p.value as number }));

export const tracerHarness = () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer("agent-onion-test");
  const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
  return { tracer, provider, exporter, spans };
};
