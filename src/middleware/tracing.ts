/**
 * `tracing`: an OpenTelemetry span for every point run, named and attributed per the GenAI
 * conventions (`chat {model}`, `execute_tool {tool}`, `invoke_agent {agent}`), with one child
 * span per hook decision, placed at the hook's own time. Nested points nest: a tool call's span
 * sits under its step, under its run. On `@opentelemetry/api` only.
 *
 * How: an outermost `around` opens the point's span and runs everything inside it as the active
 * span; the run's observer (R10), which sees the decisions with their timings, adds the hook
 * spans afterwards, so recording them never delays the chain. A run can settle before its
 * operation does (a deadline, the caller's abort, an operation that ignores its signal): then the
 * observer ends the span, with the run's outcome and time, as the metrics report it.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import {
  context as otelContext, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace as otelTrace, type Attributes, type Context, type Span, type SpanContext, type Tracer,
} from "@opentelemetry/api";
import type { HookContext, RunEvent } from "../core/context.ts";
import { describe } from "../core/errors.ts";
import type { Outcome } from "../core/outcome.ts";
import type { ModelRequest, ModelResponse, RunResult, ToolCall } from "../agent/types.ts";
import type { Middleware } from "./apply.ts";
import { allAgentPoints, onEveryPoint } from "./every-point.ts";
import { nameOption, numberOption } from "./options.ts";
import { createRedactor, type Redactor, type RedactorOptions } from "./redactor.ts";
import { GenAiAttr, GenAiOperation, OnionAttr } from "./semconv.ts";
import { errorTypeOf, hookOutcome, providerOf, providerOption, redactOption, scrubbedNamesOf, type ProviderOption } from "./telemetry-attrs.ts";

/** A point's span until it ended, by its `around` or by the run's observer, whichever comes first. */
interface OpenSpan {
  readonly span: Span;
  ended: boolean;
}

/** Options of `tracing`: where spans come from and what they carry. */
export interface TracingOptions {
  /** Hook name; default `tracing`. */
  readonly name?: string;
  /** Default: the global tracer `agent-onion` (a proxy: registering the SDK later works). */
  readonly tracer?: Tracer;
  /** `gen_ai.provider.name`: a name, or a function of the model id; default a guess from the model id. */
  readonly provider?: ProviderOption;
  /** Also set the deprecated `gen_ai.system`; default false. */
  readonly legacySystemAttribute?: boolean;
  /** Which points get spans; default all standard agent points. */
  readonly points?: readonly string[];
  /** One child span per hook decision; default true. */
  readonly hookSpans?: boolean;
  /**
   * How to scrub hook names, rejection reasons and error messages on spans; default the default
   * detectors. When given (not `false`), `gen_ai.conversation.id` is hashed too, salted with
   * `salt` or else a salt of this tracing's own; by default it is written as it is.
   */
  readonly redact?: Redactor | RedactorOptions | false;
  /** Default the lowest safe integer: outermost, so the span covers every hook. */
  readonly priority?: number;
}

/**
 * Trace every point run and every hook decision.
 *
 * @example
 * const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] })
 * provider.register()
 * const stack = withMiddleware(createAgentStack(), tracing({ provider: "openai" }))
 */
export const tracing = (options: TracingOptions = {}): Middleware => {
  const name = nameOption("tracing", options.name);
  const priority = numberOption(name, "priority", options.priority ?? Number.MIN_SAFE_INTEGER, -Number.MAX_VALUE);
  const legacy = options.legacySystemAttribute === true;
  const hookSpans = options.hookSpans !== false;
  const providerChoice = providerOption(name, options.provider);
  const givenTracer = tracerOption(name, options.tracer);
  const redact = redactOption(name, options.redact);
  const redactor = redact === false ? undefined : isRedactor(redact) ? redact : createRedactor(redact ?? {});
  const scrub = (text: string): string => (redactor === undefined ? text : redactor.scrub(text));
  // A hook's name may carry a credential (a webhook URL's path), as its reasons may.
  const hookName = scrubbedNamesOf(redactor);
  // The conversation id is kept as it is unless the caller asked for redaction: spans are joined
  // with logs and other traces on it. When asked, it is hashed as audit hashes ids (a placeholder
  // would make every session one), salted with a salt made here unless the caller gave one, so
  // that an email cannot be found by hashing guesses.
  const asked = redact !== undefined && redact !== false;
  const idRedactor = !asked ? undefined : isRedactor(redact)
    ? redact
    : createRedactor({ ...redact, strategy: "hash", strategies: {}, salt: redact.salt ?? randomUUID() });
  const tracer = (): Tracer => givenTracer ?? otelTrace.getTracer("agent-onion");
  // Our own record of the current span, for applications without an OpenTelemetry context manager.
  const current = new AsyncLocalStorage<Context>();
  // The spans of each run, by its call id (the observer gets the same), until its observer ran.
  // A list, because a hook outside ours that retries runs our around again in the same call.
  const open = new Map<string, OpenSpan[]>();

  const parentContext = (): Context => {
    const active = otelContext.active();
    return otelTrace.getSpan(active) !== undefined ? active : (current.getStore() ?? active);
  };

  const start = (ctx: HookContext<any>, parent: Context): Span => {
    const input = ctx.input as unknown;
    const attrs: Attributes = { [OnionAttr.point]: ctx.point };
    if (ctx.subject !== undefined) attrs[OnionAttr.subject] = ctx.subject;
    let spanName = ctx.point;
    let kind = SpanKind.INTERNAL;
    if (ctx.point === "modelCall") {
      const model = (input as ModelRequest).model;
      const provider = providerOf(model, providerChoice);
      spanName = `${GenAiOperation.chat} ${model}`;
      kind = SpanKind.CLIENT;
      Object.assign(attrs, { [GenAiAttr.operationName]: GenAiOperation.chat, [GenAiAttr.providerName]: provider, [GenAiAttr.requestModel]: model }, legacy ? { [GenAiAttr.system]: provider } : {});
    } else if (ctx.point === "toolCall") {
      const call = input as ToolCall;
      spanName = `${GenAiOperation.executeTool} ${call.name}`;
      Object.assign(attrs, { [GenAiAttr.operationName]: GenAiOperation.executeTool, [GenAiAttr.toolName]: call.name, [GenAiAttr.toolCallId]: call.id, [GenAiAttr.toolType]: "function" });
    } else if (ctx.point === "run") {
      const agent = ctx.path.at(-1) ?? "agent";
      spanName = `${GenAiOperation.invokeAgent} ${agent}`;
      Object.assign(attrs, { [GenAiAttr.operationName]: GenAiOperation.invokeAgent, [GenAiAttr.agentName]: agent });
      if (ctx.sessionId !== undefined) attrs[GenAiAttr.conversationId] = idRedactor === undefined ? ctx.sessionId : idRedactor.scrub(ctx.sessionId);
    }
    return tracer().startSpan(spanName, { kind, attributes: attrs }, parent);
  };

  const finish = (span: Span, point: string, outcome: Outcome<unknown>): void => {
    span.setAttribute(OnionAttr.outcome, outcome._tag.toLowerCase());
    const errorType = errorTypeOf(outcome);
    if (errorType !== undefined) span.setAttribute(GenAiAttr.errorType, errorType);
    if (outcome._tag === "Rejected") {
      span.setAttributes({ [OnionAttr.rejectedBy]: hookName(outcome.by), [OnionAttr.reason]: scrub(outcome.reason) });
      // A decision to refuse is not an error; a hook that crashed and failed closed is.
      if (outcome.cause !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: scrub(outcome.reason) });
    } else if (outcome._tag === "Failed") span.setStatus({ code: SpanStatusCode.ERROR, message: scrub(describe(outcome.error)) });
    else if (point === "modelCall") {
      const response = outcome.value as ModelResponse;
      if (typeof response.model === "string") span.setAttribute(GenAiAttr.responseModel, response.model);
      span.setAttribute(GenAiAttr.finishReasons, [response.finishReason]);
      if (response.usageEstimated !== true)
        span.setAttributes({ [GenAiAttr.inputTokens]: response.usage.inputTokens, [GenAiAttr.outputTokens]: response.usage.outputTokens });
    } else if (point === "run") span.setAttribute(GenAiAttr.finishReasons, [(outcome.value as RunResult).finishReason]);
  };

  /** End a span once: with what its `next()` answered, or from the observer with the run's outcome and end. */
  const end = (entry: OpenSpan, point: string, outcome: Outcome<unknown> | undefined, at?: number): void => {
    if (entry.ended) return;
    entry.ended = true;
    // The span ends whatever its attributes make of an odd outcome (a response without usage).
    try {
      if (outcome !== undefined) finish(entry.span, point, outcome);
    } finally {
      entry.span.end(at);
    }
  };

  const settled = (event: RunEvent): void => {
    const entries = open.get(event.callId);
    if (entries === undefined) return;
    open.delete(event.callId);
    // A performance.now() time, which the SDK reads on the clock it started the span on.
    const at = event.startedAt + event.durationMs;
    for (const entry of entries) end(entry, event.point, event.outcome, at);
    // The decisions are the run's, whichever attempt made them: under its last span.
    const last = entries[entries.length - 1];
    if (last !== undefined && hookSpans) hookSpansOf(event, last.span.spanContext());
  };

  const hookSpansOf = (event: RunEvent, parent: SpanContext): void => {
    const parentCtx = otelTrace.setSpanContext(ROOT_CONTEXT, parent);
    const origin = performance.timeOrigin + event.startedAt;
    for (const d of event.decisions) {
      if (d.hook === name) continue; // our own around is the point's span
      const failure = d.action === "Failed" ? event.failures.find((f) => f.hook === d.hook && f.phase === d.phase) : undefined;
      const hook = hookName(d.hook);
      const attrs: Attributes = {
        [OnionAttr.hookName]: hook,
        [OnionAttr.hookPoint]: event.point,
        [OnionAttr.hookPhase]: d.phase,
        [OnionAttr.hookAction]: d.action,
        [OnionAttr.hookOutcome]: hookOutcome(d.action, failure?.kind),
      };
      if (d.reason !== undefined) attrs[OnionAttr.reason] = scrub(d.reason);
      if (d.shadow === true) attrs[OnionAttr.hookShadow] = true;
      if (d.source !== undefined) attrs[OnionAttr.hookSource] = d.source;
      if (d.action === "Failed") {
        attrs[OnionAttr.hookFailMode] = d.failMode ?? "closed";
        attrs[OnionAttr.failureModeAllowed] = d.failMode === "open";
      }
      const span = tracer().startSpan(`hook ${hook}`, { kind: SpanKind.INTERNAL, attributes: attrs, startTime: origin + d.at }, parentCtx);
      if (d.action === "Failed") span.setStatus({ code: SpanStatusCode.ERROR, message: d.reason === undefined ? "hook failed" : scrub(d.reason) });
      span.end(origin + d.at + d.ms);
    }
  };

  return {
    name,
    hooks: onEveryPoint(
      {
        name,
        priority,
        // Telemetry must never refuse a call: a failure of ours lets the call through (and is counted).
        failMode: "open",
        around: async (ctx, next) => {
          const parent = parentContext();
          const span = start(ctx, parent);
          const entry: OpenSpan = { span, ended: false };
          const list = open.get(ctx.callId);
          if (list === undefined) open.set(ctx.callId, [entry]);
          else list.push(entry);
          const inside = otelTrace.setSpan(parent, span);
          let outcome: Outcome<unknown> | undefined;
          try {
            outcome = await current.run(inside, () => otelContext.with(inside, () => next()));
            return outcome;
          } finally {
            // A run whose signal aborted settled before this next() did (the core settles it
            // first), and what next() answers now is not the run's: the observer ends the span.
            if (outcome?._tag !== "Failed" || !ctx.signal.aborted) end(entry, ctx.point, outcome);
          }
        },
        observe: settled,
      },
      options.points ?? allAgentPoints,
    ),
  };
};

const isRedactor = (value: unknown): value is Redactor => typeof (value as Redactor | undefined)?.scrub === "function";

/** Refuse a tracer that cannot start spans, when the middleware is made rather than on its first run. */
const tracerOption = (hook: string, value: unknown): Tracer | undefined => {
  if (value !== undefined && typeof (value as Tracer | null)?.startSpan !== "function")
    throw new TypeError(`${hook}: tracer must be an OpenTelemetry Tracer (with startSpan), got ${String(value)}`);
  return value as Tracer | undefined;
};
