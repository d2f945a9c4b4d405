/**
 * `cache`: answer a repeated model (or tool) call from the `StateStore`. A hit returns
 * `Replace(value)`, so every hook further in and the call itself are skipped (a hit spends no
 * budget and no rate limit when `cache` sits outside them, as by default). Entries live in the
 * store with a TTL, under a key partitioned by scope: a tenant never reads another tenant's
 * entries, and a run without the identity its scope needs is not cached at all.
 *
 * The cache is an optimisation, so it fails open: a store that fails makes it a miss (the call
 * runs, and the failure is recorded and counted, R6). A hit on `modelCall` reports zero usage:
 * no tokens were spent on it. An answer's other parts (reasoning, sources, files) are kept, a
 * file's bytes as base64 (stores keep JSON, which has no bytes; the AI SDK reads either), and a
 * hit on a streamed call sends them as the stream's.
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { Replace } from "../core/action.ts";
import type { HookContext } from "../core/context.ts";
import type { Hook } from "../core/hook.ts";
import type { MatchSpec } from "../core/match/types.ts";
import { Priority } from "../core/priority.ts";
import type { DeepReadonly } from "../core/readonly.ts";
import { noUsage } from "../agent/model.ts";
import type { ModelResponse, ToolResult } from "../agent/types.ts";
import type { Middleware } from "./apply.ts";
import { choiceOption, functionOption, integerOption, knownOptions, nameOption } from "./options.ts";
import { placement } from "./placement.ts";
import { scopeKey, type Scope, tenantOption } from "./scope.ts";

/**
 * Options of `cache`.
 *
 * @example
 * cache({ ttlMs: 600_000, scope: "tenant", key: (req) => req.messages.at(-1)?.content })
 */
export interface CacheOptions {
  /** How long an entry lives, in ms. */
  readonly ttlMs: number;
  /** Who shares entries; required, because a cache shared across tenants has to be a decision. */
  readonly scope: "tenant" | "session" | "global" | Exclude<Scope, string>;
  readonly tenantKey?: string;
  /** The cache key of an input; `undefined` means "do not cache this one". Default: a hash of the input, without a model request's `stream` or a tool call's `id`. */
  readonly key?: (input: DeepReadonly<any>, ctx: HookContext<any>) => string | undefined;
  /** Whether an output may be stored; default: not tool errors, not model answers that were cut short or failed. */
  readonly cacheable?: (output: DeepReadonly<any>) => boolean;
  /** Default `"modelCall"`. */
  readonly point?: "modelCall" | "toolCall";
  readonly match?: MatchSpec<any>;
  readonly name?: string;
  /** Default `Priority.guard`, inside `toolPolicy` and outside budget, fallback, retry and rate limits, by name. */
  readonly priority?: number;
}

/**
 * A stable text of a JSON-like value (object keys sorted), the basis of default cache keys.
 *
 * @example
 * stableJson({ b: 1, a: [2, { d: 3, c: 4 }] }) // '{"a":[2,{"c":4,"d":3}],"b":1}'
 */
export const stableJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  ) ?? "null";

const sha256 = (text: string): string => createHash("sha256").update(text).digest("base64url");

const defaultCacheable =
  (point: "modelCall" | "toolCall") =>
  (output: unknown): boolean => {
    if (point === "toolCall") return (output as ToolResult).isError !== true;
    const r = output as ModelResponse;
    return r.aborted !== true && r.finishReason !== "error" && r.finishReason !== "content-filter";
  };

/**
 * A value with every byte array in it as base64 text: JSON would make one an object of numbered
 * keys. The value itself when it holds none.
 *
 * @example
 * withBase64Bytes({ type: "file", mediaType: "text/plain", data: new Uint8Array([104, 105]) }) // { type: "file", mediaType: "text/plain", data: "aGk=" }
 */
export const withBase64Bytes = (value: unknown): unknown => {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64");
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((item, i) => {
      const next = withBase64Bytes(item);
      if (next !== item) (out ??= [...value])[i] = next;
    });
    return out ?? value;
  }
  let out: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const next = withBase64Bytes(item);
    if (next !== item) (out ??= { ...value })[key] = next;
  }
  return out ?? value;
};

/** What to store of an output: a model answer's parts with their bytes as base64; anything else as it is. */
const storable = (point: "modelCall" | "toolCall", output: unknown): unknown => {
  if (point !== "modelCall") return output;
  const parts = (output as ModelResponse).parts;
  if (parts === undefined) return output;
  const kept = withBase64Bytes(parts);
  return kept === parts ? output : { ...(output as ModelResponse), parts: kept };
};

/**
 * Serve repeated calls from the store, per tenant, session or globally.
 *
 * @example
 * withMiddleware(stack, cache({ ttlMs: 10 * 60_000, scope: "tenant" }))
 * withMiddleware(stack, cache({ name: "search-cache", point: "toolCall", match: "WebSearch", ttlMs: 3_600_000, scope: "global" }))
 */
export const cache = (options: CacheOptions): Middleware => {
  knownOptions("cache", options, {
    ttlMs: true,
    scope: true,
    tenantKey: true,
    key: true,
    cacheable: true,
    point: true,
    match: true,
    name: true,
    priority: true,
  });
  const name = nameOption("cache", options.name);
  const ttlMs = integerOption(name, "ttlMs", options.ttlMs, 1);
  if (typeof options.scope !== "function") choiceOption(name, "scope", options.scope, ["tenant", "session", "global"]);
  const scope = options.scope;
  const tenant = tenantOption(name, options.tenantKey);
  const point = choiceOption(name, "point", options.point ?? "modelCall", ["modelCall", "toolCall"]);
  const keyOf = functionOption(name, "key", options.key) ?? ((input: unknown) => sha256(stableJson(input)));
  const cacheable = functionOption(name, "cacheable", options.cacheable) ?? defaultCacheable(point);

  const hook: Hook<any, any, any> = {
    name,
    // Inside the policy (a denied call is not served from the cache); budget, fallback, retry and
    // rate limits name it to run inside it, so a hit spends none of them.
    ...placement(name, options.priority, Priority.guard, { after: ["toolPolicy"] }),
    failMode: "open",
    ...(options.match !== undefined ? { match: options.match } : {}),
    around: async (ctx, next) => {
      const partition = scopeKey(ctx, scope, tenant);
      // `stream` says how the caller reads the answer, not what it is: both paths share entries. A
      // tool call's `id` is new on every call the model makes: the same tool and input is a repeat.
      const input = point === "modelCall" ? { ...(ctx.input as object), stream: undefined } : { ...(ctx.input as object), id: undefined };
      const k = partition === undefined ? undefined : keyOf(input, ctx);
      if (k === undefined) return next();
      const key = `${name}:${partition}:${point}:${k}`;
      const hit = await ctx.store.get<unknown>(key);
      if (hit !== undefined) return Replace(point === "modelCall" ? { ...(hit as ModelResponse), usage: noUsage } : hit);
      const outcome = await next();
      if (outcome._tag === "Completed" && cacheable(outcome.value)) await ctx.store.set(key, storable(point, outcome.value), { ttlMs });
      return outcome;
    },
  };
  return { name, hooks: { [point]: hook } };
};
