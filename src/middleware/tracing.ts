/**
 * `tracing`: an OpenTelemetry span for every point run, named and attributed per the GenAI
 * conventions (`chat {model}`, `execute_tool {tool}`, `invoke_agent {agent}`), with one child
 * span per hook decision, placed at the hook's own time. Nested points nest: a tool call's span
 * sits under its step, under its run. On `@opentelemetry/api` only.
 *
 * How: an outermost `around` opens the point's span and runs everything inside it as the active
 * span; the same hook's `onSettled`, which the engine calls exactly once for each time the layer
 * was entered (on completion, rejection, failure, timeout or the caller's abort), ends it. The
 * run's observer (R10), which sees the decisions with their timings, adds the hook spans
 * afterwards, so recording them never delays the chain.
 *
 * Three spans are not made but borrowed: inside `agent.run()` one `invoke_agent` span, opened by
 * the invocation's first point, parents every point of it (session start, prompt, run, session
 * end) and is the `run` point's span; inside the AI SDK's own model call span
 * (`experimental_telemetry`), a model call enriches that span instead of adding a second one.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import {
  context as otelContext,
  createContextKey,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace as otelTrace,
  type Attributes,
  type Context,
  type Span,
  type SpanContext,
  type Tracer,
} from "@opentelemetry/api";
import { contextKey, type HookContext, type RunEvent } from "../core/context.ts";
import { describe } from "../core/errors.ts";
import type { Outcome } from "../core/outcome.ts";
import { Priority } from "../core/priority.ts";
import { currentInvocation, trackInvocations, type Invocation } from "../agent/invocation.ts";
import type { ModelRequest, ModelResponse, RunResult, ToolCall } from "../agent/types.ts";
import type { Middleware } from "./apply.ts";
import { allAgentPoints, onEveryPoint } from "./every-point.ts";
import { knownOptions, nameOption, numberOption } from "./options.ts";
import { createRedactor, type Redactor, type RedactorOptions } from "./redactor.ts";
import { GenAiAttr, GenAiOperation, OnionAttr } from "./semconv.ts";
import { sdkModelOperations } from "./tracing-ai-sdk.ts";
import { clockAnchor } from "./wall-clock.ts";
import {
  errorTypeOf,
  hookOutcome,
  providerOf,
  providerOption,
  redactOption,
  scrubbedNamesOf,
  type ProviderOption,
} from "./telemetry-attrs.ts";

/** An `invoke_agent` span and what its model calls told it: `gen_ai.provider.name` and `gen_ai.request.model` are set from the first. */
interface AgentSpan {
  readonly span: Span;
  /** The wall clock at the engine clock's zero, read once: every time of the span is stamped from it. */
  readonly clock: number;
  /** Its start, on the engine's clock. */
  readonly startedAt: number;
  provider: string | undefined;
  /** A model call has told it its provider and model. */
  informed: boolean;
}

/** The span of one `agent.run()`: opened by its first point, ended when the invocation ends. */
interface InvocationSpan {
  readonly agent: AgentSpan;
  /** The context its points run in: the span, and the agent span record. */
  readonly context: Context;
  /** The span that was active when it opened (an application's own), under which its points still count as top level. */
  readonly outer: Span | undefined;
  /** What the invocation came to: its run's outcome, or the refusal or failure that ended it before. */
  outcome: Outcome<unknown> | undefined;
}

/** A point's span until its layer settled; `borrowed` spans (the invocation's, the AI SDK's) are ended by their owner. */
interface OpenSpan {
  readonly span: Span;
  /** Our own spans' `clock` (see `AgentSpan`) and start on the engine's clock; undefined for a borrowed span, which the SDK stamps. */
  readonly clock: number | undefined;
  readonly startedAt: number | undefined;
  readonly borrowed: boolean;
  readonly invocation: InvocationSpan | undefined;
  ended: boolean;
}

/** What a settled point's span leaves for its hook spans. */
interface Handoff {
  readonly parent: SpanContext;
  readonly clock: number | undefined;
  readonly from: number;
  readonly to: number;
}

/** Where the nearest `invoke_agent` span is kept in an OpenTelemetry context, for its model calls. */
const agentSpanKey = createContextKey("agent-onion.invoke_agent");

/** The span if it is the AI SDK's span around one provider call: read through the SDK's `ReadableSpan` attributes. */
const sdkModelSpan = (span: Span | undefined): Span | undefined => {
  const id = (span as { readonly attributes?: Attributes } | undefined)?.attributes?.["ai.operationId"];
  return typeof id === "string" && sdkModelOperations.has(id) ? span : undefined;
};

/** Points whose spans are GenAI operations: a refusal there ends the operation in an error. */
const operations: ReadonlySet<string> = new Set(["run", "modelCall", "toolCall"]);

/** How many runs' span contexts wait for their observer before the oldest are forgotten (an observer queue that dropped events). */
const handoffLimit = 10_000;

/** Options of `tracing`: where spans come from and what they carry. */
export interface TracingOptions {
  /** Hook name; default `tracing`. */
  readonly name?: string;
  /** Default: the global tracer `agent-onion` (a proxy: registering the SDK later works). */
  readonly tracer?: Tracer;
  /**
   * `gen_ai.provider.name`: a name, or a function of the model id; default the SDK's provider id
   * when the request carries one (`aiSdkMiddleware` passes it), else a guess from the model id.
   */
  readonly provider?: ProviderOption;
  /** Also set the deprecated `gen_ai.system`; default false. */
  readonly legacySystemAttribute?: boolean;
  /** Which points get spans; default all standard agent points. */
  readonly points?: readonly string[];
  /**
   * One child span per hook decision that did something (transformed, replaced, rejected, failed)
   * or was timed (an asynchronous call, or any call under the stack's `timeHooks: true`); default true.
   */
  readonly hookSpans?: boolean;
  /**
   * With the AI SDK's own telemetry on (`experimental_telemetry`), its span around each provider
   * call is a GenAI span too. `"enrich"` (default): a model call inside it makes no span of its
   * own; it writes the convention's name and attributes onto the SDK's span and hangs its hook
   * spans there, so each call has one span. `"separate"`: a span of its own, a child of the SDK's.
   */
  readonly aiSdkSpans?: "enrich" | "separate";
  /**
   * How to scrub hook names, rejection reasons and error messages on spans; default the default
   * detectors. When given (not `false`), `gen_ai.conversation.id` is hashed too, salted with
   * `salt` or else a salt of this tracing's own; by default it is written as it is.
   */
  readonly redact?: Redactor | RedactorOptions | false;
  /** Default `Priority.outermost`: outside every hook, so the span covers them all. */
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
  // One anchor for every span this middleware stamps, as the OpenTelemetry SDK keeps one
  // (its time origin): read per span, Date.now()'s millisecond steps put a child outside its parent.
  const anchor = clockAnchor();
  knownOptions("tracing", options, {
    name: true,
    tracer: true,
    provider: true,
    legacySystemAttribute: true,
    points: true,
    hookSpans: true,
    aiSdkSpans: true,
    redact: true,
    priority: true,
  });
  const name = nameOption("tracing", options.name);
  const priority = numberOption(name, "priority", options.priority ?? Priority.outermost, Priority.outermost);
  const legacy = options.legacySystemAttribute === true;
  const hookSpans = options.hookSpans !== false;
  const enrichSdkSpans = aiSdkSpansOption(name, options.aiSdkSpans) === "enrich";
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
  const idRedactor = !asked
    ? undefined
    : isRedactor(redact)
      ? redact
      : createRedactor({ ...redact, strategy: "hash", strategies: {}, salt: redact.salt ?? randomUUID() });
  const conversationId = (sessionId: string): string => (idRedactor === undefined ? sessionId : idRedactor.scrub(sessionId));
  const tracer = (): Tracer => givenTracer ?? otelTrace.getTracer("agent-onion");
  // So that one agent.run() is one trace: from now on agent.run() carries its invocation.
  trackInvocations();
  // Our own record of the current context, for applications without an OpenTelemetry context manager.
  const current = new AsyncLocalStorage<Context>();
  // A run's spans, in the order its attempts entered our layer (a hook outside ours that retries
  // runs our around again in the same run); `onSettled` ends them in that order.
  const spansKey = contextKey<OpenSpan[]>(`${name}.spans`);
  // The span of each `agent.run()`, by its invocation: gone with it.
  const invocations = new WeakMap<Invocation, InvocationSpan>();
  // The span a settled run's hook spans go under, until its observer runs (off the run's path).
  // With the clock its times were stamped from and its start and end on the engine's clock: its
  // hook spans are stamped from the same clock and placed within it (the engine times a hook from
  // its last clock reading, which can come before the point's span started).
  const handoff = new Map<string, Handoff>();

  const activeContext = (): Context => {
    const active = otelContext.active();
    return otelTrace.getSpan(active) !== undefined ? active : (current.getStore() ?? active);
  };

  const agentAttributes = (agent: string, sessionId: string | undefined): Attributes => {
    const attrs: Attributes = { [GenAiAttr.operationName]: GenAiOperation.invokeAgent, [GenAiAttr.agentName]: agent };
    if (typeof providerChoice === "string") attrs[GenAiAttr.providerName] = providerChoice;
    if (sessionId !== undefined) attrs[GenAiAttr.conversationId] = conversationId(sessionId);
    return attrs;
  };

  /** Open an `invoke_agent` span under `parent`, and the context its inside runs in. */
  const openAgentSpan = (
    agent: string,
    sessionId: string | undefined,
    parent: Context,
    extra: Attributes = {},
  ): { agent: AgentSpan; context: Context } => {
    const clock = anchor;
    const startedAt = performance.now();
    const span = tracer().startSpan(
      `${GenAiOperation.invokeAgent} ${agent}`,
      { kind: SpanKind.INTERNAL, attributes: { ...extra, ...agentAttributes(agent, sessionId) }, startTime: clock + startedAt },
      parent,
    );
    const record: AgentSpan = {
      span,
      clock,
      startedAt,
      provider: typeof providerChoice === "string" ? providerChoice : undefined,
      informed: false,
    };
    return { agent: record, context: otelTrace.setSpan(parent, span).setValue(agentSpanKey, record) };
  };

  /** The invocation's span, opened by its first point; undefined outside `agent.run()`. */
  const invocationSpan = (ctx: HookContext<any>, active: Context): InvocationSpan | undefined => {
    const invocation = currentInvocation();
    if (invocation === undefined) return undefined;
    const known = invocations.get(invocation);
    if (known !== undefined) return known;
    const opened = openAgentSpan(invocation.agent, ctx.sessionId, active);
    const made: InvocationSpan = { ...opened, outer: otelTrace.getSpan(active), outcome: undefined };
    invocations.set(invocation, made);
    invocation.onEnd(() => {
      try {
        if (made.outcome !== undefined) finish(made.agent.span, "run", made.outcome);
      } finally {
        made.agent.span.end(made.agent.clock + performance.now());
      }
    });
    return made;
  };

  const start = (ctx: HookContext<any>, parent: Context, clock: number, startedAt: number): Span => {
    const input = ctx.input as unknown;
    const attrs: Attributes = { [OnionAttr.point]: ctx.point };
    if (ctx.subject !== undefined) attrs[OnionAttr.subject] = ctx.subject;
    let spanName = ctx.point;
    let kind = SpanKind.INTERNAL;
    if (ctx.point === "modelCall") {
      spanName = `${GenAiOperation.chat} ${(input as ModelRequest).model}`;
      kind = SpanKind.CLIENT;
      Object.assign(attrs, chatAttributes(ctx, parent));
    } else if (ctx.point === "toolCall") {
      const call = input as ToolCall;
      spanName = `${GenAiOperation.executeTool} ${call.name}`;
      Object.assign(attrs, {
        [GenAiAttr.operationName]: GenAiOperation.executeTool,
        [GenAiAttr.toolName]: call.name,
        [GenAiAttr.toolCallId]: call.id,
        [GenAiAttr.toolType]: "function",
      });
    }
    return tracer().startSpan(spanName, { kind, attributes: attrs, startTime: clock + startedAt }, parent);
  };

  /** A chat span's attributes at its start; the enclosing agent span learns its provider from the first. */
  const chatAttributes = (ctx: HookContext<any>, parent: Context): Attributes => {
    const request = ctx.input as ModelRequest;
    const provider = providerOf(request.model, providerChoice, request.provider);
    const attrs: Attributes = {
      [GenAiAttr.operationName]: GenAiOperation.chat,
      [GenAiAttr.providerName]: provider,
      [GenAiAttr.requestModel]: request.model,
      [GenAiAttr.requestStream]: request.stream === true,
    };
    const server = request.server;
    if (server !== undefined) {
      attrs[GenAiAttr.serverAddress] = server.address;
      attrs[GenAiAttr.serverPort] = server.port;
    }
    if (request.maxOutputTokens !== undefined) attrs[GenAiAttr.requestMaxTokens] = request.maxOutputTokens;
    if (request.temperature !== undefined) attrs[GenAiAttr.requestTemperature] = request.temperature;
    if (legacy) attrs[GenAiAttr.system] = provider;
    if (ctx.sessionId !== undefined) attrs[GenAiAttr.conversationId] = conversationId(ctx.sessionId);
    // The agent span learns its provider and model from its first model call (one model per agent here).
    const agent = parent.getValue(agentSpanKey) as AgentSpan | undefined;
    if (agent !== undefined && !agent.informed) {
      agent.informed = true;
      if (agent.provider === undefined) agent.span.setAttribute(GenAiAttr.providerName, provider);
      agent.provider ??= provider;
      agent.span.setAttribute(GenAiAttr.requestModel, request.model);
    }
    return attrs;
  };

  const finish = (span: Span, point: string, outcome: Outcome<unknown>): void => {
    span.setAttribute(OnionAttr.outcome, outcome._tag.toLowerCase());
    const operation = operations.has(point);
    const errorType = errorTypeOf(outcome, operation);
    if (errorType !== undefined) span.setAttribute(GenAiAttr.errorType, errorType);
    if (outcome._tag === "Rejected") {
      span.setAttributes({ [OnionAttr.rejectedBy]: hookName(outcome.by), [OnionAttr.reason]: scrub(outcome.reason) });
      // A GenAI operation that was refused ended without its result; on other points (a stop
      // gate's Reject means "keep going") a decision to refuse is not an error; a hook that
      // crashed and failed closed always is.
      if (operation || outcome.cause !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: scrub(outcome.reason) });
    } else if (outcome._tag === "Failed") span.setStatus({ code: SpanStatusCode.ERROR, message: scrub(describe(outcome.error)) });
    else if (point === "modelCall") {
      const response = outcome.value as ModelResponse;
      if (typeof response.model === "string") span.setAttribute(GenAiAttr.responseModel, response.model);
      if (typeof response.id === "string") span.setAttribute(GenAiAttr.responseId, response.id);
      if (typeof response.timeToFirstChunkMs === "number")
        span.setAttribute(GenAiAttr.responseTimeToFirstChunk, response.timeToFirstChunkMs / 1000);
      span.setAttribute(GenAiAttr.finishReasons, [response.finishReason]);
      if (response.usageEstimated !== true)
        span.setAttributes({ [GenAiAttr.inputTokens]: response.usage.inputTokens, [GenAiAttr.outputTokens]: response.usage.outputTokens });
    } else if (point === "run") span.setAttribute(GenAiAttr.finishReasons, [(outcome.value as RunResult).finishReason]);
  };

  /** Open this attempt's span (or borrow one), and the context the inside runs in. */
  const enter = (ctx: HookContext<any>): { entry: OpenSpan; inside: Context } => {
    const active = activeContext();
    const invocation = invocationSpan(ctx, active);
    // At the invocation's top level (no span of ours active), its points go under its span.
    const atTop = invocation !== undefined && otelTrace.getSpan(active) === invocation.outer;
    const parent = atTop ? invocation.context : active;
    const ours = atTop ? invocation : undefined;
    if (ctx.point === "run" && ours !== undefined) {
      // The invocation's span is its run's span.
      return {
        entry: { span: ours.agent.span, clock: undefined, startedAt: undefined, borrowed: true, invocation: ours, ended: false },
        inside: ours.context,
      };
    }
    const sdk = ctx.point === "modelCall" && enrichSdkSpans ? sdkModelSpan(otelTrace.getSpan(parent)) : undefined;
    if (sdk !== undefined) {
      sdk.updateName(`${GenAiOperation.chat} ${(ctx.input as ModelRequest).model}`);
      sdk.setAttributes({
        [OnionAttr.point]: ctx.point,
        ...(ctx.subject !== undefined ? { [OnionAttr.subject]: ctx.subject } : {}),
        ...chatAttributes(ctx, parent),
      });
      return {
        entry: { span: sdk, clock: undefined, startedAt: undefined, borrowed: true, invocation: ours, ended: false },
        inside: parent,
      };
    }
    if (ctx.point === "run") {
      const opened = openAgentSpan(ctx.path.at(-1) ?? "agent", ctx.sessionId, parent, { [OnionAttr.point]: ctx.point });
      const { clock, startedAt } = opened.agent;
      return {
        entry: { span: opened.agent.span, clock, startedAt, borrowed: false, invocation: ours, ended: false },
        inside: opened.context,
      };
    }
    const clock = anchor;
    const startedAt = performance.now();
    const span = start(ctx, parent, clock, startedAt);
    return { entry: { span, clock, startedAt, borrowed: false, invocation: ours, ended: false }, inside: otelTrace.setSpan(parent, span) };
  };

  /** End the earliest attempt's span still open, with its layer's outcome. */
  const settle = (outcome: Outcome<unknown>, ctx: HookContext<any>): void => {
    const entry = ctx.local(spansKey)?.find((e) => !e.ended);
    if (entry === undefined) return;
    entry.ended = true;
    const invocation = entry.invocation;
    // The invocation's outcome: its run's, or what stopped it before its run (a refused session or prompt).
    if (invocation !== undefined && (ctx.point === "run" || (invocation.outcome === undefined && outcome._tag !== "Completed")))
      invocation.outcome = outcome;
    // The span ends whatever its attributes make of an odd outcome (a response without usage).
    const endedAt = performance.now();
    try {
      finish(entry.span, ctx.point, outcome);
    } finally {
      if (!entry.borrowed) entry.span.end(entry.clock === undefined ? undefined : entry.clock + endedAt);
    }
    if (hookSpans) {
      // The decisions are the run's, whichever attempt made them: under its last span.
      if (handoff.size >= handoffLimit) handoff.delete(handoff.keys().next().value as string);
      const { clock, startedAt } = entry;
      handoff.set(ctx.callId, {
        parent: entry.span.spanContext(),
        clock,
        from: clock === undefined || startedAt === undefined ? Number.NEGATIVE_INFINITY : startedAt,
        to: clock === undefined ? Number.POSITIVE_INFINITY : endedAt,
      });
    }
  };

  const hookSpansOf = (event: RunEvent): void => {
    const handed = handoff.get(event.callId);
    if (handed === undefined) return;
    handoff.delete(event.callId);
    const parentCtx = otelTrace.setSpanContext(ROOT_CONTEXT, handed.parent);
    // Stamped from the clock the point's span was (a borrowed span's SDK reads the wall clock now).
    const clock = handed.clock ?? anchor;
    const within = (at: number): number => clock + Math.min(Math.max(at, handed.from), handed.to);
    for (const d of event.decisions) {
      if (d.hook === name) continue; // our own around is the point's span
      // A synchronous Continue the engine did not time (unless `timeHooks: true`) did nothing and
      // measured nothing: a span for each would make a run cost one span per hook.
      if (d.action === "Continue" && d.ms === 0) continue;
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
      const at = event.startedAt + d.at;
      const span = tracer().startSpan(`hook ${hook}`, { kind: SpanKind.INTERNAL, attributes: attrs, startTime: within(at) }, parentCtx);
      if (d.action === "Failed")
        span.setStatus({ code: SpanStatusCode.ERROR, message: d.reason === undefined ? "hook failed" : scrub(d.reason) });
      span.end(within(at + d.ms));
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
        around: (ctx, next) => {
          const { entry, inside } = enter(ctx);
          const list = ctx.local(spansKey);
          if (list === undefined) ctx.local(spansKey, [entry]);
          else list.push(entry);
          return current.run(inside, () => otelContext.with(inside, () => next()));
        },
        onSettled: (outcome, _input, ctx) => settle(outcome, ctx),
        ...(hookSpans ? { observe: hookSpansOf } : {}),
      },
      options.points ?? allAgentPoints,
    ),
  };
};

/** Refuse an `aiSdkSpans` option that is neither choice, when the middleware is made. */
const aiSdkSpansOption = (hook: string, value: unknown): "enrich" | "separate" => {
  if (value === undefined) return "enrich";
  if (value === "enrich" || value === "separate") return value;
  throw new TypeError(`${hook}: aiSdkSpans must be "enrich" or "separate", got ${JSON.stringify(value) ?? String(value)}`);
};

const isRedactor = (value: unknown): value is Redactor => typeof (value as Redactor | undefined)?.scrub === "function";

/** Refuse a tracer that cannot start spans, when the middleware is made rather than on its first run. */
const tracerOption = (hook: string, value: unknown): Tracer | undefined => {
  if (value !== undefined && typeof (value as Tracer | null)?.startSpan !== "function")
    throw new TypeError(`${hook}: tracer must be an OpenTelemetry Tracer (with startSpan), got ${String(value)}`);
  return value as Tracer | undefined;
};
