/**
 * `httpHook`: a Claude Code HTTP hook. The event JSON is POSTed, the answer is read like a
 * command hook's stdout, and the request is guarded: SSRF checks on every address, no
 * redirects, timeouts per phase, a body cap, header values free of CR/LF that interpolate
 * only allowlisted environment variables. With `async: true` it is fire-and-forget on a
 * bounded queue whose drops are counted.
 */
import { createHash } from "node:crypto";
import { httpAnswer } from "./answer.ts";
import { checkHeader, interpolateHeader } from "./env.ts";
import { ExecutorError } from "./errors.ts";
import type { AgentEvent } from "./events.ts";
import {
  EXTERNAL_HOOK_FIELDS,
  claudeDefaultSeconds,
  externalHook,
  resolveTimeoutMs,
  type ExternalHook,
  type ExternalHookOptions,
  type RunnerSpec,
} from "./external.ts";
import { postJson } from "./http-client.ts";
import type { AddressPolicy, Resolver } from "./ssrf.ts";
import { checkLimit } from "./limits.ts";
import { knownOptions } from "../core/known-options.ts";

export interface HttpHookOptions<E extends AgentEvent = AgentEvent> extends ExternalHookOptions<E> {
  /** http or https; no credentials in the URL. */
  readonly url: string;
  /** Extra headers; values may use `$VAR` / `${VAR}` for variables in `allowedEnvVars`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Variables header values may interpolate; others become empty strings. */
  readonly allowedEnvVars?: readonly string[];
  /** Which non-public addresses may be reached. Default: none (public addresses only). */
  readonly allow?: AddressPolicy;
  /** Replaces DNS resolution (tests, custom resolvers). */
  readonly resolver?: Resolver;
  /** Default 5000 ms (or the overall timeout, if shorter). */
  readonly connectTimeoutMs?: number;
  /** Default: the overall timeout. */
  readonly headersTimeoutMs?: number;
  /** Default: the overall timeout. */
  readonly bodyTimeoutMs?: number;
  /** Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Where `$VAR` values come from. Default `process.env`. */
  readonly envSource?: Readonly<Record<string, string | undefined>>;
}

const parseUrl = (raw: string): URL => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TypeError(`httpHook: url ${JSON.stringify(raw)} is not a valid URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new TypeError(`httpHook: url must be http or https, got ${url.protocol}`);
  // `https://allowed.example@evil.example` reads as one host and connects to another (E6).
  if (url.username || url.password) throw new TypeError("httpHook: credentials in the URL are refused; send them in a header");
  return url;
};

/** Headers the request sets from its body and connection: another value would break its framing. */
const framing = new Set(["content-length", "transfer-encoding", "connection"]);

/**
 * The default name of an HTTP hook: the host and a short hash of the whole URL. Never the path or
 * the query: webhook URLs (Slack, Discord) carry their credential there, and a hook's name goes
 * into rejection reasons the model reads, audit records, spans and metrics. The hash keeps two
 * hooks on one host apart, and the same URL under the same name.
 *
 * @example
 * httpHookLabel(new URL("https://hooks.slack.com/services/T0/B0/secret")) // "hooks.slack.com#1f0c…" (8 hex digits)
 */
export const httpHookLabel = (url: URL): string => `${url.host}#${createHash("sha256").update(url.href).digest("hex").slice(0, 8)}`;

/**
 * The runner of an HTTP hook (for a hook of its own, or one of a set).
 *
 * @example
 * const { run } = httpRunner({ event: "PreToolUse", url: "https://policy.example/pre" })
 */
export const httpRunner = <E extends AgentEvent>(options: HttpHookOptions<E>): RunnerSpec => {
  const url = parseUrl(options.url);
  checkLimit("httpHook", "maxBodyBytes", options.maxBodyBytes, "bytes");
  for (const field of ["connectTimeoutMs", "headersTimeoutMs", "bodyTimeoutMs"] as const)
    checkLimit("httpHook", field, options[field], "ms");
  const headers = Object.entries(options.headers ?? {});
  for (const [name, value] of headers) {
    checkHeader(name, value); // refuse CR/LF in the configuration itself
    if (framing.has(name.toLowerCase()))
      throw new TypeError(`httpHook: header ${name} is set by the request itself (the JSON body, one connection per request)`);
  }
  const timeoutMs = resolveTimeoutMs(options, claudeDefaultSeconds(options.event));
  const name = options.name ?? `http:${httpHookLabel(url)}`;
  return {
    name,
    timeoutMs,
    backstopMs: 1500,
    run: async ({ json, signal }) => {
      let resolved: Record<string, string>;
      try {
        resolved = Object.fromEntries(
          headers.map(([k, v]) => [k, interpolateHeader(k, v, options.allowedEnvVars ?? [], options.envSource)]),
        );
      } catch (error) {
        throw new ExecutorError("config", (error as Error).message, { cause: error });
      }
      const { status, body } = await postJson({
        url,
        body: json,
        headers: resolved,
        policy: options.allow ?? {},
        resolver: options.resolver,
        connectTimeoutMs: Math.min(options.connectTimeoutMs ?? 5000, timeoutMs),
        headersTimeoutMs: options.headersTimeoutMs ?? timeoutMs,
        bodyTimeoutMs: options.bodyTimeoutMs ?? timeoutMs,
        deadlineMs: timeoutMs,
        maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
        signal,
      });
      return httpAnswer(name, options.event, status, body);
    },
  };
};

/** Every field of `HttpHookOptions`: a misspelt one is refused rather than dropped. */
const HTTP_HOOK_FIELDS = {
  ...EXTERNAL_HOOK_FIELDS,
  url: true,
  headers: true,
  allowedEnvVars: true,
  allow: true,
  resolver: true,
  connectTimeoutMs: true,
  headersTimeoutMs: true,
  bodyTimeoutMs: true,
  maxBodyBytes: true,
  envSource: true,
} as const satisfies { readonly [K in keyof Required<HttpHookOptions<AgentEvent>>]: true };

/**
 * A hook that POSTs the event to an HTTP endpoint with Claude Code's protocol.
 *
 * @example
 * stack.use("toolCall", httpHook({ event: "PreToolUse", url: "https://policy.example/hooks/pre-tool-use",
 *   headers: { Authorization: "Bearer $POLICY_TOKEN" }, allowedEnvVars: ["POLICY_TOKEN"], timeout: 5 }))
 */
export const httpHook = <E extends AgentEvent>(options: HttpHookOptions<E>): ExternalHook<E> => {
  knownOptions("httpHook", options, HTTP_HOOK_FIELDS);
  const runner = httpRunner(options);
  return externalHook({ ...options, name: runner.name }, runner.timeoutMs, runner.run, runner.backstopMs);
};
