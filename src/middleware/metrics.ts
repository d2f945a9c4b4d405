/**
 * `metrics`: OpenTelemetry metrics for the agent, on `@opentelemetry/api` only (no-ops until the
 * application registers an SDK). GenAI conventions for model calls, token usage, tool and agent
 * durations; agent-onion's own hook overhead histogram and counters of rejections and failures.
 * Everything is read from observers (R10), so no metric is ever on a chain's critical path, and
 * only low-cardinality attributes are used: names of points, hooks, tools and models, never
 * arguments or content.
 */
import { metrics as otelMetrics, type Attributes, type Counter, type Histogram, type Meter } from "@opentelemetry/api";
import type { RunEvent } from "../core/context.ts";
import type { HookError } from "../core/errors.ts";
import type { ModelRequest, ModelResponse, RunResult, ToolCall } from "../agent/types.ts";
import type { Middleware } from "./apply.ts";
import { allAgentPoints, observer, onEveryPoint } from "./every-point.ts";
import { integerOption, knownOptions, nameOption } from "./options.ts";
import { createRedactor } from "./redactor.ts";
import { spentBy } from "./budget.ts";
import {
  agentDurationBuckets,
  durationBuckets,
  GenAiAttr,
  GenAiMetric,
  GenAiOperation,
  GenAiTokenType,
  hookBuckets,
  OnionAttr,
  OnionMetric,
  otherValue,
  tokenBuckets,
} from "./semconv.ts";
import { Bounded, errorTypeOf, hookOutcome, providerOf, providerOption, scrubbedNamesOf, type ProviderOption } from "./telemetry-attrs.ts";

/** `gen_ai.tool.type` of the tools agent-onion runs: the agent generates the arguments, the application executes the logic. */
const toolType = "function";

/** Options of `metrics`: the meter, how providers are named, which points, and the cardinality cap. */
export interface MetricsOptions {
  /** Hook name; default `metrics`. */
  readonly name?: string;
  /** Where instruments come from; default the global meter `agent-onion`, looked up on the first run (after the SDK is registered). */
  readonly meter?: Meter;
  /** `gen_ai.provider.name`: a name, or a function of the model id; default the SDK's provider id when the request carries one (`aiSdkMiddleware` passes it), else a guess from the model id (`unknown` when none fits). */
  readonly provider?: ProviderOption;
  /** Also emit the deprecated `gen_ai.system` (same value) for backends that still key on it; default false. */
  readonly legacySystemAttribute?: boolean;
  /** Which points to watch; default all standard agent points. */
  readonly points?: readonly string[];
  /** Distinct tool, model, agent and server names per attribute before new ones read `_OTHER`; default 100. */
  readonly maxValues?: number;
}

interface Instruments {
  readonly operationDuration: Histogram;
  readonly tokenUsage: Histogram;
  readonly timeToFirstChunk: Histogram;
  readonly timePerOutputChunk: Histogram;
  readonly toolDuration: Histogram;
  readonly agentDuration: Histogram;
  readonly hookDuration: Histogram;
  readonly rejections: Counter;
  readonly failOpen: Counter;
  readonly failures: Counter;
}

const instruments = (meter: Meter): Instruments => {
  const seconds = (name: string, description: string, buckets = durationBuckets) =>
    meter.createHistogram(name, { unit: "s", description, advice: { explicitBucketBoundaries: [...buckets] } });
  return {
    operationDuration: seconds(GenAiMetric.operationDuration, "GenAI operation duration."),
    tokenUsage: meter.createHistogram(GenAiMetric.tokenUsage, {
      unit: "{token}",
      description: "Number of input and output tokens used.",
      advice: { explicitBucketBoundaries: [...tokenBuckets] },
    }),
    timeToFirstChunk: seconds(
      GenAiMetric.timeToFirstChunk,
      "Time to receive the first chunk, measured from when the client issues the generation request to when the first chunk is received in the response stream.",
    ),
    timePerOutputChunk: seconds(
      GenAiMetric.timePerOutputChunk,
      "Time per output chunk, recorded for each chunk received after the first one, measured as the time elapsed from the end of the previous chunk to the end of the current chunk.",
    ),
    toolDuration: seconds(GenAiMetric.executeToolDuration, "The duration of a single tool execution, hooks included."),
    agentDuration: seconds(
      GenAiMetric.invokeAgentDuration,
      "The end-to-end duration of a single agent invocation, hooks included.",
      agentDurationBuckets,
    ),
    hookDuration: seconds(
      OnionMetric.hookDuration,
      "Time spent in one phase of one hook (for around hooks, what they wrap too).",
      hookBuckets,
    ),
    rejections: meter.createCounter(OnionMetric.rejections, {
      unit: "{rejection}",
      description: "Rejections by hooks (shadow ones flagged).",
    }),
    failOpen: meter.createCounter(OnionMetric.failOpen, { unit: "{failure}", description: "Hook failures let through by failMode open." }),
    failures: meter.createCounter(OnionMetric.failures, { unit: "{failure}", description: "Hook failures of any fail mode." }),
  };
};

/**
 * Record OpenTelemetry metrics for every point of the agent.
 *
 * @example
 * const provider = new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter() })] })
 * metrics.setGlobalMeterProvider(provider)
 * const stack = withMiddleware(createAgentStack(), guards(), metrics({ provider: "anthropic" }))
 */
export const metrics = (options: MetricsOptions = {}): Middleware => {
  knownOptions("metrics", options, { name: true, meter: true, provider: true, legacySystemAttribute: true, points: true, maxValues: true });
  const name = nameOption("metrics", options.name);
  const maxValues = integerOption(name, "maxValues", options.maxValues ?? 100, 1);
  const legacy = options.legacySystemAttribute === true;
  const provider = providerOption(name, options.provider);
  const meter = meterOption(name, options.meter);
  const models = new Bounded(maxValues);
  const tools = new Bounded(maxValues);
  const agents = new Bounded(maxValues);
  const servers = new Bounded(maxValues);
  // A hook name may carry a credential (a webhook URL's path): scrubbed to a placeholder, not a
  // hash, so names that differ only in a secret share one series and scrubbing adds no cardinality.
  const hookName = scrubbedNamesOf(createRedactor());
  let made: Instruments | undefined;
  const get = (): Instruments => (made ??= instruments(meter ?? otelMetrics.getMeter("agent-onion")));

  const genAi = (operation: string, request: ModelRequest): Attributes => {
    const providerName = providerOf(request.model, provider, request.provider);
    const attrs: Attributes = {
      [GenAiAttr.operationName]: operation,
      [GenAiAttr.providerName]: providerName,
      [GenAiAttr.requestModel]: models.of(request.model),
    };
    if (legacy) attrs[GenAiAttr.system] = providerName;
    const server = request.server;
    if (server !== undefined) {
      // An endpoint is configuration, not data, but it is capped like names all the same.
      const address = servers.of(server.address);
      attrs[GenAiAttr.serverAddress] = address;
      if (address !== otherValue) attrs[GenAiAttr.serverPort] = server.port;
    }
    return attrs;
  };
  // Every point measured here is a GenAI operation, so a refusal ends it in an error too.
  const withError = (attrs: Attributes, event: RunEvent<any, any>): Attributes => {
    const errorType = errorTypeOf(event.outcome, true);
    attrs[OnionAttr.outcome] = event.outcome._tag.toLowerCase();
    if (errorType !== undefined) attrs[GenAiAttr.errorType] = errorType;
    return attrs;
  };

  const modelCall = (m: Instruments, event: RunEvent<ModelRequest, ModelResponse>): void => {
    const attrs = genAi(GenAiOperation.chat, event.input);
    const response = event.outcome._tag === "Completed" ? event.outcome.value : undefined;
    if (typeof response?.model === "string") attrs[GenAiAttr.responseModel] = models.of(response.model);
    m.operationDuration.record(event.durationMs / 1000, withError({ ...attrs }, event));
    // The convention's streaming metrics: for streamed calls only (a response without chunk times was not streamed).
    if (response?.timeToFirstChunkMs !== undefined) m.timeToFirstChunk.record(response.timeToFirstChunkMs / 1000, attrs);
    const intervals = response?.chunkIntervalsMs;
    if (intervals !== undefined) for (const ms of intervals) m.timePerOutputChunk.record(ms / 1000, attrs);
    // A stream that failed part-way spent tokens too (its partial response has them).
    const spent = response ?? (event.outcome._tag === "Failed" ? spentBy(event.outcome.error) : undefined);
    // The convention: report usage only when the provider reported it; estimates are not usage.
    if (spent === undefined || spent.usageEstimated === true) return;
    for (const [type, n] of [
      [GenAiTokenType.input, spent.usage.inputTokens],
      [GenAiTokenType.output, spent.usage.outputTokens],
    ] as const)
      if (Number.isFinite(n) && n >= 0) m.tokenUsage.record(n, { ...attrs, [GenAiAttr.tokenType]: type });
  };

  const toolCall = (m: Instruments, event: RunEvent<ToolCall, unknown>): void => {
    const attrs: Attributes = {
      [GenAiAttr.operationName]: GenAiOperation.executeTool,
      [GenAiAttr.toolName]: tools.of(event.input.name),
      [GenAiAttr.toolType]: toolType,
    };
    const agent = event.path.at(-1);
    if (agent !== undefined) attrs[GenAiAttr.agentName] = agents.of(agent);
    m.toolDuration.record(event.durationMs / 1000, withError(attrs, event));
  };

  const run = (m: Instruments, event: RunEvent<unknown, RunResult>): void => {
    const attrs: Attributes = { [GenAiAttr.operationName]: GenAiOperation.invokeAgent };
    const agent = event.path.at(-1);
    if (agent !== undefined) attrs[GenAiAttr.agentName] = agents.of(agent);
    m.agentDuration.record(event.durationMs / 1000, withError(attrs, event));
  };

  // Attribute sets of hook measurements, made once each: hook, point, phase and outcome are few
  // (registered names, not data), and building an object per decision was most of a run's cost.
  const hookAttrs = new Map<string, Attributes>();
  const hookAttributes = (hook: string, point: string, extra: string, make: () => Attributes): Attributes => {
    const key = `${hook}\u0000${point}\u0000${extra}`;
    let attrs = hookAttrs.get(key);
    if (attrs === undefined) {
      attrs = Object.freeze(make());
      if (hookAttrs.size < attributeSetsLimit) hookAttrs.set(key, attrs);
    }
    return attrs;
  };

  const hooks = (m: Instruments, event: RunEvent): void => {
    let rejectedByDecision = false;
    const point = event.point;
    for (const d of event.decisions) {
      // A synchronous Continue the engine did not time (it reads no clock for those unless the
      // stack has `timeHooks: true`) is not a measurement: recording its 0 would make every run
      // cost one histogram update per hook, and the histogram say nothing.
      if (d.action === "Continue" && d.ms === 0) continue;
      const failure = d.action === "Failed" ? failureOf(event.failures, d.hook, d.phase) : undefined;
      const outcome = hookOutcome(d.action, failure?.kind);
      const name = hookName(d.hook);
      m.hookDuration.record(
        d.ms / 1000,
        hookAttributes(d.hook, point, `${d.phase}\u0000${outcome}`, () => ({
          [OnionAttr.hookName]: name,
          [OnionAttr.hookPoint]: point,
          [OnionAttr.hookPhase]: d.phase,
          [OnionAttr.hookOutcome]: outcome,
        })),
      );
      if (d.action === "Reject") {
        const shadow = d.shadow === true;
        m.rejections.add(
          1,
          hookAttributes(d.hook, point, shadow ? "reject\u0000shadow" : "reject", () =>
            shadow
              ? { [OnionAttr.hookName]: name, [OnionAttr.hookPoint]: point, [OnionAttr.hookShadow]: true }
              : { [OnionAttr.hookName]: name, [OnionAttr.hookPoint]: point },
          ),
        );
        if (!shadow && event.outcome._tag === "Rejected" && event.outcome.by === d.hook) rejectedByDecision = true;
      } else if (d.action === "Failed") {
        const errorType = failure?.kind ?? "threw";
        const failMode = d.failMode ?? "closed";
        m.failures.add(
          1,
          hookAttributes(d.hook, point, `failed\u0000${failMode}\u0000${errorType}`, () => ({
            [OnionAttr.hookName]: name,
            [OnionAttr.hookPoint]: point,
            [OnionAttr.hookFailMode]: failMode,
            [GenAiAttr.errorType]: errorType,
          })),
        );
        if (d.failMode === "open")
          m.failOpen.add(
            1,
            hookAttributes(d.hook, point, `open\u0000${errorType}`, () => ({
              [OnionAttr.hookName]: name,
              [OnionAttr.hookPoint]: point,
              [GenAiAttr.errorType]: errorType,
            })),
          );
      }
    }
    // An `around` that returned a Rejected outcome made no `Reject` decision; count it too (not fail-closed failures: those are failures).
    const o = event.outcome;
    if (o._tag === "Rejected" && o.cause === undefined && !rejectedByDecision && event.decisions.some((d) => d.hook === o.by))
      m.rejections.add(1, { [OnionAttr.hookName]: hookName(o.by), [OnionAttr.hookPoint]: point });
  };

  return {
    name,
    hooks: onEveryPoint(
      observer(name, (event) => {
        const m = get();
        hooks(m, event);
        if (event.point === "modelCall") modelCall(m, event as RunEvent<ModelRequest, ModelResponse>);
        else if (event.point === "toolCall") toolCall(m, event as RunEvent<ToolCall, unknown>);
        else if (event.point === "run") run(m, event as RunEvent<unknown, RunResult>);
      }),
      options.points ?? allAgentPoints,
    ),
  };
};

/** How many distinct hook attribute sets are kept made; past it they are made per use (memory stays bounded). */
const attributeSetsLimit = 10_000;

/** Refuse a meter without the instruments made from it, when the middleware is made rather than on its first run. */
const meterOption = (hook: string, value: unknown): Meter | undefined => {
  const meter = value as Meter | undefined;
  if (value !== undefined && (typeof meter?.createHistogram !== "function" || typeof meter.createCounter !== "function"))
    throw new TypeError(`${hook}: meter must be an OpenTelemetry Meter (with createHistogram and createCounter), got ${String(value)}`);
  return meter;
};

const failureOf = (failures: readonly HookError[], hook: string, phase: string): HookError | undefined =>
  failures.find((f) => f.hook === hook && f.phase === phase);
