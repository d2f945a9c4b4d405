/**
 * The one shape every built-in middleware has, and how it goes onto a stack.
 *
 * A middleware is plain data: a name and the hooks it registers, by point. Each point holds one
 * hook or a list of hooks (each with its own name, as a stack refuses two hooks of one name on
 * one point). Built-ins follow three conventions so users can manage them with the stack's own
 * tools:
 * - a hook's name is the middleware's name (`stack.disable("retry")` turns off every hook of
 *   it, on every point), or `<name>:<part>` when one middleware needs two hooks on one point;
 * - every factory accepts `{ name?, priority? }` to register a second instance or move it;
 * - a factory validates its options when called (a `TypeError` naming the field), never later.
 */
import type { HookStack, PointName } from "../core/stack-types.ts";
import type { Hook } from "../core/hook.ts";
import type { InputOf, KindOf, OutputOf, Points } from "../core/point.ts";
import type { AgentPoints } from "../agent/points.ts";

/** A hook typed for point `N` of `P`. */
export type PointHook<P extends Points, N extends PointName<P>> = Hook<InputOf<P[N]>, OutputOf<P[N]>, KindOf<P[N]>>;

/** The hooks of a middleware, by point: one hook or several with distinct names. */
export type MiddlewareHooks<P extends Points = AgentPoints> = {
  readonly [N in PointName<P>]?: PointHook<P, N> | readonly PointHook<P, N>[];
};

/**
 * A named bundle of hooks over the points `P` (the agent points by default).
 *
 * @example
 * const logTools: Middleware = {
 *   name: "log-tools",
 *   hooks: { toolCall: { name: "log-tools", before: (call) => void console.log(call.name) } },
 * }
 */
export interface Middleware<P extends Points = AgentPoints> {
  readonly name: string;
  readonly hooks: MiddlewareHooks<P>;
}

/** What `withMiddleware` accepts: a middleware, a list of them, or a falsy value for "none" (conditional use). */
export type MiddlewareInput<P extends Points = AgentPoints> = Middleware<P> | readonly MiddlewareInput<P>[] | null | undefined | false;

/**
 * Define a middleware (an identity function that checks the shape and helps inference).
 *
 * @example
 * const tag = defineMiddleware({ name: "tag", hooks: { run: { name: "tag", before: () => Continue } } })
 */
export const defineMiddleware = <P extends Points = AgentPoints>(middleware: Middleware<P>): Middleware<P> => {
  checkMiddleware(middleware);
  return middleware;
};

/**
 * Merge several middlewares into one named bundle; hooks on the same point are kept side by
 * side, so each keeps its own name and priority (how `guards()` bundles its four guards).
 *
 * @example
 * const safety = combineMiddleware("safety", stepLimit({ max: 10 }), toolPolicy({ deny: ["Bash(rm *)"] }))
 */
export const combineMiddleware = <P extends Points = AgentPoints>(name: string, ...parts: readonly MiddlewareInput<P>[]): Middleware<P> => {
  const merged: Record<string, Hook[]> = {};
  for (const part of flatten(parts)) for (const [point, hooks] of entries(part)) (merged[point] ??= []).push(...hooks);
  return { name, hooks: merged as unknown as MiddlewareHooks<P> };
};

/**
 * A new stack with every hook of every middleware registered (`stack.use` for each), in the
 * order given. The stack is immutable: the one passed in is unchanged.
 *
 * @example
 * const stack = withMiddleware(createAgentStack(), guards({ maxSteps: 10 }), retry({ attempts: 3 }), dev && logTools)
 */
export const withMiddleware = <P extends Points>(stack: HookStack<P>, ...middlewares: readonly MiddlewareInput<P>[]): HookStack<P> => {
  let out = stack;
  for (const middleware of flatten(middlewares))
    for (const [point, hooks] of entries(middleware)) for (const hook of hooks) out = out.use(point as PointName<P>, hook as never);
  return out;
};

/**
 * The names of the hooks a middleware registers, for `stack.without` / `disable` / `enable`.
 *
 * @example
 * for (const name of middlewareHookNames(guards())) stack = stack.disable(name)
 */
export const middlewareHookNames = <P extends Points>(middleware: Middleware<P>): readonly string[] => {
  const names = new Set<string>();
  for (const [, hooks] of entries(middleware)) for (const hook of hooks) names.add(hook.name);
  return [...names];
};

function* flatten<P extends Points>(items: readonly MiddlewareInput<P>[]): Generator<Middleware<P>> {
  for (const item of items) {
    if (item === null || item === undefined || item === false) continue;
    if (Array.isArray(item)) yield* flatten(item as readonly MiddlewareInput<P>[]);
    else {
      checkMiddleware(item as Middleware<P>);
      yield item as Middleware<P>;
    }
  }
}

const entries = <P extends Points>(middleware: Middleware<P>): [string, readonly Hook[]][] =>
  Object.entries(middleware.hooks as Record<string, Hook | readonly Hook[] | undefined>)
    .filter((e): e is [string, Hook | readonly Hook[]] => e[1] !== undefined)
    .map(([point, hooks]) => [point, Array.isArray(hooks) ? (hooks as readonly Hook[]) : [hooks as Hook]]);

/** Catch untyped mistakes at registration, naming the middleware (JavaScript users, configs). */
const checkMiddleware = (middleware: unknown): void => {
  const m = middleware as Partial<Middleware<Points>> | null;
  // A factory passed uncalled (`withMiddleware(stack, redaction)`) is the usual way to get a function here.
  if (typeof m === "function")
    throw new TypeError(
      `middleware must be an object { name, hooks }, got a function${(m as () => unknown).name ? `: call it (${(m as () => unknown).name}(...))` : ""}`,
    );
  if (typeof m !== "object" || m === null)
    throw new TypeError(`middleware must be an object { name, hooks }, got ${m === null ? "null" : typeof m}`);
  if (typeof m.name !== "string" || m.name === "") throw new TypeError("middleware name must be a non-empty string");
  if (typeof m.hooks !== "object" || m.hooks === null)
    throw new TypeError(`middleware "${m.name}": hooks must be an object of hooks by point`);
  for (const [point, hooks] of Object.entries(m.hooks as Record<string, unknown>)) {
    if (hooks === undefined) continue;
    const list = Array.isArray(hooks) ? hooks : [hooks];
    list.forEach((hook, i) => {
      if (typeof hook === "object" && hook !== null && !Array.isArray(hook)) return;
      const where = Array.isArray(hooks) ? `hooks.${point}[${i}]` : `hooks.${point}`;
      const got = hook === null ? "null" : Array.isArray(hook) ? "a list" : typeof hook === "function" ? "a function" : typeof hook;
      throw new TypeError(
        `middleware "${m.name}": ${where} must be a hook { name, before?, after?, around?, ... }, got ${got}${typeof hook === "function" ? ` (a phase goes in a hook: { name: "${m.name}", before: fn })` : ""}`,
      );
    });
  }
};
