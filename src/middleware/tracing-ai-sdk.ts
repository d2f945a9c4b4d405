/**
 * `aiSdkTracer`: the tracer to give the AI SDK's own telemetry (`experimental_telemetry: { tracer }`)
 * so that its span around each provider call is the convention's inference span from its start.
 * The AI SDK (ai 6) starts that span (`ai.generateText.doGenerate`, `ai.streamText.doStream`...)
 * with kind `INTERNAL`, its own name and `gen_ai.system`; a span's kind cannot change once it
 * started, and the convention asks `CLIENT` for an inference span and the sampling-relevant
 * attributes at creation. This tracer starts those spans as `CLIENT`, named `chat {model}`, with
 * `gen_ai.operation.name`, `gen_ai.provider.name` (from the SDK's provider id) and
 * `gen_ai.request.model`; every other span it starts as asked.
 */
import {
  context as otelContext,
  SpanKind,
  trace as otelTrace,
  type Attributes,
  type Context,
  type Span,
  type SpanOptions,
  type Tracer,
} from "@opentelemetry/api";
import { GenAiAttr, GenAiOperation } from "./semconv.ts";
import { providerOfSdk } from "./telemetry-attrs.ts";

/**
 * The AI SDK's (ai 6) spans around one provider call, by their `ai.operationId`.
 *
 * @example
 * sdkModelOperations.has("ai.streamText.doStream") // true
 */
export const sdkModelOperations: ReadonlySet<string> = new Set([
  "ai.generateText.doGenerate",
  "ai.streamText.doStream",
  "ai.generateObject.doGenerate",
  "ai.streamObject.doStream",
]);

/** The name and options of a span the AI SDK starts: an inference span's as the convention has them, others as given. */
const asConvention = (name: string, options: SpanOptions | undefined): [string, SpanOptions | undefined] => {
  const attrs = options?.attributes;
  const operation = attrs?.["ai.operationId"];
  if (typeof operation !== "string" || !sdkModelOperations.has(operation)) return [name, options];
  const model = attrs?.["ai.model.id"];
  const provider = providerOfSdk(typeof attrs?.["ai.model.provider"] === "string" ? attrs["ai.model.provider"] : undefined);
  const added: Attributes = { [GenAiAttr.operationName]: GenAiOperation.chat };
  if (provider !== undefined) added[GenAiAttr.providerName] = provider;
  if (typeof model === "string") added[GenAiAttr.requestModel] = model;
  return [
    typeof model === "string" ? `${GenAiOperation.chat} ${model}` : name,
    { ...options, kind: SpanKind.CLIENT, attributes: { ...attrs, ...added } },
  ];
};

/**
 * A tracer for the AI SDK's `experimental_telemetry` whose spans around provider calls are
 * inference spans per the GenAI conventions (kind `CLIENT`, `chat {model}`, their required
 * attributes at creation); other spans as the SDK asks. Default: the global tracer `ai`, the
 * SDK's own default.
 *
 * @example
 * await generateText({ model, prompt, experimental_telemetry: { isEnabled: true, tracer: aiSdkTracer() } })
 */
export const aiSdkTracer = (tracer?: Tracer): Tracer => {
  if (tracer !== undefined && typeof (tracer as Tracer | null)?.startSpan !== "function")
    throw new TypeError(`aiSdkTracer: tracer must be an OpenTelemetry Tracer (with startSpan), got ${String(tracer)}`);
  const inner = (): Tracer => tracer ?? otelTrace.getTracer("ai");
  const startSpan = (name: string, options?: SpanOptions, ctx?: Context): Span => {
    const [spanName, spanOptions] = asConvention(name, options);
    return inner().startSpan(spanName, spanOptions, ctx);
  };
  // The API's overloads: (name, fn), (name, options, fn), (name, options, context, fn).
  const startActiveSpan = (name: string, ...rest: unknown[]): unknown => {
    const fn = rest.at(-1) as (span: Span) => unknown;
    const options = rest.length >= 2 ? (rest[0] as SpanOptions | undefined) : undefined;
    const parent = rest.length >= 3 ? ((rest[1] as Context | undefined) ?? otelContext.active()) : otelContext.active();
    const span = startSpan(name, options, parent);
    return otelContext.with(otelTrace.setSpan(parent, span), fn, undefined, span);
  };
  return { startSpan, startActiveSpan: startActiveSpan as Tracer["startActiveSpan"] };
};
