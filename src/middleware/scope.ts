/**
 * Where a limit, budget or cache entry lives in the `StateStore`: shared by everyone, per
 * tenant, per session or per run. Keys are built from the run's identity, never from module
 * variables (R14), so the same middleware instance serves every run and every process.
 */
import type { HookContext } from "../core/context.ts";
import { keyPart } from "../core/state.ts";
import { enclosingRunIds } from "../agent/run-links.ts";
import { stringOption } from "./options.ts";

/** Who shares a counter or a cache entry. A function returns its own partition key (or `undefined`: no key, see `scopeKey`). */
export type Scope = "global" | "tenant" | "session" | "run" | ((ctx: HookContext<any>) => string | undefined);

/** How to read the tenant from run metadata. */
export interface TenantOptions {
  /** The metadata field holding the tenant id (default `"tenant"`). */
  readonly tenantKey?: string;
}

/**
 * The store-key prefix of `scope` for this run, or `undefined` when the run lacks the identity
 * the scope needs (no tenant in metadata, no session id); callers decide what that means
 * (budgets refuse, caches bypass). Ids are URI-encoded so `:` in an id cannot forge another key.
 *
 * @example
 * scopeKey(ctx, "tenant") // "tenant:acme" when ctx.metadata.tenant is "acme"
 */
export const scopeKey = (ctx: HookContext<any>, scope: Scope, options: TenantOptions = {}): string | undefined => {
  if (typeof scope === "function") {
    const id = scope(ctx);
    return typeof id === "string" && id !== "" ? `custom:${keyPart(id)}` : undefined;
  }
  switch (scope) {
    case "global":
      return "global";
    case "run":
      return `run:${keyPart(ctx.runId)}`;
    case "session":
      return ctx.sessionId === undefined || ctx.sessionId === "" ? undefined : `session:${keyPart(ctx.sessionId)}`;
    case "tenant": {
      const tenant = ctx.metadata[options.tenantKey ?? "tenant"];
      return typeof tenant === "string" && tenant !== "" ? `tenant:${keyPart(tenant)}` : undefined;
    }
  }
};

/**
 * The store-key prefixes a call of this run counts in: `scopeKey`'s, and for `scope: "run"` first
 * those of the runs this one is part of (a sub-agent's parents, outermost first, as the agent
 * linked them), so that a run-scoped limit bounds a run with its sub-agents. Undefined as `scopeKey`.
 *
 * @example
 * scopeKeys(ctx, "run") // ["run:s1%231", "run:s1%231%2Fresearcher%3At1"] in a sub-agent of run "s1#1"
 */
export const scopeKeys = (ctx: HookContext<any>, scope: Scope, options: TenantOptions = {}): string[] | undefined => {
  const own = scopeKey(ctx, scope, options);
  if (own === undefined) return undefined;
  if (scope !== "run") return [own];
  const parents = enclosingRunIds(ctx.metadata).filter((id) => id !== ctx.runId);
  return parents.length === 0 ? [own] : [...parents.map((id) => `run:${keyPart(id)}`), own];
};

/**
 * Check a `scope` option at configuration time.
 *
 * @example
 * scopeOption("budget", "tenant") // "tenant"
 */
export const scopeOption = (middleware: string, scope: unknown, fallback: Scope): Scope => {
  if (scope === undefined) return fallback;
  if (typeof scope === "function" || scope === "global" || scope === "tenant" || scope === "session" || scope === "run")
    return scope as Scope;
  throw new TypeError(`${middleware}: scope must be "global", "tenant", "session", "run" or a function, got ${String(scope)}`);
};

/**
 * Check a `tenantKey` option at configuration time: a non-empty string when given.
 *
 * @example
 * tenantOption("rateLimit", "org") // { tenantKey: "org" }
 */
export const tenantOption = (middleware: string, tenantKey: unknown): TenantOptions => {
  const key = stringOption(middleware, "tenantKey", tenantKey);
  return key === undefined ? {} : { tenantKey: key };
};

/**
 * Why a scope could not be resolved, in words a user reads in a rejection.
 *
 * @example
 * missingScope("tenant") // 'no tenant in the run metadata (metadata.tenant)'
 */
export const missingScope = (scope: Scope, options: TenantOptions = {}): string =>
  typeof scope === "function"
    ? "the scope function returned no key"
    : scope === "tenant"
      ? `no tenant in the run metadata (metadata.${options.tenantKey ?? "tenant"})`
      : scope === "session"
        ? "the run has no session id"
        : `no ${scope} key`;
