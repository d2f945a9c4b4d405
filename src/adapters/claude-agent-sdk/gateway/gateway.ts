/**
 * `claudeModelGateway`: the stack's `modelCall` point as an LLM gateway for Claude Code. The SDK
 * has no hook around a model call, but Claude Code sends every model call to `ANTHROPIC_BASE_URL`
 * (the documented way to put a gateway in front of it); this is one, on 127.0.0.1, in the
 * application's process.
 *
 * - `POST /v1/messages` runs through `modelCall`: `before` hooks see the request as a
 *   `ModelRequest` (request.ts) and what they change is what the API receives; `after` hooks see the
 *   response with its usage, and what they change is what Claude Code reads. Streams go through the
 *   agent layer's streaming machinery (`streamThroughStack`), so output gates, hold-back and chunk
 *   hooks behave as in our own loop, and the API's server-sent events are framed again (stream.ts).
 * - An API error (429, 529, 500...) is the operation's failure: `retry` and `fallback` hooks may act
 *   on it, and when none recovers Claude Code gets the API's own status and body, so its retries and
 *   messages are its own. A hook's failure is a 400 whose message says which hook and why.
 * - Everything else (token counting, other paths) is passed through untouched, as is every call
 *   when the stack has no `modelCall` hook.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ModelResponse } from "../../../agent/types.ts";
import { notAResponse } from "../../../agent/response-shape.ts";
import { holdBackProblem, type HoldBack } from "../../../agent/stream/control.ts";
import { ModelStreamError } from "../../../agent/stream/errors.ts";
import { fromReadableStream } from "../../../agent/stream/readable.ts";
import { streamThroughStack, type ModelCallStack } from "../../../agent/stream/through-stack.ts";
import type { RunOptions } from "../../../core/context.ts";
import { AgentOnionError, brandError, describe, describeGiven } from "../../../core/errors.ts";
import type { Outcome } from "../../../core/outcome.ts";
import { CallContext } from "../../call-context.ts";
import { serverOf } from "../../model-endpoint.ts";
import { fromRequest, toRequest, withoutUnsignedThinking, type MappedRequest, type MessagesBody } from "./request.ts";
import { fromResponse, toResponse, type MessagesResponse } from "./response.ts";
import { AnthropicStreamError, errorBody, fromSse, sseEvents, SseWriter, StreamMemo } from "./stream.ts";
import { stackArgument } from "../../../agent/stack-argument.ts";
import { knownOptions } from "../../../core/known-options.ts";

/**
 * The API answered a model call with an error status: its status, headers and body as sent, which
 * is what Claude Code gets when no hook recovers.
 *
 * @example
 * recover: (error) => error instanceof AnthropicApiError && error.status === 529 ? Replace(cached) : undefined
 */
export class AnthropicApiError extends AgentOnionError {
  override name = "AnthropicApiError";
  constructor(
    readonly status: number,
    readonly headers: Readonly<Record<string, string>>,
    readonly body: string,
  ) {
    super(`the Messages API answered ${status}: ${body.slice(0, 300)}`);
  }
}
brandError(AnthropicApiError);

/**
 * One model call the gateway is about to run, for per-call run options.
 *
 * @example
 * claudeModelGateway(stack, { run: (call: ClaudeModelCallInfo) => ({ metadata: { stream: call.stream } }) })
 */
export interface ClaudeModelCallInfo {
  /** Claude Code's session (its `x-claude-code-session-id` header), when sent. */
  readonly sessionId: string | undefined;
  readonly model: string;
  readonly stream: boolean;
  readonly headers: Readonly<IncomingHttpHeaders>;
}

/**
 * Options of `claudeModelGateway`.
 *
 * @example
 * claudeModelGateway(stack, { upstream: "https://api.anthropic.com", holdBack: { window: 64 }, run: (call) => ({ metadata: { session: call.sessionId } }) })
 */
export interface ClaudeModelGatewayOptions {
  /** Where model calls go on; default `ANTHROPIC_BASE_URL` of this process, else `https://api.anthropic.com`. */
  readonly upstream?: string;
  /** Run options for every model call (metadata, a trace...), or a function of the call. */
  readonly run?: Omit<RunOptions, "signal"> | ((call: ClaudeModelCallInfo) => Omit<RunOptions, "signal">);
  /** The least hold-back for streams; output gates ask for more themselves. Default `"none"`. */
  readonly holdBack?: HoldBack;
  /** The loopback port to listen on; default any free one. */
  readonly port?: number;
}

/**
 * A running gateway.
 *
 * @example
 * const gateway = await claudeModelGateway(stack)
 * query({ prompt, options: { env: gateway.env() } })
 * await gateway.close()
 */
export interface ClaudeModelGateway {
  /** `http://127.0.0.1:<port>`: Claude Code's `ANTHROPIC_BASE_URL`. */
  readonly url: string;
  /** `base` (default this process's environment) with `ANTHROPIC_BASE_URL` set to the gateway: the SDK's `env` option. */
  env(base?: Readonly<Record<string, string | undefined>>): Record<string, string | undefined>;
  /** Stop listening; calls in flight are cut. */
  close(): Promise<void>;
}

/** The stack a gateway runs model calls through: any stack with a `modelCall` point. */
export type GatewayStack = ModelCallStack & {
  /** Whether the stack has hooks on `point`; without any, calls pass straight through. */
  has?(point: "modelCall"): boolean;
};

/** Headers not forwarded: hop-by-hop ones, and those that describe a body we send anew. */
const dropped = new Set([
  "host",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "content-encoding",
  "accept-encoding",
  "upgrade",
  "proxy-connection",
  "te",
  "trailer",
]);

const forwardHeaders = (headers: IncomingHttpHeaders): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !dropped.has(k)) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
};

const responseHeaders = (headers: Headers): Record<string, string> => {
  const out: Record<string, string> = {};
  headers.forEach((v, k) => {
    if (!dropped.has(k)) out[k] = v;
  });
  return out;
};

const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });

const isBody = (v: unknown): v is MessagesBody =>
  typeof v === "object" && v !== null && typeof (v as MessagesBody).model === "string" && Array.isArray((v as MessagesBody).messages);

/** The answer for a call that failed before anything was sent: the API's own error, or ours. */
const failure = (res: ServerResponse, error: unknown): void => {
  if (res.headersSent) return void res.end();
  const cause = error instanceof ModelStreamError ? error.cause : error;
  if (cause instanceof AnthropicApiError) {
    res.writeHead(cause.status, { ...cause.headers, "content-length": Buffer.byteLength(cause.body) }).end(cause.body);
    return;
  }
  // The upstream could not be reached: a gateway error, which Claude Code retries as a connection error.
  const unreachable = cause instanceof TypeError && /fetch failed/i.test(cause.message);
  const status = unreachable ? 502 : cause instanceof AnthropicStreamError ? 500 : 400;
  const type = unreachable || cause instanceof AnthropicStreamError ? errorBody(cause).type : "invalid_request_error";
  const body = JSON.stringify({
    type: "error",
    error: { type, message: cause instanceof AnthropicStreamError ? cause.message : `agent-onion: ${describe(cause)}` },
  });
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
};

const outcomeError = (outcome: Outcome<unknown>): unknown =>
  outcome._tag === "Failed" ? outcome.error : outcome._tag === "Rejected" ? new Error(`${outcome.by}: ${outcome.reason}`) : undefined;

/**
 * Start a gateway that runs Claude Code's model calls through `stack`'s `modelCall` point; see the
 * module comment.
 *
 * @example
 * const gateway = await claudeModelGateway(withMiddleware(createAgentStack(), redaction(), metrics()))
 * for await (const m of query({ prompt, options: { ...guard.options(), env: gateway.env() } })) ...
 */
export const claudeModelGateway = async (stack: GatewayStack, options: ClaudeModelGatewayOptions = {}): Promise<ClaudeModelGateway> => {
  const owner = "claudeModelGateway";
  stackArgument(owner, stack);
  knownOptions(owner, options, { upstream: true, run: true, holdBack: true, port: true });
  const upstreamText = options.upstream ?? process.env.ANTHROPIC_BASE_URL ?? "https://api.anthropic.com";
  let upstream: URL;
  try {
    upstream = new URL(upstreamText);
  } catch {
    throw new TypeError(`${owner}: upstream must be an http(s) URL, got ${describeGiven(upstreamText)}`);
  }
  if (upstream.protocol !== "http:" && upstream.protocol !== "https:")
    throw new TypeError(`${owner}: upstream must be an http(s) URL, got ${describeGiven(upstreamText)}`);
  const hold = holdBackProblem(options.holdBack);
  if (hold !== undefined) throw new TypeError(`${owner}: ${hold}`);
  if (options.run !== undefined && typeof options.run !== "function" && (typeof options.run !== "object" || options.run === null))
    throw new TypeError(`${owner}: run must be run options or a function of the call, got ${describeGiven(options.run)}`);
  const base = upstream.href.replace(/\/$/, "");
  // What telemetry names the calls: the Messages API is Anthropic's, at the upstream's endpoint.
  const upstreamServer = serverOf(upstream);
  const origin = upstreamServer === undefined ? { provider: "anthropic" } : { provider: "anthropic", server: upstreamServer };
  // Stacks are immutable: one without modelCall hooks never gets one, and its calls pass straight through.
  const idle = stack.has?.("modelCall") === false;

  const send = (
    path: string,
    method: string,
    headers: Record<string, string>,
    body: Buffer | string | undefined,
    signal: AbortSignal,
  ): Promise<Response> =>
    fetch(`${base}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: typeof body === "string" ? body : new Uint8Array(body) } : {}),
      signal,
    });

  const passThrough = async (req: IncomingMessage, res: ServerResponse, body: Buffer, signal: AbortSignal): Promise<void> => {
    const upstreamResponse = await send(
      req.url ?? "/",
      req.method ?? "GET",
      forwardHeaders(req.headers),
      req.method === "GET" || req.method === "HEAD" ? undefined : body,
      signal,
    );
    res.writeHead(upstreamResponse.status, responseHeaders(upstreamResponse.headers));
    if (upstreamResponse.body === null) return void res.end();
    for await (const chunk of fromReadableStream(upstreamResponse.body)) res.write(chunk);
    res.end();
  };

  const runOptionsOf = (req: IncomingMessage, body: MessagesBody): RunOptions => {
    const header = req.headers["x-claude-code-session-id"];
    const sessionId = typeof header === "string" ? header : undefined;
    const info: ClaudeModelCallInfo = { sessionId, model: body.model, stream: body.stream === true, headers: req.headers };
    const own = typeof options.run === "function" ? options.run(info) : options.run;
    return { ...own, sessionId: own?.sessionId ?? sessionId, metadata: { gateway: "claude", ...own?.metadata } };
  };

  /** The body for one attempt: the original buffer when hooks changed nothing. */
  const attemptBody = (raw: Buffer, mapped: MappedRequest, request: MappedRequest["request"], context: readonly string[]): string => {
    const next = fromRequest(mapped, request, context);
    return next === mapped.body ? raw.toString("utf8") : JSON.stringify(next);
  };

  const generate = async (
    req: IncomingMessage,
    res: ServerResponse,
    raw: Buffer,
    body: MessagesBody,
    signal: AbortSignal,
  ): Promise<void> => {
    const mapped = toRequest(body, origin);
    const run = runOptionsOf(req, body);
    const context = new CallContext(run.onContext);
    const produced = new Map<ModelResponse, { json: MessagesResponse; headers: Record<string, string> }>();
    const outcome = await stack.run(
      "modelCall",
      mapped.request,
      async (request, ctx) => {
        const out = attemptBody(raw, mapped, request as MappedRequest["request"], context.forAttempt());
        const answer = await send(req.url ?? "/v1/messages", "POST", forwardHeaders(req.headers), out, ctx.signal);
        if (!answer.ok) throw new AnthropicApiError(answer.status, responseHeaders(answer.headers), await answer.text());
        const json = (await answer.json()) as MessagesResponse;
        const response = toResponse(json, body.model);
        produced.set(response, { json, headers: responseHeaders(answer.headers) });
        return response;
      },
      { ...run, signal, onContext: context.push },
    );
    if (outcome._tag !== "Completed") return failure(res, outcomeError(outcome));
    const malformed = notAResponse(outcome.value);
    if (malformed !== undefined) return failure(res, malformed);
    const from = produced.get(outcome.value) ?? [...produced.entries()].at(-1)?.[1];
    const answer = fromResponse(from?.json, produced.has(outcome.value) ? outcome.value : undefined, outcome.value, body.model);
    const text = JSON.stringify(answer);
    res
      .writeHead(200, { ...(from?.headers ?? { "content-type": "application/json" }), "content-length": Buffer.byteLength(text) })
      .end(text);
  };

  const stream = async (req: IncomingMessage, res: ServerResponse, raw: Buffer, body: MessagesBody, signal: AbortSignal): Promise<void> => {
    const mapped = toRequest(body, origin);
    const run = runOptionsOf(req, body);
    const context = new CallContext(run.onContext);
    const memo = new StreamMemo();
    let headers: Record<string, string> | undefined;
    const call = streamThroughStack(
      stack,
      mapped.request,
      async (request, { signal: attempt }) => {
        const out = attemptBody(raw, mapped, request as MappedRequest["request"], context.forAttempt());
        const answer = await send(req.url ?? "/v1/messages", "POST", forwardHeaders(req.headers), out, attempt);
        if (!answer.ok || answer.body === null)
          throw new AnthropicApiError(answer.status, responseHeaders(answer.headers), await answer.text());
        headers = responseHeaders(answer.headers);
        return fromSse(sseEvents(fromReadableStream(answer.body)), memo);
      },
      {
        ...run,
        ...(options.holdBack !== undefined ? { holdBack: options.holdBack } : {}),
        signal,
        onContext: context.push,
      },
    );
    const writer = new SseWriter(memo, body.model);
    const parts = call.parts[Symbol.asyncIterator]();
    const first = await parts.next();
    if (first.done === true || first.value.type === "error") {
      // Nothing was shown: answer as the API would have, with its status, or with why it failed.
      const outcome = await call.outcome;
      if (first.done !== true || outcome._tag !== "Completed")
        return failure(res, first.done === true ? outcomeError(outcome) : (first.value as { error?: unknown }).error);
    }
    res.writeHead(200, { ...(headers ?? {}), "content-type": "text/event-stream", "cache-control": "no-cache" });
    if (first.done !== true) res.write(writer.write(first.value));
    for (;;) {
      const next = await parts.next();
      if (next.done === true) break;
      res.write(writer.write(next.value));
    }
    res.end();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const cut = new AbortController();
    // Claude Code gave up on the call (its own timeout, an interrupt): the provider call ends too.
    res.on("close", () => {
      if (!res.writableFinished) cut.abort(new Error("Claude Code closed the connection"));
    });
    const raw = await readBody(req);
    const path = (req.url ?? "/").split("?")[0];
    let body: unknown;
    if (!idle && req.method === "POST" && path === "/v1/messages") {
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        body = undefined;
      }
    }
    if (!isBody(body)) return passThrough(req, res, raw, cut.signal);
    // Thinking a hook rewrote comes back without its signature: the API would refuse the request.
    const sent = withoutUnsignedThinking(body);
    const bytes = sent === body ? raw : Buffer.from(JSON.stringify(sent), "utf8");
    return sent.stream === true ? stream(req, res, bytes, sent, cut.signal) : generate(req, res, bytes, sent, cut.signal);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => failure(res, error));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    env: (envBase = process.env) => ({ ...envBase, ANTHROPIC_BASE_URL: url }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
