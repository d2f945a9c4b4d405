/**
 * `redaction`: PII and secrets taken out of user prompts, tool input, tool output and model
 * output, streamed or not. Inputs are redacted by the outermost hooks (before anyone else sees
 * them), outputs by the innermost (so every other hook, the history and the logs see the
 * redacted value). A `block` strategy refuses: `Reject` on gates, a `Failed` outcome carrying
 * `RedactionBlockedError` on `modelCall`, where a `Reject` is not allowed (R2).
 */
import { Continue, Reject, Transform } from "../core/action.ts";
import { contextKey, type HookContext } from "../core/context.ts";
import { Outcome } from "../core/outcome.ts";
import { Priority } from "../core/priority.ts";
import type { StreamPart } from "../agent/model.ts";
import { streamControl } from "../agent/stream/control.ts";
import type { ModelRequest, ModelResponse, ToolCall, ToolResult } from "../agent/types.ts";
import type { Middleware, PointHook } from "./apply.ts";
import { knownOptions, nameOption, show } from "./options.ts";
import { blockedReason, RedactionBlockedError } from "./errors.ts";
import { placement, priorityOption } from "./placement.ts";
import { PartStreamRedactor, redactParts } from "./redaction-parts.ts";
import { redactorFor, type Redactor, type RedactorOptions } from "./redactor.ts";
import { scrubFailure } from "./scrub-failure.ts";
import { StreamRedactor, type StreamRedactorOptions } from "./stream-redactor.ts";
import type { AgentPoints } from "../agent/points.ts";

// Defined with the other middleware errors, so the root entry exports it without loading redaction.
export { RedactionBlockedError } from "./errors.ts";

/** Options of `redaction`: the redactor's policy, the stream hold-back, priorities and where to redact. */
export interface RedactionOptions extends RedactorOptions, StreamRedactorOptions {
  /** Hook name; default `redaction` (`redaction:output` for the tool-output hook). */
  readonly name?: string;
  /**
   * Priority of the input hooks (user prompt, tool input) and of the check of model answers and
   * tool results the innermost hook did not scan (a fallback model's, a `recover`'s); default
   * `Priority.first`, outside the guards.
   */
  readonly priority?: number;
  /** Priority of the output hooks (tool output, model output); default `Priority.last`, inside every ordinary hook. */
  readonly outputPriority?: number;
  /** Where to redact; each defaults to true. */
  readonly on?: {
    readonly userPrompt?: boolean;
    readonly toolInput?: boolean;
    readonly toolOutput?: boolean;
    readonly modelOutput?: boolean;
  };
  /** Use this redactor instead of building one from the options (share one with `audit`). */
  readonly redactor?: Redactor;
}

/**
 * Redact PII and secrets everywhere text enters or leaves the agent.
 *
 * @example
 * const stack = withMiddleware(createAgentStack(), redaction({
 *   strategies: { api_key: "block", email: "hash" },
 *   detectors: [...Detectors.defaults(), Detectors.pattern("ticket", /TCK-\d{6}/, { window: 10 })],
 * }))
 */
export const redaction = (options: RedactionOptions = {}): Middleware => {
  knownOptions("redaction", options, {
    detectors: true,
    strategy: true,
    strategies: true,
    salt: true,
    maxDepth: true,
    holdBack: true,
    maxHold: true,
    on: true,
    redactor: true,
    name: true,
    priority: true,
    outputPriority: true,
  });
  const name = nameOption("redaction", options.name);
  const outer = placement(name, options.priority, Priority.first);
  const inner = placement(
    name,
    options.outputPriority === undefined ? undefined : priorityOption(name, options.outputPriority, "outputPriority"),
    Priority.last,
  );
  const redactor = options.redactor !== undefined ? redactorOption(name, options.redactor) : redactorFor(name, options);
  // Checked now, not on the first stream.
  const streamOptions: StreamRedactorOptions = {
    ...(options.holdBack !== undefined ? { holdBack: options.holdBack } : {}),
    ...(options.maxHold !== undefined ? { maxHold: options.maxHold } : {}),
  };
  new StreamRedactor(redactor, streamOptions);
  const on = { userPrompt: true, toolInput: true, toolOutput: true, modelOutput: true, ...onOption(name, options.on) };

  const userPrompt: PointHook<AgentPoints, "userPrompt"> = {
    name,
    ...outer,
    before: (prompt) => {
      const r = redactor.text(prompt.text);
      if (r.blocked.length > 0) return Reject(blockedReason(name, "user prompt", r.blocked));
      return r.changed ? Transform({ ...prompt, text: r.value }) : Continue;
    },
  };

  const toolInput: PointHook<AgentPoints, "toolCall"> = {
    name,
    ...outer,
    before: (call) => {
      const r = redactor.value(call.input);
      if (r.blocked.length > 0) return Reject(blockedReason(name, `tool input of ${call.name}`, r.blocked));
      return r.changed ? Transform({ ...call, input: r.value }) : Continue;
    },
  };

  // The tool results and model answers the inner hooks let out in this run, so that the outer ones
  // (`:unscanned`) scan only those they never saw; in the run's slot, gone with it.
  const scanned = contextKey<object[]>(`${name}.scanned`);
  const pass = <T, A extends Continue | Transform<T>>(ctx: HookContext<any>, value: T, answer: A): A => {
    const out: unknown = answer._tag === "Transform" ? answer.value : value;
    if (typeof out === "object" && out !== null) {
      const list = ctx.local(scanned);
      if (list === undefined) ctx.local(scanned, [out]);
      else list.push(out);
    }
    return answer;
  };
  const wasScanned = (ctx: HookContext<any>, value: unknown): boolean => ctx.local(scanned)?.includes(value as object) === true;

  /** Scan a tool result: a refusal on a block kind, the redacted result, or Continue when it is clean. */
  const checkedResult = (result: ToolResult, call: ToolCall, ctx: HookContext<any>): Reject | Transform<ToolResult> | Continue => {
    // Every data field, not only `content`: an MCP result also carries `structuredContent`.
    // Only the protocol's own fields (`isError`, `_meta`) are left as they are.
    const { isError, _meta, ...data } = result as ToolResult & { _meta?: unknown };
    const r = redactor.value(data);
    if (r.blocked.length > 0) return Reject(blockedReason(name, `tool output of ${call.name}`, r.blocked));
    if (!r.changed) return pass(ctx, result, Continue);
    return pass(
      ctx,
      result,
      Transform({ ...(r.value as ToolResult), ...(isError !== undefined ? { isError } : {}), ...(_meta !== undefined ? { _meta } : {}) }),
    );
  };

  const toolOutput: PointHook<AgentPoints, "toolCall"> = {
    name: `${name}:output`,
    ...inner,
    after: (result, call, ctx) => checkedResult(result, call, ctx),
  };

  // A result made outside the innermost hook never passed it: a `recover`'s answer for a failed
  // call, an around's that did not run the tool (a cache), one an `after` further out rewrote.
  // At the input priority (outside guards and retry), this hook scans those, and the reason of a
  // rejection, which the model reads too: a hook that failed closed gives its thrown message
  // (`by` and, for the caller, `cause` are kept). An outcome an inner hook made final (R3: a
  // Replace after the tool ran, a failure closed after it) cannot be changed here.
  const unscannedResult: PointHook<AgentPoints, "toolCall"> = {
    name: `${name}:unscanned`,
    ...outer,
    failMode: "closed",
    around: async (ctx, next) => {
      const outcome = await next();
      if (outcome._tag === "Rejected") {
        const reason = redactor.scrub(outcome.reason);
        return reason === outcome.reason ? outcome : { ...outcome, reason };
      }
      if (outcome._tag !== "Completed" || wasScanned(ctx, outcome.value)) return outcome;
      const answer = checkedResult(outcome.value, ctx.input, ctx);
      return answer._tag === "Continue" ? outcome : answer;
    },
  };

  // A failed call's message reaches the model: it is scrubbed on its way out (see scrubFailure).
  const toolFailure: PointHook<AgentPoints, "toolCall"> = {
    name: `${name}:error`,
    ...inner,
    around: async (_ctx, next) => {
      const outcome = await next();
      return outcome._tag === "Failed" ? Outcome.failed(scrubFailure(redactor, outcome.error)) : outcome;
    },
  };

  /** Scan a whole answer: a failure on a block kind, the redacted answer, or Continue when it is clean. */
  const checked = (response: ModelResponse, tail: string | undefined, ctx: HookContext<any>) => {
    // Only tool inputs: ids and names are the protocol (a provider's call id can look like a token).
    const r = redactor.value({ text: response.text + (tail ?? ""), inputs: response.toolCalls.map((c) => c.input) });
    // The other parts (reasoning, sources, files, provider tools' results): their text fields only.
    const parts = response.parts === undefined ? undefined : redactParts(redactor, response.parts);
    const blocked = parts === undefined || parts.blocked.length === 0 ? r.blocked : [...new Set([...r.blocked, ...parts.blocked])];
    if (blocked.length > 0) return Outcome.failed(new RedactionBlockedError(name, "model output", blocked));
    if (!r.changed && tail === undefined && parts?.changed !== true) return pass(ctx, response, Continue);
    const toolCalls = response.toolCalls.map((c, i) => (r.value.inputs[i] === c.input ? c : { ...c, input: r.value.inputs[i] }));
    return r.value.text === response.text && !toolCalls.some((c, i) => c !== response.toolCalls[i]) && parts?.changed !== true
      ? pass(ctx, response, Continue)
      : pass(
          ctx,
          response,
          Transform({
            ...response,
            text: r.value.text,
            toolCalls,
            ...(parts?.changed === true && { parts: parts.value as readonly unknown[] }),
          } as ModelResponse),
        );
  };

  const modelOutput: PointHook<AgentPoints, "modelCall"> = {
    name,
    ...inner,
    // Closed: an answer that could not be checked (a cycle or too deep a tool input, a detector
    // that throws) must not go out as if it had been; the observe point's default is open (R6).
    failMode: "closed",
    // An `around`, not an `after`: on an observation point only an around can end the call with a
    // failure. Innermost, so a retry or fallback outside it gets a fresh stream redactor per attempt.
    around: async (ctx, next) => {
      const live = streamed(name, ctx, redactor, streamOptions);
      const outcome = await next();
      if (outcome._tag !== "Completed") return outcome;
      const tail = live?.end();
      const blockedLive = live?.blocked ?? [];
      if (blockedLive.length > 0) return Outcome.failed(new RedactionBlockedError(name, "model output", blockedLive));
      // The whole answer is scanned again (redaction is idempotent): inner `after` hooks may have changed it.
      return checked(outcome.value, tail, ctx);
    },
  };

  // An answer made or changed outside the innermost hook never passed it: a fallback model's
  // (fallback calls it itself), one a hook's `before` replaced, one an `after` further out
  // rewrote. At the input priority (outside guards, fallback and retry), this hook scans those,
  // on generate and stream alike (a streamed call releases what was not shown yet from the final
  // answer, after this hook). Hooks between the two see such an answer as it was made.
  const unscannedOutput: PointHook<AgentPoints, "modelCall"> = {
    name: `${name}:unscanned`,
    ...outer,
    failMode: "closed",
    around: async (ctx, next) => {
      const outcome = await next();
      if (outcome._tag !== "Completed" || wasScanned(ctx, outcome.value)) return outcome;
      return checked(outcome.value, undefined, ctx);
    },
  };

  return {
    name,
    hooks: {
      ...(on.userPrompt ? { userPrompt } : {}),
      ...(on.toolInput || on.toolOutput
        ? { toolCall: [...(on.toolInput ? [toolInput] : []), ...(on.toolOutput ? [unscannedResult, toolOutput, toolFailure] : [])] }
        : {}),
      ...(on.modelOutput ? { modelCall: [unscannedOutput, modelOutput] } : {}),
    },
  };
};

const places = ["userPrompt", "toolInput", "toolOutput", "modelOutput"] as const;

/** `on`, checked: an object of booleans for known places only (a misspelt place would silently stay redacted, or not). */
const onOption = (name: string, on: unknown): RedactionOptions["on"] => {
  if (on === undefined) return undefined;
  if (typeof on !== "object" || on === null || Array.isArray(on))
    throw new TypeError(`${name}: on must be an object of booleans (${places.join(", ")}), got ${show(on)}`);
  for (const [place, value] of Object.entries(on)) {
    if (!(places as readonly string[]).includes(place))
      throw new TypeError(`${name}: on.${place} is not a place to redact (expected one of ${places.join(", ")})`);
    if (value !== undefined && typeof value !== "boolean")
      throw new TypeError(`${name}: on.${place} must be a boolean, got ${show(value)}`);
  }
  return on as RedactionOptions["on"];
};

/** A given redactor, checked for what redaction and its stream redactor call. */
const redactorOption = (name: string, redactor: unknown): Redactor => {
  const fail = (why: string): never => {
    throw new TypeError(`${name}: redactor must be a redactor (see createRedactor); ${why}`);
  };
  if (typeof redactor !== "object" || redactor === null) return fail(`got ${show(redactor)}`);
  const r = redactor as Record<string, unknown>;
  for (const method of ["text", "value", "scrub", "strategyOf", "apply"])
    if (typeof r[method] !== "function") fail(`its ${method} is not a function`);
  if (!Array.isArray(r.detectors)) fail("its detectors is not a list");
  return redactor as Redactor;
};

/** What a streamed call's part transform did, for the `around` to finish. */
interface LiveRedaction {
  readonly blocked: readonly string[];
  /** Release what is still held (a stream that ended without a `finish` part). */
  end(): string;
}

/**
 * On a streamed call, register a part transform that holds text back until it is checked and
 * redacts tool calls as they stream. Returns undefined for `generate`.
 */
const streamed = (
  name: string,
  ctx: HookContext<ModelRequest>,
  redactor: Redactor,
  options: StreamRedactorOptions,
): LiveRedaction | undefined => {
  const control = streamControl(ctx);
  if (control === undefined) return undefined;
  const stream = new StreamRedactor(redactor, options);
  const others = new PartStreamRedactor(redactor, options);
  const blocked = new Set<string>();
  const raw = (value: unknown): StreamPart => ({ type: "raw", value });
  const textPart = (text: string): StreamPart | null => (text === "" ? null : { type: "text-delta", text });
  const take = (step: { readonly text: string; readonly blocked: readonly string[] }): string => {
    for (const kind of step.blocked) blocked.add(kind);
    return blocked.size > 0 ? "" : step.text;
  };
  control.transform(name, (part) => {
    if (blocked.size > 0) return part.type === "finish" || part.type === "error" ? undefined : null;
    switch (part.type) {
      case "text-delta":
        return textPart(take(stream.push(part.text)));
      case "tool-call": {
        const r = redactor.value(part.call.input);
        for (const kind of r.blocked) blocked.add(kind);
        if (blocked.size > 0) return null;
        return r.changed ? { ...part, call: { ...part.call, input: r.value } } : undefined;
      }
      case "raw": {
        // Reasoning, sources, files, provider tools' results: as the adapter passes them on.
        const out = others.push(part.value, blocked);
        if (blocked.size > 0) return null;
        if (out === undefined || out === null) return out;
        return Array.isArray(out) ? out.map(raw) : raw(out);
      }
      case "finish": {
        const held = others.end(blocked).map(raw);
        const rest = textPart(take(stream.end()));
        if (blocked.size > 0) return undefined;
        const out = rest === null ? held : [...held, rest];
        return out.length === 0 ? undefined : [...out, part];
      }
      default:
        return undefined;
    }
  });
  return {
    get blocked() {
      return [...blocked];
    },
    end: () => take(stream.end()),
  };
};
